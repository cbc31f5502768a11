#include "sim/common/resource.h"

#include "gtest/gtest.h"

namespace pto::sim {
namespace {

// 1 GB/s: one byte per ns.
BandwidthResource OneGbps() { return BandwidthResource("r", 1.0); }

TEST(BandwidthResourceTest, BackToBackRequestsQueue) {
  BandwidthResource r = OneGbps();
  Slot a = r.Reserve(0, 100);
  Slot b = r.Reserve(0, 100);
  EXPECT_EQ(a.start, 0);
  EXPECT_EQ(a.end, 100'000);
  EXPECT_EQ(b.start, 100'000);
  EXPECT_EQ(r.next_free(), 200'000);
}

// A request issued earlier in simulated time than one already reserved in
// its future (another core's local time runs ahead) uses the idle gap
// instead of queueing behind it.
TEST(BandwidthResourceTest, AnEarlierRequestFillsTheIdleGap) {
  BandwidthResource r = OneGbps();
  Slot late = r.Reserve(1'000'000, 100);
  Slot early = r.Reserve(0, 100);
  EXPECT_EQ(late.start, 1'000'000);
  EXPECT_EQ(early.start, 0);
  // A request that does not fit the gap before `late` goes after it.
  Slot big = r.Reserve(950'000, 100);
  EXPECT_EQ(big.start, 1'100'000);
  EXPECT_EQ(r.busy(), 300'000);
}

TEST(BandwidthResourceTest, NeverExceedsTheBandwidth) {
  BandwidthResource r = OneGbps();
  Ps last_end = 0;
  for (int i = 0; i < 1000; ++i) last_end = std::max(last_end, r.Reserve((i * 7919) % 5000, 10).end);
  // 1000 transfers of 10 ns each need at least 10 us.
  EXPECT_GE(last_end, 10'000'000);
  EXPECT_EQ(r.busy(), 10'000'000);
}

// Beyond kMaxIntervals disjoint intervals the oldest is forgotten and
// counts as busy: a request before it starts after it.
TEST(BandwidthResourceTest, ForgottenHistoryCountsAsBusy) {
  BandwidthResource r = OneGbps();
  for (size_t i = 0; i <= BandwidthResource::kMaxIntervals; ++i) {
    r.Reserve(static_cast<Ps>(i) * 1'000'000, 1);
  }
  Slot s = r.Reserve(0, 1);
  EXPECT_EQ(s.start, 1'000);  // end of the forgotten first interval
}

}  // namespace
}  // namespace pto::sim
