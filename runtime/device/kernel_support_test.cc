#include "runtime/device/kernel_support.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device/memory_core.h"

namespace pto::kernels::internal {
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

// The fault message a call ends the kernel with ("" if none).
template <typename F>
std::string FaultOf(F f) {
  try {
    f();
  } catch (const MemoryCoreFault& e) {
    return e.what();
  }
  return "";
}

TEST(KernelSupportTest, DimOfAZeroRankDescriptorIsItsElementCount) {
  MemoryCore core;
  std::vector<int32_t> v(12);
  TensorDesc t = Desc(v, {3, 4});
  EXPECT_EQ(Dim(&t, 0), 3);
  EXPECT_EQ(Dim(&t, 1), 4);
  t.ndims = 0;
  EXPECT_EQ(Dim(&t, 0), 12);
}

TEST(KernelSupportTest, OffsetIsRowMajorAndFaultsOutsideTheShape) {
  MemoryCore core;
  std::vector<float> v(12);
  TensorDesc t = Desc(v, {3, 4});
  EXPECT_EQ(Offset(&t, {2, 1}), 9);
  EXPECT_EQ(FaultOf([&] { Offset(&t, {3, 0}); }), "index out of range");
  EXPECT_EQ(FaultOf([&] { Offset(&t, {0, -1}); }), "index out of range");
}

TEST(KernelSupportTest, CheckTensorFaultsWithTheCallersMessage) {
  MemoryCore core;
  std::vector<float> v(12);
  TensorDesc t = Desc(v, {3, 4});
  EXPECT_EQ(FaultOf([&] { CheckTensor(&t, 2, 4, "k: bad"); }), "");
  EXPECT_EQ(FaultOf([&] { CheckTensor(&t, 3, 4, "k: bad rank"); }), "k: bad rank");
  EXPECT_EQ(FaultOf([&] { CheckTensor(&t, 2, 2, "k: bad dtype"); }), "k: bad dtype");
}

TEST(KernelSupportTest, CopyBoxIsOneTransferWhenContiguousElseOnePerRow) {
  MemoryCore core;
  std::vector<int32_t> v(4 * 8);
  std::iota(v.begin(), v.end(), 0);
  TensorDesc t = Desc(v, {4, 8});
  // Rows 1..2, all columns: contiguous in GM.
  Tile<int32_t> whole = TASSIGN<int32_t>(0, 16);
  CopyBox(true, whole, &t, {1, 0}, {2, 8});
  ASSERT_EQ(core.transfers().size(), 1u);
  EXPECT_EQ(core.transfers()[0].bytes, 16 * 4u);
  EXPECT_EQ(whole.data[0], 8);
  EXPECT_EQ(whole.data[15], 23);
  // Rows 1..3, columns 2..5: one transfer per row.
  Tile<int32_t> box = TASSIGN<int32_t>(64, 12);
  CopyBox(true, box, &t, {1, 2}, {3, 4});
  ASSERT_EQ(core.transfers().size(), 4u);
  EXPECT_EQ(box.data[0], 10);
  EXPECT_EQ(box.data[4], 18);
  EXPECT_EQ(box.data[11], 29);
  // Stored back shifted by one row.
  CopyBox(false, box, &t, {0, 2}, {3, 4});
  EXPECT_EQ(v[2], 10);
  EXPECT_EQ(v[8 * 2 + 5], 29);
  EXPECT_EQ(FaultOf([&] { CopyBox(true, box, &t, {2, 2}, {3, 4}); }),
            "tile box outside the tensor");
}

// A strided view (the [3, 4] box at [1, 2] of a [4, 8] buffer, with the
// buffer's strides): indices go through the strides, and every row is its
// own transfer even when the box spans the view's full width.
TEST(KernelSupportTest, AStridedViewIsAddressedThroughItsStrides) {
  MemoryCore core;
  std::vector<int32_t> v(4 * 8);
  std::iota(v.begin(), v.end(), 0);
  TensorDesc t = Desc(v, {3, 4});
  t.start_offset = (1 * 8 + 2) * 4;
  t.bytes = (2 * 8 + 3 + 1) * 4;
  t.strides[0] = 8;
  t.strides[1] = 1;
  EXPECT_EQ(Offset(&t, {2, 3}), 2 * 8 + 3);
  Tile<int32_t> box = TASSIGN<int32_t>(0, 12);
  CopyBox(true, box, &t, {0, 0}, {3, 4});
  ASSERT_EQ(core.transfers().size(), 3u);
  EXPECT_EQ(box.data[0], 10);
  EXPECT_EQ(box.data[4], 18);
  EXPECT_EQ(box.data[11], 29);
  EXPECT_FALSE(ContiguousBox(&t, {0, 0}, {3, 4}));
  EXPECT_EQ(FaultOf([&] { Reshape(&t, {12}); }), "reshape of a strided view");
}

// A partial tile (valid_shape): the [3, 4] box of a [3, 6] tile sits at a
// 6-element row pitch in UB; the pad columns are never written, a store
// writes back only the box, and a box that does not fit the tile faults.
TEST(KernelSupportTest, CopyBoxOfAValidShapeUsesTheTileRowPitch) {
  MemoryCore core;
  std::vector<int32_t> v(4 * 8);
  std::iota(v.begin(), v.end(), 0);
  TensorDesc t = Desc(v, {4, 8});
  Tile<int32_t> tile = TASSIGN<int32_t>(0, 18);
  for (uint64_t i = 0; i < tile.count; ++i) tile.data[i] = -1;
  CopyBox(true, tile, &t, {1, 2}, {3, 4}, 6);
  ASSERT_EQ(core.transfers().size(), 3u);
  EXPECT_EQ(tile.data[0], 10);
  EXPECT_EQ(tile.data[3], 13);
  EXPECT_EQ(tile.data[4], -1);  // pad
  EXPECT_EQ(tile.data[6], 18);
  EXPECT_EQ(tile.data[15], 29);
  EXPECT_EQ(tile.data[17], -1);
  // A whole-row box is still one transfer per row when the pitch pads it.
  std::vector<int32_t> out(3 * 4, 0);
  TensorDesc o = Desc(out, {3, 4});
  CopyBox(false, tile, &o, {0, 0}, {3, 4}, 6);
  EXPECT_EQ(core.transfers().size(), 6u);
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[4], 18);
  EXPECT_EQ(out[11], 29);
  EXPECT_EQ(FaultOf([&] { CopyBox(true, tile, &t, {0, 0}, {3, 4}, 3); }),
            "tile box larger than the tile");
  EXPECT_EQ(FaultOf([&] { CopyBox(true, tile, &t, {0, 0}, {4, 4}, 6); }),
            "tile box larger than the tile");
}

