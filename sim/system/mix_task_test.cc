// MIX tasks on a simulated chip: each block takes one 1C2V cluster, the AIC
// multiplies and TPUSHes its result to the AIV lanes, which TPOP it, add a
// bias and store it (runtime/device/pipe_api.h); a full pipe blocks the
// producer, and a pipe nobody fills ends in the wait-for report naming it.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/pipe_api.h"
#include "sim/system/matmul_fixture.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::MatmulGolden;
using testing::MatmulOperands;
using testing::RunMatmul;
using testing::OnlyTask;
using testing::Opts;
using testing::OutputAs;
using testing::Simulate;

constexpr uint32_t kRows = 32, kK = 32, kN = 16;  // per block; half of kRows per lane
constexpr uint64_t kHalfBytes = kRows / 2 * kN * sizeof(float);

PipeSpec C2V(int lane, uint32_t slots) {
  return PipeSpec{/*id=*/0, PipeDir::kC2V, slots, kHalfBytes, lane};
}

// scalars: s0 = pipe slots, s1 = tiles per lane (each the same product).
void CubeKernel(int64_t* args) {
  const TensorDesc* a = TensorArg(args, 0);
  const TensorDesc* b = TensorArg(args, 1);
  const uint32_t slots = static_cast<uint32_t>(args[3]);
  const int reps = static_cast<int>(args[4]);
  const uint64_t r0 = static_cast<uint64_t>(get_block_idx(args)) * kRows;
  auto a_l1 = TASSIGN<MatTile<half>>(0, kRows, kK);
  auto b_l1 = TASSIGN<MatTile<half>>(32 * 1024, kK, kN);
  auto a_l0 = TASSIGN<LeftTile<half>>(0, kRows, kK);
  auto b_l0 = TASSIGN<RightTile<half>>(0, kK, kN);
  auto acc = TASSIGN<AccTile<float>>(0, kRows, kN);
  TLOAD(a_l1, GlobalTensor<half>{a->data<half>() + r0 * kK, uint64_t{kRows} * kK});
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
  // The top half of the rows to lane 0, the bottom half to lane 1.
  AccTile<float> top{acc.data, kRows / 2, kN};
  AccTile<float> bottom{acc.data + kRows / 2 * kN, kRows / 2, kN};
  for (int r = 0; r < reps; ++r) {
    TPUSH<float>(C2V(0, slots), top);
    TPUSH<float>(C2V(1, slots), bottom);
  }
}

// The AIV lanes: pop each tile, add 1, store the last one to its rows of c.
// A lane does `work` extra vector passes per tile (a slow consumer).
void VecKernel(int64_t* args) {
  const TensorDesc* c = TensorArg(args, 2);
  const uint32_t slots = static_cast<uint32_t>(args[3]);
  const int reps = static_cast<int>(args[4]);
  const int work = static_cast<int>(args[5]);
  const int lane = get_subblockid(args);
  Tile<float> t = TASSIGN<float>(0, kRows / 2 * kN);
  for (int r = 0; r < reps; ++r) {
    TPOP(C2V(lane, slots), t);
    for (int w = 0; w < work; ++w) TADDS(t, t, 0.0f);
    TADDS(t, t, 1.0f);
  }
  const uint64_t row0 = static_cast<uint64_t>(get_block_idx(args)) * kRows + lane * kRows / 2;
  TSTORE(GlobalTensor<float>{c->data<float>() + row0 * kN, t.count}, t);
}

// An AIC that never pushes: its AIV lane's TPOP waits forever.
void SilentCubeKernel(int64_t*) {}

struct MixRun {
  int blocks = 2;
  uint32_t slots = 2;
  int reps = 1;
  int work = 0;
  KernelEntry cube = &CubeKernel;
  bool both_lanes = true;
  bool sync_start = false;
};

rt::ChipCallable MixTask(const MixRun& m) {
  rt::ChipCallable c;
  c.name = "mix";
  c.kernels = {m.cube, &VecKernel};
  c.kernel_names = {"mm_cube", "mm_vec"};
  c.entry = [m](rt::Orchestrator& orch, const rt::ChipArgs& a) {
    rt::TaskArgs args;
    args.add_input(a.tensors[0]);
    args.add_input(a.tensors[1]);
    args.add_output(a.tensors[2]);
    args.add_scalar(m.slots);
    args.add_scalar(static_cast<uint64_t>(m.reps));
    args.add_scalar(static_cast<uint64_t>(m.work));
    args.launch_spec.set_core_num(m.blocks);
    args.launch_spec.set_require_sync_start(m.sync_start);
    orch.submit_mix_task(rt::MixKernels{0, 1, m.both_lanes ? 1 : -1}, args);
  };
  return c;
}

float A(uint32_t i, uint32_t k) { return static_cast<float>((i * 3 + k) % 7) * 0.5f - 1.5f; }
float B(uint32_t k, uint32_t j) { return static_cast<float>((k + j * 5) % 9) * 0.25f - 1.0f; }

MatmulOperands Operands(int blocks) { return {kRows * blocks, kK, kN, &A, &B}; }

RunReport RunMix(const MixRun& m) { return RunMatmul(Operands(m.blocks), MixTask(m)); }

// The AIV lanes add a bias of 1 to the cube's product.
std::vector<float> Golden(int blocks) { return MatmulGolden(Operands(blocks), 1.0f); }

