#!/bin/bash
# The generated and the builtin kernel give the same bytes on pto-isa's CPU
# simulation as on the simulator's kernel API (each also checked against the
# definition by kernel_runs.cc itself).
set -euo pipefail
isa="$1"
sim="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$isa" >"$tmp/isa.txt" 2>"$tmp/isa.err" || { cat "$tmp/isa.err" >&2; echo "FAIL: pto-isa run" >&2; exit 1; }
"$sim" >"$tmp/sim.txt" 2>"$tmp/sim.err" || { cat "$tmp/sim.err" >&2; echo "FAIL: simulator run" >&2; exit 1; }
grep -q '^scaled_add.out' "$tmp/isa.txt" || { echo "FAIL: no scaled_add output" >&2; exit 1; }
grep -q '^all_to_all_v.rank1.target' "$tmp/isa.txt" || { echo "FAIL: no all_to_all_v output" >&2; exit 1; }
for key in mm_acc_f16.c mm_bias_f32.c mm_btrans_f16.c mm_int8.c mix.c mix.d; do
  grep -q "^$key" "$tmp/isa.txt" || { echo "FAIL: no $key output" >&2; exit 1; }
done
if ! diff "$tmp/sim.txt" "$tmp/isa.txt" >"$tmp/diff.txt"; then
  echo "FAIL: pto-isa and the simulator differ:" >&2
  head -40 "$tmp/diff.txt" >&2
  exit 1
fi
echo "ok"
