#!/bin/bash
# The fast kernel's normal mode at DeepEP-Ascend's normal-mode shape (4096
# tokens per rank, hidden 7168, top-8 over 256 experts) on a3, timing-only, one
# run per EP (docs/performance.md, "MoE normal mode on A3"); builds the manual
# binaries first. Prints each run's phase lines and a summary row per EP:
#   examples/moe_fast_normal_sweep.sh [EP...]     (default: 8 16 32 64 128)
set -euo pipefail
[ $# -gt 0 ] || set -- 8 16 32 64 128
eps=("$@")
targets=()
for ep in "${eps[@]}"; do targets+=("//examples:moe_fast_normal_t4096_ep$ep"); done
bazel build "${targets[@]}"
bin_dir="$(bazel info bazel-bin)/examples"
for ep in "${eps[@]}"; do
  out="$(/usr/bin/time -f "wall %e s, CPU %U s, resident %M kB" \
    "$bin_dir/moe_fast_normal_t4096_ep$ep" --platform=a3 --timing-only 2>&1)"
  grep -E "^(dispatch|local_expert|combine|DeepEP|simulated|result|wall)" <<<"$out" | sed "s/^/EP$ep: /"
done
