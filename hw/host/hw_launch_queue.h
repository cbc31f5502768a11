// The LaunchQueue of one physical device (runtime/core/ordered_launch.h):
// every task is one rtKernelLaunchWithHandleV2 of its registered binary (an
// AIV or AIC kernel's, or a MIX task's cluster binary) on the device's
// AICore stream, bracketed by two recorded events; waiting
// for the oldest task synchronises its end event with a timeout and
// measures it with aclrtEventElapsedTime. The stream runs launches in
// order, and the runner launches a task only after its producers completed.
#ifndef PTO_HW_HOST_HW_LAUNCH_QUEUE_H_
#define PTO_HW_HOST_HW_LAUNCH_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "hw/cann/cann_api.h"
#include "hw/device/aicore_kernel.h"
#include "hw/device/hw_device.h"
#include "platforms/platform.pb.h"
#include "runtime/core/ordered_launch.h"

namespace pto::hw {

class HwLaunchQueue : public rt::LaunchQueue {
 public:
  // The registered binary a launch runs on this device (registered on
  // first use; an error names the binary).
  using KernelFn = std::function<absl::StatusOr<const AicoreKernel*>(const rt::LaunchKernel&)>;
  HwLaunchQueue(HwDevice* device, const platforms::Platform* platform, KernelFn kernels)
      : device_(device), platform_(platform), kernels_(std::move(kernels)) {}
  ~HwLaunchQueue() override;  // destroys the events of launches never waited for

  int device_id() const override { return device_->id(); }
  int aiv_count() const override { return static_cast<int>(platform_->aiv_cores()); }
  int aic_count() const override { return static_cast<int>(platform_->aic_cores()); }
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override { return device_->Malloc(bytes); }
  absl::Status FreeGm(uint64_t addr) override { return device_->Free(addr); }
  absl::Status Write(uint64_t addr, const void* in, uint64_t bytes) override {
    return device_->CopyTo(addr, in, bytes);
  }
  absl::Status Read(uint64_t addr, void* out, uint64_t bytes) override {
    return device_->CopyFrom(out, addr, bytes);
  }
  absl::Status Launch(const rt::LaunchKernel& kernel, int32_t blocks,
                      const rt::KernelArgSlots& slots) override;
  absl::StatusOr<double> WaitOldest(double timeout_ns) override;
  double NowNs() const override;

 private:
  struct InFlight {
    aclrtEvent start = nullptr;
    aclrtEvent end = nullptr;
  };

  HwDevice* device_;
  const platforms::Platform* platform_;
  KernelFn kernels_;
  std::deque<InFlight> in_flight_;
};

}  // namespace pto::hw

#endif  // PTO_HW_HOST_HW_LAUNCH_QUEUE_H_
