// What every backend does the same way to launch an AICore kernel: check the
// launch width against the chip, and marshal the kernel's int64 argument
// slots (runtime/device/kernel_abi.h). The simulator's cores and hw/'s
// rtKernelLaunchWithHandleV2 path both build their slots here, so CI tests
// the layout the board gets.
#ifndef PTO_RUNTIME_CORE_KERNEL_LAUNCH_H_
#define PTO_RUNTIME_CORE_KERNEL_LAUNCH_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/device/kernel_abi.h"

namespace pto::rt {

using KernelArgSlots = std::array<int64_t, kKernelArgSlots>;

// InvalidArgument unless 1 <= blocks <= cores (the cores of the kernel's
// shape on the chip, e.g. Platform.aiv_cores): a raw launch wider than the
// chip would hang a sync-start kernel on the board.
absl::Status CheckLaunchWidth(int64_t blocks, int64_t cores, const std::string& chip);

// The slots of one block: tensor descriptor addresses first, then scalars,
// the LocalContext at kLocalContextIndex and the GlobalContext at
// kGlobalContextIndex; every other slot 0. InvalidArgument for more than
// kMaxTensorArgs tensors or kMaxScalarArgs scalars.
absl::StatusOr<KernelArgSlots> MarshalKernelArgs(const std::vector<uint64_t>& tensor_descs,
                                                 const std::vector<uint64_t>& scalars,
                                                 uint64_t local_context,
                                                 uint64_t global_context);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_KERNEL_LAUNCH_H_
