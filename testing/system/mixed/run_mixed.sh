#!/bin/bash
# Runs PROGRAM.pto (no HOST orchestrator: its chip orchestration on one
# simulated a2a3 chip) with pto-run, then checks its outputs.
# Usage: run_mixed.sh PTO_RUN CHECK PROGRAM.pto mixed|pipeline|split
set -euo pipefail
pto_run=$1 check=$2 program=$3 which=$4
out=${TEST_TMPDIR:-$(mktemp -d)}/out
"$pto_run" "$program" --outputs="$out" --nosummary
python3 "$check" "$which" "$out"
