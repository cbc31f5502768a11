#!/usr/bin/env bash
# The check finds a function over the limit, names it with its place, and
# passes a file whose functions are short.
set -uo pipefail
check="$1" long="$2"
out="$("$check" "$long")" && { echo "FAIL: a 152-line function passed"; exit 1; }
grep -q "long_function.cc:3: Long is 152 lines (limit 150)" <<<"$out" || {
  echo "FAIL: the report does not name the function: $out"; exit 1; }
grep -q "Short" <<<"$out" && { echo "FAIL: a short function was reported: $out"; exit 1; }
"$check" --limit=200 "$long" >/dev/null || { echo "FAIL: --limit=200 still failed"; exit 1; }
echo PASS
