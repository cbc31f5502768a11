#!/bin/bash
# Runs single-chip programs with pto-run on one simulated a2a3 chip (default
# pipeline, every pass verified, code generation, the simulator) on the
# inputs our golden gives each, and checks its outputs against the golden
# (golden.cc, programs_*.cc) at the program's tolerance. Every program runs
# even when one fails; the test fails when any did, naming each.
# Under Bazel sharding (TEST_TOTAL_SHARDS) shard i runs the programs
# i, i + N, i + 2N, ... of the list.
# Usage: run_sc.sh PTO_RUN SC_GOLDEN PROGRAM.pto...
set -uo pipefail
pto_run=$1 golden=$2
shift 2
shards=${TEST_TOTAL_SHARDS:-1} shard=${TEST_SHARD_INDEX:-0}
[[ -n "${TEST_SHARD_STATUS_FILE:-}" ]] && touch "$TEST_SHARD_STATUS_FILE"
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failed=() ran=0 i=0
for program in "$@"; do
  (( i++ % shards == shard )) || continue
  name=$(basename "$program" .pto)
  dir="$tmp/$name"
  mkdir -p "$dir/in" "$dir/out"
  echo "== $name"
  if "$golden" inputs "$name" "$dir/in" &&
     "$pto_run" "$program" --inputs="$dir/in" --outputs="$dir/out" --nosummary &&
     "$golden" check "$name" "$dir/out"; then
    ran=$((ran + 1))
  else
    echo "FAIL: $name"
    failed+=("$name")
  fi
done
echo "$ran of $((ran + ${#failed[@]})) programs passed${failed:+; failed: ${failed[*]}}"
(( ${#failed[@]} == 0 && ran > 0 ))
