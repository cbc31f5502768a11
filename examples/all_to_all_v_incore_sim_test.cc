// End to end: examples/all_to_all_v_incore.pto compiled at build time
// (pto_program, //tools:pto-compile) and run on 2 simulated 910B chips. The
// HOST orchestration dispatches chip_pipeline once per device; its one task
// is the InCore kernel `exchange`, which stages rows (doubled, d + 1 rows for
// peer d), runs the all_to_all_v that LowerCompositeOps expanded into
// notify/wait and put primitives, and copies the rows that arrived. Every
// rank's output is checked against the golden of //testing/reference, and
// the wire traffic against the builtin kernel's: one transfer per peer,
// bounded by the clamped row count.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

namespace pto::examples::a2av {
namespace {

// The constants of examples/all_to_all_v_incore.pto are a2av's (sim_run.h).
Outcome RunProgram() { return Run(&generated::RunHost); }

// The program's send count for peer d: d + 1 rows.
int32_t SendCount(int dest) { return dest + 1; }

TEST(AllToAllVInCoreSimTest, EveryRankMatchesTheGolden) {
  // The golden: rank r stages row r of its copy of `inputs`, doubled, and
  // sends d + 1 rows to peer d (a partial slot: rank r receives r + 1 rows
  // from every source); the kernel copies the first recv_counts[s] rows of
  // every slot s into out and leaves the rest as they were (kOutputInit).
  const absl::Status cmp = CheckAgainstGolden(
      RunProgram(), {.stage_scale = 2.0f, .send_count = SendCount, .unsent = kOutputInit});
  EXPECT_TRUE(cmp.ok()) << cmp;
}

// Wire-identical to the builtin kernel (collectives.md §4.3-§4.5): each rank
// moves exactly clamp(send_counts[d]) rows to peer d in one transfer, and
// every notify another rank waits on is published behind a fence.
TEST(AllToAllVInCoreSimTest, OneBoundedTransferPerPeerAndFencedNotifies) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  std::map<std::string, const sim::ResourceStat*> links;
  for (const sim::ResourceStat& l : run.report.links()) links[l.name()] = &l;
  for (int src = 0; src < kNr; ++src) {
    for (int dst = 0; dst < kNr; ++dst) {
      if (src == dst) continue;
      const std::string name = absl::StrCat("link c", src, "->c", dst);
      ASSERT_TRUE(links.count(name)) << name;
      EXPECT_EQ(links[name]->transfers(), 1) << name;
      EXPECT_EQ(links[name]->bytes(), static_cast<int64_t>(SendCount(dst) * kSize * sizeof(float)))
          << name;
    }
  }
  for (const sim::CoreStat& c : run.report.cores()) {
    EXPECT_EQ(c.unfenced_notifies(), 0) << "chip " << c.chip() << " core " << c.core();
  }
}

// The InCore rail's collective runs inside the pipeline's one task: one chip
// dispatch (one L3 -> L2 round trip) per card, as on the CHIP rail.
TEST(AllToAllVInCoreSimTest, OneTaskPerCard) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  std::map<int, std::vector<std::string>> kernels_by_chip;
  for (const auto& task : run.report.tasks()) {
    EXPECT_EQ(task.run(), 0) << "chip " << task.chip() << " task " << task.kernel();
    kernels_by_chip[task.chip()].push_back(task.kernel());
  }
  ASSERT_EQ(kernels_by_chip.size(), static_cast<size_t>(kNr));
  for (const auto& [chip, kernels] : kernels_by_chip) {
    EXPECT_EQ(kernels, std::vector<std::string>{"exchange"}) << "chip " << chip;
  }
  EXPECT_GE(run.report.sim_time_ps(), kRoundTripPs);
  EXPECT_LT(run.report.sim_time_ps(), 2 * kRoundTripPs);
}

}  // namespace
}  // namespace pto::examples::a2av
