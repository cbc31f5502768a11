// The all_to_all_v launch-width admission of RFC #2521 (spec/collectives.md
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

}  // namespace pto

#endif  // PTO_COMMON_LAUNCH_WIDTH_H_
