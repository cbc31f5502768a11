// One direction of an inter-chip link (a 910B HCCS link, or an A5 UB switch
// port): bandwidth shared first come first served between the transfers that
// cross it, plus a fixed latency per hop.
#ifndef PTO_SIM_LINK_LINK_H_
#define PTO_SIM_LINK_LINK_H_

#include <cstdint>
#include <string>

#include <systemc>

#include "sim/common/resource.h"
#include "sim/trace/trace.h"

namespace pto::sim {

class Link : public sc_core::sc_module {
 public:
  // `track` names the trace track ("HCCS link c0->c1", as msprof names it).
  Link(sc_core::sc_module_name name, const std::string& label, double gbps,
       Ps hop_latency, Trace* trace, int trace_pid, const std::string& track);

  // Occupies the link for `bytes` from no earlier than `t`.
  // `who` (task, kernel, ... of the sender) goes into the trace slice's args
  // with the bytes and the link's endpoints.
  Slot Transfer(Ps t, uint64_t bytes, const TraceArgs& who = {});
  Ps hop_latency() const { return hop_latency_; }
  const BandwidthResource& resource() const { return res_; }

 private:
  BandwidthResource res_;
  Ps hop_latency_;
  Trace* trace_;
  int track_;
  std::string label_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_LINK_LINK_H_
