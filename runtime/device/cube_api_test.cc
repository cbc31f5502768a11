#include "runtime/device/cube_api.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device/memory_core.h"

namespace pto {
namespace {

using testing::MemoryCoreFault;

// A MemoryCore with the a2a3 cube buffers (docs/isa/TASSIGN.md capacities)
// that records the instructions it is told about.
class CubeMemoryCore : public testing::MemoryCore, public CubeCore {
 public:
  // `scale` multiplies every capacity (a core with room for an over-long k).
  explicit CubeMemoryCore(int scale = 1) {
    const uint64_t caps[kNumTileKinds] = {512 << 10, 64 << 10, 64 << 10, 128 << 10, 1 << 10};
    for (int i = 0; i < kNumTileKinds; ++i) bufs_[i].assign(caps[i] * scale, 0);
  }
  uint8_t* CubeBase(TileKind k) override { return bufs_[static_cast<int>(k)].data(); }
  uint64_t CubeBytes(TileKind k) override { return bufs_[static_cast<int>(k)].size(); }
  void Cube(const CubeInstr& in) override { instrs.push_back(in); }
  void CubeSetFlag(int s, int d, int id) override { flags.push_back({s, d, id}); }
  void CubeWaitFlag(int s, int d, int id) override { waits.push_back({s, d, id}); }
  void CubePipeBarrier(int) override {}
  std::vector<CubeInstr> instrs;
  std::vector<std::vector<int>> flags, waits;

 private:
  std::vector<uint8_t> bufs_[kNumTileKinds];
};

std::string FaultOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const MemoryCoreFault& e) {
    return e.what();
  }
  return "";
}

TEST(CubeApiTest, HalfMatmulAccumulatesInFloatThroughTheWholePath) {
  CubeMemoryCore core;
  const uint32_t m = 3, k = 5, n = 4;
  std::vector<half> a(m * k), b(k * n);
  for (uint32_t i = 0; i < a.size(); ++i) a[i] = static_cast<half>(0.5f * (i % 7) - 1);
  for (uint32_t i = 0; i < b.size(); ++i) b[i] = static_cast<half>(0.25f * (i % 5));
  auto l1a = TASSIGN<MatTile<half>>(0, m, k);
  auto l1b = TASSIGN<MatTile<half>>(4096, k, n);
  TLOAD(l1a, GlobalTensor<half>{a.data(), a.size()});
  TLOAD(l1b, GlobalTensor<half>{b.data(), b.size()});
  auto l0a = TASSIGN<LeftTile<half>>(0, m, k);
  auto l0b = TASSIGN<RightTile<half>>(0, k, n);
  TMOV(l0a, l1a);
  TMOV(l0b, l1b);
  auto acc = TASSIGN<AccTile<float>>(0, m, n);
  TMATMUL(acc, l0a, l0b);
  std::vector<float> out(m * n);
  TSTORE(GlobalTensor<float>{out.data(), out.size()}, acc);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      float want = 0;
      for (uint32_t p = 0; p < k; ++p) {
        want += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      }
      EXPECT_EQ(out[i * n + j], want) << i << "," << j;
    }
  }
  ASSERT_EQ(core.instrs.size(), 6u);
  EXPECT_EQ(core.instrs[0].op, CubeOpcode::kLoadL1);
  EXPECT_TRUE(core.instrs[0].reads[0].gm);
  EXPECT_EQ(core.instrs[4].op, CubeOpcode::kMatmul);
  EXPECT_EQ(core.instrs[4].m, m);
  EXPECT_EQ(core.instrs[4].k, k);
  EXPECT_EQ(core.instrs[4].n, n);
  EXPECT_EQ(core.instrs[5].op, CubeOpcode::kStoreAcc);
  EXPECT_TRUE(core.instrs[5].write.gm);
}

TEST(CubeApiTest, FloatAccumulationKeepsWhatHalfWouldLose) {
  // 2048 + 1 is not representable in half: an FP16 accumulator would lose it.
  CubeMemoryCore core;
  auto a = TASSIGN<LeftTile<half>>(0, 1, 2);
  auto b = TASSIGN<RightTile<half>>(0, 2, 1);
  a.at(0, 0) = 2048;
  a.at(0, 1) = 1;
  b.at(0, 0) = 1;
  b.at(1, 0) = 1;
  auto c = TASSIGN<AccTile<float>>(0, 1, 1);
  TMATMUL(c, a, b);
  EXPECT_EQ(c.at(0, 0), 2049.0f);
  // FIXPIPE to half rounds to nearest even: 2049 -> 2048.
  half h[1];
  TSTORE(GlobalTensor<half>{h, 1}, c);
  EXPECT_EQ(static_cast<float>(h[0]), 2048.0f);
}