TEST(KernelSupportTest, ReshapeKeepsTheElementsAndFaultsOnACountChange) {
  MemoryCore core;
  std::vector<float> v(12);
  TensorDesc t = Desc(v, {3, 4});
  TensorDesc r = Reshape(&t, {2, 6});
  EXPECT_EQ(r.ndims, 2u);
  EXPECT_EQ(r.shape[1], 6u);
  EXPECT_EQ(r.addr, t.addr);
  EXPECT_EQ(FaultOf([&] { Reshape(&t, {5, 2}); }), "reshape changes the element count");
}

TEST(KernelSupportTest, RemoteViewIsTheSameOffsetInThePeersWindow) {
  MemoryCore core;
  std::vector<float> win0(64), win1(64);
  CommContext ctx{};
  ctx.rankId = 0;
  ctx.rankNum = 2;
  ctx.winSize = 64 * sizeof(float);
  ctx.windowsIn[0] = reinterpret_cast<uint64_t>(win0.data());
  ctx.windowsIn[1] = reinterpret_cast<uint64_t>(win1.data());
  std::vector<float> dummy;
  TensorDesc t{};
  t.addr = ctx.windowsIn[0] + 16 * sizeof(float);
  t.bytes = 8 * sizeof(float);
  t.elem_bytes = sizeof(float);
  t.ndims = 1;
  t.shape[0] = 8;
  TensorDesc r = RemoteView(&ctx, &t, 1);
  EXPECT_EQ(r.addr, reinterpret_cast<uint64_t>(win1.data() + 16));
  EXPECT_EQ(FaultOf([&] { RemoteView(&ctx, &t, 2); }), "peer rank out of range");
  t.addr = ctx.windowsIn[0] + 60 * sizeof(float);
  EXPECT_EQ(FaultOf([&] { RemoteView(&ctx, &t, 1); }),
            "a remote access to a tensor outside the communication window");
}

