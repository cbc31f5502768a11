#include "runtime/core/tensor_map.h"

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

}  // namespace
}  // namespace pto::rt