TEST(CubeApiTest, Int8AccumulatesExactlyInInt32AndAccFormsAdd) {
  CubeMemoryCore core;
  const uint32_t k = 300;
  auto a = TASSIGN<LeftTile<int8_t>>(0, 1, k);
  auto b = TASSIGN<RightTile<int8_t>>(0, k, 1);
  for (uint32_t p = 0; p < k; ++p) {
    a.at(0, p) = -128;
    b.at(p, 0) = -128;
  }
  auto c = TASSIGN<AccTile<int32_t>>(0, 1, 1);
  TMATMUL(c, a, b);
  EXPECT_EQ(c.at(0, 0), 300 * 16384);
  TMATMUL_ACC(c, a, b);
  EXPECT_EQ(c.at(0, 0), 2 * 300 * 16384);
  auto c2 = TASSIGN<AccTile<int32_t>>(512, 1, 1);
  TMATMUL_ACC(c2, c, a, b);
  EXPECT_EQ(c2.at(0, 0), 3 * 300 * 16384);
  EXPECT_EQ(core.instrs.back().op, CubeOpcode::kMatmulAcc);
  EXPECT_EQ(core.instrs.back().num_reads, 3);
}

TEST(CubeApiTest, Bf16MatmulAndBiasBroadcastOverRows) {
  CubeMemoryCore core;
  auto a = TASSIGN<LeftTile<bfloat16>>(0, 2, 2);
  auto b = TASSIGN<RightTile<bfloat16>>(0, 2, 2);
  const float av[4] = {1, 2, 3, 4}, bv[4] = {0.5f, -1, 2, 0.25f};
  for (int i = 0; i < 4; ++i) {
    a.data[i] = bfloat16(av[i]);
    b.data[i] = bfloat16(bv[i]);
  }
  // The bias goes L1 -> Bias as half -> float (16 halves = 32 B is not a
  // multiple of 64 B, so use 32).
  auto l1bias = TASSIGN<MatTile<half>>(0, 1, 32);
  for (uint32_t j = 0; j < 32; ++j) l1bias.data[j] = static_cast<half>(j == 0 ? 10 : 20);
  auto bias = TASSIGN<BiasTile<float>>(0, 1, 32);
  TMOV(bias, l1bias);
  EXPECT_EQ(bias.data[1], 20.0f);
  auto bias2 = TASSIGN<BiasTile<float>>(128, 1, 2);
  bias2.data[0] = 10;
  bias2.data[1] = 20;
  auto c = TASSIGN<AccTile<float>>(0, 2, 2);
  TMATMUL_BIAS(c, a, b, bias2);
  EXPECT_EQ(c.at(0, 0), 1 * 0.5f + 2 * 2 + 10);
  EXPECT_EQ(c.at(1, 1), 3 * -1 + 4 * 0.25f + 20);
  bfloat16 out[4];
  TSTORE(GlobalTensor<bfloat16>{out, 4}, c);
  EXPECT_EQ(static_cast<float>(out[0]), 14.5f);
}

TEST(CubeApiTest, BfloatConversionRoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties to even (1.0);
  // 1 + 3 * 2^-8 ties to 1 + 2^-6 (even mantissa).
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
}

TEST(CubeApiTest, TextractTakesAWindowAndStridedLoadsAndStores) {
  CubeMemoryCore core;
  std::vector<float> gm(8 * 10);
  for (uint32_t i = 0; i < gm.size(); ++i) gm[i] = static_cast<float>(i);
  auto l1 = TASSIGN<MatTile<float>>(0, 4, 6);  // rows 0..3, cols 0..5 of an 8x10 GM matrix
  TLOAD(l1, GlobalTensor<float>{gm.data(), gm.size()}, 10);
  EXPECT_EQ(l1.at(3, 5), 35.0f);
  auto l0 = TASSIGN<RightTile<float>>(0, 2, 3);
  TEXTRACT(l0, l1, 2, 3);
  EXPECT_EQ(l0.at(0, 0), 23.0f);
  EXPECT_EQ(l0.at(1, 2), 35.0f);
  auto acc = TASSIGN<AccTile<float>>(0, 2, 3);
  for (uint32_t i = 0; i < 6; ++i) acc.data[i] = static_cast<float>(i);
  std::vector<float> out(2 * 7, -1);
  TSTORE(GlobalTensor<float>{out.data(), out.size()}, acc, 7);
  EXPECT_EQ(out[7 + 2], 5.0f);
  EXPECT_EQ(out[3], -1.0f);  // between the rows: untouched
  auto mat = TASSIGN<MatTile<half>>(8192, 2, 3);
  TMOV(mat, acc);
  EXPECT_EQ(static_cast<float>(mat.at(1, 2)), 5.0f);
  EXPECT_EQ(core.instrs.back().op, CubeOpcode::kAccToMat);
}

