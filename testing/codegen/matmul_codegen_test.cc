// The AIC kernels generated from testing/codegen/matmul.pto, run on the cube
// API's reference semantics (runtime/device/cube_api.h) over a core with
// a2a3's cube buffers (platforms/a2a3.textproto): every output element
// against the value computed here, in the arithmetic TMATMUL.md specifies
// (FP16 / BF16 / FP32 products summed in FP32 in k order, then added to the
// start value; INT8 in INT32). Also: the compiler's cube-tile footprint (InitMemRef's MemRef
// sizes) is the one the API's TASSIGN checks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/type.h"
#include "compiler/passes/tile_memrefs.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/device/cube_api.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/memory_core.h"

namespace pto::kernels {
void mm_f16(int64_t* args);
void mm_acc_bf16(int64_t* args);
void mm_bias_f32(int64_t* args);
void mm_int8(int64_t* args);
void gemv_f16(int64_t* args);
void mm_tensor_f16(int64_t* args);
void mm_tiled_k_f32(int64_t* args);
void mm_tensor_grid_bf16(int64_t* args);
void mm_bias_tiled_f32(int64_t* args);
void mm_int8_blocks(int64_t* args);
void mm_btrans_f16(int64_t* args);
void mm_atrans_f32(int64_t* args);
void mm_btrans_tiled_f32(int64_t* args);
void bmm_btrans_f32(int64_t* args);
void bmm_tile_bf16(int64_t* args);
}  // namespace pto::kernels

namespace pto {
namespace {

// A MemoryCore with the cube buffers of a platform.
class CubeMemoryCore : public testing::MemoryCore, public CubeCore {
 public:
  explicit CubeMemoryCore(const std::string& platform) {
    absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(platform);
    EXPECT_TRUE(p.ok() && p->has_cube()) << platform;
    const auto& c = p->cube();
    const uint64_t caps[kNumTileKinds] = {c.l1_bytes(), c.l0a_bytes(), c.l0b_bytes(),
                                          c.l0c_bytes(), c.bias_bytes()};
    for (int i = 0; i < kNumTileKinds; ++i) bufs_[i].assign(caps[i], 0);
  }
  uint8_t* CubeBase(TileKind k) override { return bufs_[static_cast<int>(k)].data(); }
  uint64_t CubeBytes(TileKind k) override { return bufs_[static_cast<int>(k)].size(); }
  void Cube(const CubeInstr& in) override { ops.push_back(in.op); }
  void CubeSetFlag(int, int, int) override {}
  void CubeWaitFlag(int, int, int) override {}
  void CubePipeBarrier(int) override {}
  std::vector<CubeOpcode> ops;

 private:
  std::vector<uint8_t> bufs_[kNumTileKinds];
};

template <typename T>
TensorDesc Desc(std::vector<T>& v, std::vector<uint64_t> shape) {
  TensorDesc d{};
  d.addr = reinterpret_cast<uint64_t>(v.data());
  d.bytes = v.size() * sizeof(T);
  d.elem_bytes = sizeof(T);
  d.ndims = static_cast<uint32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) d.shape[i] = shape[i];
  return d;
}

// Calls `kernel` with the descriptors as its tensor args.
void RunKernel(void (*kernel)(int64_t*), std::vector<TensorDesc>& descs) {
  int64_t args[kKernelArgSlots] = {};
  for (size_t i = 0; i < descs.size(); ++i) args[i] = reinterpret_cast<int64_t>(&descs[i]);
  kernel(args);
}

template <typename T>
std::vector<T> Fill(size_t n, float scale, int mod) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(scale * static_cast<float>(i % mod) - 1);
  return v;
}

// C[i][j] = init(i, j) + (sum_p A[i][p] * B[p][j]): the sum by FP32 fused
// multiply-adds in k order from 0, then added to the start value
// (TMATMUL_ACC.md's C0 + sum).
template <typename A>
std::vector<float> Ref(const std::vector<A>& a, const std::vector<A>& b, int m, int k, int n,
                       const std::vector<float>& bias = {}) {
  std::vector<float> c(m * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int p = 0; p < k; ++p) {
        s = std::fma(static_cast<float>(a[i * k + p]), static_cast<float>(b[p * n + j]), s);
      }
      c[i * n + j] = (bias.empty() ? 0.0f : bias[j]) + s;
    }
  }
  return c;
}

