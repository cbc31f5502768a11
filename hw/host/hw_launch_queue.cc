#include "hw/host/hw_launch_queue.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/core/device_error.h"

namespace pto::hw {

using ::pto::rt::AclStatus;

HwLaunchQueue::~HwLaunchQueue() {
  for (InFlight& f : in_flight_) {
    if (f.start != nullptr) aclrtDestroyEvent(f.start);
    if (f.end != nullptr) aclrtDestroyEvent(f.end);
  }
}

absl::Status HwLaunchQueue::Launch(const rt::LaunchKernel& kernel, int32_t blocks,
                                   const rt::KernelArgSlots& slots) {
  absl::StatusOr<const AicoreKernel*> binary = kernels_(kernel);
  if (!binary.ok()) return binary.status();
  if ((*binary)->shape() != kernel.shape) {
    return absl::InternalError("the binary was registered for another core shape");
  }
  InFlight f;
  if (absl::Status s = AclStatus("aclrtCreateEvent", aclrtCreateEvent(&f.start)); !s.ok()) {
    return s;
  }
  if (absl::Status s = AclStatus("aclrtCreateEvent", aclrtCreateEvent(&f.end)); !s.ok()) {
    aclrtDestroyEvent(f.start);
    return s;
  }
  // The launch copies the slots to the device (rtArgsEx_t, isNoNeedH2DCopy = 0).
  rt::KernelArgSlots args = slots;
  absl::Status s =
      AclStatus("aclrtRecordEvent", aclrtRecordEvent(f.start, device_->aicore_stream()));
  if (s.ok()) {
    s = (*binary)->Launch(*platform_, static_cast<uint32_t>(blocks), args,
                          device_->aicore_stream());
  }
  if (s.ok()) s = AclStatus("aclrtRecordEvent", aclrtRecordEvent(f.end, device_->aicore_stream()));
  if (!s.ok()) {
    aclrtDestroyEvent(f.start);
    aclrtDestroyEvent(f.end);
    return s;
  }
  in_flight_.push_back(f);
  return absl::OkStatus();
}

absl::StatusOr<double> HwLaunchQueue::WaitOldest(double timeout_ns) {
  if (in_flight_.empty()) return absl::InternalError("WaitOldest with nothing launched");
  InFlight f = in_flight_.front();
  // Whole milliseconds, at least 1 (0 is not a documented timeout).
  const double ms = std::ceil(timeout_ns / 1e6);
  const int32_t timeout_ms = static_cast<int32_t>(
      std::clamp(ms, 1.0, static_cast<double>(std::numeric_limits<int32_t>::max())));
  if (absl::Status s = AclStatus("aclrtSynchronizeEventWithTimeout",
                                 aclrtSynchronizeEventWithTimeout(f.end, timeout_ms));
      !s.ok()) {
    // A timeout leaves the launch in flight: the caller may wait again.
    if (s.code() != absl::StatusCode::kDeadlineExceeded) {
      in_flight_.pop_front();
      aclrtDestroyEvent(f.start);
      aclrtDestroyEvent(f.end);
    }
    return s;
  }
  in_flight_.pop_front();
  float elapsed_ms = 0;
  absl::Status s =
      AclStatus("aclrtEventElapsedTime", aclrtEventElapsedTime(&elapsed_ms, f.start, f.end));
  aclrtDestroyEvent(f.start);
  aclrtDestroyEvent(f.end);
  if (!s.ok()) return s;
  return static_cast<double>(elapsed_ms) * 1e6;
}

double HwLaunchQueue::NowNs() const {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace pto::hw
