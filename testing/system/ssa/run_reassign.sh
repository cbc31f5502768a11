#!/bin/bash
# Compiles reassign.pto with the default pipeline (every pass verified) and
# runs it with pto-run on 2 simulated a2a3 chips, then checks y = 9 * x.
# Usage: run_reassign.sh PTO_RUN CHECK PROGRAM.pto
set -euo pipefail
pto_run=$1 check=$2 program=$3
out=${TEST_TMPDIR:-$(mktemp -d)}/out
"$pto_run" "$program" --platform=a2a3 --ranks=2 --outputs="$out" --nosummary
python3 "$check" "$out"
