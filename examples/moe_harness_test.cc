#include "examples/moe_harness.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace pto::examples::moe {
namespace {

TEST(MoeHarnessTest, FirstMismatchNamesTheFirstDifferingElementByRowAndColumn) {
  const std::vector<float> want = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(FirstMismatch("out", want, want.data(), 3), "");
  std::vector<float> got = want;
  got[4] = 7;
  got[5] = 8;
  EXPECT_EQ(FirstMismatch("out", got, want.data(), 3), "out[1, 1] = 7, want 5");
}

TEST(MoeHarnessTest, FirstMismatchComparesBitsNotValues) {
  const std::vector<float> want = {0.0f};
  const std::vector<float> negative_zero = {-0.0f};
  EXPECT_EQ(FirstMismatch("y", negative_zero, want.data(), 1), "y[0, 0] = -0, want 0");
  const std::vector<float> nan = {std::nanf("")};
  EXPECT_EQ(FirstMismatch("y", nan, nan.data(), 1), "");
}

TEST(MoeHarnessTest, WithinCapRejectsAnExpertOverTheCap) {
  EXPECT_TRUE(WithinCap({3, 4, 4}, 4));
  EXPECT_FALSE(WithinCap({3, 5, 4}, 4));
}

// 1 + 2^-11 lies halfway between FP16's 1 and 1 + 2^-10: ties to even give
// 1, the default cast mode "round" gives the neighbour away from zero.
TEST(MoeHarnessTest, RoundFp16TiesAwayRoundsHalfwayAwayFromZero) {
  EXPECT_EQ(RoundFp16TiesAway(1.0f + 0x1p-11f), 1.0f + 0x1p-10f);
  EXPECT_EQ(RoundFp16TiesAway(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  // Not a tie: to nearest as the C++ conversion.
  EXPECT_EQ(RoundFp16TiesAway(1.0f + 0x1p-12f), 1.0f);
  EXPECT_EQ(RoundFp16TiesAway(1.0f + 0x1p-11f + 0x1p-20f), 1.0f + 0x1p-10f);
  // Below a power of two the spacing halves: 1 - 2^-12 ties 1 - 2^-11 and 1.
  EXPECT_EQ(RoundFp16TiesAway(1.0f - 0x1p-12f), 1.0f);
  EXPECT_EQ(RoundFp16TiesAway(3.0f), 3.0f);
}

}  // namespace
}  // namespace pto::examples::moe
