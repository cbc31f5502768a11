// End to end: examples/all_to_all_v_host.pto compiled at build time
// (pto_program, //tools:pto-compile) and run on 2 simulated 910B chips. The
// HOST orchestration dispatches stage_pipeline (fill: rows as they are,
// MAX_RECV rows to every peer), the builtin all_to_all_v variant (its HOST
// entry rendered into the program) and consume_pipeline (a view of the
// window assembled into the output) to every device: three L3 -> L2 round
// trips per card. Every rank's output is checked against the golden of
// //testing/reference.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"

namespace pto::examples::a2av {
namespace {

// The constants of examples/all_to_all_v_host.pto are a2av's (sim_run.h).
Outcome RunProgram() { return Run(&generated::RunHost); }

TEST(AllToAllVHostSimTest, EveryRankMatchesTheGolden) {
  // The golden: rank r stages row r of its copy of `inputs` as it is, and
  // sends MAX_RECV rows to every peer; consume_step copies every slot that
  // arrived, so out[r] is the all_to_all_v target of rank r.
  const absl::Status cmp = CheckAgainstGolden(RunProgram(), {});
  EXPECT_TRUE(cmp.ok()) << cmp;
}

// The HOST rail: stage, collective and consume are three dispatches (three
// L3 -> L2 round trips) per card, in that order.
TEST(AllToAllVHostSimTest, ThreeDispatchesPerCard) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  std::map<int, std::map<int, std::vector<std::string>>> kernels_by_chip_and_run;
  for (const auto& task : run.report.tasks()) {
    kernels_by_chip_and_run[task.chip()][task.run()].push_back(task.kernel());
  }
  ASSERT_EQ(kernels_by_chip_and_run.size(), static_cast<size_t>(kNr));
  const std::map<int, std::vector<std::string>> want = {
      {0, {"fill"}},
      {1, {"builtin_tensor_all_to_all_v__fp32_kernel"}},
      {2, {"builtin_tensor_assemble"}}};
  for (const auto& [chip, runs] : kernels_by_chip_and_run) {
    EXPECT_EQ(runs, want) << "chip " << chip;
  }
  RecordProperty("sim_time_ps", std::to_string(run.report.sim_time_ps()));
  // Three round trips, not one.
  EXPECT_GE(run.report.sim_time_ps(), 3 * kRoundTripPs);
}

}  // namespace
}  // namespace pto::examples::a2av
