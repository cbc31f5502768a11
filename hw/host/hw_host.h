// rt::Host on physical devices (docs/hw.md, "Execution model"): the HOST
// orchestration calls it on the host CPU; each Dispatch runs the chip
// callable's orchestration on the host too, on a worker thread bound to the
// device (rt::DeviceWorkers), and launches every ready AIV, AIC or MIX task
// on the device's stream (rt::RunChipCallable on an HwLaunchQueue). Domains are
// VMM windows, zeroed before export, with the 1056-byte CommContext of
// rt::FillCommContext copied into each rank's device memory. One process
// drives every device, so no HCCL bootstrap is needed here (HcclBootstrap
// is for one process per rank).
#ifndef PTO_HW_HOST_HW_HOST_H_
#define PTO_HW_HOST_HW_HOST_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hw/device/aicore_kernel.h"
#include "hw/device/hw_device.h"
#include "hw/device/vmm_window.h"
#include "platforms/platform.pb.h"
#include "runtime/api/host.h"
#include "runtime/core/device_workers.h"
#include "runtime/core/ordered_launch.h"

namespace pto::hw {

// The ELF of binary `kernel` of `callable`: a kernel's name
// (ChipCallable::kernel_names) for an AIV or AIC kernel, a MIX task's
// "<aic>+<aiv0>+<aiv1>" (rt::LaunchBinaryName) for its cluster binary.
using KernelBinaryFn = std::function<absl::StatusOr<std::string>(const std::string& callable,
                                                                 const std::string& kernel)>;

struct HwHostOptions {
  platforms::Platform platform;
  int devices = 1;  // devices 0 .. devices-1 (ASCEND_RT_VISIBLE_DEVICES picks them)
  KernelBinaryFn kernel_binary;
};

// One chip dispatch as it ran.
struct HwRun {
  int device = -1;
  int run = 0;  // per device, in dispatch order
  std::string callable;
  std::vector<std::string> kernel_names;
  rt::ChipRunResult result;
};

class HwHost : public rt::Host {
 public:
  // Opens every device; a machine with fewer devices is an error.
  static absl::StatusOr<std::unique_ptr<HwHost>> Create(HwHostOptions options);
  ~HwHost() override;  // waits for the workers, releases windows and devices

  int device_count() const override { return static_cast<int>(devices_.size()); }
  absl::StatusOr<rt::Domain> CreateDomain(const rt::DomainSpec& spec) override;
  absl::StatusOr<rt::Tensor> Alloc(int device, uint64_t bytes, const std::string& label) override;
  absl::Status CopyTo(const rt::Tensor& dst, const void* src, uint64_t bytes) override;
  absl::Status CopyFrom(void* dst, const rt::Tensor& src, uint64_t bytes) override;
  absl::Status Dispatch(int device, const rt::ChipCallable& callable,
                        const rt::ChipArgs& args) override;
  absl::Status DispatchGroup(const std::vector<int>& devices, const rt::ChipCallable& callable,
                             const std::vector<rt::ChipArgs>& args) override;

  // Waits for every dispatch. The first failed run's error, else OK.
  absl::Status Finish();
  // Every dispatch that ran, in completion order.
  std::vector<HwRun> runs() const;

 private:
  explicit HwHost(HwHostOptions options) : options_(std::move(options)) {}
  absl::StatusOr<HwDevice*> Device(int device) const;
  // The job of one dispatch on `device`.
  rt::DeviceWorkers::Job Job(int device, const rt::ChipCallable& callable,
                             const rt::ChipArgs& args);
  // The binary `launch` of `callable` runs on `device`, registered on first
  // use (once per device, binary and shape).
  absl::StatusOr<const AicoreKernel*> Kernel(int device, const rt::ChipCallable& callable,
                                             const rt::LaunchKernel& launch);

  HwHostOptions options_;
  std::vector<std::unique_ptr<HwDevice>> devices_;
  std::unique_ptr<rt::DeviceWorkers> workers_;
  std::vector<LocalWindow> windows_;
  std::vector<std::pair<int, uint64_t>> allocations_;  // (device, addr): freed at close

  mutable std::mutex mu_;
  // (device, "callable/binary", shape) -> the registered binary.
  std::map<std::tuple<int, std::string, rt::CoreShape>, std::unique_ptr<AicoreKernel>> kernels_;
  std::vector<int> run_index_;  // per device
  std::vector<HwRun> runs_;
};

}  // namespace pto::hw

#endif  // PTO_HW_HOST_HW_HOST_H_
