// An AICore kernel binary on a device: registered once from its ELF
// (rtRegisterAllKernel, never unregistered, as simpler does) with the magic
// of its shape (AIV: ELF_AIVEC; AIC: ELF_AICUBE; MIX: the plain ELF magic,
// one binary holding the cluster's AIC and AIV entries), and launched on a
// stream with rtKernelLaunchWithHandleV2. The launch width is checked
// against the platform (platforms/*.textproto) before anything is queued,
// in cores of the shape (a MIX block is a cluster, rt::LaunchCores): a
// sync-start launch wider than the chip would hang on the board.
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
#include "runtime/core/orchestrator_core.h"

namespace pto::hw {

class AicoreKernel {
 public:
  // The rtDevBinary_t magic of a kernel of `shape`.
  static uint32_t Magic(rt::CoreShape shape);
  // Registers the ELF `elf` of a kernel of `shape` (its bytes stay owned by
  // the kernel).
  static absl::StatusOr<AicoreKernel> Register(std::string elf, rt::CoreShape shape);
  rt::CoreShape shape() const { return shape_; }
  // Launches `blocks` blocks with `args` (the kernel ABI slots of
  // rt::MarshalKernelArgs, runtime/core/kernel_launch.h; copied to the
  // device by the runtime) after rt::CheckLaunchWidth.
  absl::Status Launch(const platforms::Platform& platform, uint32_t blocks,
                      rt::KernelArgSlots& args, aclrtStream stream) const;

 private:
  std::string elf_;
  rt::CoreShape shape_ = rt::CoreShape::kAiv;
  void* handle_ = nullptr;
};

}  // namespace pto::hw

#endif  // PTO_HW_DEVICE_AICORE_KERNEL_H_
