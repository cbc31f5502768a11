#!/usr/bin/env bash
# README command 1 (the main job, for now): installs what is missing, builds
# pto-opt and prints every example program after the default pass pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh || exit 1
bazel build //tools:pto-opt
for f in examples/*.pto; do
  echo "==== $f (after --pipeline=default)"
  bazel-bin/tools/pto-opt "$f" --pipeline=default --verify-each
done
