#!/bin/bash
# The headline table on two small payloads: both rails, with core_num=1 and
# core_num=32, verified against the golden (and their all_to_all_v launch
# width), the HOST rail in 3 L3 -> L2 round trips per card and the CHIP rail in
# 1, and the CHIP rail faster end to end than the HOST rail of its core_num.
set -euo pipefail
bin="$1"
out="$("$bin" --sizes=4,64)" || { echo "$out"; echo "FAIL: exit status"; exit 1; }
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
for kib in 4 64; do
  grep -Eq "^\| $kib KiB \| HOST \| 3 \| .* \| OK \|" <<<"$out" || fail "$kib KiB HOST row"
  grep -Eq "^\| $kib KiB \| CHIP \| 1 \| .* \| [0-9.]+x \| OK \|" <<<"$out" || fail "$kib KiB CHIP row"
  grep -Eq "^\| $kib KiB \| HOST, core_num=32 \| 3 \| .* \|  \| OK \|" <<<"$out" ||
    fail "$kib KiB wide HOST row"
  grep -Eq "^\| $kib KiB \| CHIP, core_num=32 \| 1 \| .* \| [0-9.]+x \| OK \|" <<<"$out" ||
    fail "$kib KiB wide CHIP row"
done
# The CHIP rail saves two round trips: a speed-up above 1 over the HOST row of
# the same core_num at every size.
if grep -E "^\| [0-9]+ KiB \| CHIP[ ,]" <<<"$out" | grep -Eq "\| 0\.[0-9]+x \|"; then
  fail "CHIP rail slower than HOST"
fi
if "$bin" --sizes=3 >/dev/null 2>&1; then fail "accepted --sizes=3"; fi
echo PASS
