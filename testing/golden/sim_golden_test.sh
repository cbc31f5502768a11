#!/bin/bash
# One recorded sim golden (sim_golden.bzl): run the program with pto-run,
# record its golden, compare it with the checked-in one; or, with
# PTO_GOLDEN_UPDATE=<workspace root>, write it there.
set -u
pto_run=$1 pto_golden=$2 program=$3 platform=$4 ranks=$5 golden=$6
name=$(basename "$golden")
out="$TEST_TMPDIR/$name"
"$pto_run" "$program" --platform="$platform" --ranks="$ranks" --record-golden="$out" || exit 1
if [[ -n ${PTO_GOLDEN_UPDATE:-} ]]; then
  dest="$PTO_GOLDEN_UPDATE/$(dirname "$golden")"
  rm -f "$dest/${name%.textproto}".*.npy
  cp "$out" "${out%.textproto}".*.npy "$dest/" 2>/dev/null || cp "$out" "$dest/"
  echo "updated $dest/$name"
  exit 0
fi
if [[ ! -f $golden ]]; then
  echo "no golden $golden yet: record it with tools/update_goldens.sh"
  exit 1
fi
if ! "$pto_golden" compare "$golden" "$out"; then
  echo
  echo "The run of $program differs from its golden $golden."
  echo "If the change is intended, re-record the goldens: tools/update_goldens.sh"
  exit 1
fi
