#include "common/launch_width.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pto {

absl::StatusOr<int64_t> CalAllToAllVBlocks(int64_t p, int64_t l) {
  // Message texts follow the Python reference cal_all_to_all_v_blocks, which
  // raises ValueError for a non-positive P or L (spec §4.8).
  if (p <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cal_all_to_all_v_blocks: p (rank count) must be positive, got ", p));
  }
  if (l <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cal_all_to_all_v_blocks: l (core_num) must be positive, got ", l));
  }
  if (l < p) return l;  // each block owns several peers
  return (l / p) * p;   // K = L / P lanes per peer
}

}  // namespace pto
