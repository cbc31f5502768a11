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

// Every comm buffer starts at a multiple of this inside the window
// (collectives.md §1.6): the MTE burst. Slots may share a 64-byte dcache
// line, as on the board, so a kernel must not cache-write across them.
inline constexpr uint64_t kCommBufferAlignmentBytes = 32;

struct DomainLayout {
  std::vector<uint64_t> buffer_offsets;  // by DomainSpec::buffers index
  uint64_t used_bytes = 0;
};

// Checks the spec (1..kCommMaxDomainRanks distinct devices in [0, device_count), unique
// non-empty buffer names, buffers fit the window) before anything is
// allocated; buffers are laid out in order, each starting at the next
// multiple of kCommBufferAlignmentBytes, so a window sized as the sum of the
// rounded-up buffer sizes always fits (the last buffer's padding is optional).
absl::StatusOr<DomainLayout> LayOutDomain(const DomainSpec& spec,
                                          int device_count);

// Rank `rank`'s context given every rank's window base. `ctx` must start
// zeroed (a fresh Gm::Alloc, `CommContext{}`): only the header and the
// windows' entries are written, so a context touches what its ranks use, not
// the whole table.
void FillCommContext(CommContext* ctx, uint32_t rank,
                     const std::vector<uint64_t>& windows,
                     uint64_t window_size);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_DOMAIN_H_
