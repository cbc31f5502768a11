// The tiered fabrics (sim/link/fabric.h) of the scale platforms in the
// whole model: the bytes every level's links carry in an all-to-all and the
// ports they share. Their routes are sim/link/fabric_test.cc's.
// Simulated time only, never wall-clock time.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

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

TEST(FabricTrafficTest, TheNicIsSharedByEveryPeerOfItsChip) {
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

TEST(FabricTrafficTest, A3UplinksCarryEveryByteThatLeavesANode) {
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

TEST(FabricTrafficTest, A3PastSixtyFourRanks) {
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
