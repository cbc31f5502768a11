#!/bin/bash
# One row of the collective matrix: renders TEMPLATE (collective_host.pto.in,
# the HOST rail, or collective_incore.pto.in, the InCore rail) for COLLECTIVE
# on NR chips, runs it with pto-run and checks every rank
# against //testing/reference (collective_check).
#
# Usage: run_collective.sh PTO_RUN CHECK CALL TEMPLATE COLLECTIVE DTYPE NR OP ROOT L CALLS \
#          [EXPECT_ERROR]
# CALL is collective_call: the call on either rail, the staged window and
# the signal layout come from the collective's CollectiveDef.
# With EXPECT_ERROR the run must fail and print that text.
set -euo pipefail
pto_run=$1 check=$2 callgen=$3 template=$4 coll=$5 dtype=$6 nr=$7 op=$8 root=$9 l=${10}
calls=${11}
expect=${12:-}
size=${COLLECTIVE_SIZE:-64}  # row width; the environment may set another
tmp=${TEST_TMPDIR:-$(mktemp -d)}
sig0=$nr sig1=1
# Both rails' call syntax, staging and signal layout come from the
# collective's CollectiveDef (collective_call); nothing here names one.
call="" fill="" signal="" incall="" instage=1 done=done
if [[ $(basename "$template") == *incore* ]]; then
  # The InCore rail (collective_incore.pto.in): the collective inside the
  # kernel, on the signals LowerCompositeOps checks ([P, 1], the ring
  # [2(P-1), P]).
  eval "$("$callgen" "$coll" "$op" "$root" "$l" incore)"
  [[ -n $incall ]] || { echo "collective_call gave no InCore call for $coll" >&2; exit 2; }
  if [[ $signal == ring ]]; then sig0=$((2 * (nr - 1))) sig1=$nr; fi
else
  eval "$("$callgen" "$coll" "$op" "$root" "$l")"
  [[ -n $call ]] || { echo "collective_call gave no call for $coll" >&2; exit 2; }
  case $signal in
    lanes) sig1=$l ;;                              # one lane per launched block
    ring) sig0=$((2 * (nr - 1) + 1)) sig1=$nr ;;   # one row per ring step
  esac
fi
# barrier / broadcast / reduce_scatter builtins take a rank-1 [P] signal.
if [[ -z $incall && $signal == rank1 ]]; then
  sigshape="[$sig0]" sigzero="[0]" sigdims="$sig0"
else
  sigshape="[$sig0, $sig1]" sigzero="[0, 0]" sigdims="$sig0, $sig1"
fi
prog=$tmp/$coll.pto
# The @CALL block is emitted once per call, with @C@ = the call index.
block=()
{
  while IFS= read -r line; do
    if [[ $line == @STAGE* ]]; then
      [[ $fill == stage ]] && echo "${line#@STAGE}"
      continue
    fi
    if [[ $line == @INSTAGE* ]]; then
      [[ $instage == 1 ]] && echo "${line#@INSTAGE}"
      continue
    fi
    if [[ $line == @PARAM* ]]; then
      for ((c = 0; c < calls; c++)); do b=${line#@PARAM}; echo "${b//@C@/$c}"; done
      continue
    fi
    if [[ $line == @CALL* ]]; then
      block+=("${line#@CALL}")
      continue
    fi
    if [[ ${#block[@]} -gt 0 ]]; then
      for ((c = 0; c < calls; c++)); do
        for b in "${block[@]}"; do
          b=${b//@C@/$c}
          b=${b//@FILL@/$fill}
          echo "${b//@COLLECTIVE@/$call}"
        done
      done
      block=()
    fi
    echo "$line"
  done < "$template"
} | sed -e "s/@NR@/$nr/g" -e "s/@SIZE@/$size/g" -e "s/@DTYPE@/$dtype/g" \
        -e "s/@SIG0@/$sig0/g" -e "s/@SIG1@/$sig1/g" -e "s/@SIGSHAPE@/$sigshape/g" \
        -e "s/@SIGZERO@/$sigzero/g" -e "s/@SIGDIMS@/$sigdims/g" \
        -e "s/@INCALL@/$incall/g" -e "s/@DONE@/$done/g" > "$prog"
out=$tmp/out_$coll
rm -rf "$out"
set +e
log=$("$pto_run" "$prog" --platform=a2a3 --ranks="$nr" --outputs="$out" 2>&1)
rc=$?
set -e
if [[ -n $expect ]]; then
  if [[ $rc -eq 0 ]]; then echo "expected a failure, the run passed: $log" >&2; exit 1; fi
  if [[ $log != *"$expect"* ]]; then echo "expected '$expect' in: $log" >&2; exit 1; fi
  echo "failed as expected: $expect"
  exit 0
fi
if [[ $rc -ne 0 ]]; then echo "$log" >&2; exit 1; fi
echo "$log"
"$check" "$coll" "$dtype" "$nr" "$size" "$calls" "$op" "$root" "$out"
