#!/bin/bash
# The HOST-rail renderings (spec §4.11): per variant the chip-rail kernel,
# then the rendered entry, kernel and kernel config. No placeholder may be
# left, and the HOST kernel must be byte-identical to the CHIP-rail one.
set -u
fail() { echo "FAIL: $*"; exit 1; }
while [ $# -gt 0 ]; do
  chip="$1"; shift
  entry=""; kernel=""; config=""
  for _ in 1 2 3; do
    case "$1" in
      */orchestration/*) entry="$1" ;;
      */kernels/aiv/*) kernel="$1" ;;
      *kernel_config.textproto) config="$1" ;;
      *) fail "unexpected rendering $1" ;;
    esac
    shift
  done
  for f in "$entry" "$kernel" "$config"; do
    [ -n "$f" ] || fail "missing rendering after $chip"
    ! grep -q '{{\|}}' "$f" || fail "placeholder left in $f"
  done
  cmp -s "$chip" "$kernel" || fail "$kernel differs from the CHIP rail's $chip"
  base="$(basename "$entry" .cpp)"
  grep -q "namespace pto::builtins::$base {" "$entry" || fail "$entry namespace"
  grep -q "^void $base(" "$entry" || fail "$entry lacks the $base alias"
  grep -q "\"orchestration/$base.cpp\"" "$config" || fail "$config source"
  [ "$(basename "$kernel" .cpp)" = "${base}_kernel" ] || fail "$kernel name"
done
echo PASS
