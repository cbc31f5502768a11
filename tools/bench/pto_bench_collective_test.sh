#!/bin/bash
# pto-bench-collective end to end on 2 simulated chips: a reduction and a
# data-movement table with one row per size, the barrier's single row, and
# the usage errors (exit status 2).
set -euo pipefail
bench=$1 pto_run=$2
fail() { echo "FAIL: $1"; exit 1; }
out=$("$bench" --pto_run="$pto_run" --collective=allreduce --ranks=2 --lanes=3 --dtype=FP16 \
  --op=max --min_bytes=1K --max_bytes=16K) || fail "allreduce run: $out"
echo "$out"
grep -q "^# allreduce, HOST rail, 2 ranks (a2a3), FP16, core_num 3$" <<<"$out" || fail header
[[ $(grep -cE "^ +[0-9]+ +[0-9]+ +fp16 +max +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%$" \
  <<<"$out") -eq 3 ]] || fail "want 3 rows (1K, 4K, 16K)"
grep -qE "^ +1024 +512 +fp16 +max " <<<"$out" || fail "1 KiB row"
out=$("$bench" --pto_run="$pto_run" --collective=all_to_all_v --ranks=2 --min_bytes=4K \
  --max_bytes=4K) || fail "all_to_all_v run: $out"
echo "$out"
grep -qE "^ +4096 +1024 +fp32 +none " <<<"$out" || fail "all_to_all_v row"
out=$("$bench" --pto_run="$pto_run" --collective=barrier --ranks=2) || fail "barrier: $out"
grep -qE "^ +0 +0 +fp32 +none " <<<"$out" || fail "barrier row"
# As under `bazel run`: the default pto-run is tools/pto-run of the bench's
# runfiles tree, with neither RUNFILES_DIR nor TEST_SRCDIR set, and no
# runfiles tree of pto-run's own (a copy of the binary): pto-run finds its
# headers in the caller's tree.
fake="$TEST_TMPDIR/bench.runfiles/pto"
mkdir -p "$fake/tools"
for e in "$PWD"/*; do [[ ${e##*/} == tools ]] || ln -s "$e" "$fake/"; done
for e in "$PWD"/tools/*; do [[ ${e##*/} == pto-run ]] || ln -s "$e" "$fake/tools/"; done
cp "$pto_run" "$fake/tools/pto-run"
abs_bench="$PWD/$bench"
out=$(cd "$fake" && env -u TEST_SRCDIR -u RUNFILES_DIR -u RUNFILES_MANIFEST_FILE \
  BUILD_WORKING_DIRECTORY="$TEST_TMPDIR" "$abs_bench" --collective=barrier --ranks=2 2>&1) ||
  fail "bench under bazel run: $out"
grep -qE "^ +0 +0 +fp32 +none " <<<"$out" || fail "barrier row under bazel run"
set +e
err=$("$bench" --pto_run="$pto_run" --collective=gather 2>&1); rc=$?
set -e
[[ $rc -eq 2 && $err == *"unknown collective 'gather'"* ]] || fail "bad collective: $rc $err"
set +e
err=$("$bench" --pto_run="$pto_run" --rail=chip 2>&1); rc=$?
set -e
[[ $rc -eq 2 && $err == *"only the HOST rail"* ]] || fail "bad rail: $rc $err"
echo PASS
