// One chip (sim/chip/chip.h) alone, on the module harness's stub memory: the
// cores a platform gives it, their flattened ids, the wiring of every core to
// the chip's AICPU, the URMA engine of a platform that has one, and one AIV
// and one AIC task dispatched through the chip's AICPU to its cores of that
// kind. Simulated time only.
#include "sim/chip/chip.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include <systemc>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"
#include "sim/common/sc_time.h"
#include "sim/common/time.h"
#include "sim/testing/module_harness.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {
namespace {

using testing::ModuleRun;
using testing::RunModule;
using testing::StubMemory;

// The system's side: the first fatal error, then stop.
class StubRunObserver : public RunObserver {
 public:
  void OnFatal(int, const rt::ErrorLatch& latch) override {
    if (code == 0) code = latch.code();
    sc_core::sc_stop();
  }
  void CountWait() override {}
  int code = 0;
};

void NopKernel(int64_t*) {}

// Builds chip 1 of a 2-chip world of `platform`, optionally runs one
// dispatch of an AIV task (2 blocks) and an AIC task (1 block), and records
// the structure and the blocks each kind of core ran.
ModuleRun BuildChip(const std::string& platform, bool dispatch) {
  return RunModule([&](ModuleRun& r) {
    const platforms::Platform p = *platforms::LoadPlatform(platform);
    StubMemory mem(p, 2);
    StubRunObserver observer;
    Chip chip("chip1", /*chip=*/1, /*chips=*/2, p, &mem, &observer, &mem.trace());
    r.values["aic"] = static_cast<int64_t>(chip.aic_cores().size());
    r.values["aiv"] = static_cast<int64_t>(chip.aiv_cores().size());
    r.values["cores"] = static_cast<int64_t>(chip.cores().size());
    int64_t misplaced = 0;
    for (size_t i = 0; i < chip.cores().size(); ++i) {
      const ChipCore* c = chip.cores()[i];
      const bool want_aic = i < chip.aic_cores().size();
      if (c->is_aic() != want_aic || c->core_id() != static_cast<int>(i) || c->chip() != 1) {
        ++misplaced;
      }
    }
    r.values["misplaced"] = misplaced;
    r.values["urma"] = chip.urma() != nullptr;
    r.values["gm_chip"] = chip.gm().chip();
    if (dispatch) {
      rt::ChipCallable c;
      c.name = "two_kinds";
      c.kernels = {&NopKernel, &NopKernel};
      c.kernel_names = {"vec", "cube"};
      c.entry = [](rt::Orchestrator& orch, const rt::ChipArgs&) {
        rt::TaskArgs vec;
        vec.launch_spec.set_core_num(2);
        orch.submit_aiv_task(0, vec);
        orch.submit_aic_task(1, rt::TaskArgs{});
      };
      chip.aicpu().Enqueue(DispatchEntry{c, rt::ChipArgs{}, nullptr});
    }
    sc_core::sc_start(PsTime(NsToPs(1e9)));
    int64_t aic_blocks = 0, aiv_blocks = 0;
    for (const ChipCore* core : chip.cores()) {
      CoreStat s;
      core->FillStats(&s);
      (core->is_aic() ? aic_blocks : aiv_blocks) += s.blocks();
    }
    r.values["aic_blocks"] = aic_blocks;
    r.values["aiv_blocks"] = aiv_blocks;
    r.values["idle"] = chip.aicpu().Idle();
    r.values["error_code"] = observer.code;
    r.values["tasks"] = static_cast<int64_t>(chip.aicpu().task_stats().size());
    int64_t last_end = 0;
    for (const TaskStat& t : chip.aicpu().task_stats()) last_end = std::max(last_end, t.end_ps());
    r.values["last_end_ps"] = last_end;
  });
}

TEST(ChipTest, A2a3ChipHasTheDiesCoresAicIdsFirst) {
  ModuleRun r = BuildChip("a2a3", /*dispatch=*/false);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("aic"), 24);
  EXPECT_EQ(r.value("aiv"), 48);
  EXPECT_EQ(r.value("cores"), 72);
  EXPECT_EQ(r.value("misplaced"), 0);
  EXPECT_EQ(r.value("gm_chip"), 1);
  EXPECT_EQ(r.value("urma"), 0);  // a2a3 has no URMA
}

TEST(ChipTest, A5ChipHasItsCoresAndAnUrmaEngine) {
  ModuleRun r = BuildChip("a5", /*dispatch=*/false);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("aic"), 36);
  EXPECT_EQ(r.value("aiv"), 72);
  EXPECT_EQ(r.value("misplaced"), 0);
  EXPECT_EQ(r.value("urma"), 1);
}

TEST(ChipTest, TheAicpuRunsEachTaskOnItsKindOfCore) {
  ModuleRun r = BuildChip("a2a3", /*dispatch=*/true);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0);
  EXPECT_EQ(r.value("aiv_blocks"), 2);
  EXPECT_EQ(r.value("aic_blocks"), 1);
  EXPECT_EQ(r.value("idle"), 1);
  EXPECT_EQ(r.value("tasks"), 2);
  EXPECT_GT(r.value("last_end_ps"), 0);
}

}  // namespace
}  // namespace pto::sim
