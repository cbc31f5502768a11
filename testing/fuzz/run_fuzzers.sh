#!/usr/bin/env bash
# A time-boxed libFuzzer run of every target (docs/fuzzing.md):
#   bash testing/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET] [TARGET...]
# Builds the targets with clang (--config=fuzz) in a separate Bazel output
# base, fuzzes each for SECONDS_PER_TARGET (default 60) starting from its
# seed corpus, and copies every crashing input to crashes/<target>/, where
# <target>_regression replays it in `bazel test`. New corpus entries go to
# a scratch directory (printed), not into the repo. Exits 1 if any target
# crashed.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/deps.sh || exit 1
pto_install_packages "${PTO_FUZZ_PACKAGES[@]}" || exit 1
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(parser_fuzzer pipeline_fuzzer npy_fuzzer platform_fuzzer kernel_config_fuzzer)
fi
output_base=${PTO_FUZZ_OUTPUT_BASE:-$HOME/.cache/pto-fuzz-bazel}
labels=()
for t in "${targets[@]}"; do labels+=("//testing/fuzz:$t"); done
bazel --output_base="$output_base" build --config=fuzz "${labels[@]}" || exit 1
bin=$(bazel --output_base="$output_base" info --config=fuzz bazel-bin 2>/dev/null)/testing/fuzz
work=$(mktemp -d /tmp/pto-fuzz.XXXXXX)
echo "scratch corpus and logs: $work"
status=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  echo "== $t: ${seconds}s"
  PTO_TEMPLATES="$PWD/runtime/builtins" \
    "$bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/$t/artifacts/" -print_final_stats=1 \
    "$work/$t/corpus" "testing/fuzz/corpus/$t" >"$work/$t/log" 2>&1
  rc=$?
  tail -n 12 "$work/$t/log"
  shopt -s nullglob
  found=("$work/$t/artifacts/"*)
  shopt -u nullglob
  if ((rc != 0 || ${#found[@]} > 0)); then
    status=1
    mkdir -p "testing/fuzz/crashes/$t"
    for f in "${found[@]}"; do cp "$f" "testing/fuzz/crashes/$t/"; done
    echo "$t: FOUND ${#found[@]} crashing input(s), copied to testing/fuzz/crashes/$t/"
  else
    echo "$t: no crash"
  fi
done
exit "$status"
