#!/bin/bash
# The generated C++ of one program compiled for several platforms
# (system_test.bzl, shared_all_to_all_v_program): every file must equal the
# first, else the rows that share its compiled program would simulate code
# their platform does not get.
set -u
first=$1
shift
status=0
for other in "$@"; do
  if ! cmp -s "$first" "$other"; then
    echo "FAIL: $other differs from $first:"
    diff "$first" "$other" | head -20
    status=1
  fi
done
((status == 0)) && echo "PASS: $# platform(s) give the same C++ as $first"
exit $status
