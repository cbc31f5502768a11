#!/usr/bin/env bash
# The docs-truth check fails on a document naming a missing flag, target,
# package and file (testdata/bad.md), and names each; what exists passes.
set -uo pipefail
out=$("$1" --docs=testing/docs/testdata/bad.md "pto-run=$2" 2>&1)
rc=$?
echo "$out"
fail=0
[[ $rc -ne 0 ]] || { echo "FAIL: exit status 0"; fail=1; }
for want in "bad.md:3: pto-run has no flag --no-such-flag" \
            "bad.md:3: no target //sim/aiv:no_such_target" \
            "bad.md:4: no file sim/aiv/no_such_file.cc" \
            "bad.md:4: no package //no_such_package" \
            "4 problem(s) in 1 documents"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: missing '$want'"; fail=1; }
done
exit $fail
