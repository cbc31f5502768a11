#include "sim/common/cross_core_pipe.h"

#include "absl/strings/str_cat.h"

namespace pto::sim {

std::string CrossCorePipe::Name() const {
  return absl::StrCat("pipe ", spec.id, " of cluster ", cluster, " lane ", lane, " (",
                      spec.dir == PipeDir::kC2V ? "C2V" : "V2C", ", ", spec.slots, " x ",
                      spec.slot_bytes, " B)");
}

uint32_t WaitForSlot(CrossCorePipe& p, bool push, const std::function<void(bool)>& blocked,
                     Ps* not_before) {
  auto unavailable = [&] { return push ? p.count == p.spec.slots : p.count == 0; };
  if (unavailable()) {
    blocked(true);
    while (unavailable()) sc_core::wait(p.changed);
    blocked(false);
  }
  const uint32_t i = push ? p.head : p.tail;
  *not_before = push ? p.free_at[i] : p.ready_at[i];
  return i;
}

void FinishSlot(CrossCorePipe& p, bool push, Ps landed, Ps flag, Trace& trace) {
  const uint32_t n = p.spec.slots;
  if (push) {
    const uint32_t i = p.head;
    p.ready_at[i] = landed + flag;
    p.head = (i + 1) % n;
    ++p.count;
    ++p.pushes;
    if (p.count > p.max_count) p.max_count = p.count;
  } else {
    const uint32_t i = p.tail;
    p.free_at[i] = landed + flag;
    // The slot held data from its bytes' landing until they were read.
    trace.Slice(p.slot_tracks[i], absl::StrCat("slot ", i), p.ready_at[i] - flag, landed,
                {{"pipe", p.spec.id}, {"cluster", p.cluster}, {"lane", p.lane}});
    p.tail = (i + 1) % n;
    --p.count;
  }
  p.changed.notify(sc_core::SC_ZERO_TIME);
}

std::string PipeWaitText(const CrossCorePipe& p, bool push) {
  return absl::StrCat(push ? "TPUSH" : "TPOP", " waits on ", p.Name(), ": ",
                      push ? "full" : "empty");
}

}  // namespace pto::sim
