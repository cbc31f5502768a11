#!/bin/bash
# pto-golden compare: exit status 0 / 1 / 2 and the report's first differing
# element and timing table, on hand-written goldens (testdata/).
set -u
tool=$1
data=$(dirname "$2")
fails=0
expect() {  # expect STATUS PATTERN -- ARGS...
  local want=$1 pattern=$2
  shift 3
  local out
  out=$("$tool" "$@" 2>&1)
  local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: pto-golden $* exited $got, expected $want"; echo "$out"; fails=1
  elif ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: pto-golden $* lacks: $pattern"; echo "$out"; fails=1
  fi
}
expect 0 "result: MATCH" -- compare "$data/expected.textproto" "$data/same.textproto"
expect 1 "first at [1, 1] (flat 4): expected 4, got 4.5" -- \
  compare "$data/expected.textproto" "$data/data_differs.textproto"
expect 1 "result: DIFFERS (data)" -- compare "$data/expected.textproto" "$data/data_differs.textproto"
expect 0 "OK (rtol 0.2, atol 0)" -- \
  compare "$data/expected.textproto" "$data/data_differs.textproto" --rtol=y=0.2
expect 1 "+200   +10.00%    0.00%  DIFFERS" -- \
  compare "$data/expected.textproto" "$data/slower.textproto"
expect 0 "result: MATCH" -- compare "$data/expected.textproto" "$data/slower.textproto" \
  --kernel-tolerance=stage=0.1 --time-tolerance=0.02
expect 0 "result: MATCH" -- compare "$data/expected.textproto" "$data/slower.textproto" --notiming
expect 2 "pto-golden: unknown flag '--bogus'" -- compare a b --bogus
expect 2 "compare takes two goldens" -- compare "$data/expected.textproto"
expect 2 "cannot read golden 'missing.textproto'" -- compare missing.textproto "$data/same.textproto"
expect 2 "expected KERNEL=X with X >= 0" -- compare a b --kernel-tolerance=stage
expect 0 "usage: pto-golden compare" -- --help
exit $fails
