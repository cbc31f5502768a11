#include "sim/common/interval_set.h"

#include "gtest/gtest.h"

namespace pto::sim {
namespace {

TEST(IntervalSetTest, AddMergesOverlappingAndTouchingRanges) {
  IntervalSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  EXPECT_EQ(s.size(), 2u);
  s.Add(20, 30);  // touches both
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(s.Overlaps(10, 11));
  EXPECT_TRUE(s.Overlaps(39, 40));
  EXPECT_FALSE(s.Overlaps(40, 50));
  EXPECT_FALSE(s.Overlaps(0, 10));
  s.Add(5, 45);  // covers it
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(s.Overlaps(5, 6));
  EXPECT_TRUE(s.Overlaps(44, 45));
}

TEST(IntervalSetTest, RemoveSplitsAndTrims) {
  IntervalSet s;
  s.Add(0, 100);
  s.Remove(40, 60);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.Overlaps(39, 40));
  EXPECT_FALSE(s.Overlaps(40, 60));
  EXPECT_TRUE(s.Overlaps(60, 61));
  s.Remove(0, 10);
  EXPECT_FALSE(s.Overlaps(0, 10));
  EXPECT_TRUE(s.Overlaps(10, 11));
  s.Remove(30, 70);  // the tail of one range and the head of the other
  EXPECT_FALSE(s.Overlaps(30, 70));
  EXPECT_TRUE(s.Overlaps(29, 30));
  EXPECT_TRUE(s.Overlaps(70, 71));
  s.Remove(0, 1000);
  EXPECT_TRUE(s.empty());
}

TEST(IntervalSetTest, CoversNeedsEveryByte) {
  IntervalSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  EXPECT_TRUE(s.Covers(10, 20));
  EXPECT_TRUE(s.Covers(12, 18));
  EXPECT_FALSE(s.Covers(15, 35));
  EXPECT_FALSE(s.Covers(5, 12));
  EXPECT_TRUE(s.Covers(7, 7));
}

TEST(IntervalSetTest, EmptyRangesAreIgnored) {
  IntervalSet s;
  s.Add(5, 5);
  EXPECT_TRUE(s.empty());
  s.Add(0, 8);
  EXPECT_FALSE(s.Overlaps(4, 4));
  s.Remove(3, 3);
  EXPECT_EQ(s.size(), 1u);
}

}  // namespace
}  // namespace pto::sim
