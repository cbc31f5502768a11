#include "runtime/builtins/tensor_assemble/kernel.h"

#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device/memory_core.h"

namespace pto::kernels {
namespace {

using pto::testing::MemoryCore;
using pto::testing::MemoryCoreFault;

template <typename T>
TensorDesc Desc(std::vector<T>& v, std::vector<uint64_t> shape) {
  TensorDesc t{};
  t.addr = reinterpret_cast<uint64_t>(v.data());
  t.bytes = v.size() * sizeof(T);
  t.elem_bytes = sizeof(T);
  t.ndims = static_cast<uint32_t>(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) t.shape[k] = shape[k];
  return t;
}

struct Args {
  TensorDesc dst, src;
  int64_t slots[kKernelArgSlots] = {};
  Args(const TensorDesc& d, const TensorDesc& s, std::vector<int64_t> off) : dst(d), src(s) {
    slots[0] = reinterpret_cast<int64_t>(&dst);
    slots[1] = reinterpret_cast<int64_t>(&src);
    for (size_t k = 0; k < off.size(); ++k) slots[2 + k] = off[k];
  }
};

std::string RunKernel(Args& a) {
  try {
    builtin_tensor_assemble(a.slots);
  } catch (const MemoryCoreFault& e) {
    return e.what();
  }
  return "";
}

TEST(TensorAssembleKernelTest, ContiguousBoxIsOneRun) {
  MemoryCore core;
  std::vector<float> dst(6 * 4, 0), src(2 * 4);
  std::iota(src.begin(), src.end(), 1);
  Args a(Desc(dst, {6, 4}), Desc(src, {2, 4}), {3, 0});
  EXPECT_EQ(RunKernel(a), "");
  EXPECT_EQ(core.transfers().size(), 2u);  // one load, one store
  EXPECT_EQ(dst[11], 0);
  EXPECT_EQ(dst[12], 1);
  EXPECT_EQ(dst[19], 8);
  EXPECT_EQ(dst[20], 0);
}

TEST(TensorAssembleKernelTest, StridedBoxIsOneRunPerRow) {
  MemoryCore core;
  std::vector<int32_t> dst(4 * 6, -1), src(3 * 2);
  std::iota(src.begin(), src.end(), 10);
  Args a(Desc(dst, {4, 6}), Desc(src, {3, 2}), {1, 3});
  EXPECT_EQ(RunKernel(a), "");
  EXPECT_EQ(core.transfers().size(), 6u);  // 3 rows x (load + store)
  EXPECT_EQ(dst[1 * 6 + 3], 10);
  EXPECT_EQ(dst[1 * 6 + 4], 11);
  EXPECT_EQ(dst[3 * 6 + 4], 15);
  EXPECT_EQ(dst[1 * 6 + 5], -1);
  EXPECT_EQ(dst[0], -1);
}

// Both sides strided views of [4, 6] buffers (TensorDesc::strides): the
// [2, 2] source at [1, 1] of one goes to [0, 1] of the [3, 4] view at [1, 2]
// of the other, row by row.
TEST(TensorAssembleKernelTest, StridedViewsAreCopiedThroughTheirStrides) {
  MemoryCore core;
  std::vector<int32_t> dst(4 * 6, -1), src(4 * 6);
  std::iota(src.begin(), src.end(), 0);
  TensorDesc d = Desc(dst, {3, 4});
  d.start_offset = (1 * 6 + 2) * 4;
  d.bytes = (2 * 6 + 3 + 1) * 4;
  d.strides[0] = 6;
  d.strides[1] = 1;
  TensorDesc s = Desc(src, {2, 2});
  s.start_offset = (1 * 6 + 1) * 4;
  s.bytes = (6 + 1 + 1) * 4;
  s.strides[0] = 6;
  s.strides[1] = 1;
  Args a(d, s, {0, 1});
  EXPECT_EQ(RunKernel(a), "");
  EXPECT_EQ(core.transfers().size(), 4u);  // 2 rows x (load + store)
  EXPECT_EQ(dst[1 * 6 + 3], 7);
  EXPECT_EQ(dst[1 * 6 + 4], 8);
  EXPECT_EQ(dst[2 * 6 + 3], 13);
  EXPECT_EQ(dst[2 * 6 + 4], 14);
  EXPECT_EQ(dst[1 * 6 + 2], -1);
  EXPECT_EQ(dst[1 * 6 + 5], -1);
}

TEST(TensorAssembleKernelTest, LargeRunsAreStagedIn32KiBChunks) {
  MemoryCore core;
  std::vector<uint8_t> dst(100 * 1024, 0), src(80 * 1024, 7);
  Args a(Desc(dst, {100 * 1024}), Desc(src, {80 * 1024}), {1024});
  EXPECT_EQ(RunKernel(a), "");
  EXPECT_EQ(core.transfers().size(), 6u);  // 32 + 32 + 16 KiB, load + store
  EXPECT_EQ(dst[1023], 0);
  EXPECT_EQ(dst[1024], 7);
  EXPECT_EQ(dst[81 * 1024 - 1], 7);
  EXPECT_EQ(dst[81 * 1024], 0);
}

TEST(TensorAssembleKernelTest, BadOperandsFaultWithAMessage) {
  MemoryCore core;
  std::vector<float> dst(16), src(8);
  std::vector<int32_t> ints(8);
  Args outside(Desc(dst, {4, 4}), Desc(src, {2, 4}), {3, 0});
  EXPECT_EQ(RunKernel(outside), "tensor.assemble: the box is outside the target");
  Args rank(Desc(dst, {16}), Desc(src, {2, 4}), {0, 0});
  EXPECT_EQ(RunKernel(rank), "tensor.assemble: source and target differ in rank or dtype");
  std::vector<double> wide(8);
  Args dtype(Desc(dst, {4, 4}), Desc(wide, {2, 4}), {0, 0});
  EXPECT_EQ(RunKernel(dtype), "tensor.assemble: source and target differ in rank or dtype");
}

}  // namespace
}  // namespace pto::kernels
