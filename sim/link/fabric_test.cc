// The tiered fabrics (sim/link/fabric.h) of the scale platforms: routes,
// per-hop latency and the links every level shares, on the whole model.
// Simulated time only, never wall-clock time.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "sim/link/link.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::ElementsAre;

// Labels and total hop latency (ns) of route src -> dst, as report values
// "route" (labels joined by " | ") and "latency_ns".
std::pair<int, int> P(int a, int b) { return {a, b}; }

struct RouteInfo {
  std::string labels;
  int64_t latency_ns = 0;
};

std::map<std::pair<int, int>, RouteInfo> Routes(
    const std::string& platform, int chips, const std::vector<std::pair<int, int>>& pairs,
    const std::function<void(platforms::Platform&)>& tweak = nullptr) {
  RunReport r = RunIsolated([&] {
    RunReport out;
    SimOptions o;
    o.platform = platform;
    o.chips = chips;
    o.tweak = tweak;
    auto sys = SimSystem::Create(o);
    if (!sys.ok()) {
      out.set_error_code(-2);
      out.set_error_text(std::string(sys.status().message()));
      return out;
    }
    for (const auto& [a, b] : pairs) {
      std::vector<std::string> labels;
      Ps lat = 0;
      for (Link* l : (*sys)->Route(a, b)) {
        labels.push_back(l->resource().name());
        lat += l->hop_latency();
      }
      const std::string key = absl::StrCat(a, ">", b);
      (*out.mutable_outputs())[key] = absl::StrJoin(labels, " | ");
      (*out.mutable_values())[key] = lat / 1000;
    }
    return out;
  });
  std::map<std::pair<int, int>, RouteInfo> m;
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  for (const auto& [a, b] : pairs) {
    const std::string key = absl::StrCat(a, ">", b);
    m[{a, b}] = RouteInfo{r.outputs().at(key), r.values().at(key)};
  }
  return m;
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
  EXPECT_EQ(m[P(0, 7)].latency_ns, 370);
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

// An all-to-all of `chunk` bytes per peer, timing-only (no payload held).
RunReport AllToAll(const std::string& platform, int chips, uint64_t chunk, int blocks,
                   const std::function<void(platforms::Platform&)>& tweak = nullptr) {
  SimOptions o = testing::Opts(chips, platform);
  o.trace = false;
  o.race_detection = false;
  o.timing_only = true;
  o.tweak = tweak;
  return testing::Simulate(o, [&](SimSystem& sys) {
    return testing::SetUpAllToAll(sys, chunk, blocks, 64 * 1024, /*stage_payload=*/false)
        .status();
  });
}

std::map<std::string, ResourceStat> LinksByName(const RunReport& r) {
  std::map<std::string, ResourceStat> m;
  for (const ResourceStat& l : r.links()) m[l.name()] = l;
  return m;
}

TEST(FabricTest, TheNicIsSharedByEveryPeerOfItsChip) {
  // 2 servers: each chip sends 8 x 256 KiB over its NIC, 2 MiB at 25 GB/s.
  constexpr uint64_t kChunk = 256 * 1024;
  const RunReport r = AllToAll("a2a3_cluster", 16, kChunk, 16);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  auto links = LinksByName(r);
  EXPECT_EQ(links.at("RoCE port c0->switch").bytes(), 8 * kChunk);
  EXPECT_EQ(links.at("RoCE port switch->c8").bytes(), 8 * kChunk);
  EXPECT_EQ(links.at("link c0->c1").bytes(), kChunk);
  const int64_t nic_ps = static_cast<int64_t>(8 * kChunk / 25e9 * 1e12);
  EXPECT_GE(links.at("RoCE port c0->switch").busy_ps(), nic_ps);
  EXPECT_GE(r.sim_time_ps(), nic_ps);
  // Two chips per NIC of twice the bandwidth: each NIC carries twice the
  // bytes, so the NIC time stays the same.
  const RunReport shared = AllToAll("a2a3_cluster", 16, kChunk, 16, [](platforms::Platform& p) {
    p.mutable_fabric()->mutable_tiers(1)->set_ports_per_group(4);
    p.mutable_fabric()->mutable_tiers(1)->set_link_bandwidth_gbps(50);
  });
  ASSERT_EQ(shared.error_code(), 0) << shared.error_text();
  auto nics = LinksByName(shared);
  EXPECT_EQ(nics.at("RoCE port g0.0->switch").bytes(), 16 * kChunk);
  EXPECT_GE(nics.at("RoCE port g0.0->switch").busy_ps(), nic_ps);
}

TEST(FabricTest, A3UplinksCarryEveryByteThatLeavesANode) {
  // 32 dies = 2 nodes: each node sends 16 x 16 chunks to the other.
  constexpr uint64_t kChunk = 64 * 1024;
  const RunReport r = AllToAll("a3", 32, kChunk, 32);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  auto links = LinksByName(r);
  EXPECT_EQ(links.at("UB L2 uplink g0->switch").bytes(), 16 * 16 * kChunk);
  EXPECT_EQ(links.at("UB L2 uplink switch->g1").bytes(), 16 * 16 * kChunk);
  // A die's port carries all 31 of its remote chunks, both levels.
  EXPECT_EQ(links.at("UB L1 port c0->switch").bytes(), 31 * kChunk);
}

TEST(FabricTest, A3PastSixtyFourRanks) {
  // 80 dies = 5 nodes in one domain (past the 64 ranks of pto-isa's
  // HcclDeviceContext mirror): node 0's uplink carries its 16 dies' chunks
  // to the 64 dies of the other nodes.
  constexpr uint64_t kChunk = 4096;
  SimOptions o = testing::Opts(80, "a3");
  o.trace = false;
  o.race_detection = false;
  o.timing_only = true;
  const RunReport r = testing::Simulate(o, [&](SimSystem& sys) {
    return testing::SetUpAllToAll(sys, kChunk, 48, 64 * 1024, /*stage_payload=*/false).status();
  });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  auto links = LinksByName(r);
  EXPECT_EQ(links.at("UB L2 uplink g0->switch").bytes(), 16 * 64 * kChunk);
  EXPECT_EQ(links.at("UB L2 uplink switch->g4").bytes(), 16 * 64 * kChunk);
  EXPECT_EQ(links.at("UB L1 port c79->switch").bytes(), 79 * kChunk);
}

}  // namespace
}  // namespace pto::sim
