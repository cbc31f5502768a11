#!/bin/bash
# extract_programs.py on a synthetic PyPTO-like tree of ours: passes, the
# failure with its first error, every skip reason, both sets' rates, the
# substituted test values, --set and --min-rate.
set -u
script="$1"; pto_opt="$2"; tree="${3%/tests/st/distributed/test_synthetic.py}"
out="${TEST_TMPDIR:-$(mktemp -d)}/extracts"
fail=0
expect() {
  if ! grep -qF -- "$1" "$log"; then echo "missing: $1"; fail=1; fi
}
log="${TEST_TMPDIR:-/tmp}/extract.log"
python3 "$script" "$tree" --out "$out" --pto-opt "$pto_opt" > "$log" 2>&1
rc=$?
cat "$log"
[ "$rc" -eq 0 ] || { echo "exit status $rc, want 0"; fail=1; }
expect "tests/st/distributed/test_synthetic.py::Passes"
grep -q "test_synthetic.py::Passes  *pass" "$log" || { echo "Passes did not pass"; fail=1; }
grep -q "test_insert_comm_fence.py::Local  *pass" "$log" || { echo "Local did not pass"; fail=1; }
grep -q "01_synthetic.py::Notify  *pass" "$log" || { echo "Notify did not pass"; fail=1; }
expect "UnknownOperator"
expect "error: unknown operator 'pl.tile.bogus'"
expect "UsesTorch"
expect "constant 'SCALE' is a call of torch.tensor"
expect "calls the Python helper 'helper'"
expect "depends on the test parameter or local 'n_cols'"
expect "uses an f-string"
expect "found 9 programs; skipped (Python outside the language): 4 (44.4%)"
grep -q "test_insert_comm_fence.py::Rejected (PyPTO rejects it)  *pass  *rejected: .*unknown operator 'pl.tile.bogus'" "$log" ||
  { echo "Rejected is not counted as rejected"; fail=1; }
expect "we reject 1 of 1"
expect "distributed: passed 4 of 5 programs: 80.0%"
# The single-chip set: values the test gives its programs' names are substituted.
for p in FromInit FromParametrize FromCallSite bare_add table_copy helper_copy FromNamedTable compiled_copy mode_copy; do
  grep -q "test_values.py::$p  *pass" "$log" || { echo "$p did not pass"; fail=1; }
done
expect "depends on the test parameter or local 'fixture_value' (parameter 'fixture_value' has no default"
expect "single-chip: passed 14 of 14 programs: 100.0%"
# A module-level @pl.function a program calls by name, imported through a
# package's module alias (PyPTO's examples/models), joins the extract.
grep -q "examples/aliased/use.py::UsesAliased  *pass" "$log" || { echo "UsesAliased did not pass"; fail=1; }
grep -q "^def add_one" "$out"/examples_aliased_use__UsesAliased.pto ||
  { echo "the UsesAliased extract lacks its imported kernel"; fail=1; }
head -1 "$out"/tests_st_runtime_test_values__cast_copy.pto |
  grep -qx "# pto-opt --bind: cast_copy.a=\[4,32\]:FP16 cast_copy.c=\[4,32\]:FP16" ||
  { echo "cast_copy lacks the bindings of a scaled, cast tensor"; fail=1; }
# A package's entry takes its kernel and constants from sibling files, as
# Python's import does; the kernel is part of it, not a program of its own.
grep -q "examples/pkg/model.py::model  *pass" "$log" || { echo "pkg model did not pass"; fail=1; }
grep -q "examples/pkg/kernels/scale.py::double_rows  *part  *compiled as part of examples/pkg/model.py" "$log" ||
  { echo "double_rows is not part of the model"; fail=1; }
grep -qx "ROWS = 4" "$out"/examples_pkg_model__model.pto && grep -q "^def double_rows" "$out"/examples_pkg_model__model.pto ||
  { echo "the model extract lacks its imported kernel or constants"; fail=1; }
head -1 "$out"/examples_pkg_model__model.pto | grep -q "model.a=\[4,32\]:FP32 model.c=\[4,32\]:FP32" ||
  { echo "model lacks the bindings of its spread argument list"; fail=1; }
# ... and a function called through a dict of modes (`_MODES[mode](a, c)`).
head -1 "$out"/examples_pkg_model__copy_mode.pto | grep -qx "# pto-opt --bind: copy_mode.a=\[4,32\]:FP32 copy_mode.c=\[4,32\]:FP32" ||
  { echo "copy_mode lacks its bindings"; fail=1; }
