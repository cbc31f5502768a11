// The host (L3) API: devices, communication domains with named window
// buffers, tensors, directed per-device dispatch and group dispatch.
#ifndef PTO_RUNTIME_API_HOST_H_
#define PTO_RUNTIME_API_HOST_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

namespace pto::rt {

struct CommBufferSpec {
  std::string name;
  uint64_t bytes = 0;
};

struct DomainSpec {
  std::string name;
  std::vector<int> devices;  // domain rank i = devices[i]
  uint64_t window_size = 0;
  std::vector<CommBufferSpec> buffers;  // laid out in order inside the window
};

// One rank's view of a domain.
struct ChipDomainContext {
  int domain_rank = 0;
  int domain_size = 0;
  int device = -1;
  Tensor device_ctx;            // the CommContext in this device's GM
  uint64_t local_window_base = 0;
  uint64_t window_size = 0;
  std::map<std::string, Tensor> buffers;  // named slices of the window
};

struct Domain {
  std::string name;
  std::vector<ChipDomainContext> ranks;  // by domain rank
};

class Host {
 public:
  virtual ~Host() = default;
  virtual int device_count() const = 0;
  // Windows are zeroed before any peer can reach them.
  virtual absl::StatusOr<Domain> CreateDomain(const DomainSpec& spec) = 0;
  virtual absl::StatusOr<Tensor> Alloc(int device, uint64_t bytes,
                                       const std::string& label) = 0;
  // Synchronous staging (before or after the run).
  virtual absl::Status CopyTo(const Tensor& dst, const void* src,
                              uint64_t bytes) = 0;
  virtual absl::Status CopyFrom(void* dst, const Tensor& src,
                                uint64_t bytes) = 0;
  // Directed dispatch: appends to the device's FIFO.
  virtual absl::Status Dispatch(int device, const ChipCallable& callable,
                                const ChipArgs& args) = 0;
  // Group (gang) dispatch: every member starts together.
  virtual absl::Status DispatchGroup(const std::vector<int>& devices,
                                     const ChipCallable& callable,
                                     const std::vector<ChipArgs>& args) = 0;
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_API_HOST_H_
