#!/bin/bash
# tools/ never depends on testing/ (docs/architecture.md): no label of the
# dependency closure of every tools/ target is under //testing. The closure
# must hold labels the tools really link (a walk that found nothing would pass
# for the wrong reason).
set -u
closure=$1
status=0
for want in //tools/golden:recorder //common:npy //sim/system:system //tools/lit:run_lit.sh; do
  if ! grep -qxF "$want" "$closure"; then
    echo "the closure misses $want: the dependency walk is broken"
    status=1
  fi
done
if grep -E '^//testing[/:]' "$closure"; then
  echo "tools/ reaches the labels above under //testing; move what the tools need out of testing/"
  status=1
fi
exit $status
