#include "common/launch_width.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace pto {
namespace {

struct Row {
  int64_t p, l, b;
};

// Every worked row of spec §4.8: the RFC's EP8 table (first eight rows), the
// EP4 campaign points, the EP8 sweep extras, the ST points and the EP4 K3
// point of seed 003.
constexpr Row kWorkedTable[] = {
    {8, 1, 1},  {8, 7, 7},    {8, 8, 8},   {8, 10, 8},  {8, 15, 8}, {8, 16, 16},
    {16, 7, 7}, {16, 16, 16}, {4, 2, 2},   {4, 10, 8},  {8, 2, 2},  {8, 4, 4},
    {2, 5, 4},  {2, 6, 6},    {2, 51, 50}, {4, 16, 16},
};

TEST(CalAllToAllVBlocksTest, WorkedTable) {
  for (const Row& r : kWorkedTable) {
    absl::StatusOr<int64_t> b = CalAllToAllVBlocks(r.p, r.l);
    ASSERT_TRUE(b.ok()) << "P=" << r.p << " L=" << r.l << ": " << b.status();
    EXPECT_EQ(*b, r.b) << "P=" << r.p << " L=" << r.l;
  }
}

// The EP8 sweep of the benchmark harness: L=1,2,4,7,8,10,15,16 -> B=1,2,4,7,8,8,8,16.
TEST(CalAllToAllVBlocksTest, Ep8Sweep) {
  const int64_t ls[] = {1, 2, 4, 7, 8, 10, 15, 16};
  const int64_t bs[] = {1, 2, 4, 7, 8, 8, 8, 16};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(*CalAllToAllVBlocks(8, ls[i]), bs[i]) << "L=" << ls[i];
}

// No 2P cap (an earlier harness model with one broke EP4 L=16), and the
// extremes do not overflow.
TEST(CalAllToAllVBlocksTest, NoCapAndExtremes) {
  EXPECT_EQ(*CalAllToAllVBlocks(4, 16), 16);
  EXPECT_EQ(*CalAllToAllVBlocks(1, 1), 1);
  const int64_t max32 = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(*CalAllToAllVBlocks(8, max32), max32 / 8 * 8);
  EXPECT_EQ(*CalAllToAllVBlocks(max32, 3), 3);
}

// The four non-positive cases of the Python reference's test.
TEST(CalAllToAllVBlocksTest, RejectsNonPositive) {
  struct Bad {
    int64_t p, l;
    const char* message;
  };
  const Bad bad[] = {
      {0, 8, "cal_all_to_all_v_blocks: p (rank count) must be positive, got 0"},
      {-1, 8, "cal_all_to_all_v_blocks: p (rank count) must be positive, got -1"},
      {8, 0, "cal_all_to_all_v_blocks: l (core_num) must be positive, got 0"},
      {8, -3, "cal_all_to_all_v_blocks: l (core_num) must be positive, got -3"},
  };
  for (const Bad& b : bad) {
    absl::StatusOr<int64_t> r = CalAllToAllVBlocks(b.p, b.l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), b.message);
  }
}

TEST(AllReduceLaunchWidthTest, OneShotIsMinOfLAndPPlusOne) {
  const Row rows[] = {{8, 1, 1}, {8, 8, 8}, {8, 9, 9}, {8, 10, 9}, {8, 48, 9},
                      {2, 2, 2}, {2, 3, 3}, {2, 7, 3}, {4, 4, 4}, {4, 16, 5}};
  for (const Row& r : rows) {
    EXPECT_EQ(*CalOneShotAllReduceBlocks(r.p, r.l), r.b) << "P=" << r.p << " L=" << r.l;
  }
}

TEST(AllReduceLaunchWidthTest, TwoShotIsWholeGroupsOfPPlusOne) {
  const Row rows[] = {{8, 1, 1},   {8, 8, 8},   {8, 9, 9},  {8, 17, 9},
                      {8, 18, 18}, {8, 48, 45}, {2, 2, 2},  {2, 5, 3},
                      {2, 6, 6},   {4, 16, 15}, {4, 4, 4},  {4, 5, 5}};
  for (const Row& r : rows) {
    EXPECT_EQ(*CalTwoShotAllReduceBlocks(r.p, r.l), r.b) << "P=" << r.p << " L=" << r.l;
  }
}

TEST(AllReduceLaunchWidthTest, NonPositiveArgumentsAreRejected) {
  EXPECT_EQ(CalOneShotAllReduceBlocks(0, 4).status().message(),
            "cal_one_shot_allreduce_blocks: p (rank count) must be positive, got 0");
  EXPECT_EQ(CalTwoShotAllReduceBlocks(4, -1).status().message(),
            "cal_two_shot_allreduce_blocks: l (core_num) must be positive, got -1");
}

TEST(LaunchedBlocksTest, EveryRuleGivesItsWidth) {
  using R = LaunchWidthRule;
  EXPECT_EQ(*LaunchedBlocks(R::kOneBlock, 4, 1), 1);
  EXPECT_EQ(*LaunchedBlocks(R::kPerPeer, 4, 1), 4);
  EXPECT_EQ(*LaunchedBlocks(R::kOneShot, 2, 8), 3);  // min(L, P + 1)
  EXPECT_EQ(*LaunchedBlocks(R::kAllToAllV, 2, 3), 2);  // folded to a multiple of P
  // indexed_all_to_all_v launches exactly L (spec §5), where kAllToAllV folds.
  EXPECT_EQ(*LaunchedBlocks(R::kExact, 2, 3), 3);
  EXPECT_FALSE(TakesCoreNum(R::kOneBlock));
  EXPECT_FALSE(TakesCoreNum(R::kPerPeer));
  EXPECT_TRUE(NeedsLanePerBlock(R::kAllToAllV));
  EXPECT_FALSE(NeedsLanePerBlock(R::kExact));
  EXPECT_STREQ(LaunchWidthRuleCpp(R::kPerPeer), "pto::LaunchWidthRule::kPerPeer");
}

TEST(LaunchedBlocksTest, OneBlockRulesRejectAWiderRequest) {
  absl::StatusOr<int64_t> b = LaunchedBlocks(LaunchWidthRule::kPerPeer, 4, 2);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "core_num=2 but this collective launches one block");
  EXPECT_FALSE(LaunchedBlocks(LaunchWidthRule::kExact, 2, 0).ok());
}

TEST(CheckRequestedCoreNumTest, OneRangeForEveryCollective) {
  EXPECT_TRUE(CheckRequestedCoreNum(1).ok());
  EXPECT_TRUE(CheckRequestedCoreNum(std::numeric_limits<int32_t>::max()).ok());
  EXPECT_EQ(CheckRequestedCoreNum(0).message(), "core_num=0 outside [1, INT32_MAX]");
  EXPECT_EQ(CheckRequestedCoreNum(int64_t{1} << 31).message(),
            "core_num=2147483648 outside [1, INT32_MAX]");
}

}  // namespace
}  // namespace pto
