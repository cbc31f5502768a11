// AIC tasks through the runtime on a simulated chip: a hand-written cube
// kernel (runtime/device/cube_api.h) submitted with submit_aic_task, run by
// the AICPU scheduler on the chip's AIC cores (sim/aic), against a C++
// golden and the simulated time the cube model gives its instructions.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "sim/aic/cube_cost.h"
#include "sim/system/matmul_fixture.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::MatmulGolden;
using testing::MatmulOperands;
using testing::OnlyTask;
using testing::OutputAs;

constexpr uint32_t kM = 64, kK = 64, kN = 32;

// C[M, N] = A[M, K] . B[K, N] (half in, float out); block b of nb takes
// rows [b M / nb, (b + 1) M / nb). Each stage waits for the one before it.
void MatmulKernel(int64_t* args) {
  const TensorDesc* a = TensorArg(args, 0);
  const TensorDesc* b = TensorArg(args, 1);
  const TensorDesc* c = TensorArg(args, 2);
  const uint32_t rows = kM / get_block_num(args);
  const uint64_t r0 = static_cast<uint64_t>(get_block_idx(args)) * rows;
  auto a_l1 = TASSIGN<MatTile<half>>(0, rows, kK);
  auto b_l1 = TASSIGN<MatTile<half>>(64 * 1024, kK, kN);
  auto a_l0 = TASSIGN<LeftTile<half>>(0, rows, kK);
  auto b_l0 = TASSIGN<RightTile<half>>(0, kK, kN);
  auto acc = TASSIGN<AccTile<float>>(0, rows, kN);
  TLOAD(a_l1, GlobalTensor<half>{a->data<half>() + r0 * kK, uint64_t{rows} * kK});
  TLOAD(b_l1, GlobalTensor<half>{b->data<half>(), uint64_t{kK} * kN});
  set_flag(PIPE_MTE2, PIPE_MTE1, 0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
  TMOV(a_l0, a_l1);
  TMOV(b_l0, b_l1);
  set_flag(PIPE_MTE1, PIPE_M, 0);
  wait_flag(PIPE_MTE1, PIPE_M, 0);
  TMATMUL(acc, a_l0, b_l0);
  set_flag(PIPE_M, PIPE_FIX, 0);
  wait_flag(PIPE_M, PIPE_FIX, 0);
  TSTORE(GlobalTensor<float>{c->data<float>() + r0 * kN, uint64_t{rows} * kN}, acc);
}

// A cube kernel that places a vector (UB) tile: the AIC has no UB.
void UbOnAicKernel(int64_t*) { TASSIGN<float>(0, 16); }

rt::ChipCallable AicTask(KernelEntry kernel, int blocks) {
  rt::ChipCallable c;
  c.name = "matmul";
  c.kernels = {kernel};
  c.kernel_names = {"matmul"};
  c.entry = [blocks](rt::Orchestrator& orch, const rt::ChipArgs& a) {
    rt::TaskArgs args;
    args.add_input(a.tensors[0]);
    args.add_input(a.tensors[1]);
    args.add_output(a.tensors[2]);
    args.launch_spec.set_core_num(blocks);
    orch.submit_aic_task(0, args);
  };
  return c;
}

float A(uint32_t i, uint32_t k) { return static_cast<float>((i * 7 + k * 3) % 11) * 0.25f - 1.0f; }
float B(uint32_t k, uint32_t j) { return static_cast<float>((k * 5 + j) % 13) * 0.125f - 0.75f; }

constexpr MatmulOperands kOperands{kM, kK, kN, &A, &B};

RunReport RunMatmul(int blocks, KernelEntry kernel = &MatmulKernel) {
  return testing::RunMatmul(kOperands, AicTask(kernel, blocks));
}

std::vector<float> Golden() { return MatmulGolden(kOperands); }

// The block's time by the cube model's rules: one scalar issue slot, then
// every instruction back to back on its pipe (each waits for the one
// before), plus the GM latency of the loads' landing and of the store's.
Ps ExpectedBlockPs(uint32_t rows) {
  const platforms::Platform p = *platforms::LoadPlatform("a2a3");
  CubeCost cost(p.cube());
  auto ps = [&](double cycles) {
    return static_cast<Ps>(std::llround(cycles * 1000.0 / p.clock_ghz()));
  };
  auto move = [](CubeOpcode op, CubeDType s, CubeDType d, uint32_t r, uint32_t c, TileKind w) {
    CubeInstr in{op, s, d};
    in.rows = r;
    in.cols = c;
    in.write.kind = w;
    return in;
  };
  CubeInstr mm{CubeOpcode::kMatmul, CubeDType::kHalf, CubeDType::kFloat};
  mm.m = rows;
  mm.k = kK;
  mm.n = kN;
  const CubeInstr instrs[] = {
      move(CubeOpcode::kLoadL1, CubeDType::kHalf, CubeDType::kHalf, rows, kK, TileKind::kMat),
      move(CubeOpcode::kLoadL1, CubeDType::kHalf, CubeDType::kHalf, kK, kN, TileKind::kMat),
      move(CubeOpcode::kExtract, CubeDType::kHalf, CubeDType::kHalf, rows, kK, TileKind::kLeft),
      move(CubeOpcode::kExtract, CubeDType::kHalf, CubeDType::kHalf, kK, kN, TileKind::kRight),
      mm,
      move(CubeOpcode::kStoreAcc, CubeDType::kFloat, CubeDType::kFloat, rows, kN,
           TileKind::kMat)};
  Ps t = ps(p.scalar_op_cycles());
  for (const CubeInstr& in : instrs) t += ps(static_cast<double>(cost.Cycles(in)));
  return t + 2 * NsToPs(p.gm().latency_ns());
}

TEST(AicTaskTest, AMatmulTaskRunsOnTheAicCoresAgainstTheGolden) {
  RunReport r = RunMatmul(/*blocks=*/2);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  const std::vector<float> got = OutputAs<float>(r, "c");
  const std::vector<float> want = Golden();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
  // Two blocks on two AIC cores, none on an AIV.
  int aic_blocks = 0;
  for (const CoreStat& c : r.cores()) {
    EXPECT_EQ(c.kind(), "AIC");
    aic_blocks += c.blocks();
    EXPECT_GT(c.cube_busy_ps(), 0);
    EXPECT_EQ(c.fix_bytes(), kM / 2 * kN * sizeof(float));
    EXPECT_EQ(c.mte2_bytes(), (kM / 2 * kK + kK * kN) * sizeof(half));
  }
  EXPECT_EQ(aic_blocks, 2);
  const TaskStat& t = OnlyTask(r, 0);
  EXPECT_EQ(t.blocks(), 2);
  // The blocks start together (cold heads differ by core) and each takes
  // what the cube model's rules give the serial chain.
  const Ps block = ExpectedBlockPs(kM / 2);
  EXPECT_GE(t.end_ps() - t.start_ps(), block);
  EXPECT_LT(t.end_ps() - t.start_ps(), block + NsToPs(2000));  // the cold-head spread
  // The figure (a2a3, 1.85 GHz): issue 2 + TLOAD 51 + 51 + TMOV 16 + 32 +
  // TMATMUL 22 + TSTORE 101 = 275 cycles, plus 2 x 110 ns of GM latency.
  EXPECT_EQ(block, 368650);  // ps; each instruction rounds to ps on its own
}

TEST(AicTaskTest, OneBlockTakesExactlyTheModelledTime) {
  RunReport r = RunMatmul(/*blocks=*/1);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(OutputAs<float>(r, "c"), Golden());
  ASSERT_EQ(r.cores_size(), 1);
  EXPECT_EQ(r.cores(0).busy_ps(), ExpectedBlockPs(kM));
  const TaskStat& t = OnlyTask(r, 0);
  EXPECT_EQ(t.end_ps() - t.start_ps(), ExpectedBlockPs(kM));
}

TEST(AicTaskTest, TheTraceDrawsTheAicPipes) {
  RunReport r = RunMatmul(/*blocks=*/1);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  const std::string& json = r.trace_json();
  for (const char* track : {"AIC core 0\"", "AIC core 0 MTE2", "AIC core 0 MTE1", "AIC core 0 CUBE",
                            "AIC core 0 FIXPIPE"}) {
    EXPECT_THAT(json, HasSubstr(track));
  }
  EXPECT_THAT(json, HasSubstr("\"name\":\"TMATMUL 64x64x32\""));
  EXPECT_THAT(json, HasSubstr("\"name\":\"TSTORE.acc 64x32\""));
  EXPECT_THAT(json, Not(HasSubstr("AIC core 0 VECTOR")));
}

TEST(AicTaskTest, AVectorTileOnTheAicFaultsWithTheRule) {
  RunReport r = RunMatmul(/*blocks=*/1, &UbOnAicKernel);
  EXPECT_EQ(r.error_code(), rt::kErrorAicoreFault);
  EXPECT_THAT(r.error_text(), HasSubstr("chip 0 AIC0 kernel matmul block 0/1: TASSIGN: the AIC "
                                        "has no UB (use Mat tiles)"));
}

}  // namespace
}  // namespace pto::sim
