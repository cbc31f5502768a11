#!/usr/bin/env python3
"""Measures how many of PyPTO's distributed programs our front end reads.

Given a PyPTO checkout, extracts every `@pl.program` class and `@pl.jit`
function (`@pl.jit`, `@pl.jit.host`, `@pl.jit.incore`, with the jit functions
they call) from the files the compatibility goal names (docs/language.md,
"Compatibility with PyPTO"), together with the module- and function-level
constants they use (`SIZE = 256`, `NR = pl.dynamic("NR")`). A program that
depends on Python outside the language (torch, helper functions, f-strings,
test parameters) is skipped with the reason. Each extract is written to
OUT_DIR/<file>__<name>.pto, then `pto-opt` reads it, prints it, and reads and
prints the print again: a program passes when both steps succeed and the
second print equals the first (a fixed point). A program written inside
`with pytest.raises(...)` is one PyPTO rejects: it passes when we reject it
too. Prints a table with the first
error of each failure, the top failure causes and the rate.

usage: extract_programs.py PYPTO_CHECKOUT [--out DIR] [--pto-opt PATH] [--min-rate R]
Exit status: 0, or 1 if the rate is below --min-rate (default 0), 2 on bad use.
Python 3 standard library only. Nothing of PyPTO's is kept outside OUT_DIR.
"""
import argparse
import ast
import builtins
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

# The files of the compatibility goal, relative to the checkout.
SOURCES = [
    "tests/st/distributed/**/*.py",
    "tests/ut/ir/transforms/test_*comm*.py",
    "tests/ut/**/test_lower_host_tensor_collectives.py",
    "tests/ut/**/test_materialize_dist_tensor_ctx.py",
    "tests/ut/**/test_insert_comm_fence.py",
    "tests/ut/**/test_distributed_ops.py",
    "examples/distributed/**/*.py",
]

REJECTED_TAG = " (PyPTO rejects it)"
HEADER = "import pypto.language as pl\nimport pypto.language.distributed as pld\n"
# Names a program may use without defining them: the language's modules and the
# Python builtins the language itself reads.
LANGUAGE_NAMES = {"pl", "pld", "self", "range", "len", "min", "max", "int", "float", "bool",
                  "tuple", "Tuple", "True", "False", "None"}
PYTHON_MODULES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "math": "math",
                  "os": "os", "sys": "sys", "pytest": "pytest", "random": "random"}


def source_files(root):
    seen = set()
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            if path not in seen and os.path.isfile(path):
                seen.add(path)
                yield path


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr if base else None
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return None


def is_program(node):
    return isinstance(node, ast.ClassDef) and any(
        (dotted(d) or "") in ("pl.program", "program") for d in node.decorator_list)


def is_jit(node):
    return isinstance(node, ast.FunctionDef) and any(
        (dotted(d) or "").startswith(("pl.jit", "jit")) for d in node.decorator_list)


def bound_names(node):
    """Names bound anywhere inside `node` (params, targets, loop and with vars)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
        if isinstance(n, ast.arguments):
            for a in n.posonlyargs + n.args + n.kwonlyargs:
                names.add(a.arg)
            for a in (n.vararg, n.kwarg):
                if a is not None:
                    names.add(a.arg)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
    return names


def free_names(node):
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - bound_names(node)


class Scope:
    """The simple assignments (`NAME = expr`) and definitions of one scope."""

    def __init__(self, body, parent=None):
        self.parent = parent
        self.consts = {}
        self.funcs = {}
        self.imports = {}
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name):
                self.consts[stmt.targets[0].id] = stmt
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
                self.consts[stmt.target.id] = stmt
            elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                self.funcs[stmt.name] = stmt
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    self.imports[alias.asname or alias.name.split(".")[0]] = (
                        getattr(stmt, "module", None) or alias.name)

    def lookup(self, name):
        scope = self
        while scope is not None:
            for table, kind in ((scope.consts, "const"), (scope.funcs, "def"),
                                (scope.imports, "import")):
                if name in table:
                    return kind, table[name], scope
            scope = scope.parent
        return None, None, None


def language_expr(node):
    """Why `node` (a constant's value) is not a language constant, or None."""
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr):
            return "an f-string"
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
                          ast.Dict)):
            return "a Python " + type(n).__name__.lower()
        if isinstance(n, ast.Call):
            name = dotted(n.func) or ""
            if not (name.startswith(("pl.", "pld.")) or name.endswith(".get_byte") or
                    name in ("int", "float", "min", "max", "len")):
                return f"a call of {name or 'an expression'}"
        if isinstance(n, ast.Attribute):
            root = dotted(n)
            if root and root.split(".")[0] not in ("pl", "pld") and not root.endswith("get_byte"):
                head = root.split(".")[0]
                if head in PYTHON_MODULES:
                    return "uses " + PYTHON_MODULES[head]
    return None


