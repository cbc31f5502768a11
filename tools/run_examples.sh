#!/usr/bin/env bash
# README command 1, the main job: installs what is missing, then shows results,
# not IR. For every example program: its rail, ranks and platform, its check
# against its recorded sim golden (one pto-run of the program records its
# golden, pto-golden compare checks every output and the simulated time
# against testing/golden/data/<program>.textproto, as //testing/golden/data
# does; no test binary is built), the simulated time,
# the L3 -> L2 round trips per card and the collective's bus bandwidth against
# the link bound (from pto-run's summary); then the MoE-style dispatch layer
# (examples/moe_dispatch.pto) on 8 simulated 910B chips with its summary and
# Perfetto trace; then the headline MoE dispatch + combine on 8 chips, two
# kernels side by side (examples/moe_dispatch_combine.pto, PyPTO's program, and
# examples/moe_fast_dispatch_combine.pto, docs/moe.md), each against its C++
# golden, with DeepEP-Ascend's published A2 figure beside them. Exits non-zero
# when any golden check fails.
#
#   bash tools/run_examples.sh [--print-ir] [--trace=PATH]
#
# --print-ir also prints every example after the default pass pipeline;
# other arguments go to the MoE run (e.g. --trace=PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
print_ir=0
moe_args=()
for a in "$@"; do
  case "$a" in
    --print-ir) print_ir=1 ;;
    *) moe_args+=("$a") ;;
  esac
done
source tools/deps.sh || exit 1

# program  rail  platform  ranks  collective kernel (pto-run --collective)
examples=(
  "all_to_all_v_chip.pto      CHIP   a2a3 2 all_to_all_v"
  "all_to_all_v_host.pto      HOST   a2a3 2 all_to_all_v"
  "all_to_all_v_incore.pto    InCore a2a3 2 exchange"
  "indexed_all_to_all_v.pto   CHIP   a5   2 all_to_all_v"
)
tmp="$(mktemp -d)"
log="$tmp/log"
trap 'rm -rf "$tmp"' EXIT
echo "building the tools and the MoE layers, then running every example against its golden ..."
# Only what the job runs: the examples go through pto-run, so their golden
# checks need no test binary and no build-time compile of each program
# (docs/performance.md, "The main job builds only what it runs").
bazel build //tools:pto-opt //tools:pto-run //tools:pto-golden //examples:moe_dispatch \
  //examples:moe_dispatch_combine //examples:moe_fast_dispatch_combine >"$log" 2>&1 || {
  cat "$log"
  exit 1
}

failures=0
failed_checks=""
echo
printf '%-26s %-7s %-11s %-7s %-10s %s\n' program rail ranks golden simulated "round trips per card"
for e in "${examples[@]}"; do
  read -r prog rail platform ranks coll <<<"$e"
  name="${prog%.pto}"
  recorded="$tmp/$name.textproto"
  golden=FAIL
  rc=0
  out="$(bazel-bin/tools/pto-run "examples/$prog" --platform="$platform" --ranks="$ranks" \
    --collective="$coll" --record-golden="$recorded" 2>&1)" || rc=$?
  if ((rc != 0)) || [[ ! -f "$recorded" ]]; then
    golden="FAIL (pto-run failed)"
    failed_checks+="==== $prog: pto-run exited $rc"$'\n'"$(tail -5 <<<"$out")"$'\n'
  elif cmp_out="$(bazel-bin/tools/pto-golden compare "testing/golden/data/$name.textproto" \
    "$recorded" 2>&1)"; then
    golden=PASS
  else
    failed_checks+="==== $prog against testing/golden/data/$name.textproto"$'\n'"$cmp_out"$'\n'
  fi
  [[ "$golden" == PASS ]] || failures=$((failures + 1))
  # "pto-run: P on 2 ranks (a2a3): simulated 61.044 us; dispatches per card: c0=1 c1=1"
  first="$(head -1 <<<"$out")"
  sim="$(sed -nE 's/.*simulated ([0-9.]+ us).*/\1/p' <<<"$first")"
  trips="$(sed -nE 's/.*dispatches per card: (.*)$/\1/p' <<<"$first")"
  printf '%-26s %-7s %-11s %-7s %-10s %s\n' "$prog" "$rail" "$ranks x $platform" "$golden" \
    "${sim:-?}" "${trips:-?}"
  busbw="$(grep -m1 '^collective' <<<"$out" | sed -E 's/^collective \(([^)]*)\): /\1: /')" || true
  echo "  ${busbw:-no collective span: $(tail -1 <<<"$out")}"
