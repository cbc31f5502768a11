// The all_to_all_v launch-width admission of RFC #2521 (docs/collectives.md
// §4.8, seed 003): one function shared by the compile-time fold of
// LowerL2TensorCollectives and the runtime HOST entry, so the two cannot drift.
#ifndef PTO_COMMON_LAUNCH_WIDTH_H_
#define PTO_COMMON_LAUNCH_WIDTH_H_

#include <cstdint>

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

}  // namespace pto

#endif  // PTO_COMMON_LAUNCH_WIDTH_H_
