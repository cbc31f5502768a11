#!/bin/bash
# The build-time renderer's command line: renders, fails on a missing key or a
# malformed pair, and never leaves a partial output behind on failure.
set -u
tool="$1"
dir="${TEST_TMPDIR:-/tmp}/render_cli"
mkdir -p "$dir"
printf 'using T = {{dtype_cpp}};\n' >"$dir/in"
fail() { echo "FAIL: $*"; exit 1; }

"$tool" "$dir/in" "$dir/out" dtype_cpp=int8_t || fail "render failed"
[ "$(cat "$dir/out")" = "using T = int8_t;" ] || fail "wrong output: $(cat "$dir/out")"

rm -f "$dir/out2"
if "$tool" "$dir/in" "$dir/out2" variant=fp32 2>"$dir/err"; then
  fail "missing key accepted"
fi
grep -q "no value for placeholder '{{dtype_cpp}}'" "$dir/err" || fail "message: $(cat "$dir/err")"
[ ! -e "$dir/out2" ] || fail "partial output written"

"$tool" "$dir/in" "$dir/out2" dtype_cpp 2>/dev/null && fail "malformed pair accepted"
"$tool" 2>/dev/null; [ $? -eq 2 ] || fail "usage exit status"
"$tool" "$dir/missing" "$dir/out3" 2>/dev/null && fail "missing input accepted"
echo PASS