TEST(MatmulCodegenTest, Fp16MatmulFromMatTiles) {
  CubeMemoryCore core("a2a3");
  const int m = 64, k = 32, n = 48;
  std::vector<half> a = Fill<half>(m * k, 0.25f, 9), b = Fill<half>(k * n, 0.5f, 5);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {64, 32}), Desc(b, {32, 48}), Desc(c, {64, 48})};
  RunKernel(kernels::mm_f16, d);
  const std::vector<float> want = Ref(a, b, m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  // TLOAD x2, TMOV to L0A and L0B (inserted by InferTileMemorySpace), TMATMUL, TSTORE.
  const std::vector<CubeOpcode> ops = {CubeOpcode::kLoadL1,  CubeOpcode::kLoadL1,
                                       CubeOpcode::kExtract, CubeOpcode::kExtract,
                                       CubeOpcode::kMatmul,  CubeOpcode::kStoreAcc};
  EXPECT_EQ(core.ops, ops);
}

TEST(MatmulCodegenTest, Bf16KSplitAccumulatesInALoop) {
  CubeMemoryCore core("a2a3");
  const int m = 16, k = 64, n = 32;
  std::vector<bfloat16> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = bfloat16(0.125f * static_cast<float>(i % 11) - 0.5f);
  for (int i = 0; i < k * n; ++i) b[i] = bfloat16(0.25f * static_cast<float>(i % 7) - 0.75f);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {16, 64}), Desc(b, {64, 32}), Desc(c, {16, 32})};
  RunKernel(kernels::mm_acc_bf16, d);
  // The first 32 of k, then the sum of the second 32 added to it in the loop.
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < 32; ++p) s += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      float t = 0;
      for (int p = 32; p < 64; ++p) t += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      ASSERT_EQ(c[i * n + j], s + t) << i << "," << j;
    }
  }
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmulAcc), 1);
}

TEST(MatmulCodegenTest, Fp32BiasStoredIntoAWiderTensor) {
  CubeMemoryCore core("a2a3");
  const int m = 16, k = 8, n = 16;
  std::vector<float> a = Fill<float>(m * k, 0.5f, 7), b = Fill<float>(k * n, 0.25f, 13);
  std::vector<float> bias = Fill<float>(n, 3.0f, 16);
  std::vector<float> c(m * 32, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {16, 8}), Desc(b, {8, 16}), Desc(bias, {1, 16}),
                               Desc(c, {16, 32})};
  RunKernel(kernels::mm_bias_f32, d);
  const std::vector<float> want = Ref(a, b, m, k, n, bias);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < 32; ++j) {
      // Columns 16..31 hold the result, 0..15 are untouched.
      ASSERT_EQ(c[i * 32 + j], j < 16 ? -7.0f : want[i * n + j - 16]) << i << "," << j;
    }
  }
  EXPECT_NE(std::find(core.ops.begin(), core.ops.end(), CubeOpcode::kMovBias), core.ops.end());
  EXPECT_NE(std::find(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmulBias), core.ops.end());
}

TEST(MatmulCodegenTest, Int8AccumulatesExactlyInInt32) {
  CubeMemoryCore core("a2a3");
  const int m = 32, k = 64, n = 32;
  std::vector<int8_t> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<int8_t>((i * 37) % 256 - 128);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<int8_t>((i * 53) % 256 - 128);
  std::vector<int32_t> c(m * n, -7);
  std::vector<TensorDesc> d = {Desc(a, {32, 64}), Desc(b, {64, 32}), Desc(c, {32, 32})};
  RunKernel(kernels::mm_int8, d);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      int32_t s = 0;
      for (int p = 0; p < k; ++p) s += int32_t{a[i * k + p]} * int32_t{b[p * n + j]};
      ASSERT_EQ(c[i * n + j], s) << i << "," << j;
    }
  }
}