# ... also through a loop over a dict of jit functions (`for n, fn in MODES.items()`).
head -1 "$out"/tests_st_runtime_test_values__mode_copy.pto |
  grep -qx "# pto-opt --bind: mode_copy.a=\[4,32\]:FP16 mode_copy.c=\[4,32\]:FP16" ||
  { echo "mode_copy lacks its bindings"; fail=1; }
# ... also at PyPTO's .compile(...), with copies of tensors and a 1-D torch.tensor.
head -1 "$out"/tests_st_runtime_test_values__compiled_copy.pto |
  grep -qx "# pto-opt --bind: compiled_copy.a=\[8,64\]:FP32 compiled_copy.c=\[8,64\]:FP32 compiled_copy.cfg=\[3\]:INT64" ||
  { echo "compiled_copy lacks its bindings"; fail=1; }
# ... and through a helper that returns the test's tensors (torch.zeros_like of one).
head -1 "$out"/tests_st_runtime_test_values__helper_copy.pto |
  grep -qx "# pto-opt --bind: helper_copy.a=\[4,64\]:INT32 helper_copy.c=\[4,64\]:INT32" ||
  { echo "helper_copy lacks its bindings"; fail=1; }
# ... also as a comprehension over the names of a dict of tensors (a copy of
# what a helper returns): `f.lower(*[tensors[n] for n in order])`.
head -1 "$out"/tests_st_runtime_test_values__dict_copy.pto |
  grep -qx "# pto-opt --bind: dict_copy.a=\[2,16\]:FP16 dict_copy.c=\[2,16\]:FP16" ||
  { echo "dict_copy lacks its bindings"; fail=1; }
# ... also through a test's loop over a table of (function, value) rows.
head -1 "$out"/tests_st_runtime_test_values__table_copy.pto |
  grep -qx "# pto-opt --bind: table_copy.a=\[8,64\]:FP32 table_copy.c=\[8,64\]:FP32" ||
  { echo "table_copy lacks its bindings"; fail=1; }
# A @pl.jit program's bare pl.Tensor parameters are bound from the torch tensors
# of its call; the jit function it calls takes its types from the call (the
# parser), and is not a program of its own.
grep -q "test_values.py::bare_inner  *part  *compiled as part of bare_add" "$log" ||
  { echo "bare_inner is not part of bare_add"; fail=1; }
expect "2 more are jit functions with bare pl.Tensor parameters that only other jit functions call"
head -1 "$out"/tests_st_runtime_test_values__bare_add.pto |
  grep -q "^# pto-opt --bind: bare_add.a=\[16,32\]:FP16 bare_add.c=\[16,32\]:FP16" ||
  { echo "bare_add lacks its bindings"; fail=1; }
v="$out"/tests_st_runtime_test_values
grep -qx "m = 16" "$v"__FromInit.pto && grep -qx "n = 64" "$v"__FromInit.pto &&
  grep -qx "dt = pl.FP32" "$v"__FromInit.pto || { echo "FromInit lacks __init__ defaults"; fail=1; }
grep -qx "rows = 8" "$v"__FromParametrize.pto && grep -qx "cols = 64" "$v"__FromParametrize.pto ||
  { echo "FromParametrize lacks the first case"; fail=1; }
grep -qx "width = 128" "$v"__FromCallSite.pto || { echo "FromCallSite lacks the call's argument"; fail=1; }
grep -qx "r = 16" "$v"__FromNamedTable.pto && grep -qx "c = 8" "$v"__FromNamedTable.pto ||
  { echo "FromNamedTable lacks the first row of _SHAPES"; fail=1; }
python3 "$script" "$tree" --set single-chip --out "$out" --pto-opt "$pto_opt" > "$log" 2>&1
if grep -q "distributed set" "$log"; then echo "--set single-chip measured the distributed set"; fail=1; fi
if grep -q "NotListed" "$log"; then echo "read a file outside the goal"; fail=1; fi
# Extracts carry the constants they use, in source order.
grep -q "^COLS = ROWS \* 2" "$out"/tests_st_distributed_test_synthetic__Passes.pto ||
  { echo "Passes extract lacks COLS"; fail=1; }
python3 "$script" "$tree" --out "$out" --pto-opt "$pto_opt" --min-rate 0.9 > /dev/null 2>&1
[ $? -eq 1 ] || { echo "--min-rate 0.9 did not fail"; fail=1; }
python3 "$script" /nonexistent --pto-opt "$pto_opt" > /dev/null 2>&1
[ $? -eq 2 ] || { echo "a missing checkout is not a usage error"; fail=1; }
exit $fail
