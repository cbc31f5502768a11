#!/usr/bin/env bash
# README command 2: installs what is missing, runs every test (bazel test
# //...), then the ASan + UBSan build of the CI subset and the TSan build of
# the threaded code (docs/sanitizers.md),
# and ends with the count of test targets per pass, then one total line
# ("N passed, N failed").
#   PTO_ASAN=0 bash tools/test.sh   # skip the ASan pass (PTO_TSAN=0: the TSan pass)
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh || exit 1

# The sanitizer pass of CI (docs/sanitizers.md): the runtime and the
# simulator (SystemC coroutines, raw GM pointers, the kernels run natively)
# and the readers of user files that pto-run uses, under ASan + UBSan. It
# fits the 30-minute budget of a fresh 2-core machine; the rest is the
# nightly run: bazel test --config=asan //...
PTO_ASAN_TARGETS=(
  //common/...
  //runtime/...
  //sim/...
  //testing/fuzz:kernel_config_fuzzer_regression
  //testing/fuzz:npy_fuzzer_regression
  //testing/fuzz:platform_fuzzer_regression
)

# The ThreadSanitizer pass: the code that starts threads (the hw backend's
# per-device dispatch workers, runtime/core/device_workers.cc, and the
# threaded block runs of the pto-isa layer's tests). Not sim/: SystemC's
# coroutine switches have no TSan fiber annotations (docs/sanitizers.md).
#   PTO_TSAN=0 bash tools/test.sh   # skip it
PTO_TSAN_TARGETS=(
  //runtime/core:ordered_launch_test
  //hw/pto_isa:pto_isa_vs_sim_test
)
# Everything those tests link is under runtime/ and hw/ (with the kernels
# pto-compile generates into hw/), and that is what TSan instruments; the
# compiler, which only generates those kernels at build time, is not. In
# the normal output tree (no --platform_suffix), so its objects are the
# ones `bazel test //...` built above, not recompiled under TSan
# (--config=tsan, which instruments everything, is the developers' full
# run; docs/sanitizers.md). The tests link statically, so the shared
# libraries of bazel-out/k8-opt that other tests load stay uninstrumented.
PTO_TSAN_FLAGS=(
  '--per_file_copt=^runtime/.*,^hw/.*,^bazel-out/[^/]*/bin/hw/.*@-fsanitize=thread,-fno-omit-frame-pointer'
  --linkopt=-fsanitize=thread
  --dynamic_mode=off
  --test_env=TSAN_OPTIONS=halt_on_error=1
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

passed=0 failed=0
count() {  # count LOG: adds the log's targets to the totals
  local p f
  p=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$1")
  f=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|INCOMPLETE|NO STATUS|FAILED TO BUILD)' "$1")
  passed=$((passed + p)) failed=$((failed + f))
  last="${p} passed, ${f} failed"
}

bazel test //... "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
count "$log"
summary="bazel test //...: ${last}"
if [[ ${PTO_ASAN:-1} != 0 ]]; then
  : >"$log"
  bazel test --config=asan --build_tests_only "$@" -- "${PTO_ASAN_TARGETS[@]}" 2>&1 | tee "$log"
  asan_rc=${PIPESTATUS[0]}
  ((rc == 0)) && rc=$asan_rc
  count "$log"
  summary="${summary}; asan+ubsan: ${last}"
fi
if [[ ${PTO_TSAN:-1} != 0 ]]; then
  : >"$log"
  bazel test "${PTO_TSAN_FLAGS[@]}" --build_tests_only "$@" -- "${PTO_TSAN_TARGETS[@]}" 2>&1 |
    tee "$log"
  tsan_rc=${PIPESTATUS[0]}
  ((rc == 0)) && rc=$tsan_rc
  count "$log"
  summary="${summary}; tsan: ${last}"
fi
echo "$summary"
echo "${passed} passed, ${failed} failed"
exit "$rc"
