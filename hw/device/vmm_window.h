// A communication-domain window on physical devices through VMM shareable
// handles (docs/hw.md): each rank allocates its window as physical memory,
// exports a shareable handle, and every rank imports every peer's handle and
// maps it into its own address space, so windowsIn[pe] of its CommContext
// is a device address it can TPUT to. The layout of buffers inside a window
// and the CommContext itself come from runtime/core/domain.h, shared with
// the simulator.
#ifndef PTO_HW_DEVICE_VMM_WINDOW_H_
#define PTO_HW_DEVICE_VMM_WINDOW_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hw/cann/cann_api.h"
#include "runtime/device/comm_context.h"

namespace pto::hw {

// One rank's own window: physical memory, its shareable handle and its
// mapping on the owning device.
struct LocalWindow {
  int device = -1;
  uint64_t bytes = 0;           // rounded up to the allocation granularity
  aclrtDrvMemHandle physical = nullptr;
  uint64_t shareable = 0;       // to hand to the peers
  uint64_t base = 0;            // device VA of the mapping
};

// Allocates, zeroes (before the handle is exported, so no peer can see
// stale bytes) and exports a window of at least `bytes` on `device`.
absl::StatusOr<LocalWindow> CreateLocalWindow(int device, uint64_t bytes);

// Maps every peer's exported window into `self`'s address space (enabling
// peer access first) and returns every rank's base as seen by `self`: the
// windowsIn of its CommContext (FillCommContext).
absl::StatusOr<std::vector<uint64_t>> ImportPeerWindows(const LocalWindow& self,
                                                        const std::vector<int>& devices,
                                                        const std::vector<uint64_t>& shareable,
                                                        int self_rank);

absl::Status ReleaseLocalWindow(LocalWindow& w);

}  // namespace pto::hw

#endif  // PTO_HW_DEVICE_VMM_WINDOW_H_
