#include "sim/link/link.h"

#include "absl/strings/str_cat.h"

namespace pto::sim {

Link::Link(sc_core::sc_module_name name, const std::string& label, double gbps,
           Ps hop_latency, Trace* trace, int trace_pid)
    : sc_core::sc_module(name),
      res_(label, gbps),
      hop_latency_(hop_latency),
      trace_(trace),
      track_(trace->AddTrack(trace_pid, "fabric", label)) {}

Slot Link::Transfer(Ps t, uint64_t bytes) {
  Slot s = res_.Reserve(t, bytes);
  trace_->Slice(track_, absl::StrCat(bytes, " B"), s.start, s.end);
  return s;
}

}  // namespace pto::sim