done
if ((failures > 0)); then
  echo
  echo "golden checks that failed (pto-golden compare; re-record intended changes with" \
    "tools/update_goldens.sh):"
  printf '%s' "$failed_checks" | head -60
fi

if ((print_ir)); then
  for f in examples/*.pto; do
    echo "==== $f (after --pipeline=default)"
    bazel-bin/tools/pto-opt "$f" --pipeline=default --verify-each
  done
fi

echo
echo "==== examples/moe_dispatch.pto on 8 simulated chips (bazel run //examples:moe_dispatch)"
# Exits non-zero when any rank differs from the golden.
moe=0
bazel run --noshow_progress --ui_event_filters=-info //examples:moe_dispatch -- \
  "${moe_args[@]+"${moe_args[@]}"}" 2>"$log" || moe=$?
((moe == 0)) || cat "$log"

echo
echo "==== MoE dispatch + combine at the DSV4 decode shape on 8 simulated 910B chips (docs/moe.md)"
# The headline workload, two kernels of the same layer, each checked against
# its C++ golden: PyPTO's program (bazel run //examples:moe_dispatch_combine)
# and the fast SPMD one (bazel run //examples:moe_fast_dispatch_combine); the
# full summaries come from those commands. One line per kernel, then
# DeepEP-Ascend's published A2 figure beside them.
moe_dc=0
printf '%-31s %-6s %11s %11s %11s %11s\n' kernel check dispatch combine "disp+comb" "end to end"
dc_base=""
for k in moe_dispatch_combine moe_fast_dispatch_combine; do
  rc=0
  out="$(bazel run --noshow_progress --ui_event_filters=-info "//examples:$k" 2>"$log")" || rc=$?
  check=FAIL
  ((rc == 0)) && grep -q "^result: every rank matches the golden$" <<<"$out" && check=PASS
  [[ "$check" == PASS ]] || { moe_dc=1; cat "$log"; grep -E "FAIL|failed" <<<"$out" | head -5; }
  d="$(sed -nE 's/^dispatch +([0-9.]+) us.*/\1/p' <<<"$out")"
  c="$(sed -nE 's/^combine +([0-9.]+) us.*/\1/p' <<<"$out")"
  e2e="$(sed -nE 's/^simulated time +([0-9.]+) us.*/\1/p' <<<"$out")"
  dc="$(awk -v d="${d:-0}" -v c="${c:-0}" 'BEGIN { printf "%.2f", d + c }')"
  speedup=""
  if [[ -n "$dc_base" ]]; then
    speedup="$(awk -v b="$dc_base" -v t="$dc" 'BEGIN { if (t > 0) printf "  %.1fx faster", b / t }')"
  fi
  [[ -n "$dc_base" ]] || dc_base="$dc"
  printf '%-31s %-6s %8s us %8s us %8s us %8s us%s\n' "$k.pto" "$check" "${d:-?}" "${c:-?}" \
    "$dc" "${e2e:-?}" "$speedup"
done
printf '%-31s %-6s %11s %11s\n' "DeepEP-Ascend low latency" "" "305-325 us" "432-453 us"
echo "  (published, A2 hardware: one 8-NPU 910B server, EP8, hidden 7168, top-8;" \
  "sgl-project/sgl-kernel-npu PR #176)"
if ((failures > 0 || moe != 0 || moe_dc != 0)); then
  echo "FAILED: $failures example(s) against the golden; MoE exit status $moe;" \
    "MoE dispatch+combine check failed: $moe_dc"
  exit 1
fi
