// One core's end of its cluster's cross-core pipes: what TPUSH / TPOP of the
// AIC (sim/aic) and AIV (sim/aiv) models share. The two differ only in the
// lane they use, when they issue and which of their moves fills or drains a
// slot; the pipe lookup and its fault path, the wait for a slot, its flag and
// the race detector's view of it are here once.
#ifndef PTO_SIM_COMMON_PIPE_END_H_
#define PTO_SIM_COMMON_PIPE_END_H_

#include <functional>
#include <string>

#include "sim/common/chip_core.h"
#include "sim/common/cross_core_pipe.h"
#include "sim/common/time.h"
#include "sim/trace/trace.h"

namespace pto::sim {

// What a core lends its pipe end: itself (its block's cluster through
// ChipCore, its fault path through DeviceCore), the chip's pipes, its race
// agent, the hang report's text and the wait counter.
struct PipeEnd {
  ChipCore* chip_core = nullptr;
  DeviceCore* device_core = nullptr;  // the same core
  PipePort* pipes = nullptr;          // null: not in a chip
  RaceDetector* races = nullptr;
  std::string* waiting = nullptr;     // "TPOP waits on ..." while blocked
  std::function<void()> count_wait;   // a blocked wait, for the statistics
};

// The pipe `spec` of the running block's cluster towards AIV lane `lane`.
// Faults through the core outside a MIX task or when the pipe cannot exist
// with that shape.
CrossCorePipe& ClusterPipe(const PipeEnd& end, int lane, const PipeSpec& spec);

// Waits (the core's thread blocks) until the pipe has a slot to push into
// or to pop, then advances the core to when its move may start
// (`advance_to`, never backwards) and returns the slot.
void* AcquireSlot(const PipeEnd& end, CrossCorePipe& p, bool push,
                  const std::function<void(Ps)>& advance_to);

// Publishes the pushed slot or frees the popped one: its flag lands `flag`
// after the move that filled or drained it (`landed`).
void ReleaseSlot(const PipeEnd& end, CrossCorePipe& p, bool push, Ps landed, Ps flag,
                 Trace& trace);

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_PIPE_END_H_
