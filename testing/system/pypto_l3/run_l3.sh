#!/bin/bash
# Runs one PyPTO-style L3 program with pto-run on 2 simulated a2a3 chips
# (default pipeline, every pass verified, code generation, the simulator) and
# checks its outputs against our golden (check_l3.py).
# Usage: run_l3.sh PTO_RUN CHECK_L3 PROGRAM.pto NAME
set -euo pipefail
pto_run=$1 check=$2 program=$3 name=$4
out=${TEST_TMPDIR:-$(mktemp -d)}/out
"$pto_run" "$program" --platform=a2a3 --ranks=2 --outputs="$out" --nosummary
python3 "$check" "$name" "$out"
