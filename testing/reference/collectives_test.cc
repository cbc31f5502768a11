// The golden models against hand-computed expectations.
#include "testing/reference/collectives.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::reference {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ClampCountTest, FollowsTheClampTable) {
  EXPECT_EQ(ClampCount(0, 4), 0);
  EXPECT_EQ(ClampCount(1, 4), 1);
  EXPECT_EQ(ClampCount(4, 4), 4);   // capacity
  EXPECT_EQ(ClampCount(7, 4), 4);   // over capacity
  EXPECT_EQ(ClampCount(-2, 4), 0);  // negative
  EXPECT_EQ(ClampCount(std::numeric_limits<int32_t>::min(), 4), 0);
  EXPECT_EQ(ClampCount(std::numeric_limits<int64_t>::max(), 4), 4);
}

// P = 2, MAX_RECV = 2, SIZE = 2. Rank 0 sends 1 row to itself and 3 (clamped
// to 2) to rank 1; rank 1 sends -1 (0) to rank 0 and 2 to itself.
template <typename T>
void TwoRankAllToAllV() {
  const AllToAllVShape shape{2, 2, 2};
  const PerRank<T> input = {{1, 2, 3, 4, 5, 6, 7, 8},
                            {11, 12, 13, 14, 15, 16, 17, 18}};
  const PerRank<int32_t> counts = {{1, 3}, {-1, 2}};
  PerRank<T> target = {{9, 9, 9, 9, 9, 9, 9, 9}, {0, 0, 0, 0, 0, 0, 0, 0}};
  PerRank<int32_t> recv;
  ASSERT_TRUE(AllToAllV(shape, input, counts, &target, &recv).ok());
  EXPECT_THAT(recv[0], ElementsAre(1, 0));
  EXPECT_THAT(recv[1], ElementsAre(2, 2));
  // Rank 0: slot 0 row 0 from itself; row 1 and slot 1 keep the 9s.
  EXPECT_THAT(target[0], ElementsAre(1, 2, 9, 9, 9, 9, 9, 9));
  // Rank 1: slot 0 = rank 0's rows 2..3, slot 1 = its own rows 2..3.
  EXPECT_THAT(target[1], ElementsAre(5, 6, 7, 8, 15, 16, 17, 18));
}

TEST(AllToAllVTest, TwoRanksFloat) { TwoRankAllToAllV<float>(); }
TEST(AllToAllVTest, TwoRanksInt8) { TwoRankAllToAllV<int8_t>(); }

TEST(AllToAllVTest, RejectsBadExtents) {
  PerRank<float> target = {{0, 0}, {0, 0}};
  PerRank<int32_t> recv;
  EXPECT_FALSE(AllToAllV<float>({2, 1, 1}, {{1, 2}, {3}}, {{1, 1}, {1, 1}},
                                &target, &recv)
                   .ok());
  EXPECT_FALSE(AllToAllV<float>({2, 1, 1}, {{1, 2}, {3, 4}}, {{1}, {1, 1}},
                                &target, &recv)
                   .ok());
  EXPECT_FALSE(
      AllToAllV<float>({0, 1, 1}, {}, {}, &target, &recv).ok());
}

TEST(CompareAllToAllVTest, IgnoresUndefinedRowsUnlessAskedForAll) {
  const AllToAllVShape shape{1, 2, 1};
  const PerRank<float> want = {{5, 0}};
  const PerRank<int32_t> recv = {{1}};
  const PerRank<float> garbage = {{5, NAN}};
  EXPECT_TRUE(
      CompareAllToAllV(shape, want, recv, garbage, recv, false).ok());
  absl::Status st = CompareAllToAllV(shape, want, recv, garbage, recv, true);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("rank 0 target slot 0 row 1 col 0"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("(untransferred row)"));
}

