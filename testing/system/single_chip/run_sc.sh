#!/bin/bash
# Runs one single-chip program with pto-run on one simulated a2a3 chip
# (default pipeline, every pass verified, code generation, the simulator) on
# the inputs our golden gives it, and checks its outputs against the golden
# (golden.cc, programs_*.cc) at the program's tolerance.
# Usage: run_sc.sh PTO_RUN SC_GOLDEN PROGRAM.pto NAME
set -euo pipefail
pto_run=$1 golden=$2 program=$3 name=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mkdir -p "$tmp/in" "$tmp/out"
"$golden" inputs "$name" "$tmp/in"
"$pto_run" "$program" --inputs="$tmp/in" --outputs="$tmp/out" --nosummary
"$golden" check "$name" "$tmp/out"
