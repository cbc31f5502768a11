#!/bin/bash
# DeepEP-Ascend's algorithm as our program (docs/moe.md): BIN exits 0, every rank
# matches the plain C++ golden (every received row's scale and triple, and the
# combined FP16 rows, bit for bit), the phase lines are printed, timing-only
# mode gives the same phase times, and the race detector finds no unordered
# pair of GM accesses:
#   moe_deepep_dispatch_combine_test.sh BIN RANKS [FLAG...]
set -euo pipefail
bin="$1"
ranks="$2"
shift 2
fail() { echo "FAIL: $1"; exit 1; }
out="$("$bin" "$@" --trace="${TEST_TMPDIR:-/tmp}/moe_deepep_trace.json")" || { echo "$out"; fail "exit status"; }
echo "$out"
for ((r = 0; r < ranks; ++r)); do
  grep -Eq "^ +$r +[0-9]+ +[0-9]+  OK$" <<<"$out" || fail "rank $r is not OK"
done
for k in "simulated time" "dispatch " "local_expert " "combine "; do
  grep -Eq "^$k +[0-9.]+ us" <<<"$out" || fail "phase line: $k"
done
grep -q "^result: every rank matches the golden$" <<<"$out" || fail "result line"
tonly="$("$bin" "$@" --timing-only --race-detection)" || { echo "$tonly"; fail "timing-only: exit status"; }
for k in "simulated time" "dispatch " "local_expert " "combine "; do
  [ "$(grep "^$k" <<<"$out")" = "$(grep "^$k" <<<"$tonly")" ] || fail "timing-only differs: $k"
done
grep -q "^GM races: 0$" <<<"$tonly" || { echo "$tonly"; fail "GM races"; }
if "$bin" --bogus >/dev/null 2>&1; then fail "accepted --bogus"; fi
echo PASS