TEST(KernelSupportTest, CopyGmBoxSkipsACopyOntoItself) {
  MemoryCore core;
  std::vector<int32_t> a(16), b(16);
  std::iota(a.begin(), a.end(), 100);
  TensorDesc ta = Desc(a, {16});
  TensorDesc tb = Desc(b, {16});
  Tile<int32_t> stage = TASSIGN<int32_t>(0, 16);
  CopyGmBox<int32_t>(false, &tb, {0}, &ta, {0}, {16}, stage);
  ASSERT_EQ(core.transfers().size(), 1u);
  EXPECT_EQ(b[15], 115);
  CopyGmBox<int32_t>(true, &ta, {0}, &ta, {0}, {16}, stage);
  EXPECT_EQ(core.transfers().size(), 1u);
}

TEST(KernelSupportTest, FloorDivAndModRoundTowardsMinusInfinity) {
  EXPECT_EQ(FloorDiv<int64_t>(-7, 2), -4);
  EXPECT_EQ(FloorDiv<int64_t>(7, 2), 3);
  EXPECT_EQ(FloorDiv<int64_t>(7, -2), -4);
  EXPECT_EQ(FloorMod<int64_t>(-7, 2), 1);
  EXPECT_EQ(FloorMod<int64_t>(7, -2), -1);
  EXPECT_EQ(FloorMod<int64_t>(6, 3), 0);
}

// An atomic-add store adds the box into GM (INT32 and FP32), each row one
// atomic transfer; the rest of GM is untouched.
TEST(KernelSupportTest, AtomicAddCopyBoxAddsIntoGm) {
  MemoryCore core;
  std::vector<int32_t> v(4 * 8, 100);
  TensorDesc t = Desc(v, {4, 8});
  Tile<int32_t> tile = TASSIGN<int32_t>(0, 8);
  for (int i = 0; i < 8; ++i) tile.data[i] = i - 3;
  CopyBox(false, tile, &t, {1, 2}, {2, 4}, 0, pto::AtomicType::AtomicAdd);
  CopyBox(false, tile, &t, {1, 2}, {2, 4}, 0, pto::AtomicType::AtomicAdd);
  ASSERT_EQ(core.transfers().size(), 4u);
  EXPECT_EQ(core.transfers()[0].kind, 'A');
  EXPECT_EQ(v[8 + 2], 100 + 2 * -3);
  EXPECT_EQ(v[2 * 8 + 5], 100 + 2 * 4);
  EXPECT_EQ(v[8 + 1], 100);
  EXPECT_EQ(v[0], 100);

  std::vector<float> f(16, 0.5f);
  TensorDesc tf = Desc(f, {16});
  Tile<float> ft = TASSIGN<float>(64, 16);
  for (int i = 0; i < 16; ++i) ft.data[i] = 0.25f * i;
  CopyBox(false, ft, &tf, {0}, {16}, 0, pto::AtomicType::AtomicAdd);
  EXPECT_EQ(f[0], 0.5f);
  EXPECT_EQ(f[15], 0.5f + 0.25f * 15);
}

