#!/bin/bash
# README command 1 end to end: //examples:moe_dispatch exits 0, reports every
# rank OK against the golden and one L3 -> L2 round trip per card, and writes
# a trace that parses as Chrome JSON with the layer's three kernels in it.
set -euo pipefail
bin="$1"
trace="${TEST_TMPDIR:-/tmp}/moe_trace.json"
out="$("$bin" --trace="$trace")" || { echo "$out"; echo "FAIL: exit status $?"; exit 1; }
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
for r in 0 1 2 3 4 5 6 7; do
  grep -Eq "^ +$r +[0-9]+ +[0-9]+ +[0-9]+  OK$" <<<"$out" || fail "rank $r is not OK"
done
grep -q "^L3 -> L2 round trips  1 per card (8 cards)$" <<<"$out" || fail "round trips"
grep -Eq "^simulated time +[0-9.]+ us" <<<"$out" || fail "simulated time"
grep -Eq "^bus bandwidth +[0-9.]+ GB/s of the 392 GB/s link bound" <<<"$out" || fail "busbw"
grep -qF "trace: $trace (open in https://ui.perfetto.dev)" <<<"$out" || fail "trace line"
grep -q "^result: every rank matches the golden$" <<<"$out" || fail "result line"
python3 - "$trace" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["name"] for e in ev if e.get("ph") == "X"}
for k in ["dispatch", "expert"]:
    assert any(k in n for n in names), (k, sorted(names)[:40])
assert any("all_to_all_v" in n for n in names), sorted(names)[:40]
# Readable tracks (docs/simulator.md): none drawn empty, no AIC track (no
# kernel runs on the cube cores), and every slice carries its args.
tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
xs = [e for e in ev if e.get("ph") == "X"]
assert {(e["pid"], e["tid"]) for e in xs} == set(tracks), "a track without slices"
assert not any(n.startswith("AIC ") for n in tracks.values()), "an AIC track"
assert any(n.startswith("HCCS link") for n in tracks.values()), "no HCCS link track"
for e in xs:
    assert e.get("args"), e
    n = tracks[(e["pid"], e["tid"])]
    if n.startswith("AIV core") or n.startswith("HCCS link"):
        assert {"task", "kernel"} <= set(e["args"]), e
    if n.endswith("MTE2") or n.endswith("MTE3") or n.startswith("HCCS link"):
        assert "bytes" in e["args"] and "peer" in e["args"], e
PY
# Under `bazel run`, a relative --trace is relative to the user's directory.
BUILD_WORKING_DIRECTORY="${TEST_TMPDIR:-/tmp}" "$bin" --trace=rel_trace.json >/dev/null ||
  fail "run with a relative trace path"
[ -s "${TEST_TMPDIR:-/tmp}/rel_trace.json" ] || fail "relative trace path not under BUILD_WORKING_DIRECTORY"
# A bad flag is a usage error, not a run.
if "$bin" --bogus >/dev/null 2>&1; then fail "accepted --bogus"; fi
echo PASS
