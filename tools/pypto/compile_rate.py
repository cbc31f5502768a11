#!/usr/bin/env python3
"""Measures how many of PyPTO's programs compile, not just parse.

Extracts the programs exactly as extract_programs.py does (same files, same
skips, same sets: distributed and single-chip, `--set` picks one), keeps those that pto-opt reads, and runs each through the default
pipeline with every pass verified: `pto-opt FILE --pipeline=default
--verify-each --platform=a2a3`. A program that fails on a2a3 is tried on a5
(the A5-only programs, e.g. URMA collectives); it counts as compiled on a5.
A program written inside `with pytest.raises(...)` (PyPTO rejects it) counts
as a success when we reject it too, at parse or in the pipeline.
Prints one line per program (compiled a2a3 / compiled a5 / fail with the first
error), and per set the top failure causes and the rate over the programs
that parse.

usage: compile_rate.py PYPTO_CHECKOUT [--out DIR] [--pto-opt PATH] [--min-rate R]
                       [--set distributed|single-chip|all]
Exit status: 0, or 1 if a set's rate is below --min-rate (default 0), 2 on bad use.
Python 3 standard library only.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_programs as ep  # noqa: E402  (the sibling script: one extraction)


def compile_on(pto_opt, path, platform):
    r = subprocess.run([pto_opt, path, "--pipeline=default", "--verify-each",
                        f"--platform={platform}"] + ep.extract_flags(path),
                       capture_output=True, text=True)
    return r.returncode == 0, ep.first_error(r.stderr)


def compile_set(args, which):
    """(rows, parsed, on_a2a3, on_a5, causes) of one source set."""
    rows, causes = [], collections.Counter()
    parsed = on_a2a3 = on_a5 = 0
    for path in ep.source_files(args.checkout, which):
        for rel, name, text, why, rejected in ep.extracts(path, args.checkout):
            if text is None:
                continue
            file = os.path.join(args.out, rel.replace(os.sep, "_")[:-3] + "__" + name + ".pto")
            with open(file, "w", encoding="utf-8") as f:
                f.write(text)
            parses = subprocess.run([args.pto_opt, file] + ep.extract_flags(file),
                                    capture_output=True).returncode == 0
            if not parses and not rejected:
                continue  # does not parse: extract_programs.py reports it
            parsed += 1
            ok, err = compile_on(args.pto_opt, file, "a2a3") if parses else (False, "")
            if rejected:
                # PyPTO's test expects an error: rejecting it (at parse or in
                # the pipeline) is the right result, compiling it is not.
                state = "rejected" if not ok else "fail"
                if not ok:
                    on_a2a3 += 1
                else:
                    err = "compiled, but PyPTO rejects it"
                    causes[err] += 1
                rows.append((f"{rel}::{name}{ep.REJECTED_TAG}", state, err))
                continue
            state = "compiled a2a3"
            if ok:
                on_a2a3 += 1
            else:
                ok5, _ = compile_on(args.pto_opt, file, "a5")
                if ok5:
                    on_a5 += 1
                    state = "compiled a5"
                else:
                    state = "fail"
                    causes[ep.cause(err)] += 1
            rows.append((f"{rel}::{name}", state, "" if state != "fail" else err))
    return rows, parsed, on_a2a3, on_a5, causes


def main(argv):
    args = ep.common_args(argv, __doc__.split("\n\n")[0], "pypto_compile_")
    if args is None:
        return 2
    results = [(which, *compile_set(args, which)) for which in args.sets]
    width = max((len(r[0]) for _, rows, *_ in results for r in rows), default=0)
    for _, rows, *_ in results:
        for label, state, err in rows:
            print(f"{label:<{width}}  {state:<13}  {err[:160]}".rstrip())
    status = 0
    for which, rows, parsed, on_a2a3, on_a5, causes in results:
        print(f"\n== {which} set ==")
        if causes:
            print("top failure causes:")
            for c, n in causes.most_common(12):
                print(f"  {n:4d}  {c}")
        done = on_a2a3 + on_a5
        rate = done / parsed if parsed else 0.0
        print(f"{which}: compiled {done} of {parsed} programs that parse: {100 * rate:.1f}% "
              f"({on_a2a3} on a2a3, {on_a5} only on a5)")
        if rate < args.min_rate:
            status = 1
    print(f"\nextracts in {args.out}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
