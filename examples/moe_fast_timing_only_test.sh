#!/bin/bash
# The fast MoE layer at a shape checked in timing-only mode only (A3 EP16 / EP32:
# the full mode's golden check runs at EP8, //examples:moe_fast_dispatch_combine_deepep_t128_a3_test,
# and the two modes give the same times there): one timing-only run exits 0,
# prints its phase lines and stays under the bounds:
#   moe_fast_timing_only_test.sh BIN MAX_DISPATCH_US MAX_COMBINE_US [FLAG...]
set -euo pipefail
bin="$1"
max_dispatch="$2"
max_combine="$3"
shift 3
out="$("$bin" "$@" --timing-only)" || { echo "$out"; echo "FAIL: exit status"; exit 1; }
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
grep -q "^result: timing-only run complete (outputs not checked)$" <<<"$out" || fail "result line"
phase() { sed -nE "s/^$1 +([0-9.]+) us.*/\\1/p" <<<"$out"; }
under() {  # under NAME VALUE BOUND
  awk -v t="$2" -v b="$3" 'BEGIN { exit !(t > 0 && t <= b) }' || fail "$1 '$2' us is over $3 us"
}
under dispatch "$(phase dispatch)" "$max_dispatch"
under combine "$(phase combine)" "$max_combine"
echo PASS
