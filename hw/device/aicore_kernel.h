// An AICore (AIV) kernel binary on a device: registered once from its ELF
// (rtRegisterAllKernel, never unregistered, as simpler does) and launched
// on a stream with rtKernelLaunchWithHandleV2. The launch width is checked
// against the platform (platforms/*.textproto) before anything is queued:
// a sync-start launch wider than the chip would hang on the board.
#ifndef PTO_HW_DEVICE_AICORE_KERNEL_H_
#define PTO_HW_DEVICE_AICORE_KERNEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hw/cann/cann_api.h"
#include "platforms/platform.pb.h"
#include "runtime/core/kernel_launch.h"

namespace pto::hw {

class AicoreKernel {
 public:
  // Registers the AIV ELF `elf` (its bytes stay owned by the kernel).
  static absl::StatusOr<AicoreKernel> Register(std::string elf);
  // Launches `blocks` blocks with `args` (the kernel ABI slots of
  // rt::MarshalKernelArgs, runtime/core/kernel_launch.h; copied to the
  // device by the runtime) after rt::CheckLaunchWidth.
  absl::Status Launch(const platforms::Platform& platform, uint32_t blocks,
                      rt::KernelArgSlots& args, aclrtStream stream) const;

 private:
  std::string elf_;
  void* handle_ = nullptr;
};

}  // namespace pto::hw

#endif  // PTO_HW_DEVICE_AICORE_KERNEL_H_
