#include "runtime/core/tensor_map.h"

#include <string>

#include "gtest/gtest.h"

namespace pto::rt {
namespace {

Tensor Buf(uint64_t base, uint64_t off, uint64_t bytes) {
  return Tensor{base, off, bytes, 0, 1};
}

TEST(TensorMapTest, ClassifiesOverlap) {
  EXPECT_EQ(ClassifyOverlap(0, 10, 10, 5), Overlap::kNone);
  EXPECT_EQ(ClassifyOverlap(0, 20, 10, 5), Overlap::kCovered);
  EXPECT_EQ(ClassifyOverlap(12, 10, 10, 5), Overlap::kOther);
}

TEST(TensorMapTest, LookupFindsOverlappingWritersOnly) {
  TensorMap m;
  ASSERT_TRUE(m.Insert(Buf(0x1000, 0, 64), 1));
  ASSERT_TRUE(m.Insert(Buf(0x1000, 64, 64), 2));
  EXPECT_EQ(m.Lookup(Buf(0x1000, 0, 32)), std::vector<TaskId>({1}));
  EXPECT_EQ(m.Lookup(Buf(0x1000, 32, 64)), std::vector<TaskId>({2, 1}));
  EXPECT_TRUE(m.Lookup(Buf(0x2000, 0, 64)).empty());
}

TEST(TensorMapTest, CoveringWriteReplacesTheOldWriter) {
  TensorMap m;
  ASSERT_TRUE(m.Insert(Buf(0x1000, 0, 64), 1));
  ASSERT_TRUE(m.Insert(Buf(0x1000, 0, 128), 2));
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.Lookup(Buf(0x1000, 0, 8)), std::vector<TaskId>({2}));
}

TEST(TensorMapTest, FullMapRefusesAndPruneFrees) {
  TensorMap m(2);
  ASSERT_TRUE(m.Insert(Buf(0x1000, 0, 8), 1));
  ASSERT_TRUE(m.Insert(Buf(0x2000, 0, 8), 2));
  EXPECT_FALSE(m.Insert(Buf(0x3000, 0, 8), 3));
  m.Prune([](TaskId id) { return id == 1; });
  EXPECT_TRUE(m.Insert(Buf(0x3000, 0, 8), 3));
}

// A [4, 8] FP32 buffer at 0x1000.
Tensor Matrix() {
  Tensor t{0x1000, 0, 4 * 8 * 4, 0, 4};
  return t.WithShape({4, 8});
}

TEST(TensorSliceTest, ARowIsARowMajorViewOfItsBytes) {
  std::string error = "stale";
  const Tensor row = Matrix().Slice({2, 0}, {1, 8}, &error);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(row.strided());
  EXPECT_EQ(row.offset, 2 * 8 * 4u);
  EXPECT_EQ(row.bytes, 8 * 4u);
  EXPECT_EQ(ShapeError(row), "");
}

TEST(TensorSliceTest, AColumnBlockKeepsTheParentsStridesAndSpansItsRows) {
  std::string error;
  const Tensor block = Matrix().Slice({1, 4}, {2, 3}, &error);
  ASSERT_EQ(error, "");
  ASSERT_TRUE(block.strided());
  EXPECT_EQ(block.strides[0], 8u);
  EXPECT_EQ(block.strides[1], 1u);
  EXPECT_EQ(block.offset, (1 * 8 + 4) * 4u);
  EXPECT_EQ(block.bytes, (8 + 3) * 4u);  // first to one past the last element
  EXPECT_EQ(ShapeError(block), "");
  // A slice of the view composes its offsets with the same strides.
  const Tensor cell = block.Slice({1, 2}, {1, 1}, &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(cell.offset, (2 * 8 + 6) * 4u);
  EXPECT_EQ(cell.bytes, 4u);
  EXPECT_FALSE(cell.strided());
  // A byte range or reshape of a view with gaps is no tensor.
  EXPECT_FALSE(block.View(0, 8).valid());
  EXPECT_FALSE(block.WithShape({6}).valid());
}

TEST(TensorSliceTest, ABoxOutsideTheTensorOrOfAnotherRankIsAnError) {
  std::string error;
  EXPECT_FALSE(Matrix().Slice({3, 0}, {2, 8}, &error).valid());
  EXPECT_EQ(error, "dim 0: the box [3, 5) is outside the tensor's extent 4");
  EXPECT_FALSE(Matrix().Slice({-1, 0}, {1, 8}, &error).valid());
  EXPECT_EQ(error, "dim 0: the box [-1, 0) is outside the tensor's extent 4");
  EXPECT_FALSE(Matrix().Slice({0}, {8}, &error).valid());
  EXPECT_EQ(error, "a slice of rank 1 with 1 offsets of a tensor of rank 2");
}

TEST(TensorSliceTest, AStridedViewWithAWrongSpanFailsTheShapeCheck) {
  std::string error;
  Tensor block = Matrix().Slice({0, 0}, {2, 4}, &error);
  block.bytes = 8 * 4;
  EXPECT_EQ(ShapeError(block), "shape [2, 4] with strides spans 48 B != view of 32 bytes");
}

// Two column halves of the same rows: their spans overlap, so the second
// writer depends on the first (conservative), and neither drops the other.
TEST(TensorMapTest, AStridedWriteIsTrackedOnItsSpanAndCoversNothing) {
  std::string error;
  const Tensor m = Matrix();
  TensorMap map;
  ASSERT_TRUE(map.Insert(m.Slice({1, 0}, {1, 8}, &error), 1));  // row 1
  const Tensor left = m.Slice({0, 0}, {4, 4}, &error);
  EXPECT_EQ(map.Lookup(left), std::vector<TaskId>({1}));
  ASSERT_TRUE(map.Insert(left, 2));
  EXPECT_EQ(map.size(), 2u);  // row 1's writer stays: the half has gaps
  EXPECT_EQ(map.Lookup(m.Slice({1, 4}, {1, 4}, &error)), std::vector<TaskId>({2, 1}));
  EXPECT_EQ(map.Lookup(m.Slice({3, 4}, {1, 4}, &error)), std::vector<TaskId>({}));
}

}  // namespace
}  // namespace pto::rt
