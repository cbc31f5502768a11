#include "hw/device/hw_device.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "runtime/core/device_error.h"

namespace pto::hw {

using ::pto::rt::AclStatus;

absl::StatusOr<int> InitAndCountDevices() {
  static std::once_flag once;
  static absl::Status init;
  std::call_once(once, [] { init = AclStatus("aclInit", aclInit(nullptr)); });
  if (!init.ok()) return init;
  uint32_t count = 0;
  if (absl::Status s = AclStatus("aclrtGetDeviceCount", aclrtGetDeviceCount(&count)); !s.ok()) {
    return s;
  }
  return static_cast<int>(count);
}

absl::StatusOr<std::unique_ptr<HwDevice>> HwDevice::Open(int device_id) {
  absl::StatusOr<int> count = InitAndCountDevices();
  if (!count.ok()) return count.status();
  if (device_id < 0 || device_id >= *count) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device_id, " does not exist (", *count, " visible)"));
  }
  if (absl::Status s = AclStatus("aclrtSetDevice", aclrtSetDevice(device_id)); !s.ok()) return s;
  std::unique_ptr<HwDevice> d(new HwDevice(device_id));
  if (absl::Status s = AclStatus("aclrtCreateStream", aclrtCreateStream(&d->aicore_stream_));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = AclStatus("aclrtCreateStream", aclrtCreateStream(&d->aicpu_stream_));
      !s.ok()) {
    return s;
  }
  return d;
}

HwDevice::~HwDevice() {
  aclrtSetDevice(id_);
  if (aicpu_stream_ != nullptr) aclrtDestroyStream(aicpu_stream_);
  if (aicore_stream_ != nullptr) aclrtDestroyStream(aicore_stream_);
  aclrtResetDevice(id_);
}

absl::Status HwDevice::Bind() const {
  return AclStatus("aclrtSetDevice", aclrtSetDevice(id_));
}

absl::StatusOr<uint64_t> HwDevice::Malloc(uint64_t bytes) {
  void* p = nullptr;
  if (absl::Status s = AclStatus("aclrtMalloc", aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      !s.ok()) {
    return s;
  }
  // Windows and outputs start zeroed on every backend (docs/simulator.md).
  if (absl::Status s = AclStatus("aclrtMemset", aclrtMemset(p, bytes, 0, bytes)); !s.ok()) {
    aclrtFree(p);
    return s;
  }
  return reinterpret_cast<uint64_t>(p);
}

absl::Status HwDevice::Free(uint64_t addr) {
  return AclStatus("aclrtFree", aclrtFree(reinterpret_cast<void*>(addr)));
}

absl::Status HwDevice::CopyTo(uint64_t dst, const void* src, uint64_t bytes) {
  return AclStatus("aclrtMemcpy", aclrtMemcpy(reinterpret_cast<void*>(dst), bytes, src, bytes,
                                              ACL_MEMCPY_HOST_TO_DEVICE));
}

absl::Status HwDevice::CopyFrom(void* dst, uint64_t src, uint64_t bytes) {
  return AclStatus("aclrtMemcpy", aclrtMemcpy(dst, bytes, reinterpret_cast<const void*>(src), bytes,
                                              ACL_MEMCPY_DEVICE_TO_HOST));
}

absl::Status HwDevice::Synchronize() {
  if (absl::Status s = AclStatus("aclrtSynchronizeStream", aclrtSynchronizeStream(aicore_stream_));
      !s.ok()) {
    return s;
  }
  return AclStatus("aclrtSynchronizeStream", aclrtSynchronizeStream(aicpu_stream_));
}

}  // namespace pto::hw
