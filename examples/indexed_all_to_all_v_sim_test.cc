// End to end: examples/indexed_all_to_all_v.pto compiled at build time for a5
// (pto_program, //tools:pto-compile --platform=a5) and run on 2 simulated A5
// chips. The HOST orchestration dispatches chip_pipeline once per device; the
// chip pipeline runs plan_step (counts 2 and 5 -> clamped 4, a gather index
// with repeated rows), the rendered builtin indexed_all_to_all_v (2 blocks,
// URMA PER_PEER queues) and consume_step (copies every slot that arrived).
// Every rank's output is checked against the golden of //testing/reference,
// and the URMA queues against the rows each rank sent.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "testing/reference/collectives.h"

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;

// The constants of examples/indexed_all_to_all_v.pto.
constexpr int kNr = 2;
constexpr int kN = 6;
constexpr int kMaxRecv = 4;
constexpr int kSize = 64;
constexpr int kTotal = kNr * kMaxRecv;
constexpr int kInputElems = kN * kSize;        // one rank's [N, SIZE]
constexpr int kRankElems = kTotal * kSize;     // one rank's [TOTAL, SIZE]
constexpr int kParamElems = kNr * kRankElems;  // outputs [NR, TOTAL, SIZE]
constexpr float kOutputInit = -3.0f;

float InputOf(int device, int64_t i) { return examples::a2av::InputOf(device, i); }

struct Outcome {
  RunReport report;
  std::vector<std::vector<float>> outputs;  // [device][NR * TOTAL * SIZE]
};

Outcome RunProgram() {
  Outcome out;
  out.report = examples::RunFloatProgram(
      kNr,
      {{"inputs", {kNr, kN, kSize}, InputOf},
       {"outputs", {kNr, kTotal, kSize}, [](int, int64_t) { return kOutputInit; }}},
      &generated::RunHost, "a5");
  for (int d = 0; d < kNr; ++d) {
    out.outputs.push_back(examples::DeviceCopy(out.report, "outputs", d));
  }
  return out;
}

// plan_step's counts and index, the same on every rank.
ref::PerRank<int32_t> SendCounts() {
  std::vector<int32_t> c;
  for (int p = 0; p < kNr; ++p) c.push_back(2 + 3 * p);
  return ref::PerRank<int32_t>(kNr, c);
}
ref::PerRank<int32_t> Index() {
  std::vector<int32_t> ix;
  for (int p = 0; p < kNr; ++p) {
    for (int j = 0; j < kMaxRecv; ++j) ix.push_back((3 * p + 2 * (j / 2)) % kN);
  }
  return ref::PerRank<int32_t>(kNr, ix);
}

TEST(IndexedAllToAllVSimTest, EveryRankMatchesTheGolden) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();

  // Rank r's input is row r of its copy of `inputs`; its target window starts
  // zeroed; consume_step copies every slot whose count arrived non-zero.
  const ref::IndexedAllToAllVShape shape{kNr, kMaxRecv, kSize, kN};
  ref::PerRank<float> input(kNr, std::vector<float>(kInputElems));
  for (int r = 0; r < kNr; ++r) {
    for (int i = 0; i < kInputElems; ++i) input[r][i] = InputOf(r, r * kInputElems + i);
  }
  ref::PerRank<float> want(kNr, std::vector<float>(kRankElems, 0.0f));
  ref::PerRank<int32_t> want_recv;
  ASSERT_TRUE(ref::IndexedAllToAllV(shape, input, SendCounts(), Index(), &want, &want_recv).ok());
  ASSERT_EQ(want_recv[0], (std::vector<int32_t>{2, 2}));
  ASSERT_EQ(want_recv[1], (std::vector<int32_t>{4, 4}));

  ref::PerRank<float> got(kNr);
  for (int r = 0; r < kNr; ++r) {
    ASSERT_EQ(run.outputs[r].size(), static_cast<size_t>(kParamElems)) << "rank " << r;
    got[r].assign(run.outputs[r].begin() + r * kRankElems,
                  run.outputs[r].begin() + (r + 1) * kRankElems);
    for (int i = 0; i < kParamElems; ++i) {
      if (i / kRankElems == r) continue;
      ASSERT_EQ(run.outputs[r][i], kOutputInit) << "rank " << r << " element " << i;
    }
  }
  // Every slot arrived non-zero, so all its rows were copied: rows past the
  // count read the zeroed window (all_rows).
  const absl::Status cmp = ref::CompareAllToAllV(shape.target_shape(), want, want_recv, got,
                                                 want_recv, /*all_rows=*/true);
  EXPECT_TRUE(cmp.ok()) << cmp;
}

// The remote rows moved over the URMA queue to each peer (rows + one flag
// WQE), the local ones did not; the whole pipeline is one dispatch per card
// and the collective is one 2-block task that completes after its WQEs.
TEST(IndexedAllToAllVSimTest, RowsMoveOverTheUrmaPerPeerQueues) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  std::map<std::string, const ResourceStat*> queues;
  for (const ResourceStat& q : run.report.queues()) {
    if (q.name().rfind("urma", 0) == 0) queues[q.name()] = &q;
  }
  ASSERT_EQ(queues.size(), 2u);
  // Rank 0 sends clamp(5) = 4 rows to rank 1; rank 1 sends 2 rows to rank 0.
  const int64_t row_bytes = kSize * sizeof(float);
  ASSERT_TRUE(queues.count("urma c0->c1"));
  ASSERT_TRUE(queues.count("urma c1->c0"));
  EXPECT_EQ(queues["urma c0->c1"]->transfers(), 4 + 1);
  EXPECT_EQ(queues["urma c0->c1"]->bytes(), 4 * row_bytes + 4);
  EXPECT_EQ(queues["urma c1->c0"]->transfers(), 2 + 1);
  EXPECT_EQ(queues["urma c1->c0"]->bytes(), 2 * row_bytes + 4);
  std::map<int, std::vector<std::string>> kernels_by_chip;
  for (const auto& task : run.report.tasks()) {
    EXPECT_EQ(task.run(), 0) << "chip " << task.chip() << " " << task.kernel();
    kernels_by_chip[task.chip()].push_back(task.kernel());
    if (task.kernel() == "__builtin_indexed_all_to_all_v__fp32") {
      EXPECT_EQ(task.blocks(), 2);
      // At least the WQEs of its own queue (50 ns each on a5) before the
      // flag's CQE completes the task.
      EXPECT_GE(task.end_ps() - task.start_ps(), 3 * 50'000) << "chip " << task.chip();
    }
  }
  ASSERT_EQ(kernels_by_chip.size(), static_cast<size_t>(kNr));
  for (const auto& [chip, kernels] : kernels_by_chip) {
    EXPECT_EQ(kernels, (std::vector<std::string>{
                           "plan_step", "__builtin_indexed_all_to_all_v__fp32", "consume_step"}))
        << "chip " << chip;
  }
  RecordProperty("sim_time_ps", std::to_string(run.report.sim_time_ps()));
  EXPECT_GT(run.report.sim_time_ps(), 0);
}

}  // namespace
}  // namespace pto::sim
