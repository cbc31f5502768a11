// One physical Ascend device on CANN (docs/hw.md): open / close, device
// memory, host <-> device copies, and the two streams of a runner (AICPU
// and AICore: the AICPU kernel spins waiting for AICore, so they cannot
// share one). Every CANN failure comes back as a status from AclStatus
// (runtime/core/device_error.h), naming the call and the code.
#ifndef PTO_HW_DEVICE_HW_DEVICE_H_
#define PTO_HW_DEVICE_HW_DEVICE_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hw/cann/cann_api.h"

namespace pto::hw {

// aclInit once per process (idempotent), and the number of visible devices.
absl::StatusOr<int> InitAndCountDevices();

class HwDevice {
 public:
  // Binds the calling thread to `device_id` and creates its streams.
  static absl::StatusOr<std::unique_ptr<HwDevice>> Open(int device_id);
  ~HwDevice();  // destroys the streams and resets the device
  HwDevice(const HwDevice&) = delete;
  HwDevice& operator=(const HwDevice&) = delete;

  int id() const { return id_; }
  // Binds the calling thread to this device (aclrtSetDevice): every call
  // below acts on the device the thread is bound to.
  absl::Status Bind() const;
  aclrtStream aicore_stream() const { return aicore_stream_; }
  aclrtStream aicpu_stream() const { return aicpu_stream_; }

  absl::StatusOr<uint64_t> Malloc(uint64_t bytes);  // zeroed
  absl::Status Free(uint64_t addr);
  absl::Status CopyTo(uint64_t dst, const void* src, uint64_t bytes);
  absl::Status CopyFrom(void* dst, uint64_t src, uint64_t bytes);
  // Waits for everything queued on both streams.
  absl::Status Synchronize();

 private:
  explicit HwDevice(int id) : id_(id) {}
  int id_;
  aclrtStream aicore_stream_ = nullptr;
  aclrtStream aicpu_stream_ = nullptr;
};

}  // namespace pto::hw

#endif  // PTO_HW_DEVICE_HW_DEVICE_H_
