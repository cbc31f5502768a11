#!/bin/bash
# The InCore mesh allreduce (PyPTO's test_l3_tensor_allreduce_intrinsic.py
# form, pypto/mesh_allreduce_intrinsic.pto.in) over a sweep of sizes, powers
# of two and odd ones (primes among them: 40,961 and 65,537 once fell to
# one-element chunks, a barrier each, and ran past the block deadline), up to
# 16 Mi FP32 elements per rank, on 2, 4 and 8 simulated chips in timing-only
# mode. Every run must finish, the simulated time must not fall as the size
# grows, and an odd size must cost less than twice the power of two below it.
#
# The sizes up to 65,537 run the PyPTO program as it is (host-staged source
# and destination); the 16 Mi sizes run UNSTAGED, the same kernel on windows
# the host never writes, because pto-run stages a host tensor whole on every
# device (about 14 GB at 16 Mi on 8 ranks; docs/sweeps.md). Each (ranks,
# size) is one pto-run, so one g++ build of its program: the middle sizes
# (262,144 .. 1,048,583) were left out for that (docs/performance.md).
#
# Usage: mesh_allreduce_sweep_test.sh PTO_RUN TEMPLATE UNSTAGED_TEMPLATE
set -euo pipefail
pto_run=$1 template=$2 unstaged=$3
[[ "$pto_run" == /* ]] || pto_run="$PWD/$pto_run"
tmp=${TEST_TMPDIR:-$(mktemp -d)}
sizes=(1 17 4096 4097 32768 40961 65536 65537)
top_sizes=(16777216 16777259)  # 2^24 and the prime above it, UNSTAGED
fail() { echo "FAIL: $*" >&2; exit 1; }
for nr in 2 4 8; do
  prev=0 pow2=0
  for n in "${sizes[@]}" "${top_sizes[@]}"; do
    # PyPTO's staging: FP32 rows in [1, 8192] tiles.
    cols=8192
    [[ $n -eq 1 ]] && cols=1
    src=$template
    (( n > 65537 )) && src=$unstaged
    prog="$tmp/ar_p${nr}_$n.pto"
    sed -e "s/@NR@/$nr/g" -e "s/@SIZE@/$n/g" -e "s/@STAGE_ROWS@/1/g" -e "s/@STAGE_COLS@/$cols/g" \
        -e "s/@DTYPE@/FP32/g" -e "s/@OP@/Sum/g" "$src" >"$prog"
    out=$("$pto_run" "$prog" --ranks="$nr" --timing-only --nosummary 2>&1) ||
      fail "P=$nr SIZE=$n: $out"
    us=$(sed -nE 's/^pto-run: .* simulated ([0-9.]+) us;.*/\1/p' <<<"$out")
    [[ -n "$us" ]] || fail "P=$nr SIZE=$n: no simulated time in: $out"
    echo "P=$nr SIZE=$n simulated $us us"
    # A size may beat the one below it by under 1 %: other segment bounds
    # change the DMAs' order at the shared egress port (P=4: 2^24 + 43
    # elements end 0.15 % before 2^24).
    awk -v a="$us" -v b="$prev" 'BEGIN { exit !(a + 0 >= 0.99 * b) }' ||
      fail "P=$nr SIZE=$n: $us us is over 1 % less than the smaller size's $prev us"
    if (( (n & (n - 1)) == 0 )); then
      pow2=$us
    else
      awk -v a="$us" -v b="$pow2" 'BEGIN { exit !(b == 0 || a + 0 < 2 * b) }' ||
        fail "P=$nr SIZE=$n: $us us is 2x or more the power of two below it ($pow2 us)"
    fi
    prev=$us
  done
done
echo "ok"
