// The all_to_all_v launch-width admission of RFC #2521 (docs/collectives.md
// §4.8, seed 003): one function shared by the compile-time fold of
// LowerL2TensorCollectives and the runtime HOST entry, so the two cannot drift.
#ifndef PTO_COMMON_LAUNCH_WIDTH_H_
#define PTO_COMMON_LAUNCH_WIDTH_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pto {

// The admitted block count B for P ranks and a requested block limit L
// (`core_num`): B = L when L < P, otherwise the largest multiple of P not above
// L. L is a maximum, not a promise; there is no 2P cap. InvalidArgument when
// P <= 0 or L <= 0.
absl::StatusOr<int64_t> CalAllToAllVBlocks(int64_t p, int64_t l);

// HCCL's AIV launch-width policies that RFC #2521 cites for allreduce, shared
// by LowerHostTensorCollectives and the HOST entries. One-shot (every rank
// reads every peer; the mesh allreduce builtin): B = min(L, P + 1). Two-shot
// (reduce-scatter then allgather, lanes in groups of P + 1):
// B = L < P + 1 ? L : floor(L / (P + 1)) * (P + 1). InvalidArgument when
// P <= 0 or L <= 0.
absl::StatusOr<int64_t> CalOneShotAllReduceBlocks(int64_t p, int64_t l);
absl::StatusOr<int64_t> CalTwoShotAllReduceBlocks(int64_t p, int64_t l);

// How a collective turns L into B: the one rule a CollectiveDef names and both
// the compiler (checks, the CHIP rail's fold) and the HOST entry apply.
enum class LaunchWidthRule {
  kOneBlock,   // B = 1; L must be 1
  kOneShot,    // mesh allreduce: B = CalOneShotAllReduceBlocks(P, L)
  kPerPeer,    // allgather, all_to_all: B = P, one block per peer; L must be 1
  kAllToAllV,  // B = CalAllToAllVBlocks(P, L)
  kExact,      // indexed_all_to_all_v (spec §5): B = L, no folding
};

// Whether the user's core_num sets the width (else L must be 1).
constexpr bool TakesCoreNum(LaunchWidthRule r) {
  return r == LaunchWidthRule::kOneShot || r == LaunchWidthRule::kAllToAllV ||
         r == LaunchWidthRule::kExact;
}
// Whether every launched block needs its own signal lane (S >= B).
constexpr bool NeedsLanePerBlock(LaunchWidthRule r) {
  return r == LaunchWidthRule::kOneShot || r == LaunchWidthRule::kAllToAllV;
}
// The C++ spelling of a rule ("pto::LaunchWidthRule::kOneShot"), for the
// rendered HOST entries.
const char* LaunchWidthRuleCpp(LaunchWidthRule r);

// The one range check of a requested L: InvalidArgument
// "core_num=L outside [1, INT32_MAX]" (the compiler for a constant L, the
// HOST entries for the L they receive).
absl::Status CheckRequestedCoreNum(int64_t l);

// B for P ranks and a requested limit L under `rule`. InvalidArgument when
// P <= 0 or L <= 0, or L != 1 for a rule that does not take core_num
// ("core_num=L but this collective launches one block").
absl::StatusOr<int64_t> LaunchedBlocks(LaunchWidthRule rule, int64_t p, int64_t l);

}  // namespace pto

#endif  // PTO_COMMON_LAUNCH_WIDTH_H_