def collect(node, scope, program_names):
    """(constant statements in dependency order, extra jit defs, skip reason)."""
    consts, extra = [], []
    order = []
    pending = [node]
    visited_names = set()
    while pending:
        current = pending.pop()
        for n in ast.walk(current):
            if isinstance(n, ast.JoinedStr):
                return None, None, "uses an f-string"
        for name in sorted(free_names(current)):
            if name in LANGUAGE_NAMES or name in visited_names or name in program_names:
                continue
            visited_names.add(name)
            kind, stmt, _ = scope.lookup(name)
            if kind == "import":
                module = stmt.split(".")[0]
                if module in ("pypto",):
                    return None, None, f"uses '{name}' imported from {stmt} (outside pl / pld)"
                return None, None, f"uses {PYTHON_MODULES.get(module, module)} ('{name}')"
            if kind == "def":
                if is_jit(stmt):
                    extra.append(stmt)
                    pending.append(stmt)
                    continue
                if isinstance(stmt, ast.ClassDef) and is_program(stmt):
                    return None, None, f"refers to another program '{name}'"
                return None, None, f"calls the Python helper '{name}'"
            if kind == "const":
                why = language_expr(stmt.value)
                if why:
                    return None, None, f"constant '{name}' is {why}"
                order.append(stmt)
                pending.append(stmt.value)
                continue
            if hasattr(builtins, name):
                return None, None, f"uses the Python builtin '{name}'"
            return None, None, f"depends on the test parameter or local '{name}'"
    # Definitions before uses: source order.
    consts = sorted(order, key=lambda s: (s.lineno, s.col_offset))
    extra = sorted({id(e): e for e in extra}.values(), key=lambda s: s.lineno)
    return consts, extra, None


def segment(src, node):
    first = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    lines = src.splitlines()[first - 1:node.end_lineno]
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return "\n".join(l[indent:] for l in lines)


def expects_error(with_stmt):
    """`with pytest.raises(...)`: PyPTO's test expects the program to be rejected."""
    return any((dotted(item.context_expr) or "").endswith("pytest.raises")
               for item in with_stmt.items)


def extracts(path, root):
    src = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, root)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        yield rel, "?", None, f"not Python: {e.msg}", False
        return
    module = Scope(tree.body)

    def walk(body, scope, rejected):
        for stmt in body:
            if is_program(stmt) or is_jit(stmt):
                yield stmt, scope, rejected
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(stmt.body, Scope(stmt.body, scope), rejected)
            elif isinstance(stmt, ast.ClassDef):
                yield from walk(stmt.body, scope, rejected)
            elif isinstance(stmt, ast.With):
                yield from walk(stmt.body, scope, rejected or expects_error(stmt))
            elif isinstance(stmt, (ast.If, ast.For, ast.Try)):
                yield from walk(stmt.body, scope, rejected)

    for node, scope, rejected in walk(tree.body, module, False):
        names = {node.name}
        consts, extra, why = collect(node, scope, names)
        if why:
            yield rel, node.name, None, why, rejected
            continue
        parts = [HEADER]
        parts += [segment(src, c) for c in consts]
        parts += [segment(src, e) for e in extra]
        parts.append(segment(src, node))
        yield rel, node.name, "\n\n".join(parts) + "\n", None, rejected


