#!/bin/bash
# Re-records every sim golden under testing/golden/data (tools/golden/README.md; the data: testing/golden/README.md):
# runs the golden tests with PTO_GOLDEN_UPDATE set to this workspace, so each
# writes its fresh golden (and .npy files) into the source tree instead of
# comparing. Review the diff (git diff testing/golden/data) and commit it with
# the change that moved the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel test //testing/golden/data/... --nocache_test_results \
  --test_env=PTO_GOLDEN_UPDATE="$PWD" "$@"
git status --short testing/golden/data
