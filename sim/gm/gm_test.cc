// One chip's GM (sim/gm/gm.h) alone, without a SimSystem: allocations and
// their names, the capacity, the shared port, the signal-cell log and the
// timing-only byte classes. Simulated time only.
#include "sim/gm/gm.h"

#include <cstdint>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "sim/common/time.h"

namespace pto::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const platforms::Platform& A2a3() {
  static const platforms::Platform p = *platforms::LoadPlatform("a2a3");
  return p;
}

TEST(GmTest, AllocationsAreZeroedAlignedIndexedAndNamedByOffset) {
  GmIndex index;
  Gm gm("gm", /*chip=*/3, A2a3(), /*timing_only=*/false, &index);
  const uint64_t a = *gm.Alloc(100, "x");
  const uint64_t b = *gm.Alloc(64, "y");
  EXPECT_EQ(a % 64, 0u);
  EXPECT_EQ(*reinterpret_cast<const uint8_t*>(a + 99), 0);
  EXPECT_TRUE(gm.Contains(a, 100));
  EXPECT_FALSE(gm.Contains(a, 101));
  EXPECT_EQ(gm.Describe(a + 0x40), "c3:x+0x40");
  EXPECT_EQ(gm.Describe(b), "c3:y+0x0");
  EXPECT_EQ(index.Owner(a + 96, 4), 3);
  EXPECT_EQ(index.Owner(a + 98, 4), -1);  // runs past the allocation
  EXPECT_EQ(gm.used_bytes(), 164u);
}

TEST(GmTest, AnAllocationPastTheCapacityIsAnErrorNamingIt) {
  platforms::Platform p = A2a3();
  p.mutable_gm()->set_capacity_bytes(1 << 20);
  Gm gm("gm", 0, p);
  ASSERT_TRUE(gm.Alloc(1 << 19, "half").ok());
  auto big = gm.Alloc(1 << 20, "window");
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(),
              HasSubstr("chip 0 GM: 1048576 bytes for 'window' exceed the remaining 524288 bytes"));
  EXPECT_FALSE(gm.Alloc(0, "empty").ok());
}

// Every core and peer reserves the one port: two transfers requested at
// once run back to back at the platform's GM bandwidth.
TEST(GmTest, ThePortIsSharedAtThePlatformBandwidth) {
  Gm gm("gm", 0, A2a3());
  constexpr uint64_t kBytes = 1 << 20;
  const Slot first = gm.port().Reserve(0, kBytes);
  const Slot second = gm.port().Reserve(0, kBytes);
  const Ps one = static_cast<Ps>(std::llround(kBytes * 1000.0 / A2a3().gm().bandwidth_gbps()));
  EXPECT_EQ(first.end - first.start, one);
  EXPECT_EQ(second.start, first.end);
  EXPECT_EQ(gm.latency(), NsToPs(A2a3().gm().latency_ns()));
  EXPECT_EQ(gm.atomic_cost(), NsToPs(A2a3().gm().atomic_ns()));
}

TEST(GmTest, TheCellLogKeepsTheLastWriteAndEveryWritingChip) {
  Gm gm("gm", 0, A2a3());
  const uint64_t cell = *gm.Alloc(64, "signals");
  EXPECT_EQ(gm.LastCellWrite(cell), nullptr);
  CellWrite set;
  set.chip = 1;
  set.value = 5;
  gm.RecordCellWrite(cell, set);
  CellWrite add;
  add.chip = 2;
  add.add = true;
  add.value = 1;
  gm.RecordCellWrite(cell, add);
  ASSERT_NE(gm.LastCellWrite(cell), nullptr);
  EXPECT_EQ(gm.LastCellWrite(cell)->chip, 2);
  EXPECT_TRUE(gm.LastCellWrite(cell)->add);
  EXPECT_THAT(gm.CellWriters(cell), ElementsAre(1, 2));
  EXPECT_TRUE(gm.CellWriters(cell + 4).empty());
}

TEST(GmTest, TimingOnlyTracksWhichBytesArePayload) {
  Gm full("full", 0, A2a3());
  const uint64_t f = *full.Alloc(256, "b");
  full.MarkPayload(f, 64);  // no effect in full mode
  EXPECT_FALSE(full.HoldsPayload(f, 64));
  EXPECT_TRUE(full.HoldsReal(f, 64));

  Gm gm("timing", 0, A2a3(), /*timing_only=*/true);
  const uint64_t a = *gm.Alloc(256, "b");
  gm.MarkPayload(a, 128);
  gm.MarkReal(a + 64, 8);  // a scalar store over payload
  EXPECT_TRUE(gm.HoldsPayload(a, 64));
  EXPECT_FALSE(gm.HoldsPayload(a + 64, 8));
  EXPECT_TRUE(gm.HoldsReal(a + 64, 8));
  EXPECT_FALSE(gm.HoldsReal(a + 128, 64));
}

}  // namespace
}  // namespace pto::sim
