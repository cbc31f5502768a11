// One cross-core pipe of a 1C2V cluster (runtime/device/pipe_api.h): a ring
// of slots in the chip's GM (a2a3's GM pipe buffer), the FIFO state both
// ends share and the times its slots become readable and free. The cores
// block on `changed` while it is full or empty; the chip owns the pipes
// (sim/chip/cross_core_pipes.h) and hands them out through PipePort.
#ifndef PTO_SIM_COMMON_CROSS_CORE_PIPE_H_
#define PTO_SIM_COMMON_CROSS_CORE_PIPE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "runtime/device/pipe_core.h"
#include "sim/common/time.h"
#include "sim/trace/trace.h"

namespace pto::sim {

struct CrossCorePipe {
  int chip = 0;
  int cluster = 0;
  int lane = 0;
  PipeSpec spec;
  uint64_t base = 0;  // GM address of slot 0
  uint32_t head = 0;  // next slot to push
  uint32_t tail = 0;  // next slot to pop
  uint32_t count = 0;  // published, not yet popped
  std::vector<Ps> ready_at;  // per slot: its pushed bytes are readable
  std::vector<Ps> free_at;   // per slot: its popped bytes were read
  sc_core::sc_event changed;
  // Statistics and the trace: pushes, the highest occupancy, a track per
  // slot showing when it held data.
  int64_t pushes = 0;
  uint32_t max_count = 0;
  std::vector<int> slot_tracks;

  void* Slot(uint32_t i) const { return reinterpret_cast<void*>(base + i * spec.slot_bytes); }
  // "pipe 0 of cluster 3 lane 0 (C2V, 2 x 4096 B)".
  std::string Name() const;
};

// The two halves of TPUSH / TPOP both cores share. WaitForSlot blocks the
// calling SystemC thread while the pipe is full (push) or empty (pop),
// calling `blocked(true)` before and `blocked(false)` after waiting, and
// returns the slot the move uses and, in *not_before, when it may start (the
// slot was freed / its bytes landed, plus the flag). FinishSlot publishes a
// pushed slot or frees a popped one whose move lands at `landed`.
uint32_t WaitForSlot(CrossCorePipe& p, bool push, const std::function<void(bool)>& blocked,
                     Ps* not_before);
void FinishSlot(CrossCorePipe& p, bool push, Ps landed, Ps flag, Trace& trace);
// "TPOP waits on pipe 0 of cluster 3 lane 0 (C2V, 2 x 4096 B): empty".
std::string PipeWaitText(const CrossCorePipe& p, bool push);

// The chip's pipes, as a core asks for them.
class PipePort {
 public:
  virtual ~PipePort() = default;
  // The pipe `spec.id` of `cluster` towards AIV lane `lane`, created (its
  // slots allocated in GM) on first use; null with `error` set when it
  // exists with another shape or GM is exhausted.
  virtual CrossCorePipe* Pipe(int cluster, int lane, const PipeSpec& spec, std::string* error) = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_CROSS_CORE_PIPE_H_
