#include "sim/race/race_detector.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;

// Test addresses 0x1000.. are "buf" at their offset.
std::string Name(uint64_t addr) {
  char b[32];
  std::snprintf(b, sizeof(b), "c0:buf+0x%llx", static_cast<unsigned long long>(addr - 0x1000));
  return b;
}

AccessSite Site(int rank, int core, int64_t task, const char* kernel) {
  return AccessSite{rank, core, false, task, kernel, 0};
}

TEST(RaceDetectorTest, UnorderedWritesOfTheSameBytesRace) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  d.Access(0, Site(0, 24, 0, "a"), 0x1000, 64, true, 1000000, 2000000);
  d.Access(1, Site(0, 25, 1, "b"), 0x1020, 64, true, 3000000, 4000000);
  ASSERT_EQ(d.races().size(), 1u);
  EXPECT_EQ(d.races()[0],
            "race: write of 64 bytes at c0:buf+0x0 by rank 0 AIV24 task 0 block 0 (kernel a) at "
            "1 us-2 us and write of 64 bytes at c0:buf+0x20 by rank 0 AIV25 task 1 block 0 "
            "(kernel b) at 3 us-4 us are not ordered (no dependency, signal or dispatch order)");
}

TEST(RaceDetectorTest, ReadAfterUnorderedWriteRacesButDisjointBytesDoNot) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  d.Access(0, Site(0, 0, 0, "w"), 0x1000, 16, true, 0, 0);
  d.Access(1, Site(0, 1, 1, "r"), 0x1010, 16, false, 0, 0);  // same granule, other bytes
  EXPECT_TRUE(d.races().empty());
  d.Access(1, Site(0, 1, 1, "r"), 0x1008, 4, false, 0, 0);
  ASSERT_EQ(d.races().size(), 1u);
  EXPECT_THAT(d.races()[0], HasSubstr("write of 16 bytes at c0:buf+0x0"));
  EXPECT_THAT(d.races()[0], HasSubstr("read of 4 bytes at c0:buf+0x8"));
}

TEST(RaceDetectorTest, ReadsDoNotRaceWithReads) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  d.Access(0, Site(0, 0, 0, "a"), 0x1000, 64, false, 0, 0);
  d.Access(1, Site(0, 1, 1, "b"), 0x1000, 64, false, 0, 0);
  EXPECT_TRUE(d.races().empty());
}

TEST(RaceDetectorTest, ASignalObservedOrdersTheAccesses) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  d.Access(0, Site(0, 0, 0, "producer"), 0x1000, 64, true, 0, 0);
  d.Notify(0, 0x2000);
  d.Observe(1, 0x2000);
  d.Access(1, Site(1, 0, 0, "consumer"), 0x1000, 64, false, 0, 0);
  EXPECT_TRUE(d.races().empty());
  // A write the producer makes after its notify is not covered by it.
  d.Access(0, Site(0, 0, 0, "producer"), 0x1000, 4, true, 0, 0);
  EXPECT_EQ(d.races().size(), 1u);
}

TEST(RaceDetectorTest, AStartClockFromTheProducerOrdersTheAccesses) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.Access(0, Site(0, 0, 0, "producer"), 0x1000, 64, true, 0, 0);
  const VectorClock end = d.Clock(0);
  d.BlockStart(1, end);  // the consumer task depends on the producer
  d.Access(1, Site(0, 1, 1, "consumer"), 0x1000, 64, true, 0, 0);
  EXPECT_TRUE(d.races().empty());
}

TEST(RaceDetectorTest, EachPairOfSitesIsReportedOnce) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  for (int i = 0; i < 4; ++i) {
    d.Access(0, Site(0, 0, 0, "a"), 0x1000 + 64 * i, 64, true, 0, 0);
    d.Access(1, Site(0, 1, 1, "b"), 0x1000 + 64 * i, 64, true, 0, 0);
  }
  EXPECT_EQ(d.races().size(), 1u);
}


// A write to other bytes of the same 32-byte burst does not hide an earlier
// write (a per-granule shadow with one last write each missed this race).
TEST(RaceDetectorTest, AWriteToNeighbouringBytesDoesNotHideAnEarlierWrite) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  d.BlockStart(1, {});
  d.Access(0, Site(0, 0, 0, "w"), 0x1000, 16, true, 0, 0);
  d.Access(0, Site(0, 0, 0, "w"), 0x1010, 16, true, 0, 0);
  d.Access(1, Site(0, 1, 1, "r"), 0x1004, 4, false, 0, 0);
  ASSERT_EQ(d.races().size(), 1u);
  EXPECT_THAT(d.races()[0], HasSubstr("write of 16 bytes at c0:buf+0x0"));
  EXPECT_THAT(d.races()[0], HasSubstr("read of 4 bytes at c0:buf+0x4"));
}

// The shadow holds one interval per access, however many bytes it moves:
// a 64 MiB DMA is one interval, 32 KiB reads of it split it into one per
// read, and a later write over all of it is one interval again.
TEST(RaceDetectorTest, TheShadowGrowsWithAccessesNotBytes) {
  RaceDetector d(2, Name);
  d.BlockStart(0, {});
  const uint64_t kBytes = uint64_t{64} << 20, kChunk = 32 << 10;
  d.Access(0, Site(0, 0, 0, "w"), 0x1000, kBytes, true, 0, 0);
  EXPECT_EQ(d.shadow_intervals(), 1u);
  d.BlockStart(1, d.Clock(0));
  for (uint64_t off = 0; off < kBytes; off += kChunk) {
    d.Access(1, Site(0, 1, 1, "r"), 0x1000 + off, kChunk, false, 0, 0);
  }
  EXPECT_EQ(d.shadow_intervals(), kBytes / kChunk);
  d.BlockStart(0, d.Clock(1));
  d.Access(0, Site(0, 0, 2, "w2"), 0x1000, kBytes, true, 0, 0);
  EXPECT_EQ(d.shadow_intervals(), 1u);
  EXPECT_TRUE(d.races().empty());
}

// A read inside a large write splits its interval; both parts keep the
// write, so an unordered access to either side still races with it.
TEST(RaceDetectorTest, SplitIntervalsKeepTheirHistory) {
  RaceDetector d(3, Name);
  d.BlockStart(0, {});
  d.Access(0, Site(0, 0, 0, "w"), 0x1000, 1024, true, 0, 0);
  d.BlockStart(1, d.Clock(0));
  d.Access(1, Site(0, 1, 1, "r"), 0x1100, 256, false, 0, 0);  // ordered: no race
  EXPECT_TRUE(d.races().empty());
  EXPECT_EQ(d.shadow_intervals(), 3u);
  d.BlockStart(2, {});
  d.Access(2, Site(0, 2, 2, "x"), 0x13fc, 4, false, 0, 0);  // the write's tail
  ASSERT_EQ(d.races().size(), 1u);
  EXPECT_THAT(d.races()[0], HasSubstr("write of 1024 bytes at c0:buf+0x0"));
  d.Access(2, Site(0, 2, 2, "x"), 0x1100, 8, true, 0, 0);  // unordered with w and r
  ASSERT_EQ(d.races().size(), 2u);
  EXPECT_THAT(d.races()[1], HasSubstr("read of 256 bytes at c0:buf+0x100"));
}

}  // namespace
}  // namespace pto::sim
