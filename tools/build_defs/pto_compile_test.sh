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

"$compile" --help | grep -q 'usage: pto-compile FILE -o DIR' || fail "--help"
"$compile" --help | grep -q -- '--single-file=OUT.cc' || fail "--help lists --single-file"

"$compile" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no input: exit 2"
"$compile" "$program" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no output: exit 2"
"$compile" "$program" -o "$tmp/x" --bogus > /dev/null 2>&1; [ $? -eq 2 ] || fail "bad flag: exit 2"
"$compile" "$tmp/missing.pto" -o "$tmp/x" > /dev/null 2>&1; [ $? -eq 2 ] || fail "missing file: exit 2"

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
# Deterministic output.
"$compile" "$program" --templates="$templates" --single-file="$tmp/two.cc" || fail "recompile"
cmp -s "$tmp/one.cc" "$tmp/two.cc" || fail "output is not deterministic"
echo "1 passed, 0 failed"
