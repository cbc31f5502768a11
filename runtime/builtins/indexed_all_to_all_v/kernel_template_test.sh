#!/bin/bash
# kernel.cpp.in references only {{dtype_cpp}}, and each rendering is the
# template with exactly that key replaced.
set -u
tmpl="$1"; fp32="$2"; int8="$3"
fail() { echo "FAIL: $*"; exit 1; }
keys="$(grep -o '{{[^}]*}}' "$tmpl" | sort -u)"
[ "$keys" = "{{dtype_cpp}}" ] || fail "template keys: $keys"
for f in "$fp32" "$int8"; do
  ! grep -q '{{\|}}' "$f" || fail "placeholder left in $f"
done
cmp -s <(sed 's/{{dtype_cpp}}/float/g' "$tmpl") "$fp32" || fail "fp32 rendering differs"
cmp -s <(sed 's/{{dtype_cpp}}/int8_t/g' "$tmpl") "$int8" || fail "int8 rendering differs"
grep -q 'namespace pto::builtins::indexed_all_to_all_v_int8_t {' "$int8" || fail "int8 namespace"
echo PASS
