#!/bin/bash
# README command 1, the headline workload end to end: //examples:moe_dispatch_combine
# exits 0, reports every rank OK against the plain C++ golden, prints the
# four phases (the expert GEMM on the cube among them) with the dispatch and
# combine traffic, and writes a trace that parses as Chrome JSON with the four
# kernels on every chip.
set -euo pipefail
bin="$1"
trace="${TEST_TMPDIR:-/tmp}/moe_dc_trace.json"
out="$("$bin" --trace="$trace")" || { echo "$out"; echo "FAIL: exit status $?"; exit 1; }
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
for r in 0 1 2 3 4 5 6 7; do
  grep -Eq "^ +$r +768 +[0-9]+  OK$" <<<"$out" || fail "rank $r is not OK"
done
grep -Eq "^simulated time +[0-9.]+ us" <<<"$out" || fail "simulated time"
grep -Eq "^dispatch +[0-9.]+ us +[0-9]+ B per peer \(mean\)  busbw" <<<"$out" || fail "dispatch"
grep -Eq "^expert_gemm +[0-9.]+ us$" <<<"$out" || fail "expert_gemm"
grep -Eq "^local_expert +[0-9.]+ us$" <<<"$out" || fail "local_expert"
grep -Eq "^combine +[0-9.]+ us +[0-9]+ B per peer \(mean\)  busbw" <<<"$out" || fail "combine"
grep -qF "per route: dispatch 4160 B (x INT8 + weight + index rows), combine 128 B (FP16 row)" \
  <<<"$out" || fail "per-route bytes"
grep -qF "trace: $trace (open in https://ui.perfetto.dev)" <<<"$out" || fail "trace line"
grep -q "^result: every rank matches the golden$" <<<"$out" || fail "result line"
python3 - "$trace" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
xs = [e for e in ev if e.get("ph") == "X"]
for k in ["dispatch_step", "expert_gemm_step", "local_expert_step", "combine_step"]:
    pids = {e["pid"] for e in xs if k in e["name"]}
    assert len(pids) == 8, (k, sorted(pids))
PY
# Timing-only (docs/simulator.md): the same simulated time and phase spans,
# no outputs to check; it cannot record a golden.
tonly="$("$bin" --timing-only)" || { echo "$tonly"; fail "timing-only: exit status"; }
for k in "simulated time" "dispatch " "expert_gemm " "local_expert " "combine "; do
  [ "$(grep "^$k" <<<"$out")" = "$(grep "^$k" <<<"$tonly")" ] || fail "timing-only differs: $k"
done
grep -q "^result: timing-only run complete (outputs not checked)$" <<<"$tonly" || fail "timing-only result"
if "$bin" --timing-only --record-golden=/dev/null >/dev/null 2>&1; then fail "timing-only recorded a golden"; fi
# A fixed deadline shorter than the run needs is the located timeout error
# (the default deadline grows with the work: the runs above need no flag).
if short="$("$bin" --timing-only --op-timeout-ms=0.5)"; then fail "0.5 ms op timeout passed"; fi
grep -q "run failed at .*code=100 SCHEDULER_TIMEOUT: .*its deadline of 500000 ns of simulated time (floor 500000 ns + 0 x " <<<"$short" || { echo "$short"; fail "op timeout error"; }
if "$bin" --op-timeout-ms=0 >/dev/null 2>&1; then fail "accepted --op-timeout-ms=0"; fi
# A bad flag is a usage error, not a run.
if "$bin" --bogus >/dev/null 2>&1; then fail "accepted --bogus"; fi
echo PASS
