#include "hw/device/aicore_kernel.h"

#include "absl/strings/str_cat.h"
#include "runtime/core/device_error.h"
#include "runtime/core/kernel_launch.h"
#include "runtime/core/ordered_launch.h"

namespace pto::hw {

using ::pto::rt::AclStatus;

uint32_t AicoreKernel::Magic(rt::CoreShape shape) {
  switch (shape) {
    case rt::CoreShape::kAiv:
      return RT_DEV_BINARY_MAGIC_ELF_AIVEC;
    case rt::CoreShape::kAic:
      return RT_DEV_BINARY_MAGIC_ELF_AICUBE;
    case rt::CoreShape::kMix:
      return RT_DEV_BINARY_MAGIC_ELF;
  }
  return RT_DEV_BINARY_MAGIC_ELF_AIVEC;
}

absl::StatusOr<AicoreKernel> AicoreKernel::Register(std::string elf, rt::CoreShape shape) {
  if (elf.size() < 4 || elf.compare(0, 4, "\x7f" "ELF") != 0) {
    return absl::InvalidArgumentError("the AICore kernel binary is not an ELF file");
  }
  AicoreKernel k;
  k.elf_ = std::move(elf);
  k.shape_ = shape;
  rtDevBinary_t bin{};
  bin.magic = Magic(shape);
  bin.version = 0;
  bin.data = k.elf_.data();
  bin.length = k.elf_.size();
  if (absl::Status s = AclStatus("rtRegisterAllKernel", rtRegisterAllKernel(&bin, &k.handle_));
      !s.ok()) {
    return s;
  }
  return k;
}

absl::Status AicoreKernel::Launch(const platforms::Platform& platform, uint32_t blocks,
                                  rt::KernelArgSlots& args, aclrtStream stream) const {
  const int cores = rt::LaunchCores(shape_, static_cast<int>(platform.aiv_cores()),
                                    static_cast<int>(platform.aic_cores()));
  if (absl::Status s = rt::CheckLaunchWidth(blocks, cores, platform.name()); !s.ok()) {
    return s;
  }
  rtArgsEx_t info{};
  info.args = args.data();
  info.argsSize = static_cast<uint32_t>(args.size() * sizeof(int64_t));
  return AclStatus("rtKernelLaunchWithHandleV2",
                   rtKernelLaunchWithHandleV2(handle_, /*tilingKey=*/0, blocks, &info,
                                              /*smDesc=*/nullptr, stream, /*cfgInfo=*/nullptr));
}

}  // namespace pto::hw
