// Communication domains, backend-independent part: validating a DomainSpec,
// laying its named buffers out inside the window, and filling a rank's
// CommContext (runtime-and-sim.md §2.1, §2.3). A backend allocates and zeroes
// the windows.
#ifndef PTO_RUNTIME_CORE_DOMAIN_H_
#define PTO_RUNTIME_CORE_DOMAIN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/host.h"
#include "runtime/device/comm_context.h"

namespace pto::rt {

struct DomainLayout {
  std::vector<uint64_t> buffer_offsets;  // by DomainSpec::buffers index
  uint64_t used_bytes = 0;
};

// Checks the spec (1..64 distinct devices in [0, device_count), unique
// non-empty buffer names, buffers fit the window) before anything is
// allocated; buffers are 64-byte aligned, in order.
absl::StatusOr<DomainLayout> LayOutDomain(const DomainSpec& spec,
                                          int device_count);

// Rank `rank`'s context given every rank's window base.
void FillCommContext(CommContext* ctx, uint32_t rank,
                     const std::vector<uint64_t>& windows,
                     uint64_t window_size);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_DOMAIN_H_
