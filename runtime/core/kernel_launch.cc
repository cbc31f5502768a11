#include "runtime/core/kernel_launch.h"

#include "absl/strings/str_cat.h"

namespace pto::rt {

absl::Status CheckLaunchWidth(int64_t blocks, int64_t cores, const std::string& chip) {
  if (blocks < 1 || blocks > cores) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch of ", blocks, " blocks on ", chip, " (1..", cores, " cores)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<KernelArgSlots> MarshalKernelArgs(const std::vector<uint64_t>& tensor_descs,
                                                 const std::vector<uint64_t>& scalars,
                                                 uint64_t local_context,
                                                 uint64_t global_context) {
  if (tensor_descs.size() > static_cast<size_t>(kMaxTensorArgs)) {
    return absl::InvalidArgumentError(absl::StrCat(tensor_descs.size(), " tensor arguments (at most ",
                                                   kMaxTensorArgs, ")"));
  }
  if (scalars.size() > static_cast<size_t>(kMaxScalarArgs)) {
    return absl::InvalidArgumentError(
        absl::StrCat(scalars.size(), " scalar arguments (at most ", kMaxScalarArgs, ")"));
  }
  // Tensors then scalars must stay below the context slots.
  static_assert(kMaxTensorArgs + kMaxScalarArgs <= kLocalContextIndex);
  KernelArgSlots slots{};
  size_t i = 0;
  for (uint64_t t : tensor_descs) slots[i++] = static_cast<int64_t>(t);
  for (uint64_t s : scalars) slots[i++] = static_cast<int64_t>(s);
  slots[kLocalContextIndex] = static_cast<int64_t>(local_context);
  slots[kGlobalContextIndex] = static_cast<int64_t>(global_context);
  return slots;
}

}  // namespace pto::rt