def first_error(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def run(pto_opt, path):
    """(ok, first error) of parse -> print -> re-parse -> print."""
    first = subprocess.run([pto_opt, path], capture_output=True, text=True)
    if first.returncode != 0:
        return False, first_error(first.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".pto", delete=False) as f:
        f.write(first.stdout)
        printed = f.name
    try:
        second = subprocess.run([pto_opt, printed], capture_output=True, text=True)
    finally:
        os.unlink(printed)
    if second.returncode != 0:
        return False, "re-parse of the print: " + first_error(second.stderr)
    if second.stdout != first.stdout:
        return False, "print -> parse -> print is not a fixed point"
    return True, ""


def cause(error):
    """The error without its location and names, to group failures."""
    text = re.sub(r"^.*?:\d+:\d+:\s*", "", error)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:100]


def common_args(argv, description, tmp_prefix):
    """The command line both PyPTO scripts take; None after a usage error."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("checkout")
    ap.add_argument("--out", default=None, help="extract directory (default: a fresh temp dir)")
    ap.add_argument("--pto-opt", default="bazel-bin/tools/pto-opt")
    ap.add_argument("--min-rate", type=float, default=0.0)
    args = ap.parse_args(argv)
    if not os.path.isdir(args.checkout):
        print(f"error: {args.checkout} is not a directory", file=sys.stderr)
        return None
    if not os.access(args.pto_opt, os.X_OK):
        print(f"error: {args.pto_opt} is not an executable (bazel build //tools:pto-opt)",
              file=sys.stderr)
        return None
    args.out = args.out or tempfile.mkdtemp(prefix=tmp_prefix)
    os.makedirs(args.out, exist_ok=True)
    return args


def main(argv):
    args = common_args(argv, __doc__.split("\n\n")[0], "pypto_extracts_")
    if args is None:
        return 2
    out = args.out
    rows, skipped = [], []
    written = set()
    for path in source_files(args.checkout):
        for rel, name, text, why, rejected in extracts(path, args.checkout):
            label = f"{rel}::{name}"
            if why:
                skipped.append((label, why))
                continue
            stem = re.sub(r"[^A-Za-z0-9_]+", "_", os.path.splitext(rel)[0]).strip("_")
            file = os.path.join(out, f"{stem}__{name}.pto")
            n = 2
            while file in written:  # several programs of one name in one file
                file = os.path.join(out, f"{stem}__{name}_{n}.pto")
                n += 1
            written.add(file)
            with open(file, "w", encoding="utf-8") as f:
                f.write(text)
            ok, err = run(args.pto_opt, file)
            if rejected:
                # PyPTO rejects it (its test expects the error): so must we.
                label += REJECTED_TAG
                ok, err = (not ok, err if not ok else "accepted, but PyPTO rejects it")
                if ok:
                    err = "rejected: " + err
            rows.append((label, ok, os.path.basename(file) + ": " + err if not ok else err))
    width = max([len(r[0]) for r in rows + skipped] + [10])
    print(f"{'program':<{width}}  result  first error")
    for label, ok, err in rows:
        print(f"{label:<{width}}  {'pass' if ok else 'FAIL'}    {err}")
    for label, why in skipped:
        print(f"{label:<{width}}  skip    {why}")
    passed = sum(1 for r in rows if r[1])
    counted = len(rows)
    rate = passed / counted if counted else 0.0
    causes = collections.Counter(cause(err) for _, ok, err in rows if not ok)
    if causes:
        print("\ntop failure causes:")
        for text, n in causes.most_common(10):
            print(f"  {n:4d}  {text}")
    print(f"\nextracts in {out}")
    print(f"skipped (Python outside the language): {len(skipped)}")
    expected = [r for r in rows if r[0].endswith(REJECTED_TAG)]
    print(f"of the programs PyPTO's tests expect to be rejected, we reject "
          f"{sum(1 for r in expected if r[1])} of {len(expected)} (counted below)")
    print(f"passed {passed} of {counted} programs: {100.0 * rate:.1f}%")
    return 0 if rate >= args.min_rate else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
