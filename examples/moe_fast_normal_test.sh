#!/bin/bash
# The fast kernel's normal mode at a small shape: //examples:moe_fast_normal
# exits 0, every rank matches the plain C++ golden (the combined rows, bit for
# bit), the phase lines and DeepEP's bandwidth are printed, timing-only mode
# gives the same times, and the race detector finds no unordered pair:
#   moe_fast_normal_test.sh BIN ROUTES_PER_RANK [FLAG...]
set -euo pipefail
bin="$1"
routes="$2"
shift 2
out="$("$bin" "$@")" || { echo "$out"; echo "FAIL: exit status"; exit 1; }
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
for r in 0 1 2 3 4 5 6 7; do
  grep -Eq "^ +$r +$routes +[0-9]+ +[0-9]+  OK$" <<<"$out" || fail "rank $r is not OK"
done
for k in dispatch local_expert combine; do
  grep -Eq "^$k +[0-9.]+ us" <<<"$out" || fail "$k line"
done
grep -Eq "^DeepEP bandwidth: dispatch +[0-9.]+ GB/s, combine +[0-9.]+ GB/s" <<<"$out" || fail "DeepEP bandwidth"
grep -q "^result: every rank matches the golden$" <<<"$out" || fail "result line"
tonly="$("$bin" "$@" --timing-only --race-detection)" || { echo "$tonly"; fail "timing-only: exit status"; }
for k in "simulated time" "dispatch " "local_expert " "combine " "DeepEP"; do
  [ "$(grep "^$k" <<<"$out")" = "$(grep "^$k" <<<"$tonly")" ] || fail "timing-only differs: $k"
done
grep -q "^GM races: 0$" <<<"$tonly" || { echo "$tonly"; fail "GM races"; }
grep -q "^result: timing-only run complete (outputs not checked)$" <<<"$tonly" || fail "timing-only result"
echo PASS