// The block count comes from GM: 3 of the 4 row blocks, the last untouched.
TEST(MatmulCodegenTest, Int8BlocksCountedByAGmRead) {
  CubeMemoryCore core("a2a3");
  std::vector<int8_t> a(64 * 32), b(32 * 16);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>((i * 29) % 256 - 128);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>((i * 53) % 256 - 128);
  std::vector<int32_t> blocks = {3};
  std::vector<int32_t> c(64 * 16, -7);
  std::vector<TensorDesc> d = {Desc(a, {64, 32}), Desc(b, {32, 16}), Desc(blocks, {1, 1}),
                               Desc(c, {64, 16})};
  RunKernel(kernels::mm_int8_blocks, d);
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 16; ++j) {
      int32_t s = 0;
      for (int p = 0; p < 32; ++p) s += int32_t{a[i * 32 + p]} * int32_t{b[p * 16 + j]};
      ASSERT_EQ(c[i * 16 + j], i < 48 ? s : -7) << i << "," << j;
    }
  }
}

TEST(MatmulCodegenTest, GemvIsAOneRowMatmul) {
  CubeMemoryCore core("a2a3");
  std::vector<half> x = Fill<half>(32, 0.125f, 17), w = Fill<half>(32 * 16, 0.5f, 6);
  std::vector<float> y(16, -7.0f);
  std::vector<TensorDesc> d = {Desc(x, {1, 32}), Desc(w, {32, 16}), Desc(y, {1, 16})};
  RunKernel(kernels::gemv_f16, d);
  const std::vector<float> want = Ref(x, w, 1, 32, 16);
  for (int j = 0; j < 16; ++j) ASSERT_EQ(y[j], want[j]) << j;
}

// pl.matmul of tensors in a kernel (ConvertTensorToTileOps): the slice rows
// 32..63 of a and the whole of b, loaded into Mat.
TEST(MatmulCodegenTest, TensorMatmulOfASliceConvertsToTheCube) {
  CubeMemoryCore core("a2a3");
  std::vector<half> a = Fill<half>(64 * 32, 0.25f, 9), b = Fill<half>(32 * 48, 0.5f, 5);
  std::vector<float> c(32 * 48, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {64, 32}), Desc(b, {32, 48}), Desc(c, {32, 48})};
  RunKernel(kernels::mm_tensor_f16, d);
  const std::vector<half> lo(a.begin() + 32 * 32, a.end());
  const std::vector<float> want = Ref(lo, b, 32, 32, 48);
  for (int i = 0; i < 32 * 48; ++i) ASSERT_EQ(c[i], want[i]) << i;
}

// AutoTileMatmulL0 splits k in two 256-wide blocks (Left [64, 512] FP32 is
// twice L0A): TMATMUL then TMATMUL_ACC, accumulated in k order as one
// TMATMUL of the whole would be.
TEST(MatmulCodegenTest, AutoTiledKBlocksAccumulateInOrder) {
  CubeMemoryCore core("a2a3");
  const int m = 64, k = 512, n = 64;
  std::vector<float> a = Fill<float>(m * k, 0.125f, 13), b = Fill<float>(k * n, 0.25f, 7);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {64, 512}), Desc(b, {512, 64}), Desc(c, {64, 64})};
  RunKernel(kernels::mm_tiled_k_f32, d);
  const std::vector<float> want = Ref(a, b, m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  const std::vector<CubeOpcode> ops = {
      CubeOpcode::kLoadL1,  CubeOpcode::kLoadL1, CubeOpcode::kExtract, CubeOpcode::kExtract,
      CubeOpcode::kMatmul,  CubeOpcode::kExtract, CubeOpcode::kExtract, CubeOpcode::kMatmulAcc,
      CubeOpcode::kStoreAcc};
  EXPECT_EQ(core.ops, ops);
}

