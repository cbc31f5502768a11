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

namespace {
absl::Status CheckPositive(const char* fn, int64_t p, int64_t l) {
  if (p <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": p (rank count) must be positive, got ", p));
  }
  if (l <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": l (core_num) must be positive, got ", l));
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<int64_t> CalOneShotAllReduceBlocks(int64_t p, int64_t l) {
  if (absl::Status s = CheckPositive("cal_one_shot_allreduce_blocks", p, l); !s.ok()) return s;
  return l < p + 1 ? l : p + 1;
}

absl::StatusOr<int64_t> CalTwoShotAllReduceBlocks(int64_t p, int64_t l) {
  if (absl::Status s = CheckPositive("cal_two_shot_allreduce_blocks", p, l); !s.ok()) return s;
  return l < p + 1 ? l : (l / (p + 1)) * (p + 1);
}

}  // namespace pto
