#include "hw/device/vmm_window.h"

#include "absl/strings/str_cat.h"
#include "runtime/core/device_error.h"

namespace pto::hw {

using ::pto::rt::AclStatus;

namespace {

aclrtPhysicalMemProp DeviceHbm(int device) {
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_HBM_MEM_HUGE;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<uint32_t>(device);
  return prop;
}

// Reserves VA for `bytes` and maps `physical` there.
absl::StatusOr<uint64_t> MapWindow(aclrtDrvMemHandle physical, uint64_t bytes) {
  void* va = nullptr;
  if (absl::Status s = AclStatus("aclrtReserveMemAddress",
                                 aclrtReserveMemAddress(&va, bytes, 0, nullptr, 0));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = AclStatus("aclrtMapMem", aclrtMapMem(va, bytes, 0, physical, 0)); !s.ok()) {
    aclrtReleaseMemAddress(va);
    return s;
  }
  return reinterpret_cast<uint64_t>(va);
}

}  // namespace

absl::StatusOr<LocalWindow> CreateLocalWindow(int device, uint64_t bytes) {
  if (bytes == 0) return absl::InvalidArgumentError("a window of 0 bytes");
  if (absl::Status s = AclStatus("aclrtSetDevice", aclrtSetDevice(device)); !s.ok()) return s;
  aclrtPhysicalMemProp prop = DeviceHbm(device);
  size_t granularity = 0;
  if (absl::Status s = AclStatus(
          "aclrtMemGetAllocationGranularity",
          aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                                           &granularity));
      !s.ok()) {
    return s;
  }
  if (granularity == 0) return absl::InternalError("allocation granularity 0");
  LocalWindow w;
  w.device = device;
  w.bytes = (bytes + granularity - 1) / granularity * granularity;
  if (absl::Status s =
          AclStatus("aclrtMallocPhysical", aclrtMallocPhysical(&w.physical, w.bytes, &prop, 0));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<uint64_t> base = MapWindow(w.physical, w.bytes);
  if (!base.ok()) {
    aclrtFreePhysical(w.physical);
    return base.status();
  }
  w.base = *base;
  // Zero before export: a fast peer's first signal must not be wiped.
  if (absl::Status s = AclStatus("aclrtMemset", aclrtMemset(reinterpret_cast<void*>(w.base),
                                                            w.bytes, 0, w.bytes));
      !s.ok()) {
    ReleaseLocalWindow(w).IgnoreError();  // the first failure is the one to report
    return s;
  }
  if (absl::Status s = AclStatus(
          "aclrtMemExportToShareableHandle",
          aclrtMemExportToShareableHandle(w.physical, ACL_MEM_HANDLE_TYPE_NONE, 0, &w.shareable));
      !s.ok()) {
    ReleaseLocalWindow(w).IgnoreError();  // the first failure is the one to report
    return s;
  }
  return w;
}

absl::StatusOr<std::vector<uint64_t>> ImportPeerWindows(const LocalWindow& self,
                                                        const std::vector<int>& devices,
                                                        const std::vector<uint64_t>& shareable,
                                                        int self_rank) {
  if (devices.size() != shareable.size() || self_rank < 0 ||
      self_rank >= static_cast<int>(devices.size()) || devices.size() > kCommMaxRankNum) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ImportPeerWindows: ", devices.size(), " devices, ", shareable.size(),
        " handles, rank ", self_rank, " (at most ", kCommMaxRankNum, " ranks)"));
  }
  if (absl::Status s = AclStatus("aclrtSetDevice", aclrtSetDevice(self.device)); !s.ok()) return s;
  std::vector<uint64_t> bases(devices.size());
  for (size_t pe = 0; pe < devices.size(); ++pe) {
    if (static_cast<int>(pe) == self_rank) {
      bases[pe] = self.base;
      continue;
    }
    if (absl::Status s = AclStatus("aclrtDeviceEnablePeerAccess",
                                   aclrtDeviceEnablePeerAccess(devices[pe], 0));
        !s.ok()) {
      return s;
    }
    aclrtDrvMemHandle imported = nullptr;
    if (absl::Status s = AclStatus("aclrtMemImportFromShareableHandle",
                                   aclrtMemImportFromShareableHandle(shareable[pe], self.device,
                                                                     &imported));
        !s.ok()) {
      return s;
    }
    absl::StatusOr<uint64_t> base = MapWindow(imported, self.bytes);
    if (!base.ok()) return base.status();
    bases[pe] = *base;
  }
  return bases;
}

absl::Status ReleaseLocalWindow(LocalWindow& w) {
  absl::Status first;
  if (w.base != 0) {
    first.Update(AclStatus("aclrtUnmapMem", aclrtUnmapMem(reinterpret_cast<void*>(w.base))));
    first.Update(AclStatus("aclrtReleaseMemAddress",
                           aclrtReleaseMemAddress(reinterpret_cast<void*>(w.base))));
    w.base = 0;
  }
  if (w.physical != nullptr) {
    first.Update(AclStatus("aclrtFreePhysical", aclrtFreePhysical(w.physical)));
    w.physical = nullptr;
  }
  return first;
}

}  // namespace pto::hw
