#include "common/launch_width.h"

#include <cstdint>
#include <limits>

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

absl::Status CheckRequestedCoreNum(int64_t l) {
  if (l < 1 || l > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("core_num=", l, " outside [1, INT32_MAX]"));
  }
  return absl::OkStatus();
}

const char* LaunchWidthRuleCpp(LaunchWidthRule r) {
  switch (r) {
    case LaunchWidthRule::kOneBlock:
      return "pto::LaunchWidthRule::kOneBlock";
    case LaunchWidthRule::kOneShot:
      return "pto::LaunchWidthRule::kOneShot";
    case LaunchWidthRule::kPerPeer:
      return "pto::LaunchWidthRule::kPerPeer";
    case LaunchWidthRule::kAllToAllV:
      return "pto::LaunchWidthRule::kAllToAllV";
    case LaunchWidthRule::kExact:
      return "pto::LaunchWidthRule::kExact";
  }
  return "";
}

absl::StatusOr<int64_t> LaunchedBlocks(LaunchWidthRule rule, int64_t p, int64_t l) {
  if (!TakesCoreNum(rule) && l != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("core_num=", l, " but this collective launches one block"));
  }
  switch (rule) {
    case LaunchWidthRule::kOneShot:
      return CalOneShotAllReduceBlocks(p, l);
    case LaunchWidthRule::kAllToAllV:
      return CalAllToAllVBlocks(p, l);
    case LaunchWidthRule::kPerPeer:
      if (absl::Status s = CheckPositive("launched_blocks", p, l); !s.ok()) return s;
      return p;
    case LaunchWidthRule::kExact:
    case LaunchWidthRule::kOneBlock:
      if (absl::Status s = CheckPositive("launched_blocks", p, l); !s.ok()) return s;
      return l;
  }
  return absl::InternalError("unknown LaunchWidthRule");
}

}  // namespace pto
