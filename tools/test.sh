#!/usr/bin/env bash
# README command 2: installs what is missing, runs every test (bazel test
# //...), then the ASan + UBSan build of the CI subset (docs/sanitizers.md),
# and ends with a one-line count of test targets per pass.
#   PTO_ASAN=0 bash tools/test.sh   # skip the sanitizer pass
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh || exit 1

# The sanitizer pass of CI: every test that finishes in reasonable time
# under ASan + UBSan on a fresh 2-core machine. The rest (testing/system,
# examples, benchmarks, the lit suites and the generated-program tests) is
# the nightly run: bazel test --config=asan //...
PTO_ASAN_TARGETS=(
  //common/...
  //compiler/...
  //runtime/...
  //sim/...
  //testing/fuzz/...
  //tools:npy_test
  //tools:run_params_test
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() {  # count LOG: "P passed, F failed"
  local p f
  p=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$1")
  f=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|INCOMPLETE|NO STATUS|FAILED TO BUILD)' "$1")
  echo "${p} passed, ${f} failed"
}

bazel test //... "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary="$(count "$log")"
if [[ ${PTO_ASAN:-1} != 0 ]]; then
  : >"$log"
  bazel test --config=asan --build_tests_only "$@" -- "${PTO_ASAN_TARGETS[@]}" 2>&1 | tee "$log"
  asan_rc=${PIPESTATUS[0]}
  ((rc == 0)) && rc=$asan_rc
  summary="${summary}; asan+ubsan: $(count "$log")"
fi
echo "$summary"
exit "$rc"
