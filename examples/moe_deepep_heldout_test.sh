#!/bin/bash
# A held-out row of docs/simulator.md ("Held out: DeepEP-Ascend's kernel"): the
# DeepEP-algorithm program at one of DeepEP-Ascend's published shapes, run in
# timing-only mode (the full mode's times, //examples:moe_deepep_dispatch_combine_small_test
# checks the two agree), must give the simulated dispatch and combine times
# recorded in docs/simulator.md to 0.5 %; it prints the error against the
# published figure. The rows are held out: no model parameter is fitted on
# them, so a drift means a model change moved them, and the doc's row must be
# re-recorded with the change that moved it.
#   moe_deepep_heldout_test.sh BIN DISPATCH_US COMBINE_US PUB_DISPATCH_US PUB_COMBINE_US [FLAG...]
set -euo pipefail
bin="$1"
want_d="$2"
want_c="$3"
pub_d="$4"
pub_c="$5"
shift 5
fail() { echo "FAIL: $1"; exit 1; }
out="$("$bin" "$@" --timing-only)" || { echo "$out"; fail "exit status"; }
echo "$out"
grep -q "^result: timing-only run complete (outputs not checked)$" <<<"$out" || fail "result line"
phase() { sed -nE "s/^$1 +([0-9.]+) us.*/\\1/p" <<<"$out"; }
check() {  # check NAME GOT RECORDED PUBLISHED
  awk -v g="$2" -v w="$3" -v p="$4" -v n="$1" 'BEGIN {
    printf "%s: simulated %.2f us, recorded %.2f us, published %.0f us, error %+.1f %%\n", n, g, w, p, (g - p) / p * 100
    d = g - w; if (d < 0) d = -d
    exit !(g > 0 && d <= 0.005 * w) }' || fail "$1 drifted from its recorded $3 us"
}
check dispatch "$(phase dispatch)" "$want_d" "$pub_d"
check combine "$(phase combine)" "$want_c" "$pub_c"
echo PASS
