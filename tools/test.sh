#!/usr/bin/env bash
# README command 2: installs what is missing, then runs every test
# (bazel test //...) and ends with a one-line count of test targets.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bazel test //... "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|INCOMPLETE|NO STATUS|FAILED TO BUILD)' "$log")
echo "${passed} passed, ${failed} failed"
exit "$rc"