TEST(CompareAllToAllVTest, ReportsCountAndDataMismatches) {
  const AllToAllVShape shape{2, 1, 2};
  const PerRank<int8_t> want = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  const PerRank<int32_t> recv = {{1, 1}, {1, 1}};
  absl::Status st = CompareAllToAllV<int8_t>(shape, want, recv, want,
                                             {{1, 1}, {1, 0}}, false);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("rank 1 recv_counts[1] = 0, want 1"));
  PerRank<int8_t> got = want;
  got[1][3] = -8;
  st = CompareAllToAllV(shape, want, recv, got, recv, false);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("rank 1 target slot 1 row 0 col 1 = -8, want 8"));
  EXPECT_TRUE(CompareAllToAllV(shape, want, recv, want, recv, true).ok());
}

// P = 2, MAX_RECV = 2, SIZE = 2, N = 3. Rank 0 gathers rows 2, 2 for
// itself (repeated index) and 3 (clamped to 2) rows 0, 1 for rank 1; rank 1
// sends -1 (0) to rank 0 and 1 row (row 0; the unread entry past the count
// is out of range and ignored) to itself.
template <typename T>
void TwoRankIndexedAllToAllV() {
  const IndexedAllToAllVShape shape{2, 2, 2, 3};
  const PerRank<T> input = {{1, 2, 3, 4, 5, 6}, {11, 12, 13, 14, 15, 16}};
  const PerRank<int32_t> counts = {{2, 3}, {-1, 1}};
  const PerRank<int32_t> index = {{2, 2, 0, 1}, {1, 1, 0, 99}};
  PerRank<T> target = {{9, 9, 9, 9, 9, 9, 9, 9}, {0, 0, 0, 0, 0, 0, 0, 0}};
  PerRank<int32_t> recv;
  ASSERT_TRUE(IndexedAllToAllV(shape, input, counts, index, &target, &recv).ok());
  EXPECT_THAT(recv[0], ElementsAre(2, 0));
  EXPECT_THAT(recv[1], ElementsAre(2, 1));
  EXPECT_THAT(target[0], ElementsAre(5, 6, 5, 6, 9, 9, 9, 9));
  EXPECT_THAT(target[1], ElementsAre(1, 2, 3, 4, 11, 12, 0, 0));
}

TEST(IndexedAllToAllVTest, TwoRanksFloat) { TwoRankIndexedAllToAllV<float>(); }
TEST(IndexedAllToAllVTest, TwoRanksInt8) { TwoRankIndexedAllToAllV<int8_t>(); }

TEST(IndexedAllToAllVTest, RejectsAnIndexOutsideTheInputBeforeWriting) {
  const IndexedAllToAllVShape shape{2, 2, 1, 3};
  PerRank<float> target = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  PerRank<int32_t> recv;
  for (int32_t bad : {3, -1}) {
    const absl::Status st = IndexedAllToAllV<float>(shape, {{1, 2, 3}, {4, 5, 6}}, {{1, 1}, {1, 1}},
                                                    {{0, 0, 0, 0}, {1, 0, bad, 0}}, &target, &recv);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(st.message(), HasSubstr(absl::StrCat("rank 1 index[2] = ", bad,
                                                     " is outside the input rows [0, 3)")));
    EXPECT_THAT(target[0], ElementsAre(0, 0, 0, 0));
  }
}

TEST(IndexedAllToAllVTest, RejectsBadExtents) {
  const IndexedAllToAllVShape shape{2, 2, 1, 3};
  PerRank<float> target = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  PerRank<int32_t> recv;
  const absl::Status st = IndexedAllToAllV<float>(shape, {{1, 2, 3}, {4, 5, 6}}, {{1, 1}, {1, 1}},
                                                  {{0, 0, 0}, {0, 0, 0, 0}}, &target, &recv);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("rank 0 operand extents differ"));
}

TEST(AllReduceTest, EveryOpOnFloat) {
  const PerRank<float> in = {{1, -2, 0.5f}, {3, 4, 2}, {-1, 1, 4}};
  PerRank<float> d = in;
  ASSERT_TRUE(AllReduce(ReduceOp::kSum, &d).ok());
  for (const auto& r : d) EXPECT_THAT(r, ElementsAre(3, 3, 6.5f));
  d = in;
  ASSERT_TRUE(AllReduce(ReduceOp::kMax, &d).ok());
  for (const auto& r : d) EXPECT_THAT(r, ElementsAre(3, 4, 4));
  d = in;
  ASSERT_TRUE(AllReduce(ReduceOp::kMin, &d).ok());
  for (const auto& r : d) EXPECT_THAT(r, ElementsAre(-1, -2, 0.5f));
  d = in;
  ASSERT_TRUE(AllReduce(ReduceOp::kProd, &d).ok());
  for (const auto& r : d) EXPECT_THAT(r, ElementsAre(-3, -8, 4));
}

