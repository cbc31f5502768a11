#include "sim/aiv/op_deadline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"

namespace pto::sim {
namespace {

platforms::Platform Load(const std::string& name) {
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(name);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : platforms::Platform();
}

TEST(OpDeadlineTest, TheSlowestRateIsGmOrAnyFabricTier) {
  EXPECT_DOUBLE_EQ(SlowestRateGbps(Load("a2a3")), 56);          // an HCCS link
  EXPECT_DOUBLE_EQ(SlowestRateGbps(Load("a2a3_cluster")), 25);  // the RoCE tier
  EXPECT_DOUBLE_EQ(SlowestRateGbps(Load("a5")), 1600);          // GM below the UB port
}

TEST(OpDeadlineTest, TheFloorPlusTheFactorTimesTheWorkAtTheSlowestRate) {
  const platforms::Platform p = Load("a2a3");
  ASSERT_DOUBLE_EQ(p.timeouts().op_timeout_ns(), 1e7);
  ASSERT_DOUBLE_EQ(p.timeouts().op_deadline_factor(), 64);
  // No args: the floor.
  EXPECT_DOUBLE_EQ(BlockDeadline(p, 0, 8).ns, 1e7);
  // 56 MB of args on 8 chips: 448 MB at 56 GB/s is 8 ms, times 64.
  const OpDeadline d = BlockDeadline(p, 56'000'000, 8);
  EXPECT_EQ(d.work_bytes, 448'000'000u);
  EXPECT_DOUBLE_EQ(d.ns, 1e7 + 64 * 8e6);
  EXPECT_EQ(DescribeDeadline(p, d),
            "its deadline of 522000000 ns of simulated time (floor 10000000 ns + 64 x "
            "448000000 bytes at 56 GB/s)");
  // The work grows with the chips, so the deadline does too.
  EXPECT_GT(BlockDeadline(p, 56'000'000, 128).ns, d.ns);
}

}  // namespace
}  // namespace pto::sim
