#!/bin/bash
# Structure of the compiled system-test programs (spec §4.11, the L2 ST's
# structural checks): pto-compile on the rendered CHIP- and HOST-rail
# programs. The CHIP-rail bundle has no builtin chip dispatch and renders the
# builtin kernel into the pipeline's own sub-build (and into program.cc); the
# HOST-rail bundle dispatches the builtin variant once per call; the two
# renderings of the kernel are byte-identical.
# Args: pto-compile, the kernel template, then (chip.pto host.pto suffix)...
set -u
compile="$1"
templates="$(dirname "$(dirname "$2")")"
shift 2
fail() { echo "FAIL: $*"; exit 1; }

while [ $# -gt 0 ]; do
  chip_pto="$1" host_pto="$2" suffix="$3"
  shift 3
  out="${TEST_TMPDIR:-/tmp}/bundles_$suffix"
  rm -rf "$out"
  "$compile" "$chip_pto" -o "$out/chip" --templates="$templates" || fail "$chip_pto does not compile"
  "$compile" "$host_pto" -o "$out/host" --templates="$templates" || fail "$host_pto does not compile"

  chip_kernel="$out/chip/next_levels/chip_pipeline/kernels/aiv/__builtin_all_to_all_v__$suffix.cpp"
  host_kernel="$out/host/next_levels/builtin.tensor.all_to_all_v__$suffix/kernels/aiv/builtin_tensor_all_to_all_v__${suffix}_kernel.cpp"

  # CHIP rail: the kernel is in the pipeline's sub-build, listed in its
  # kernel config, and no builtin.tensor.* sub-build or dispatch exists.
  [ -s "$chip_kernel" ] || fail "$suffix: CHIP kernel not rendered at $chip_kernel"
  grep -q "name: \"__builtin_all_to_all_v__$suffix\"" \
    "$out/chip/next_levels/chip_pipeline/kernel_config.textproto" ||
    fail "$suffix: CHIP kernel missing from the pipeline's kernel config"
  if ls -d "$out"/chip/next_levels/builtin.* >/dev/null 2>&1; then
    fail "$suffix: CHIP bundle has a builtin sub-build: $(ls -d "$out"/chip/next_levels/builtin.*)"
  fi
  if grep -q 'Find(callables, "builtin' "$out/chip/host/host_orch.cpp"; then
    fail "$suffix: CHIP host orchestration dispatches a builtin"
  fi
  # program.cc (what pto_program links) carries the rendered kernel verbatim.
  missing="$(grep -Fxv -f "$out/chip/program.cc" "$chip_kernel" | head -3)"
  [ -z "$missing" ] || fail "$suffix: CHIP kernel lines missing from program.cc: $missing"

  # HOST rail: one builtin chip dispatch per device per call.
  [ -s "$host_kernel" ] || fail "$suffix: HOST kernel not rendered at $host_kernel"
  n="$(grep -c "Find(callables, \"builtin_tensor_all_to_all_v__$suffix\")" "$out/host/host/host_orch.cpp")"
  [ "$n" = 2 ] || fail "$suffix: HOST orchestration has $n builtin dispatch sites, want 2"

  # The two rails render the same kernel.
  cmp "$chip_kernel" "$host_kernel" || fail "$suffix: HOST and CHIP kernels differ"
done
echo PASS
