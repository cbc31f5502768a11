#!/usr/bin/env bash
# README command 1, the main job: installs what is missing, prints every
# example program after the default pass pipeline, then runs the MoE-style
# dispatch layer (examples/moe_dispatch.pto) on 8 simulated 910B chips: every
# rank checked against the golden, a summary, and a Perfetto trace. Extra
# arguments go to the MoE run (e.g. --trace=PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh || exit 1
bazel build //tools:pto-opt //examples:moe_dispatch
for f in examples/*.pto; do
  echo "==== $f (after --pipeline=default)"
  bazel-bin/tools/pto-opt "$f" --pipeline=default --verify-each
done
echo "==== //examples:moe_dispatch (examples/moe_dispatch.pto on 8 simulated chips)"
# Exits non-zero when any rank differs from the golden.
bazel run //examples:moe_dispatch -- "$@"
