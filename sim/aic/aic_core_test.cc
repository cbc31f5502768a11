#include "sim/aic/aic_core.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/device/cube_api.h"
#include "sim/common/sc_time.h"

namespace pto::sim {
namespace {

const platforms::Platform& A2a3() {
  static const platforms::Platform* p = new platforms::Platform(*platforms::LoadPlatform("a2a3"));
  return *p;
}

const platforms::Platform& A5() {
  static const platforms::Platform* p = new platforms::Platform(*platforms::LoadPlatform("a5"));
  return *p;
}

// One a2a3 and one A5 core for the whole binary: SystemC elaborates once per
// process, so both exist before the first run.
AicCore** Cores() {
  static AicCore* c[2] = {nullptr, nullptr};
  if (c[0] == nullptr) {
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
    c[0] = new AicCore("aic0", 0, A2a3());
    c[1] = new AicCore("aic1", 1, A5());
  }
  return c;
}
AicCore& Core() { return *Cores()[0]; }
AicCore& CoreA5() { return *Cores()[1]; }

// Runs `kernel` on `c` to its end; returns its simulated cycles.
double RunKernel(std::function<void()> kernel, AicCore& c = Core()) {
  c.Start(std::move(kernel), Stamp());
  sc_core::sc_start();
  EXPECT_FALSE(c.busy());
  return c.ToCycles(c.block_end() - c.block_start());
}

double Dur(const AicCore::Record& r) { return Core().ToCycles(r.end - r.start); }
double At(Ps t) { return Core().ToCycles(t - Core().block_start()); }

// A 64 x 64 x 64 FP16 GEMM through every pipe, each step flagged to the next.
struct Gemm {
  static constexpr uint32_t kM = 64, kK = 64, kN = 64;
  std::vector<half> a = std::vector<half>(kM * kK), b = std::vector<half>(kK * kN);
  std::vector<float> c = std::vector<float>(kM * kN, -1);
  Gemm() {
    for (uint32_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<half>(((i * 7) % 13) * 0.125f - 0.5f);
    for (uint32_t i = 0; i < b.size(); ++i) b[i] = static_cast<half>(((i * 5) % 11) * 0.25f - 1);
  }
  float Want(uint32_t i, uint32_t j) const {
    float s = 0;
    for (uint32_t p = 0; p < kK; ++p)
      s += static_cast<float>(a[i * kK + p]) * static_cast<float>(b[p * kN + j]);
    return s;
  }
};

TEST(AicCoreTest, FlaggedGemmIsExactAndChargesEachPipeItsCost) {
  Gemm g;
  const double cycles = RunKernel([&] {
    auto l1a = TASSIGN<MatTile<half>>(0, Gemm::kM, Gemm::kK);
    auto l1b = TASSIGN<MatTile<half>>(65536, Gemm::kK, Gemm::kN);
    TLOAD(l1a, GlobalTensor<half>{g.a.data(), g.a.size()});
    TLOAD(l1b, GlobalTensor<half>{g.b.data(), g.b.size()});
    set_flag(PIPE_MTE2, PIPE_MTE1, 0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
    auto l0a = TASSIGN<LeftTile<half>>(0, Gemm::kM, Gemm::kK);
    auto l0b = TASSIGN<RightTile<half>>(0, Gemm::kK, Gemm::kN);
    TMOV(l0a, l1a);
    TMOV(l0b, l1b);
    set_flag(PIPE_MTE1, PIPE_M, 0);
    wait_flag(PIPE_MTE1, PIPE_M, 0);
    auto acc = TASSIGN<AccTile<float>>(0, Gemm::kM, Gemm::kN);
    TMATMUL(acc, l0a, l0b);
    set_flag(PIPE_M, PIPE_FIX, 0);
    wait_flag(PIPE_M, PIPE_FIX, 0);
    TSTORE(GlobalTensor<float>{g.c.data(), g.c.size()}, acc);
  });
  AicCore& c = Core();
  ASSERT_EQ(c.error_code(), 0) << c.error();
  for (uint32_t i = 0; i < Gemm::kM; ++i) {
    for (uint32_t j = 0; j < Gemm::kN; ++j) ASSERT_EQ(g.c[i * Gemm::kN + j], g.Want(i, j));
  }
  const auto& r = c.records();
  ASSERT_EQ(r.size(), 6u);
  // TLOAD 64 x 64 half: 20 + 8192 B / 134 B per cycle; TMOV to L0A 8192 / 256,
  // to L0B 8192 / 128; TMATMUL 6 + 4 * 4 * 4; TSTORE 16384 B / 40.6.
  EXPECT_NEAR(Dur(r[0]), 20 + 62, 0.01);
  EXPECT_NEAR(Dur(r[2]), 32, 0.01);
  EXPECT_NEAR(Dur(r[3]), 64, 0.01);
  EXPECT_NEAR(Dur(r[4]), 6 + 64, 0.01);
  EXPECT_NEAR(Dur(r[5]), 404, 0.01);
  // In order on a pipe, and each flagged pipe starts when its producer ended.
  EXPECT_EQ(r[1].start, r[0].end);
  EXPECT_EQ(r[2].start, r[1].end);
  EXPECT_EQ(r[3].start, r[2].end);  // same pipe (MTE1), in order
  EXPECT_EQ(r[4].start, r[3].end);
  EXPECT_EQ(r[5].start, r[4].end);
  // The block is the serial chain plus the scalar issue of the first TLOAD.
  EXPECT_NEAR(cycles, At(r[5].end), 0.01);
  EXPECT_NEAR(At(r[0].start), A2a3().scalar_op_cycles(), 0.01);
  EXPECT_NEAR(cycles, 2 + 82 + 82 + 32 + 64 + 70 + 404, 0.01);
}

TEST(AicCoreTest, PipesOverlapWhenTheKernelDoubleBuffers) {
  // Two K-steps of C += A_i B_i: the second step's loads and moves run on
  // MTE2/MTE1 while the cube multiplies the first (ping-pong buffers).
  Gemm g;
  const double cycles = RunKernel([&] {
    auto acc = TASSIGN<AccTile<float>>(0, Gemm::kM, Gemm::kN);
    for (int s = 0; s < 2; ++s) {
      auto l1a = TASSIGN<MatTile<half>>(s * 131072, Gemm::kM, Gemm::kK);
      auto l1b = TASSIGN<MatTile<half>>(s * 131072 + 65536, Gemm::kK, Gemm::kN);
      TLOAD(l1a, GlobalTensor<half>{g.a.data(), g.a.size()});
      TLOAD(l1b, GlobalTensor<half>{g.b.data(), g.b.size()});
      set_flag(PIPE_MTE2, PIPE_MTE1, s);
      wait_flag(PIPE_MTE2, PIPE_MTE1, s);
      auto l0a = TASSIGN<LeftTile<half>>(s * 32768, Gemm::kM, Gemm::kK);
      auto l0b = TASSIGN<RightTile<half>>(s * 32768, Gemm::kK, Gemm::kN);
      TMOV(l0a, l1a);
      TMOV(l0b, l1b);
      set_flag(PIPE_MTE1, PIPE_M, s);
      wait_flag(PIPE_MTE1, PIPE_M, s);
      if (s == 0) {
        TMATMUL(acc, l0a, l0b);
      } else {
        TMATMUL_ACC(acc, l0a, l0b);
      }
    }
    set_flag(PIPE_M, PIPE_FIX, 0);
    wait_flag(PIPE_M, PIPE_FIX, 0);
    TSTORE(GlobalTensor<float>{g.c.data(), g.c.size()}, acc);
  });
  AicCore& c = Core();
  ASSERT_EQ(c.error_code(), 0) << c.error();
  EXPECT_EQ(g.c[5 * Gemm::kN + 9], 2 * g.Want(5, 9));
  const auto& r = c.records();
  ASSERT_EQ(r.size(), 11u);
  // The second pair of loads starts right after the first (MTE2 in order),
  // long before the first TMATMUL (r[4]) ends.
  EXPECT_EQ(r[5].start, r[1].end);
  EXPECT_LT(r[5].start, r[4].end);
  const double serial = [&] {
    double s = 0;
    for (const auto& x : r) s += Dur(x);
    return s;
  }();
  EXPECT_LT(cycles, serial - 100);
  EXPECT_NEAR(c.ToCycles(c.pipe_busy(PIPE_MTE2)), 4 * 82, 0.01);
}

TEST(AicCoreTest, AnUnflaggedReadOfALoadingTileFaultsNamingBothPipes) {
  std::vector<half> a(16 * 16);
  RunKernel([&] {
    auto l1 = TASSIGN<MatTile<half>>(0, 16, 16);
    TLOAD(l1, GlobalTensor<half>{a.data(), a.size()});
    auto l0 = TASSIGN<LeftTile<half>>(0, 16, 16);
    TMOV(l0, l1);  // no set_flag/wait_flag(MTE2 -> MTE1)
  });
  AicCore& c = Core();
  EXPECT_EQ(c.error_code(), 110);
  EXPECT_EQ(c.error().substr(0, 54), "AIC0: missing flag: TEXTRACT on MTE1 reads 512 bytes a");
  EXPECT_NE(c.error().find("at Mat(L1)+0"), std::string::npos) << c.error();
  EXPECT_NE(c.error().find("TLOAD on MTE2 writes them until cycle"), std::string::npos)
      << c.error();
}

TEST(AicCoreTest, OverwritingAnOperandTheCubeStillReadsFaults) {
  std::vector<half> a(16 * 16);
  RunKernel([&] {
    auto l1 = TASSIGN<MatTile<half>>(0, 16, 16);
    TLOAD(l1, GlobalTensor<half>{a.data(), a.size()});
    set_flag(PIPE_MTE2, PIPE_MTE1, 0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
    auto l0a = TASSIGN<LeftTile<half>>(0, 16, 16);
    auto l0b = TASSIGN<RightTile<half>>(0, 16, 16);
    TMOV(l0a, l1);
    TMOV(l0b, l1);
    set_flag(PIPE_MTE1, PIPE_M, 0);
    wait_flag(PIPE_MTE1, PIPE_M, 0);
    auto acc = TASSIGN<AccTile<float>>(0, 16, 16);
    TMATMUL(acc, l0a, l0b);
    TMOV(l0a, l1);  // next K-step into the same L0A without waiting for M
  });
  EXPECT_NE(Core().error().find("missing flag: TEXTRACT on MTE1 writes 512 bytes at Left(L0A)+0"),
            std::string::npos)
      << Core().error();
  EXPECT_NE(Core().error().find("TMATMUL on M reads them"), std::string::npos) << Core().error();
}

TEST(AicCoreTest, ReloadingWhatFixpipeStillWritesToGmFaultsUntilFlagged) {
  std::vector<float> gm(16 * 16);
  auto kernel = [&](bool flagged) {
    return [&gm, flagged] {
      auto acc = TASSIGN<AccTile<float>>(0, 16, 16);
      TSTORE(GlobalTensor<float>{gm.data(), gm.size()}, acc);
      if (flagged) {
        set_flag(PIPE_FIX, PIPE_MTE2, 0);
        wait_flag(PIPE_FIX, PIPE_MTE2, 0);
      }
      auto l1 = TASSIGN<MatTile<float>>(0, 16, 16);
      TLOAD(l1, GlobalTensor<float>{gm.data(), gm.size()});
    };
  };
  RunKernel(kernel(false));
  EXPECT_NE(Core().error().find("missing flag: TLOAD on MTE2 reads 1024 bytes at GM"),
            std::string::npos)
      << Core().error();
  RunKernel(kernel(true));
  ASSERT_EQ(Core().error_code(), 0) << Core().error();
  const auto& r = Core().records();
  EXPECT_EQ(r[1].start, r[0].end);  // the load waits for the store
}

TEST(AicCoreTest, BiasPathIsChargedOnMte1AndTheCube) {
  std::vector<float> out(16 * 16);
  RunKernel([&] {
    auto l1 = TASSIGN<MatTile<float>>(0, 1, 16);
    for (int j = 0; j < 16; ++j) l1.data[j] = static_cast<float>(j);
    auto bias = TASSIGN<BiasTile<float>>(0, 1, 16);
    TMOV(bias, l1);
    auto a = TASSIGN<LeftTile<float>>(0, 16, 8);
    auto b = TASSIGN<RightTile<float>>(0, 8, 16);
    std::memset(a.data, 0, a.bytes());  // the buffers keep earlier tests' bytes
    std::memset(b.data, 0, b.bytes());
    auto c = TASSIGN<AccTile<float>>(0, 16, 16);
    set_flag(PIPE_MTE1, PIPE_M, 0);
    wait_flag(PIPE_MTE1, PIPE_M, 0);
    TMATMUL_BIAS(c, a, b, bias);
    set_flag(PIPE_M, PIPE_FIX, 0);
    wait_flag(PIPE_M, PIPE_FIX, 0);
    TSTORE(GlobalTensor<float>{out.data(), out.size()}, c);
  });
  ASSERT_EQ(Core().error_code(), 0) << Core().error();
  EXPECT_EQ(out[3 * 16 + 7], 7.0f);  // zero operands: every row of C is the bias
  const auto& r = Core().records();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].pipe, PIPE_MTE1);
  EXPECT_NEAR(Dur(r[0]), 4, 0.01);                  // 64 B / 18.6 B per cycle
  EXPECT_NEAR(Dur(r[1]), 6 + 1 * 1 * 1 * 2, 0.01);  // one FP32 fractal step
}

TEST(AicCoreTest, BuffersHaveThePlatformsCapacities) {
  // 256 x 128 floats = 128 KiB: a2a3's whole L0C, half of A5's.
  auto big = [] { TASSIGN<AccTile<float>>(65536, 256, 128); };
  RunKernel(big);
  EXPECT_NE(Core().error().find("overflows the buffer of 131072 bytes"), std::string::npos)
      << Core().error();
  RunKernel(big, CoreA5());
  EXPECT_EQ(CoreA5().error_code(), 0) << CoreA5().error();
  EXPECT_EQ(CoreA5().CubeBytes(TileKind::kBias), 4096u);
  // A5 runs the cube at its own clock: 6 + 1 cycles at 1.65 GHz.
  RunKernel(
      [] {
        auto a = TASSIGN<LeftTile<int8_t>>(0, 16, 32);
        auto b = TASSIGN<RightTile<int8_t>>(0, 32, 16);
        auto c = TASSIGN<AccTile<int32_t>>(0, 16, 16);
        TMATMUL(c, a, b);
      },
      CoreA5());
  const auto& r = CoreA5().records();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].end - r[0].start, std::llround(7 * 1000.0 / 1.65));
}

TEST(AicCoreTest, WaitWithoutSetIsADeadlockReport) {
  RunKernel([] { wait_flag(PIPE_MTE1, PIPE_M, 3); });
  EXPECT_EQ(Core().error_code(), 100);
  EXPECT_EQ(Core().error(),
            "AIC0: wait_flag(MTE1, M, 3) has no matching set_flag: pipe M would wait forever");
}

TEST(AicCoreTest, ApiFaultsAndVectorCallsLatchTheError) {
  RunKernel([] { TASSIGN<LeftTile<half>>(8, 16, 16); });
  EXPECT_EQ(Core().error(), "AIC0: TASSIGN Left(L0A)<half>: offset 8 is not 32-byte aligned");
  RunKernel([] { TASSIGN<float>(0, 16); });
  EXPECT_EQ(Core().error(), "AIC0: TASSIGN: the AIC has no UB (use Mat tiles)");
  RunKernel([] { set_flag(PIPE_V, PIPE_M, 0); });
  EXPECT_EQ(Core().error(), "AIC0: set_flag(V, M, 0): not a pipe pair and event of the AIC");
  std::vector<float> wild(256);
  RunKernel([&] {
    LeftTile<float> a{wild.data(), 16, 16};  // not placed with TASSIGN
    auto b = TASSIGN<RightTile<float>>(0, 16, 16);
    auto c = TASSIGN<AccTile<float>>(0, 16, 16);
    TMATMUL(c, a, b);
  });
  EXPECT_EQ(Core().error(),
            "AIC0: TMATMUL: 1024 bytes outside Left(L0A) (65536 bytes; place tiles with TASSIGN)");
  // A clean block after faults: the latch is per block.
  RunKernel([] {});
  EXPECT_EQ(Core().error_code(), 0);
}

TEST(AicCoreTest, WaitFlagOnTheScalarHoldsTheIssue) {
  std::vector<half> a(64 * 64);
  RunKernel([&] {
    auto l1 = TASSIGN<MatTile<half>>(0, 64, 64);
    TLOAD(l1, GlobalTensor<half>{a.data(), a.size()});
    set_flag(PIPE_MTE2, PIPE_S, 0);
    wait_flag(PIPE_MTE2, PIPE_S, 0);
    auto l0 = TASSIGN<LeftTile<half>>(0, 64, 64);
    TMOV(l0, l1);
  });
  const auto& r = Core().records();
  ASSERT_EQ(Core().error_code(), 0) << Core().error();
  // The TMOV issued after the scalar waited for the load: one issue slot later.
  EXPECT_NEAR(Core().ToCycles(r[1].start - r[0].end), A2a3().scalar_op_cycles(), 0.01);
}

}  // namespace
}  // namespace pto::sim