// A [272, 272] FP32 result over L0C: three output sub-tiles of rows 0..111,
// 112..223 and 224..271, each a TMATMUL stored to its rows of c.
TEST(MatmulCodegenTest, AutoTiledOutputGridCoversTheResult) {
  CubeMemoryCore core("a2a3");
  const int m = 272, k = 64, n = 272;
  std::vector<bfloat16> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = bfloat16(0.125f * static_cast<float>(i % 11) - 0.5f);
  for (int i = 0; i < k * n; ++i) b[i] = bfloat16(0.25f * static_cast<float>(i % 7) - 0.75f);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {272, 64}), Desc(b, {64, 272}), Desc(c, {272, 272})};
  RunKernel(kernels::mm_tensor_grid_bf16, d);
  const std::vector<float> want = Ref(a, b, m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmul), 3);
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kStoreAcc), 3);
}

// A tiled matmul_bias adds its bias once, in the first k block.
TEST(MatmulCodegenTest, AutoTiledBiasIsAddedOnce) {
  CubeMemoryCore core("a2a3");
  const int m = 32, k = 1024, n = 16;
  std::vector<float> a = Fill<float>(m * k, 0.125f, 11), b = Fill<float>(k * n, 0.25f, 9);
  std::vector<float> bias = Fill<float>(n, 2.0f, 16);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {32, 1024}), Desc(b, {1024, 16}), Desc(bias, {1, 16}),
                               Desc(c, {32, 16})};
  RunKernel(kernels::mm_bias_tiled_f32, d);
  const std::vector<float> want = Ref(a, b, m, k, n, bias);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmulBias), 1);
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmulAcc), 1);
}

// x^T of a rows x cols row-major matrix.
template <typename T>
std::vector<T> Transposed(const std::vector<T>& x, int rows, int cols) {
  std::vector<T> t(x.size());
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) t[j * rows + i] = x[i * cols + j];
  }
  return t;
}

// pl.matmul(a, b, b_trans=True): b [n, k] read through its transposed view.
TEST(MatmulCodegenTest, BTransposedMatmulReadsTheView) {
  CubeMemoryCore core("a2a3");
  const int m = 32, k = 64, n = 48;
  std::vector<half> a = Fill<half>(m * k, 0.25f, 9), b = Fill<half>(n * k, 0.5f, 7);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {32, 64}), Desc(b, {48, 64}), Desc(c, {32, 48})};
  RunKernel(kernels::mm_btrans_f16, d);
  const std::vector<float> want = Ref(a, Transposed(b, n, k), m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  // No instruction for the view: TLOAD x2, TMOV x2, TMATMUL, TSTORE.
  EXPECT_EQ(core.ops.size(), 6u);
}

TEST(MatmulCodegenTest, ATransposedMatmulReadsTheView) {
  CubeMemoryCore core("a2a3");
  const int m = 16, k = 64, n = 32;
  std::vector<float> a = Fill<float>(k * m, 0.125f, 13), b = Fill<float>(k * n, 0.25f, 5);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {64, 16}), Desc(b, {64, 32}), Desc(c, {16, 32})};
  RunKernel(kernels::mm_atrans_f32, d);
  const std::vector<float> want = Ref(Transposed(a, k, m), b, m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
}

// The k blocks of a transposed operand are windows of its view.
TEST(MatmulCodegenTest, AutoTiledTransposedOperandExtractsWindowsOfTheView) {
  CubeMemoryCore core("a2a3");
  const int m = 32, k = 1024, n = 16;
  std::vector<float> a = Fill<float>(m * k, 0.125f, 11), b = Fill<float>(n * k, 0.25f, 9);
  std::vector<float> c(m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {32, 1024}), Desc(b, {16, 1024}), Desc(c, {32, 16})};
  RunKernel(kernels::mm_btrans_tiled_f32, d);
  const std::vector<float> want = Ref(a, Transposed(b, n, k), m, k, n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << i;
  EXPECT_GE(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmulAcc), 1);
}