int64_t MaxOccupancy(const RunReport& r, const std::string& name) {
  for (const ResourceStat& q : r.queues()) {
    if (q.name() == name) return q.max_occupancy();
  }
  return -1;
}

TEST(MixTaskTest, EachBlockTakesAClusterAndItsLanesGetTheCubesTiles) {
  RunReport r = RunMix(MixRun{});
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(OutputAs<float>(r, "c"), Golden(2));
  // Block b ran on cluster b: AIC b and AIVs B + 2b, B + 2b + 1 (B = 24).
  std::vector<std::string> ran;
  for (const CoreStat& c : r.cores()) ran.push_back(absl::StrCat(c.kind(), c.core()));
  EXPECT_EQ(ran, (std::vector<std::string>{"AIC0", "AIC1", "AIV24", "AIV25", "AIV26", "AIV27"}));
  const TaskStat& t = OnlyTask(r, 0);
  EXPECT_EQ(t.blocks(), 2);
  EXPECT_EQ(t.kernel(), "mm_cube");
  // Every pipe carried one tile; the MIX ready queue saw the task.
  for (const char* p : {"pipe c0 cluster 0 lane 0 id 0", "pipe c0 cluster 1 lane 1 id 0"}) {
    EXPECT_EQ(MaxOccupancy(r, p), 1) << p;
  }
  EXPECT_EQ(MaxOccupancy(r, "ready MIX c0"), 1);
  // The trace shows each slot's occupancy.
  EXPECT_THAT(r.trace_json(), HasSubstr("pipe 0 cluster 0 lane 0 slot 0"));
}

TEST(MixTaskTest, AFullPipeBlocksTheProducerUntilTheConsumerFreesASlot) {
  // A slow consumer (64 extra vector passes per tile) and 4 tiles per lane.
  MixRun deep{.blocks = 1, .slots = 4, .reps = 4, .work = 64};
  MixRun shallow = deep;
  shallow.slots = 1;
  RunReport d = RunMix(deep);
  RunReport s = RunMix(shallow);
  ASSERT_EQ(d.error_code(), 0) << d.error_text();
  ASSERT_EQ(s.error_code(), 0) << s.error_text();
  EXPECT_EQ(OutputAs<float>(d, "c"), Golden(1));
  EXPECT_EQ(OutputAs<float>(s, "c"), Golden(1));
  EXPECT_EQ(MaxOccupancy(d, "pipe c0 cluster 0 lane 0 id 0"), 4);
  EXPECT_EQ(MaxOccupancy(s, "pipe c0 cluster 0 lane 0 id 0"), 1);
  auto aic_busy = [](const RunReport& r) {
    for (const CoreStat& c : r.cores()) {
      if (c.kind() == "AIC") return c.busy_ps();
    }
    return int64_t{-1};
  };
  // With four slots the AIC pushes all its tiles at once and ends early;
  // with one it waits for every pop but the last.
  EXPECT_GT(aic_busy(s), 2 * aic_busy(d));
  // The consumer's pace sets the task's time either way (within the flags).
  EXPECT_NEAR(OnlyTask(s, 0).end_ps() - OnlyTask(s, 0).start_ps(),
              OnlyTask(d, 0).end_ps() - OnlyTask(d, 0).start_ps(), 1000000);
}

TEST(MixTaskTest, APipeNobodyFillsEndsInTheWaitForReportNamingIt) {
  MixRun m{.blocks = 1, .cube = &SilentCubeKernel, .both_lanes = false};
  RunReport r = RunMix(m);
  EXPECT_EQ(r.error_code(), rt::kErrorSchedulerTimeout);
  EXPECT_THAT(r.error_text(),
              HasSubstr("cause: deadlock through a cross-core pipe: rank 0 AIV24 task 0 block 0/1 "
                        "(kernel mm_vec): TPOP waits on pipe 0 of cluster 0 lane 0 (C2V, 2 x "
                        "1024 B): empty"));
  bool listed = false;
  for (const std::string& b : r.blocked()) listed = listed || b.find("TPOP waits on pipe 0") != std::string::npos;
  EXPECT_TRUE(listed);
}

TEST(MixTaskTest, ASyncStartMixTaskIsRefused) {
  MixRun m;
  m.sync_start = true;
  RunReport r = RunMix(m);
  EXPECT_EQ(r.error_code(), rt::kErrorInvalidArgs);
  EXPECT_THAT(r.error_text(), HasSubstr("task 0: require_sync_start on a MIX task is not modelled"));
}

TEST(MixTaskTest, TpopOutsideAMixTaskFaults) {
  RunReport r = Simulate(Opts(1), [](SimSystem& sys) -> absl::Status {
    auto t = sys.Alloc(0, 4096, "x");
    if (!t.ok()) return t.status();
    rt::ChipArgs args;
    args.tensors = {*t};
    args.scalars = {2, 1, 0};
    return sys.Dispatch(0, testing::SingleTask("pop", [](int64_t* a) {
                          Tile<float> t = TASSIGN<float>(0, 16);
                          TPOP(PipeSpec{0, PipeDir::kC2V, 2, 64, 0}, t);
                          (void)a;
                        }, 1, false), args);
  });
  EXPECT_EQ(r.error_code(), rt::kErrorAicoreFault);
  EXPECT_THAT(r.error_text(), HasSubstr("TPUSH/TPOP outside a MIX task"));
}

}  // namespace
}  // namespace pto::sim
