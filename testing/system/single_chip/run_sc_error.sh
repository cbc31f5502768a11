#!/bin/bash
# Runs one single-chip program that must fail at run time with pto-run (on
# pto-run's input pattern) and checks that pto-run exits non-zero with the
# expected latched error.
# Usage: run_sc_error.sh PTO_RUN PROGRAM.pto EXPECTED_TEXT
set -uo pipefail
pto_run=$1 program=$2 expected=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mkdir -p "$tmp/out"
if "$pto_run" "$program" --outputs="$tmp/out" --nosummary >"$tmp/log" 2>&1; then
  echo "pto-run succeeded; expected the error: $expected"
  exit 1
fi
if ! grep -qF -- "$expected" "$tmp/log"; then
  echo "pto-run failed without the expected error: $expected"
  cat "$tmp/log"
  exit 1
fi
echo "pto-run failed as expected: $(grep -F -- "$expected" "$tmp/log" | head -1)"
