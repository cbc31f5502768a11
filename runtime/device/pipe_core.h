// The backend interface of the cross-core pipes of a 1C2V cluster (TPUSH /
// TPOP between a MIX task's AIC and AIVs), next to DeviceCore and CubeCore.
// Kernels call pipe_api.h, which moves the bytes; the backend owns the FIFO
// state, blocks a full push or an empty pop and charges the time.
#ifndef PTO_RUNTIME_DEVICE_PIPE_CORE_H_
#define PTO_RUNTIME_DEVICE_PIPE_CORE_H_

#include <cstdint>

namespace pto {

// C2V: the AIC produces, an AIV lane consumes; V2C the other way (pto-isa
// TPipe's DIR_C2V / DIR_V2C).
enum class PipeDir { kC2V, kV2C };

// One pipe of the calling core's cluster: `slots` slots of `slot_bytes`
// each, a ring FIFO. `lane` (0 or 1) is the AIV lane at the other end, as
// the AIC names it; an AIV's own lane is its sub-block id. Both ends must
// declare the same id, direction, slots and slot size.
struct PipeSpec {
  int id = 0;
  PipeDir dir = PipeDir::kC2V;
  uint32_t slots = 2;
  uint64_t slot_bytes = 0;
  int lane = 0;
};

class PipeCore {
 public:
  virtual ~PipeCore() = default;
  // Waits until the pipe has a free slot (push) or a full one (pop) and
  // returns that slot's bytes (`slot_bytes` of them).
  virtual void* PipeAcquire(const PipeSpec& p, bool push) = 0;
  // After the slot's data move was issued: publishes the slot to the other
  // end (push) or gives it back to the producer (pop).
  virtual void PipeRelease(const PipeSpec& p, bool push) = 0;
};

// The pipes of the calling kernel's core; faults through CurrentCore() when
// the backend has none.
PipeCore* CurrentPipeCore();

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_PIPE_CORE_H_