TEST(CubeApiTest, BadOperandsFaultWithTheRule) {
  CubeMemoryCore core;
  EXPECT_EQ(FaultOf([] { TASSIGN<LeftTile<half>>(16, 16, 16); }),
            "TASSIGN Left(L0A)<half>: offset 16 is not 32-byte aligned");
  EXPECT_EQ(FaultOf([] { TASSIGN<LeftTile<half>>(0, 256, 256); }),
            "TASSIGN Left(L0A)<half>: 256x256 tile (131072 bytes) at offset 0 overflows the "
            "buffer of 65536 bytes");
  // The footprint is whole fractals: 1 x 1 float in L0C takes 16 x 16 x 4 bytes.
  EXPECT_NE(FaultOf([] { TASSIGN<AccTile<float>>((128 << 10) - 512, 1, 1); }), "");
  EXPECT_EQ(FaultOf([] { TASSIGN<AccTile<float>>((128 << 10) - 1024, 1, 1); }), "");
  EXPECT_EQ(FaultOf([] { TASSIGN<AccTile<half>>(0, 16, 16); }),
            "TASSIGN Acc(L0C)<half>: this buffer holds float or int32 elements only");
  EXPECT_EQ(FaultOf([] { TASSIGN<BiasTile<float>>(0, 2, 16); }),
            "TASSIGN Bias<float>: a Bias tile has one row");
  EXPECT_EQ(FaultOf([] {
              auto a = TASSIGN<LeftTile<half>>(0, 16, 16);
              auto b = TASSIGN<RightTile<half>>(0, 16, 16);
              auto c = TASSIGN<AccTile<int32_t>>(0, 16, 16);
              TMATMUL(c, a, b);
            }),
            "TMATMUL: unsupported (C, A, B) dtypes (int32, half, half); supported: (int32, "
            "int8, int8), (float, half, half), (float, float, float), (float, bfloat16, "
            "bfloat16)");
  EXPECT_EQ(FaultOf([] {
              auto a = TASSIGN<LeftTile<half>>(0, 16, 32);
              auto b = TASSIGN<RightTile<half>>(0, 16, 16);
              auto c = TASSIGN<AccTile<float>>(0, 16, 16);
              TMATMUL(c, a, b);
            }),
            "TMATMUL: shape mismatch: A 16x32, B 16x16, C 16x16");
  EXPECT_EQ(FaultOf([] {
              auto l1 = TASSIGN<MatTile<float>>(0, 4, 4);
              auto l0 = TASSIGN<LeftTile<float>>(0, 2, 2);
              TEXTRACT(l0, l1, 3, 0);
            }),
            "TEXTRACT: the window lies outside the source tile");
  EXPECT_EQ(FaultOf([] {
              float gm[15];
              auto l1 = TASSIGN<MatTile<float>>(0, 4, 4);
              TLOAD(l1, GlobalTensor<float>{gm, 15});
            }),
            "TLOAD Mat: GM view smaller than the tile");
  EXPECT_EQ(FaultOf([] {
              int8_t gm[4];
              auto c = TASSIGN<AccTile<float>>(0, 2, 2);
              TSTORE(GlobalTensor<int8_t>{gm, 4}, c);
            }),
            "TSTORE Acc: unsupported conversion float -> int8; supported: float -> "
            "float/half/bfloat16, int32 -> int32");
  EXPECT_EQ(FaultOf([] {
              auto l1 = TASSIGN<MatTile<half>>(0, 1, 16);
              auto bias = TASSIGN<BiasTile<float>>(0, 1, 16);
              TMOV(bias, l1);
            }),
            "TMOV Mat->Bias: source row not a multiple of 64 bytes");
  // Nothing that faulted reached the core.
  EXPECT_TRUE(core.instrs.empty());
}

TEST(CubeApiTest, MatmulDimensionsBeyond4095FaultEvenWhenTheyFit) {
  CubeMemoryCore big(4);
  EXPECT_EQ(FaultOf([] {
              auto a = TASSIGN<LeftTile<int8_t>>(0, 1, 4096);
              auto b = TASSIGN<RightTile<int8_t>>(0, 4096, 1);
              auto c = TASSIGN<AccTile<int32_t>>(0, 1, 1);
              TMATMUL(c, a, b);
            }),
            "TMATMUL: m, k, n must lie in [1, 4095] (m=1, k=4096, n=1)");
  EXPECT_TRUE(big.instrs.empty());
}

TEST(CubeApiTest, CubeInstructionOnAnAivCoreFaults) {
  testing::MemoryCore aiv;
  EXPECT_EQ(FaultOf([] { TASSIGN<LeftTile<half>>(0, 16, 16); }),
            "cube instruction on a core without a cube unit (AIV)");
}

TEST(CubeApiTest, FlagsNameCubePipesOnEitherSide) {
  CubeMemoryCore core;
  set_flag(PIPE_MTE2, PIPE_MTE1, 1);
  wait_flag(PIPE_M, PIPE_FIX, 2);
  ASSERT_EQ(core.flags.size(), 1u);
  EXPECT_EQ(core.flags[0], (std::vector<int>{PIPE_MTE2, PIPE_MTE1, 1}));
  EXPECT_EQ(core.waits[0], (std::vector<int>{PIPE_M, PIPE_FIX, 2}));
  EXPECT_STREQ(PipeName(PIPE_FIX), "FIX");
}

}  // namespace
}  // namespace pto
