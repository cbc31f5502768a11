#!/bin/bash
# Runs one PyPTO-style L3 program with pto-run on 2 simulated a2a3 chips
# (default pipeline, every pass verified, code generation, the simulator) on
# the inputs our golden gives it (PyPTO's test values, or pto-run's pattern),
# and checks its outputs against the golden (l3_golden.cc).
# Usage: run_l3.sh PTO_RUN L3_GOLDEN PROGRAM.pto NAME
set -euo pipefail
pto_run=$1 golden=$2 program=$3 name=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mkdir -p "$tmp/in" "$tmp/out"
"$golden" inputs "$name" "$tmp/in"
"$pto_run" "$program" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --outputs="$tmp/out" --nosummary
"$golden" check "$name" "$tmp/out"
