// The fabric of a platform (sim/link/fabric.h) alone, without a SimSystem:
// the links it builds and the route between every two chips, with their hop
// latencies, on the flat and the tiered (scale) platforms.
#include "sim/link/fabric.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "sim/link/link.h"
#include "sim/trace/trace.h"

namespace pto::sim {
namespace {

// Labels (joined by " | ") and total hop latency (ns) of each route.
std::pair<int, int> P(int a, int b) { return {a, b}; }

struct RouteInfo {
  std::string labels;
  int64_t latency_ns = 0;
};

std::map<std::pair<int, int>, RouteInfo> Routes(
    const std::string& platform, int chips, const std::vector<std::pair<int, int>>& pairs,
    const std::function<void(platforms::Platform&)>& tweak = nullptr) {
  platforms::Platform p = *platforms::LoadPlatform(platform);
  if (tweak) tweak(p);
  EXPECT_TRUE(platforms::ValidatePlatform(p).ok());
  Trace trace(/*enabled=*/false);
  Fabric fabric(p.fabric(), chips, &trace, /*trace_pid=*/chips);
  std::map<std::pair<int, int>, RouteInfo> m;
  for (const auto& [a, b] : pairs) {
    std::vector<std::string> labels;
    Ps lat = 0;
    for (Link* l : fabric.Route(a, b)) {
      labels.push_back(l->resource().name());
      lat += l->hop_latency();
    }
    m[{a, b}] = RouteInfo{absl::StrJoin(labels, " | "), lat / 1000};
  }
  return m;
}

TEST(FabricTest, A2a3IsAFullMeshOfOneLinkPerOrderedPair) {
  auto m = Routes("a2a3", 8, {{0, 7}, {7, 0}, {3, 3}});
  // Each route also crosses the sender's egress port (no hop of its own).
  EXPECT_EQ(m[P(0, 7)].labels, "link c0->c7 | egress c0");
  EXPECT_EQ(m[P(7, 0)].labels, "link c7->c0 | egress c7");
  EXPECT_EQ(m[P(0, 7)].latency_ns, 357);
  EXPECT_EQ(m[P(3, 3)].labels, "");  // no link to itself
  platforms::Platform p = *platforms::LoadPlatform("a2a3");
  Trace trace(false);
  Fabric fabric(p.fabric(), 8, &trace, 8);
  EXPECT_EQ(fabric.links().size(), 8u * 7u);
  ASSERT_EQ(fabric.egress_ports().size(), 8u);
  EXPECT_EQ(fabric.egress_ports()[0]->resource().Duration(79700), 1000000);  // 79.7 GB/s
  // Without the cap, the pair link alone.
  auto bare = Routes("a2a3", 8, {{0, 7}},
                     [](platforms::Platform& q) { q.mutable_fabric()->clear_chip_egress_gbps(); });
  EXPECT_EQ(bare[P(0, 7)].labels, "link c0->c7");
}

TEST(FabricTest, A3RoutesThroughL1InsideANodeAndL2Between) {
  auto m = Routes("a3", 48, {{0, 1}, {0, 15}, {0, 16}, {47, 3}});
  EXPECT_EQ(m[P(0, 1)].labels, "UB L1 port c0->switch | UB L1 port switch->c1");
  EXPECT_EQ(m[P(0, 1)].latency_ns, 400);
  EXPECT_EQ(m[P(0, 15)].labels, "UB L1 port c0->switch | UB L1 port switch->c15");
  EXPECT_EQ(m[P(0, 16)].labels,
            "UB L1 port c0->switch | UB L2 uplink g0->switch | UB L2 uplink switch->g1 | "
            "UB L1 port switch->c16");
  EXPECT_EQ(m[P(0, 16)].latency_ns, 900);
  EXPECT_EQ(m[P(47, 3)].labels,
            "UB L1 port c47->switch | UB L2 uplink g2->switch | UB L2 uplink switch->g0 | "
            "UB L1 port switch->c3");
}

TEST(FabricTest, A2a3ClusterUsesHccsInAServerAndTheNicBetween) {
  auto m = Routes("a2a3_cluster", 16, {{0, 7}, {0, 8}, {9, 1}});
  EXPECT_EQ(m[P(0, 7)].labels, "link c0->c7");
  EXPECT_EQ(m[P(0, 7)].latency_ns, 357);
  EXPECT_EQ(m[P(0, 8)].labels, "RoCE port c0->switch | RoCE port switch->c8");
  EXPECT_EQ(m[P(0, 8)].latency_ns, 2000);
  EXPECT_EQ(m[P(9, 1)].labels, "RoCE port c9->switch | RoCE port switch->c1");
}

TEST(FabricTest, ChipsShareANicWhenAServerHasFewerNicsThanChips) {
  // 4 x 400GE per server: chips i and i + 4 of a server share NIC i.
  auto m = Routes("a2a3_cluster", 16, {{0, 8}, {4, 12}, {5, 9}}, [](platforms::Platform& p) {
    p.mutable_fabric()->mutable_tiers(1)->set_ports_per_group(4);
    p.mutable_fabric()->mutable_tiers(1)->set_link_bandwidth_gbps(50);
  });
  EXPECT_EQ(m[P(0, 8)].labels, "RoCE port g0.0->switch | RoCE port switch->g1.0");
  EXPECT_EQ(m[P(4, 12)].labels, "RoCE port g0.0->switch | RoCE port switch->g1.0");
  EXPECT_EQ(m[P(5, 9)].labels, "RoCE port g0.1->switch | RoCE port switch->g1.1");
}

TEST(FabricTest, A5SupernodeRoutesBetweenCabinetsThroughL2) {
  auto m = Routes("a5_supernode", 128, {{0, 63}, {0, 64}});
  EXPECT_EQ(m[P(0, 63)].labels, "UB L1 port c0->switch | UB L1 port switch->c63");
  EXPECT_EQ(m[P(0, 64)].labels,
            "UB L1 port c0->switch | UB L2 uplink g0->switch | UB L2 uplink switch->g1 | "
            "UB L1 port switch->c64");
  EXPECT_EQ(m[P(0, 64)].latency_ns, 2000);
}

}  // namespace
}  // namespace pto::sim
