#!/bin/bash
# A builtin's kernel.cpp.in references only {{dtype_cpp}} (spec §4.11: the HOST
# and CHIP rails must render byte-identical kernels), and each rendering is
# the template with exactly that key replaced.
# Args: TEMPLATE FP32_RENDERING INT8_RENDERING INT8_NAMESPACE
set -u
tmpl="$1"; fp32="$2"; int8="$3"; int8_ns="$4"
fail() { echo "FAIL: $*"; exit 1; }
keys="$(grep -o '{{[^}]*}}' "$tmpl" | sort -u)"
[ "$keys" = "{{dtype_cpp}}" ] || fail "template keys: $keys"
for f in "$fp32" "$int8"; do
  ! grep -q '{{\|}}' "$f" || fail "placeholder left in $f"
done
cmp -s <(sed 's/{{dtype_cpp}}/float/g' "$tmpl") "$fp32" || fail "fp32 rendering differs"
cmp -s <(sed 's/{{dtype_cpp}}/int8_t/g' "$tmpl") "$int8" || fail "int8 rendering differs"
grep -q "namespace $int8_ns {" "$int8" || fail "int8 namespace"
echo PASS
