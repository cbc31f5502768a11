// The inter-chip fabric of a platform (platforms/platform.proto FabricSpec):
// its links, each a bandwidth resource shared first come first served with a
// latency per hop, and the route of links between every two chips.
//
// FULL_MESH: one link per ordered pair. SWITCH: a port per chip and
// direction into one switch. HIERARCHY: tiers of groups (servers, nodes,
// SuperPoDs); two chips use the lowest tier whose group holds both: a MESH
// tier's pair link, a SWITCH tier's ports (per chip, or NICs shared by the
// chips of a group), or, for a tier reached through the inner ports, the
// chip's inner port, each inner group's uplink, and the peer's inner port.
#ifndef PTO_SIM_LINK_FABRIC_H_
#define PTO_SIM_LINK_FABRIC_H_

#include <memory>
#include <string>
#include <vector>

#include "platforms/platform.pb.h"
#include "sim/link/link.h"
#include "sim/trace/trace.h"

namespace pto::sim {

class Fabric {
 public:
  // `spec` is valid (platforms::ValidatePlatform) and 1 <= chips <=
  // spec.max_chips(). Link tracks go to process `trace_pid` of `trace`.
  Fabric(const platforms::FabricSpec& spec, int chips, Trace* trace, int trace_pid);

  // Links crossed from `src` to `dst`, in order (empty when equal).
  const std::vector<Link*>& Route(int src, int dst) const {
    return routes_[static_cast<size_t>(src) * chips_ + dst];
  }
  const std::vector<std::unique_ptr<Link>>& links() const { return links_; }
  // FULL_MESH with chip_egress_gbps: each chip's egress port, on every route
  // out of it beside the pair link (not in links(): it is no wire).
  const std::vector<std::unique_ptr<Link>>& egress_ports() const { return egress_; }

 private:
  // A port pair (chip -> switch, switch -> chip) of a SWITCH tier.
  struct Port {
    Link* up = nullptr;
    Link* down = nullptr;
  };
  Link* NewLink(const std::string& label, const std::string& track, double gbps, double hop_ns);
  void BuildFlat(const platforms::FabricSpec& f);
  void BuildTiers(const platforms::FabricSpec& f);
  std::vector<Link*> TierRoute(const platforms::FabricSpec& f, int tier, int a, int b) const;

  int chips_;
  Trace* trace_;
  int trace_pid_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<Link>> egress_;
  std::vector<std::vector<Link*>> routes_;  // [src * chips + dst]
  // HIERARCHY: per tier, the MESH links [group][i * g + j], the ports of a
  // SWITCH tier by chip (shared NICs point to the same links), the uplinks
  // of a via_inner_ports tier by inner group.
  std::vector<std::vector<std::vector<Link*>>> mesh_;
  std::vector<std::vector<Port>> ports_;
  std::vector<std::vector<Port>> uplinks_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_LINK_FABRIC_H_