TEST(AllReduceTest, Int8WrapsModulo256) {
  PerRank<int8_t> d = {{100, -100, 16}, {100, -100, 16}};
  ASSERT_TRUE(AllReduce(ReduceOp::kSum, &d).ok());
  EXPECT_THAT(d[1], ElementsAre(-56, 56, 32));
  d = {{100, -100, 16}, {100, -100, 16}};
  ASSERT_TRUE(AllReduce(ReduceOp::kProd, &d).ok());
  EXPECT_THAT(d[0], ElementsAre(16, 16, 0));  // 10000 = 39*256 + 16
  d = {{-128, 127}, {5, -5}};
  ASSERT_TRUE(AllReduce(ReduceOp::kMin, &d).ok());
  EXPECT_THAT(d[1], ElementsAre(-128, -5));
}

TEST(AllReduceTest, RejectsRaggedRanks) {
  PerRank<float> d = {{1, 2}, {3}};
  EXPECT_FALSE(AllReduce(ReduceOp::kSum, &d).ok());
  PerRank<float> none;
  EXPECT_FALSE(AllReduce(ReduceOp::kSum, &none).ok());
}

TEST(BroadcastTest, CopiesTheRootAndRejectsABadRoot) {
  PerRank<int8_t> d = {{1, 2}, {3, 4}, {5, 6}};
  ASSERT_TRUE(Broadcast(1, &d).ok());
  for (const auto& r : d) EXPECT_THAT(r, ElementsAre(3, 4));
  EXPECT_FALSE(Broadcast(3, &d).ok());
  EXPECT_FALSE(Broadcast(-1, &d).ok());
}

TEST(ReduceScatterTest, SumsRowRIntoRankR) {
  // P = 2, SIZE = 2.
  PerRank<float> d = {{1, 2, 3, 4}, {10, 20, 30, 40}};
  ASSERT_TRUE(ReduceScatterSum(&d).ok());
  EXPECT_THAT(d[0], ElementsAre(11, 22, 3, 4));
  EXPECT_THAT(d[1], ElementsAre(10, 20, 33, 44));
  PerRank<float> bad = {{1, 2, 3}, {1, 2, 3}};
  EXPECT_FALSE(ReduceScatterSum(&bad).ok());
}

TEST(AllGatherTest, RowSIsRankSInput) {
  auto t = AllGather<int8_t>({{1, 2}, {3, 4}, {5, 6}});
  ASSERT_TRUE(t.ok());
  for (const auto& r : *t) EXPECT_THAT(r, ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_FALSE(AllGather<int8_t>({{1, 2}, {3}}).ok());
}

TEST(AllToAllTest, TransposesRows) {
  // P = 2, SIZE = 1: rank r's row d goes to rank d's row r.
  auto t = AllToAll<float>({{1, 2}, {3, 4}});
  ASSERT_TRUE(t.ok());
  EXPECT_THAT((*t)[0], ElementsAre(1, 3));
  EXPECT_THAT((*t)[1], ElementsAre(2, 4));
  EXPECT_FALSE(AllToAll<float>({{1, 2, 3}, {4, 5, 6}}).ok());
}

TEST(BarrierTest, RequiresAndKeepsZeroSignals) {
  PerRank<int32_t> sig = {{0, 0}, {0, 0}};
  ASSERT_TRUE(Barrier(&sig).ok());
  EXPECT_THAT(sig[1], ElementsAre(0, 0));
  sig[1][0] = 1;
  absl::Status st = Barrier(&sig);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(st.message()), HasSubstr("rank 1 signal cell 0 = 1"));
}

}  // namespace
}  // namespace pto::reference
