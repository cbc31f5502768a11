// One direction of a link (sim/link/link.h) alone, without a SimSystem: its
// bandwidth shared first come first served, the idle gaps it fills, its hop
// latency, and the trace slices it draws. Simulated time only.
#include "sim/link/link.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "sim/common/time.h"
#include "sim/trace/trace.h"

namespace pto::sim {
namespace {

constexpr double kGbps = 56;  // a 910B HCCS link
constexpr Ps kHop = 370000;

Ps Duration(uint64_t bytes) { return static_cast<Ps>(std::llround(bytes * 1000.0 / kGbps)); }

TEST(LinkTest, TransfersShareTheBandwidthFirstComeFirstServed) {
  Trace trace(/*enabled=*/false);
  Link link("l", "link c0->c1", kGbps, kHop, &trace, 0, "HCCS link c0->c1");
  constexpr uint64_t kBytes = 8 << 20;
  const Slot a = link.Transfer(0, kBytes);
  const Slot b = link.Transfer(0, kBytes);
  // 8 MiB at 56 GB/s: 149.796 us each, the second after the first.
  EXPECT_EQ(a.start, 0);
  EXPECT_EQ(a.end, Duration(kBytes));
  EXPECT_NEAR(a.end, 149796571, 1);
  EXPECT_EQ(b.start, a.end);
  EXPECT_EQ(link.resource().bytes(), 2 * kBytes);
  EXPECT_EQ(link.hop_latency(), kHop);
}

TEST(LinkTest, ATransferRequestedLaterWaitsOnlyIfTheLinkIsBusy) {
  Trace trace(false);
  Link link("l", "link c0->c1", kGbps, kHop, &trace, 0, "t");
  const Slot first = link.Transfer(0, 56000);             // 1 us
  const Slot idle = link.Transfer(5000000, 56000);        // after an idle gap
  const Slot gap = link.Transfer(1000000, 56000);         // fits in the gap
  EXPECT_EQ(first.end, 1000000);
  EXPECT_EQ(idle.start, 5000000);
  EXPECT_EQ(gap.start, 1000000);
  EXPECT_EQ(gap.end, 2000000);
}

TEST(LinkTest, EveryTransferIsATraceSliceOnTheLinksTrack) {
  Trace trace(/*enabled=*/true);
  Link link("l", "link c0->c1", kGbps, kHop, &trace, 0, "HCCS link c0->c1");
  link.Transfer(0, 56000, {{"task", int64_t{7}}});
  const std::string json = trace.Json();
  EXPECT_NE(json.find("HCCS link c0->c1"), std::string::npos) << json;
  EXPECT_EQ(trace.event_count(), 1u);
  EXPECT_NE(json.find("56000 B"), std::string::npos) << json;
  EXPECT_NE(json.find("\"task\""), std::string::npos) << json;
}

}  // namespace
}  // namespace pto::sim
