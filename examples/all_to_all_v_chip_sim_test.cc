// End to end: examples/all_to_all_v_chip.pto compiled at build time
// (pto_program, //tools:pto-compile) and run on 2 simulated 910B chips. The
// HOST orchestration dispatches chip_pipeline once per device; the chip
// pipeline runs stage_step (rows doubled, MAX_RECV rows to every peer), the
// rendered builtin all_to_all_v and consume_step (copies what arrived). Every
// rank's output is checked against the golden of //testing/reference, and the
// simulated timeline against the CHIP rail's one L3 -> L2 round trip per card.
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

// The constants of examples/all_to_all_v_chip.pto are a2av's (sim_run.h).
Outcome RunProgram() { return Run(&generated::RunHost); }

TEST(AllToAllVChipSimTest, EveryRankMatchesTheGolden) {
  // The golden: rank r stages row r of its copy of `inputs`, doubled, and
  // sends MAX_RECV rows to every peer; consume_step copies every slot that
  // arrived, so out[r] is the all_to_all_v target of rank r.
  const absl::Status cmp = CheckAgainstGolden(RunProgram(), {.stage_scale = 2.0f});
  EXPECT_TRUE(cmp.ok()) << cmp;
}

// The CHIP rail's headline fact: the whole stage -> all_to_all_v -> consume
// pipeline is one chip dispatch (one L3 -> L2 round trip) per card.
TEST(AllToAllVChipSimTest, OneDispatchPerCardForTheWholePipeline) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  std::map<int, std::vector<std::string>> kernels_by_chip;
  for (const auto& task : run.report.tasks()) {
    EXPECT_EQ(task.run(), 0) << "chip " << task.chip() << " task " << task.kernel()
                             << " ran in a second dispatch";
    kernels_by_chip[task.chip()].push_back(task.kernel());
  }
  ASSERT_EQ(kernels_by_chip.size(), static_cast<size_t>(kNr));
  for (const auto& [chip, kernels] : kernels_by_chip) {
    EXPECT_EQ(kernels, (std::vector<std::string>{"stage_step", "__builtin_all_to_all_v__fp32",
                                                 "consume_step"}))
        << "chip " << chip;
  }
  RecordProperty("sim_time_ps", std::to_string(run.report.sim_time_ps()));
  // One round trip, not two: the run takes at least one L3 -> L2 dispatch
  // and finishes well before a second would.
  EXPECT_GE(run.report.sim_time_ps(), kRoundTripPs);
  EXPECT_LT(run.report.sim_time_ps(), 2 * kRoundTripPs);
}

}  // namespace
}  // namespace pto::examples::a2av