// pto::bfloat16 is the upper half of an FP32, rounded to nearest even.
TEST(KernelSupportTest, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(static_cast<float>(pto::bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(pto::bfloat16(1.0f).bits, 0x3f80);
  // Halfway between 1 and 1 + 2^-7: to the even 1.
  EXPECT_EQ(static_cast<float>(pto::bfloat16(1.0f + 0x1p-8f)), 1.0f);
  // Halfway between 1 + 2^-7 and 1 + 2^-6: to the even 1 + 2^-6.
  EXPECT_EQ(static_cast<float>(pto::bfloat16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  // Above half: up.
  EXPECT_EQ(static_cast<float>(pto::bfloat16(1.0f + 0x1p-8f + 0x1p-12f)), 1.0f + 0x1p-7f);
  EXPECT_EQ(static_cast<float>(pto::bfloat16(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isinf(static_cast<float>(pto::bfloat16(INFINITY))));
  EXPECT_TRUE(std::isnan(static_cast<float>(pto::bfloat16(NAN))));
  // Arithmetic computes in float and rounds the result.
  pto::bfloat16 a = 3.0f;
  pto::bfloat16 b = a + pto::bfloat16(0x1p-9f);
  EXPECT_EQ(static_cast<float>(b), 3.0f);
}

}  // namespace
}  // namespace pto::kernels::internal

namespace pto {
namespace {

// TCVT's rounding modes (tile_box.h, pto-isa TCVT.md) on the two neighbours
// of a value: ties and a non-tie, both signs, to half, bfloat16 and from an
// integer to float.
template <typename D, typename S>
std::vector<float> Cvt(const std::vector<S>& in, RoundMode mode) {
  pto::testing::MemoryCore core;
  std::vector<S> src = in;
  std::vector<D> dst(in.size());
  Tile<S> s{src.data(), src.size()};
  Tile<D> d{dst.data(), dst.size()};
  TCVT(d, s, Dims2{}, mode);
  std::vector<float> out;
  for (D v : dst) out.push_back(static_cast<float>(v));
  return out;
}

TEST(TcvtTest, RoundsAnInexactValueByMode) {
  const float u = std::ldexp(1.0f, -10);  // half's step at 1
  const float tie = 1 + u / 2, near = 1 + u / 2 + u / 8;
  const std::vector<float> in = {tie, -tie, near, 1.5f};
  using M = RoundMode;
  EXPECT_EQ(Cvt<half>(in, M::kRint), (std::vector<float>{1, -1, 1 + u, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kNone), (std::vector<float>{1, -1, 1 + u, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kRound), (std::vector<float>{1 + u, -1 - u, 1 + u, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kFloor), (std::vector<float>{1, -1 - u, 1, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kCeil), (std::vector<float>{1 + u, -1, 1 + u, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kTrunc), (std::vector<float>{1, -1, 1, 1.5f}));
  EXPECT_EQ(Cvt<half>(in, M::kOdd), (std::vector<float>{1 + u, -1 - u, 1 + u, 1.5f}));
  const float b = std::ldexp(1.0f, -7);  // bfloat16's step at 1
  const std::vector<float> bin = {1 + b / 2, 1 + b / 2 + b / 8};
  EXPECT_EQ(Cvt<bfloat16>(bin, M::kRint), (std::vector<float>{1, 1 + b}));
  EXPECT_EQ(Cvt<bfloat16>(bin, M::kRound), (std::vector<float>{1 + b, 1 + b}));
  EXPECT_EQ(Cvt<bfloat16>(bin, M::kFloor), (std::vector<float>{1, 1}));
  // Past half's largest finite value (65504): to nearest is inf, floor the max.
  EXPECT_EQ(Cvt<half>(std::vector<float>{70000.0f}, M::kFloor), (std::vector<float>{65504.0f}));
  EXPECT_TRUE(std::isinf(Cvt<half>(std::vector<float>{70000.0f}, M::kRint)[0]));
  // 2^24 + 1 is a tie in float.
  const std::vector<int32_t> big = {16777217};
  EXPECT_EQ(Cvt<float>(big, M::kRint), (std::vector<float>{16777216.0f}));
  EXPECT_EQ(Cvt<float>(big, M::kRound), (std::vector<float>{16777218.0f}));
}

}  // namespace
}  // namespace pto
