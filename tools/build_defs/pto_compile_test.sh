#!/usr/bin/env bash
# pto-compile's command line: exit status 0 / 1 / 2, --help, the bundle's
# deterministic file names and the single translation unit.
#   pto_compile_test.sh PTO_COMPILE KERNEL_CPP_IN EXAMPLE.pto...
set -u
compile=$1
templates=$(dirname "$(dirname "$2")")
shift 2
program=
for f in "$@"; do
  case $f in */all_to_all_v_chip.pto) program=$f ;; esac
done
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$program" ] || fail "no examples/all_to_all_v_chip.pto"

# --help is generated from the flag definitions and states the defaults.
"$compile" --help > "$tmp/help"; [ $? -eq 0 ] || fail "--help: exit 0"
grep -q 'usage: pto-compile FILE -o DIR' "$tmp/help" || fail "--help"
grep -q -- '--single-file=OUT.cc' "$tmp/help" || fail "--help lists --single-file"
grep -q -- '-o DIR ' "$tmp/help" || fail "--help lists -o DIR"
grep -q -- '(default: runtime/builtins)' "$tmp/help" || fail "--help: the --templates default"
tr -s ' \n' ' ' < "$tmp/help" | grep -q -- 'empty: no platform limits are checked' || fail "--help: the --platform default"
"$compile" -h | cmp -s - "$tmp/help" || fail "-h differs from --help"

# Usage errors: exit 2 and a pointer to --help.
"$compile" > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "no input: exit 2"
grep -qx 'pto-compile: no input file' "$tmp/err" || fail "no input: $(cat "$tmp/err")"
grep -qx '(see pto-compile --help)' "$tmp/err" || fail "no pointer to --help"
"$compile" "$program" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no output: exit 2"
"$compile" "$program" -o "$tmp/x" --bogus > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "bad flag: exit 2"
grep -qx "pto-compile: unknown flag '--bogus'" "$tmp/err" || fail "bad flag: $(cat "$tmp/err")"
"$compile" "$program" -o "$tmp/x" --platform=zz > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "bad platform: exit 2"
grep -q "unknown platform 'zz'" "$tmp/err" || fail "bad platform: $(cat "$tmp/err")"
"$compile" "$program" -o "$tmp/x" --world-size=8193 > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "world size past the cap: exit 2"
grep -qx "pto-compile: --world-size=8193: a domain holds 1 to 8192 ranks (0: decided at run time)" "$tmp/err" || fail "world size: $(cat "$tmp/err")"
"$compile" "$program" -o "$tmp/x" --world-size=-1 > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "negative world size: exit 2"
"$compile" "$program" -o > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "-o without a value: exit 2"
grep -qx 'pto-compile: --o needs a value' "$tmp/err" || fail "-o: $(cat "$tmp/err")"

# Bad input: a file that cannot be read, a binary file, a nesting deeper
# than the parser's documented limit (docs/errors.md): located errors, exit 1.
"$compile" "$tmp/missing.pto" -o "$tmp/x" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "missing file: exit 1"
grep -qx "pto-compile: cannot read '$tmp/missing.pto': No such file or directory" "$tmp/err" || fail "missing: $(cat "$tmp/err")"
"$compile" "$tmp" -o "$tmp/x" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "a directory: exit 1"
grep -q "pto-compile: cannot read '$tmp'" "$tmp/err" || fail "directory: $(cat "$tmp/err")"
head -c 200 "$compile" > "$tmp/binary.pto"
"$compile" "$tmp/binary.pto" -o "$tmp/x" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "binary: exit 1"
grep -qE "^$tmp/binary.pto:1:[0-9]+: error: source contains a NUL byte" "$tmp/err" || fail "binary: $(cat "$tmp/err")"
python3 -c "
print('import pypto.language as pl')
print('@pl.program')
print('class P:')
print('    @pl.function')
print('    def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:')
print('        return ' + '-' * 100000 + 'x')
" > "$tmp/deep.pto"
"$compile" "$tmp/deep.pto" -o "$tmp/x" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "deep: exit 1"
grep -qE "^$tmp/deep.pto:6:[0-9]+: error: .*too deeply nested \(more than 200" "$tmp/err" || fail "deep: $(head -c 300 "$tmp/err")"
[ ! -e "$tmp/x" ] || fail "a failed compile wrote output"

printf 'import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n    def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n        return y\n' > "$tmp/bad.pto"
"$compile" "$tmp/bad.pto" -o "$tmp/bad" 2> "$tmp/bad.err"; [ $? -eq 1 ] || fail "bad program: exit 1"
grep -q "bad.pto:6:16: error: unknown name 'y'" "$tmp/bad.err" || fail "diagnostic: $(cat "$tmp/bad.err")"

"$compile" "$program" -o "$tmp/out" --templates="$templates" --single-file="$tmp/one.cc" \
  || fail "compile $program"
for f in host/host_orch.cpp \
         next_levels/chip_pipeline/orchestration/chip_pipeline.cpp \
         next_levels/chip_pipeline/kernel_config.textproto \
         next_levels/chip_pipeline/kernels/aiv/__builtin_all_to_all_v__fp32.cpp \
         kernels/aiv/stage_step.cpp kernels/aiv/consume_step.cpp program.cc; do
  [ -s "$tmp/out/$f" ] || fail "missing $f"
done
cmp -s "$tmp/out/program.cc" "$tmp/one.cc" || fail "--single-file differs from program.cc"
# The CHIP rail: no builtin dispatch from the host, the kernel rendered into
# the pipeline's build and registered in func_id order.
grep -q '__builtin_all_to_all_v' "$tmp/out/host/host_orch.cpp" && fail "host dispatches a builtin"
grep -q 'void AllToAllVKernel(int64_t\* args)' "$tmp/one.cc" || fail "rendered kernel"
grep -A8 'c.name = "chip_pipeline"' "$tmp/one.cc" | grep 'kernel_names' | tr -d ' \n' \
  | grep -q '"stage_step".*"__builtin_all_to_all_v__fp32".*"consume_step"' \
  || fail "callable kernels not in func_id order"
# --world-size: the MoE example is written with pld.world_size(); it compiles
# for the rank cap (8192, the CommContext's table) and, without a world size,
# stops at the first rank loop of a kernel with a located error.
moe=
for f in "$@"; do
  case $f in */moe_dispatch_combine.pto) moe=$f ;; esac
done
[ -n "$moe" ] || fail "no examples/moe_dispatch_combine.pto"
"$compile" "$moe" --templates="$templates" --world-size=8192 --single-file="$tmp/moe8192.cc" \
  || fail "moe at --world-size=8192"
grep -qF '< int64_t{8192}; ++peer)' "$tmp/moe8192.cc" || fail "moe8192.cc: no loop over 8192 ranks"
"$compile" "$moe" --templates="$templates" --single-file="$tmp/moe.cc" 2> "$tmp/err"; [ $? -eq 1 ] || fail "moe without a world size: exit 1"
grep -qE "moe_dispatch_combine.pto:[0-9]+:[0-9]+: error: code generation does not support pld.system.world_size in a kernel yet" "$tmp/err" \
  || fail "moe without a world size: $(cat "$tmp/err")"

# Deterministic output.
"$compile" "$program" --templates="$templates" --single-file="$tmp/two.cc" || fail "recompile"
cmp -s "$tmp/one.cc" "$tmp/two.cc" || fail "output is not deterministic"
echo "1 passed, 0 failed"
