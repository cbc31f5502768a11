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
  Link(sc_core::sc_module_name name, const std::string& label, double gbps,
       Ps hop_latency, Trace* trace, int trace_pid);

  // Occupies the link for `bytes` from no earlier than `t`.
  Slot Transfer(Ps t, uint64_t bytes);
  Ps hop_latency() const { return hop_latency_; }
  const BandwidthResource& resource() const { return res_; }

 private:
  BandwidthResource res_;
  Ps hop_latency_;
  Trace* trace_;
  int track_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_LINK_LINK_H_
