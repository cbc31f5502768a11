#include "sim/common/pipe_end.h"

#include <algorithm>

namespace pto::sim {

CrossCorePipe& ClusterPipe(const PipeEnd& end, int lane, const PipeSpec& spec) {
  const int cluster = end.chip_core->block().cluster;
  if (end.pipes == nullptr || cluster < 0) {
    end.device_core->Fault(
        "TPUSH/TPOP outside a MIX task: only a MIX task's cores share a cluster's pipes");
  }
  std::string error;
  CrossCorePipe* p = end.pipes->Pipe(cluster, lane, spec, &error);
  if (p == nullptr) end.device_core->Fault(error.c_str());
  return *p;
}

void* AcquireSlot(const PipeEnd& end, CrossCorePipe& p, bool push,
                  const std::function<void(Ps)>& advance_to) {
  Ps not_before = 0;
  const uint32_t i = WaitForSlot(
      p, push,
      [&](bool blocked) {
        *end.waiting = blocked ? PipeWaitText(p, push) : "";
        if (blocked && end.count_wait) end.count_wait();
        SetCurrentCore(end.device_core);
      },
      &not_before);
  // The scalar unit waits for the slot's flag (wait_flag_dev on the board).
  advance_to(not_before);
  if (end.races != nullptr) {
    end.races->Observe(end.chip_core->race_agent(), reinterpret_cast<uint64_t>(p.Slot(i)));
  }
  return p.Slot(i);
}

void ReleaseSlot(const PipeEnd& end, CrossCorePipe& p, bool push, Ps landed, Ps flag,
                 Trace& trace) {
  const void* slot = p.Slot(push ? p.head : p.tail);
  FinishSlot(p, push, landed, flag, trace);
  if (end.races != nullptr) {
    end.races->Notify(end.chip_core->race_agent(), reinterpret_cast<uint64_t>(slot));
  }
}

}  // namespace pto::sim
