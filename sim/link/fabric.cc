#include "sim/link/fabric.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/common/time.h"

namespace pto::sim {

using platforms::FabricSpec;
using platforms::FabricTier;

Fabric::Fabric(const FabricSpec& spec, int chips, Trace* trace, int trace_pid)
    : chips_(chips), trace_(trace), trace_pid_(trace_pid) {
  routes_.assign(static_cast<size_t>(chips) * chips, {});
  if (spec.kind() == FabricSpec::HIERARCHY) {
    BuildTiers(spec);
  } else {
    BuildFlat(spec);
  }
}

Link* Fabric::NewLink(const std::string& label, const std::string& track, double gbps,
                      double hop_ns) {
  // The SystemC name only has to be unique; the label names it in reports.
  links_.push_back(std::make_unique<Link>(absl::StrCat("link", links_.size()).c_str(), label,
                                          gbps, NsToPs(hop_ns), trace_, trace_pid_, track));
  return links_.back().get();
}

// The two single-level fabrics, with the names reports have always used.
void Fabric::BuildFlat(const FabricSpec& f) {
  const int n = chips_;
  if (f.kind() == FabricSpec::FULL_MESH) {
    // The egress port adds no hop: it caps the chip's outgoing rate only.
    for (int a = 0; f.chip_egress_gbps() > 0 && a < n; ++a) {
      const std::string label = absl::StrCat("egress c", a);
      egress_.push_back(std::make_unique<Link>(absl::StrCat("egress", a).c_str(), label,
                                               f.chip_egress_gbps(), 0, trace_, trace_pid_,
                                               absl::StrCat("HCCS ", label)));
    }
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        const std::string label = absl::StrCat("link c", a, "->c", b);
        routes_[a * n + b] = {NewLink(label, absl::StrCat("HCCS ", label),
                                      f.link_bandwidth_gbps(), f.hop_latency_ns())};
        if (!egress_.empty()) routes_[a * n + b].push_back(egress_[a].get());
      }
    }
    return;
  }
  std::vector<Port> port(n);
  for (int a = 0; a < n; ++a) {
    const std::string up = absl::StrCat("port c", a, "->switch");
    const std::string down = absl::StrCat("port switch->c", a);
    port[a].up = NewLink(up, absl::StrCat("UB ", up), f.link_bandwidth_gbps(), f.hop_latency_ns());
    port[a].down =
        NewLink(down, absl::StrCat("UB ", down), f.link_bandwidth_gbps(), f.hop_latency_ns());
  }
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a != b) routes_[a * n + b] = {port[a].up, port[b].down};
    }
  }
}

void Fabric::BuildTiers(const FabricSpec& f) {
  const int n = chips_;
  const int tiers = f.tiers_size();
  mesh_.assign(tiers, {});
  ports_.assign(tiers, {});
  uplinks_.assign(tiers, {});
  for (int t = 0; t < tiers; ++t) {
    const FabricTier& tier = f.tiers(t);
    const int g = static_cast<int>(tier.group_chips());
    const int inner = t == 0 ? 1 : static_cast<int>(f.tiers(t - 1).group_chips());
    const double bw = tier.link_bandwidth_gbps();
    const double hop = tier.hop_latency_ns();
    const std::string& name = tier.name();
    if (tier.kind() == FabricTier::MESH) {
      // Only pairs of chips that exist get links.
      for (int base = 0; base < n; base += g) {
        const int m = std::min(g, n - base);
        std::vector<Link*> links(static_cast<size_t>(m) * m, nullptr);
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < m; ++j) {
            if (i == j) continue;
            const std::string label = absl::StrCat("link c", base + i, "->c", base + j);
            links[i * m + j] = NewLink(label, absl::StrCat(name, " ", label), bw, hop);
          }
        }
        mesh_[t].push_back(std::move(links));
      }
    } else if (!tier.via_inner_ports()) {
      // Ports (NICs) per group of the tier below, chip i on port i % ports.
      const int per = tier.ports_per_group() == 0 ? inner : static_cast<int>(tier.ports_per_group());
      std::vector<Port> shared;
      ports_[t].resize(n);
      for (int c = 0; c < n; ++c) {
        const int group = c / inner;
        const int k = (c % inner) % per;
        const bool own = per == inner;
        const std::string who = own ? absl::StrCat("c", c) : absl::StrCat("g", group, ".", k);
        const size_t idx = static_cast<size_t>(group) * per + k;
        if (idx >= shared.size()) {
          shared.resize(idx + 1);
          const std::string up = absl::StrCat(name, " port ", who, "->switch");
          const std::string down = absl::StrCat(name, " port switch->", who);
          shared[idx].up = NewLink(up, up, bw, hop);
          shared[idx].down = NewLink(down, down, bw, hop);
        }
        ports_[t][c] = shared[idx];
      }
    } else {
      // Each inner group's uplink to this tier's switch.
      for (int base = 0; base < n; base += inner) {
        const int group = base / inner;
        const std::string up = absl::StrCat(name, " uplink g", group, "->switch");
        const std::string down = absl::StrCat(name, " uplink switch->g", group);
        uplinks_[t].push_back(Port{NewLink(up, up, bw, hop), NewLink(down, down, bw, hop)});
      }
    }
  }
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int t = 0;
      while (t + 1 < tiers && a / static_cast<int>(f.tiers(t).group_chips()) !=
                                  b / static_cast<int>(f.tiers(t).group_chips())) {
        ++t;
      }
      routes_[static_cast<size_t>(a) * n + b] = TierRoute(f, t, a, b);
    }
  }
}

std::vector<Link*> Fabric::TierRoute(const FabricSpec& f, int t, int a, int b) const {
  const FabricTier& tier = f.tiers(t);
  if (tier.kind() == FabricTier::MESH) {
    const int g = static_cast<int>(tier.group_chips());
    const int base = a / g * g;
    const int m = std::min(g, chips_ - base);
    return {mesh_[t][a / g][(a - base) * m + (b - base)]};
  }
  if (!tier.via_inner_ports()) return {ports_[t][a].up, ports_[t][b].down};
  // Down to the tier that owns the chip's port, collecting the uplinks of
  // every via_inner_ports tier on the way.
  std::vector<Link*> up, down;
  int s = t;
  while (f.tiers(s).via_inner_ports()) {
    const int inner = static_cast<int>(f.tiers(s - 1).group_chips());
    up.push_back(uplinks_[s][a / inner].up);
    down.push_back(uplinks_[s][b / inner].down);
    --s;
  }
  std::vector<Link*> route = {ports_[s][a].up};
  route.insert(route.end(), up.rbegin(), up.rend());
  route.insert(route.end(), down.begin(), down.end());
  route.push_back(ports_[s][b].down);
  return route;
}

}  // namespace pto::sim
