#include "testing/reference/collectives.h"

#include <algorithm>

namespace pto::reference {

int32_t ClampCount(int64_t raw, int64_t max_recv) {
  return static_cast<int32_t>(
      std::min<int64_t>(std::max<int64_t>(raw, 0), std::max<int64_t>(max_recv, 0)));
}

absl::Status Barrier(PerRank<int32_t>* signals) {
  if (signals->empty()) {
    return absl::InvalidArgumentError("barrier: no ranks");
  }
  for (size_t r = 0; r < signals->size(); ++r) {
    for (size_t i = 0; i < (*signals)[r].size(); ++i) {
      if ((*signals)[r][i] != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "barrier: rank ", r, " signal cell ", i, " = ", (*signals)[r][i],
            " before the call (signals must be all zero between calls)"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace pto::reference
