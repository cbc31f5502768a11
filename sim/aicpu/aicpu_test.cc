// The AICPU scheduler (sim/aicpu): admission of sync-start and wave launches,
// the task window and scopes.
// Run on the whole model (sim/system) with hand-written kernels: results and
// simulated time, never wall-clock time.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using testing::NopKernel;
using testing::OnlyTask;
using testing::Opts;
using testing::Simulate;
using testing::SingleTask;

// ----------------------------------------------------------- admission

RunReport SyncStart(int blocks) {
  return Simulate(Opts(1), [&](SimSystem& sys) {
    return sys.Dispatch(0, SingleTask("nop", &NopKernel, blocks, true),
                        rt::ChipArgs{});
  });
}

TEST(AdmissionTest, ExactlyFullSyncStartRunsAllBlocksTogether) {
  RunReport r = SyncStart(48);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.cores_size(), 48);
  EXPECT_EQ(OnlyTask(r, 0).blocks(), 48);
}

TEST(AdmissionTest, OneOverIsRejectedWithCodeSevenWithoutHanging) {
  RunReport r = SyncStart(49);
  EXPECT_EQ(r.error_code(), rt::kErrorRequireSyncStartInvalid);
  EXPECT_NE(r.error_text().find("require_sync_start block_num=49 > limit=48"),
            std::string::npos)
      << r.error_text();
  EXPECT_EQ(r.cores_size(), 0);  // nothing was dispatched
}

TEST(AdmissionTest, WaveLaunchAboveTheCoreCountRunsInWaves) {
  RunReport r = Simulate(Opts(1), [&](SimSystem& sys) {
    return sys.Dispatch(0, SingleTask("nop", &NopKernel, 100, false),
                        rt::ChipArgs{});
  });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  int64_t blocks = 0;
  for (const CoreStat& c : r.cores()) blocks += c.blocks();
  EXPECT_EQ(blocks, 100);
}

// ------------------------------------------------- task window, scopes

RunReport ManyTasks(bool scope_per_task) {
  SimOptions o = Opts(1);
  o.tweak = [](platforms::Platform& p) { p.mutable_aicpu()->set_task_window(4); };
  return Simulate(o, [&](SimSystem& sys) {
    rt::ChipCallable c;
    c.name = "many";
    c.kernels = {&NopKernel};
    c.kernel_names = {"nop"};
    // As simpler runs it, the entry is inside an implicit top-level scope:
    // ten tasks pass four slots only with a scope per task, which ends
    // before the next submit.
    c.entry = [scope_per_task](rt::Orchestrator& orch, const rt::ChipArgs&) {
      for (int i = 0; i < 10; ++i) {
        if (scope_per_task) orch.scope_begin();
        orch.submit_aiv_task(0, rt::TaskArgs{});
        if (scope_per_task) orch.scope_end();
      }
    };
    return sys.Dispatch(0, c, rt::ChipArgs{});
  });
}

TEST(TaskWindowTest, BackPressureLetsTenTasksThroughFourSlots) {
  RunReport r = ManyTasks(true);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.tasks_size(), 10);
  // The fifth task could only be submitted after the first completed.
  EXPECT_GE(r.tasks(4).ready_ps(), r.tasks(0).end_ps());
  for (const ResourceStat& q : r.queues()) {
    if (q.name() == "ready AIV c0") {
      EXPECT_EQ(q.transfers(), 10);
    }
  }
}

// Without scopes of its own every task stays in the implicit top-level scope.
TEST(TaskWindowTest, WindowFullOfAnOpenScopeIsCodeOne) {
  RunReport r = ManyTasks(false);
  EXPECT_EQ(r.error_code(), rt::kErrorScopeDeadlock);
  EXPECT_NE(r.error_text().find("task ring 0 of 4 (scope depth 0) is full, 4 slots"),
            std::string::npos)
      << r.error_text();
}

}  // namespace
}  // namespace pto::sim
