#!/bin/bash
# Determinism (docs/simulator.md): every example run twice gives byte-identical
# outputs, statistics and trace. The .pto examples run through pto-run (pattern
# inputs); the MoE layer through its own binary.
# usage: determinism_test.sh PTO_RUN MOE_DISPATCH PROGRAM:PLATFORM...
set -u
pto_run=$1 moe=$2
shift 2
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
run_twice() {  # name, then the command; {} in it is replaced by the run's directory
  local name=$1
  shift
  for k in 1 2; do
    local d="$tmp/$name.$k"
    mkdir -p "$d"
    local cmd=("${@//\{\}/$d}")
    if ! "${cmd[@]}" >"$d/stdout" 2>"$d/stderr"; then
      echo "FAIL: $name: run $k exited non-zero"; cat "$d/stderr"; fail=1; return
    fi
    # Printed paths name the run's own directory.
    sed -i "s#$d#{}#g" "$d/stdout" "$d/stderr"
  done
  if ! diff -r "$tmp/$name.1" "$tmp/$name.2" >"$tmp/$name.diff"; then
    echo "FAIL: $name: two runs differ"; head -20 "$tmp/$name.diff"; fail=1
  else
    echo "ok: $name: $(ls "$tmp/$name.1" | tr '\n' ' ')identical"
  fi
}
for spec in "$@"; do
  program=${spec%%:*} platform=${spec##*:}
  name=$(basename "$program" .pto)
  run_twice "$name" "$pto_run" "$program" --platform="$platform" --ranks=2 \
    --outputs={}/out --trace={}/trace.json --stats={}/stats.textproto
done
run_twice moe_dispatch "$moe" --trace={}/trace.json
# The trace and statistics must be non-trivial for the comparison to mean anything.
for f in "$tmp"/*.1/trace.json; do
  [[ $(wc -c <"$f") -gt 1000 ]] || { echo "FAIL: $f is nearly empty"; fail=1; }
done
exit $fail
