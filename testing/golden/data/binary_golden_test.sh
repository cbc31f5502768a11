#!/bin/bash
# The recorded sim golden of a program that has its own driver binary (one
# that stages inputs pto-run's pattern cannot give, e.g. valid routing
# indices): run BINARY --record-golden, compare with the checked-in golden;
# or, with PTO_GOLDEN_UPDATE=<workspace root>, write it there
# (tools/update_goldens.sh).
set -u
binary=$1 pto_golden=$2 golden=$3
name=$(basename "$golden")
out="$TEST_TMPDIR/$name"
"$binary" --record-golden="$out" --trace="$TEST_TMPDIR/trace.json" >"$TEST_TMPDIR/run.log" || {
  cat "$TEST_TMPDIR/run.log"
  exit 1
}
if [[ -n ${PTO_GOLDEN_UPDATE:-} ]]; then
  cp "$out" "$PTO_GOLDEN_UPDATE/$golden"
  echo "updated $PTO_GOLDEN_UPDATE/$golden"
  exit 0
fi
if [[ ! -f $golden ]]; then
  echo "no golden $golden yet: record it with tools/update_goldens.sh"
  exit 1
fi
if ! "$pto_golden" compare "$golden" "$out"; then
  echo
  echo "The run of $binary differs from its golden $golden."
  echo "If the change is intended, re-record the goldens: tools/update_goldens.sh"
  exit 1
fi