// A batch matmul: each batch the 2D product of its pages (b transposed).
TEST(MatmulCodegenTest, BatchMatmulMultipliesEachBatch) {
  CubeMemoryCore core("a2a3");
  const int batches = 3, m = 16, k = 32, n = 24;
  std::vector<float> a = Fill<float>(batches * m * k, 0.125f, 13);
  std::vector<float> b = Fill<float>(batches * n * k, 0.25f, 7);
  std::vector<float> c(batches * m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {3, 16, 32}), Desc(b, {3, 24, 32}), Desc(c, {3, 16, 24})};
  RunKernel(kernels::bmm_btrans_f32, d);
  for (int bi = 0; bi < batches; ++bi) {
    std::vector<float> ab(a.begin() + bi * m * k, a.begin() + (bi + 1) * m * k);
    std::vector<float> bb(b.begin() + bi * n * k, b.begin() + (bi + 1) * n * k);
    const std::vector<float> want = Ref(ab, Transposed(bb, n, k), m, k, n);
    for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[bi * m * n + i], want[i]) << bi << ":" << i;
  }
  EXPECT_EQ(std::count(core.ops.begin(), core.ops.end(), CubeOpcode::kMatmul), batches);
}

// A batch of 1 broadcasts: a's one page times each of b's.
TEST(MatmulCodegenTest, BatchMatmulBroadcastsABatchOfOne) {
  CubeMemoryCore core("a2a3");
  const int m = 16, k = 32, n = 16;
  std::vector<bfloat16> a(m * k), b(2 * k * n);
  for (int i = 0; i < m * k; ++i) a[i] = bfloat16(0.125f * static_cast<float>(i % 11) - 0.5f);
  for (int i = 0; i < 2 * k * n; ++i) b[i] = bfloat16(0.25f * static_cast<float>(i % 7) - 0.75f);
  std::vector<float> c(2 * m * n, -7.0f);
  std::vector<TensorDesc> d = {Desc(a, {1, 16, 32}), Desc(b, {2, 32, 16}), Desc(c, {2, 16, 16})};
  RunKernel(kernels::bmm_tile_bf16, d);
  for (int bi = 0; bi < 2; ++bi) {
    std::vector<bfloat16> bb(b.begin() + bi * k * n, b.begin() + (bi + 1) * k * n);
    const std::vector<float> want = Ref(a, bb, m, k, n);
    for (int i = 0; i < m * n; ++i) ASSERT_EQ(c[bi * m * n + i], want[i]) << bi << ":" << i;
  }
}

// A tensor of the wrong dtype is the kernel's fault, not a wrong result.
TEST(MatmulCodegenTest, WrongDtypeTensorFaults) {
  CubeMemoryCore core("a2a3");
  std::vector<float> a(64 * 32), b(32 * 48), c(64 * 48);
  std::vector<TensorDesc> d = {Desc(a, {64, 32}), Desc(b, {32, 48}), Desc(c, {64, 48})};
  EXPECT_THROW(RunKernel(kernels::mm_f16, d), testing::MemoryCoreFault);
}

// InitMemRef's size of a cube tile (what AllocateMemoryAddr places and checks
// against the platform) is the footprint TASSIGN checks at run time.
TEST(MatmulCodegenTest, CompilerFootprintIsTheApis) {
  const std::pair<ir::MemorySpace, TileKind> kinds[] = {
      {ir::MemorySpace::kL1, TileKind::kMat},   {ir::MemorySpace::kL0A, TileKind::kLeft},
      {ir::MemorySpace::kL0B, TileKind::kRight}, {ir::MemorySpace::kL0C, TileKind::kAcc},
      {ir::MemorySpace::kBias, TileKind::kBias}};
  const std::pair<ir::DataType, int> dtypes[] = {
      {ir::DataType::kInt8, 1}, {ir::DataType::kFP16, 2}, {ir::DataType::kFP32, 4}};
  int checked = 0;
  for (auto [space, kind] : kinds) {
    for (auto [dtype, bytes] : dtypes) {
      for (int rows : {1, 3, 16, 17, 40}) {
        for (int cols : {1, 8, 16, 33, 100}) {
          if (kind == TileKind::kBias && rows != 1) continue;
          ir::TileType t({ir::ConstIndex(rows), ir::ConstIndex(cols)}, dtype, std::nullopt, {},
                         Span(), space);
          std::optional<int64_t> got = passes::TileBytes(t);
          ASSERT_TRUE(got.has_value());
          EXPECT_EQ(static_cast<uint64_t>(*got), CubeFootprint(kind, bytes, rows, cols))
              << ir::MemorySpaceName(space) << " " << rows << "x" << cols << " x" << bytes;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace pto
