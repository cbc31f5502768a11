// The AICPU of one chip (sim/aicpu/aicpu.h) alone, without a SimSystem: the
// orchestrator and scheduler agents with two AIC and four AIV cores of their
// own, on the module harness's stub memory system, and a stub run observer
// in place of the system (it records the latched error and stops the run).
// Admission of sync-start and wave launches, the task window and scopes,
// control costs, dependences, core shapes, the orchestrator's log and
// errors. Simulated time only.
#include "sim/aicpu/aicpu.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"
#include "runtime/device/device_api.h"
#include "sim/aic/aic_core.h"
#include "sim/aiv/aiv_core.h"
#include "sim/common/sc_time.h"
#include "sim/common/time.h"
#include "sim/testing/module_harness.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::ModuleRun;
using testing::RunModule;
using testing::StubMemory;

constexpr int kCores = 4;     // AIV
constexpr int kAicCores = 2;

// The system's side of the AICPU: the first fatal error, then stop.
class StubRunObserver : public RunObserver {
 public:
  void OnFatal(int, const rt::ErrorLatch& latch) override {
    if (code == 0) {
      code = latch.code();
      text = latch.Text();
    }
    sc_core::sc_stop();
  }
  void CountWait() override {}
  int code = 0;
  std::string text;
};

void NopKernel(int64_t*) {}

// Runs the dispatches `build` makes (it may allocate in the stub's GM) on an
// AICPU with kAicCores AIC and kCores AIV cores of a 1-chip a2a3 (`tweak`
// may change the platform); `after` reads results. Values: error_code,
// blocks (run by every core), aic_blocks, tasks,
// task<i>_{ready,start,end}_ps, task<i>_blocks, log_lines; texts: error,
// log<i>.
struct Dispatch {
  rt::ChipCallable callable;
  rt::ChipArgs args;
};

using Build = std::function<std::vector<Dispatch>(StubMemory&)>;
using After = std::function<void(StubMemory&, ModuleRun&)>;

ModuleRun RunBuilt(const Build& build,
                   const std::function<void(platforms::Platform&)>& tweak = nullptr,
                   const After& after = nullptr) {
  return RunModule([&](ModuleRun& r) {
    platforms::Platform p = *platforms::LoadPlatform("a2a3");
    p.set_aiv_cores(kCores);
    p.set_aic_cores(kAicCores);
    if (tweak) tweak(p);
    StubMemory mem(p, 1);
    // As sim/chip builds them: AIC ids first, then AIV.
    std::vector<std::unique_ptr<AicCore>> aic_cores;
    std::vector<std::unique_ptr<AivCore>> aiv_cores;
    std::vector<ChipCore*> cores, aic, aiv;
    for (int i = 0; i < kAicCores; ++i) {
      aic_cores.push_back(
          std::make_unique<AicCore>(absl::StrCat("aic", i).c_str(), 0, i, p, &mem, nullptr));
      aic.push_back(aic_cores.back().get());
    }
    for (int i = 0; i < kCores; ++i) {
      aiv_cores.push_back(std::make_unique<AivCore>(absl::StrCat("aiv", i).c_str(), 0,
                                                    kAicCores + i, false, i % 2, p, &mem, nullptr));
      aiv.push_back(aiv_cores.back().get());
    }
    cores = aic;
    cores.insert(cores.end(), aiv.begin(), aiv.end());
    StubRunObserver observer;
    Aicpu aicpu("aicpu", 0, p, &mem.GmOf(0), aiv, aic, &observer, &mem.trace());
    for (ChipCore* c : cores) c->set_observer(&aicpu);
    for (const Dispatch& d : build(mem)) aicpu.Enqueue(DispatchEntry{d.callable, d.args, nullptr});
    sc_core::sc_start(PsTime(NsToPs(1e9)));  // 1 s of simulated time at most
    r.values["error_code"] = observer.code;
    r.texts["error"] = observer.text;
    r.values["idle"] = aicpu.Idle();
    const std::vector<std::string> log = aicpu.LogLines();
    r.values["log_lines"] = static_cast<int64_t>(log.size());
    for (size_t i = 0; i < log.size(); ++i) r.texts[absl::StrCat("log", i)] = log[i];
    int64_t blocks = 0, aic_blocks = 0;
    for (const ChipCore* c : cores) {
      CoreStat s;
      c->FillStats(&s);
      blocks += s.blocks();
      if (c->is_aic()) aic_blocks += s.blocks();
    }
    r.values["blocks"] = blocks;
    r.values["aic_blocks"] = aic_blocks;
    r.values["tasks"] = static_cast<int64_t>(aicpu.task_stats().size());
    for (size_t i = 0; i < aicpu.task_stats().size(); ++i) {
      const TaskStat& t = aicpu.task_stats()[i];
      r.values[absl::StrCat("task", i, "_ready_ps")] = t.ready_ps();
      r.values[absl::StrCat("task", i, "_start_ps")] = t.start_ps();
      r.values[absl::StrCat("task", i, "_end_ps")] = t.end_ps();
      r.values[absl::StrCat("task", i, "_blocks")] = t.blocks();
    }
    if (after) after(mem, r);
  });
}

ModuleRun RunDispatches(const std::vector<Dispatch>& dispatches,
                        const std::function<void(platforms::Platform&)>& tweak = nullptr) {
  return RunBuilt([&](StubMemory&) { return dispatches; }, tweak);
}

ModuleRun RunCallable(const rt::ChipCallable& callable,
                      const std::function<void(platforms::Platform&)>& tweak = nullptr) {
  return RunDispatches({{callable, rt::ChipArgs{}}}, tweak);
}

rt::ChipCallable OneTask(int core_num, bool sync_start) {
  rt::ChipCallable c;
  c.name = "one";
  c.kernels = {&NopKernel};
  c.kernel_names = {"nop"};
  c.entry = [core_num, sync_start](rt::Orchestrator& orch, const rt::ChipArgs&) {
    rt::TaskArgs args;
    args.launch_spec.set_core_num(core_num);
    args.launch_spec.set_require_sync_start(sync_start);
    orch.submit_aiv_task(0, args);
  };
  return c;
}

// ----------------------------------------------------------- admission

TEST(AicpuTest, AnExactlyFullSyncStartRunsEveryBlockAtOnce) {
  ModuleRun r = RunCallable(OneTask(kCores, /*sync_start=*/true));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0) << r.text("error");
  EXPECT_EQ(r.value("tasks"), 1);
  EXPECT_EQ(r.value("task0_blocks"), kCores);
  EXPECT_EQ(r.value("blocks"), kCores);
  EXPECT_EQ(r.value("idle"), 1);
}

TEST(AicpuTest, ASyncStartOneOverTheCoresIsCodeSevenBeforeAnyBlockRuns) {
  ModuleRun r = RunCallable(OneTask(kCores + 1, /*sync_start=*/true));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorRequireSyncStartInvalid);
  EXPECT_THAT(r.text("error"), HasSubstr("require_sync_start block_num=5 > limit=4"));
  EXPECT_EQ(r.value("blocks"), 0);
}

TEST(AicpuTest, AWaveLaunchAboveTheCoresRunsInWaves) {
  ModuleRun r = RunCallable(OneTask(10, /*sync_start=*/false));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0) << r.text("error");
  EXPECT_EQ(r.value("blocks"), 10);
  EXPECT_EQ(r.value("task0_blocks"), 10);
}

// ------------------------------------------------- task window, scopes

rt::ChipCallable TenTasks(bool scope_per_task) {
  rt::ChipCallable c;
  c.name = "many";
  c.kernels = {&NopKernel};
  c.kernel_names = {"nop"};
  // As simpler runs it, the entry is inside an implicit top-level scope:
  // ten tasks pass four slots only with a scope per task, which ends before
  // the next submit.
  c.entry = [scope_per_task](rt::Orchestrator& orch, const rt::ChipArgs&) {
    for (int i = 0; i < 10; ++i) {
      if (scope_per_task) orch.scope_begin();
      orch.submit_aiv_task(0, rt::TaskArgs{});
      if (scope_per_task) orch.scope_end();
    }
  };
  return c;
}

void FourSlots(platforms::Platform& p) { p.mutable_aicpu()->set_task_window(4); }

TEST(AicpuTest, BackPressureLetsTenTasksThroughFourSlots) {
  ModuleRun r = RunCallable(TenTasks(true), &FourSlots);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0) << r.text("error");
  EXPECT_EQ(r.value("tasks"), 10);
  // The fifth task could only be submitted after the first completed.
  EXPECT_GE(r.value("task4_ready_ps"), r.value("task0_end_ps"));
}

// Without scopes of its own every task stays in the implicit top-level scope.
TEST(AicpuTest, AWindowFullOfAnOpenScopeIsCodeOne) {
  ModuleRun r = RunCallable(TenTasks(false), &FourSlots);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorScopeDeadlock);
  EXPECT_THAT(r.text("error"), HasSubstr("task ring 0 of 4 (scope depth 0) is full, 4 slots"));
}

// The measured control costs (platforms/a2a3.textproto aicpu, simpler
// docs/hardware/mmio-performance.md and the cold-start investigation): a
// ready task's block starts when its dispatch is visible to the core plus the
// head of a core's first task (core 0: the low end of the measured range); a
// finished block frees its task's slot only once the scheduler saw FIN
// through COND and read it.
TEST(AicpuTest, ATaskPaysTheDispatchAndItsSlotTheCompletion) {
  ModuleRun r = RunDispatches({{TenTasks(true), {}}}, [](platforms::Platform& p) {
    p.mutable_aicpu()->set_task_window(1);
  });
  ASSERT_EQ(r.failure, "");
  ASSERT_EQ(r.value("error_code"), 0) << r.text("error");
  const platforms::Platform p = *platforms::LoadPlatform("a2a3");
  EXPECT_EQ(r.value("task0_start_ps") - r.value("task0_ready_ps"),
            NsToPs(p.aicpu().dispatch_ns() + p.aicpu().first_task_min_ns()));
  EXPECT_GE(r.value("task1_ready_ps") - r.value("task0_end_ps"),
            NsToPs(p.aicpu().completion_ns() + p.aicpu().reg_read_ns()));
}

// ------------------------------------- the orchestrator: log, args, errors

// Logs "<tag> n=<args>" and "<tag> again".
rt::ChipCallable Logger(const std::string& tag, int expected_arg_count = 0) {
  rt::ChipCallable c;
  c.name = "logger";
  c.expected_arg_count = expected_arg_count;
  c.entry = [tag](rt::Orchestrator& o, const rt::ChipArgs& a) {
    o.log_timing(absl::StrCat(tag, " n=", a.tensors.size() + a.scalars.size()));
    o.log_timing(absl::StrCat(tag, " again"));
  };
  return c;
}

TEST(AicpuTest, LogLinesAreTaggedByChipAndRunInDispatchOrder) {
  ModuleRun r = RunDispatches({{Logger("a"), rt::ChipArgs{{}, {1}}}, {Logger("b"), {}}});
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0) << r.text("error");
  ASSERT_EQ(r.value("log_lines"), 4);
  EXPECT_EQ(r.text("log0"), "c0 run0: a n=1");
  EXPECT_EQ(r.text("log1"), "c0 run0: a again");
  EXPECT_EQ(r.text("log2"), "c0 run1: b n=0");
  EXPECT_EQ(r.text("log3"), "c0 run1: b again");
}

// The message itself is runtime/core's (orchestrator_core_test); the AICPU
// checks the count before it runs the entry.
TEST(AicpuTest, FewerArgsThanExpectedFailBeforeTheEntryRuns) {
  ModuleRun r = RunDispatches({{Logger("x", 3), rt::ChipArgs{{}, {1, 2}}}});
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorInvalidArgs);
  EXPECT_THAT(r.text("error"), HasSubstr("expects expected_arg_count=3 args, dispatch has 2"));
  EXPECT_EQ(r.value("log_lines"), 0);
}

TEST(AicpuTest, AReportedFatalIsLatchedAndLaterLinesAndTasksAreDropped) {
  rt::ChipCallable c;
  c.name = "fatal";
  c.kernels = {&NopKernel};
  c.kernel_names = {"nop"};
  c.entry = [](rt::Orchestrator& o, const rt::ChipArgs&) {
    o.log_timing("before");
    o.report_fatal(rt::kErrorExplicitOrchFatal, "user stop");
    o.report_fatal(rt::kErrorInvalidArgs, "ignored");
    o.log_timing("after");
    o.submit_aiv_task(0, rt::TaskArgs{});  // a no-op once fatal
  };
  ModuleRun r = RunCallable(c);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorExplicitOrchFatal);
  EXPECT_THAT(r.text("error"), HasSubstr("code=9 EXPLICIT_ORCH_FATAL: user stop"));
  EXPECT_EQ(r.value("log_lines"), 1);
  EXPECT_EQ(r.text("log0"), "c0 run0: before");
  EXPECT_EQ(r.value("blocks"), 0);
}

TEST(AicpuTest, AThrowingOrchestrationIsLatchedNotACrash) {
  rt::ChipCallable c;
  c.name = "throws";
  c.entry = [](rt::Orchestrator&, const rt::ChipArgs&) { throw std::runtime_error("x"); };
  ModuleRun r = RunCallable(c);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorExplicitOrchFatal);
  EXPECT_THAT(r.text("error"), HasSubstr("chip orchestration throws threw"));
}

// ------------------------------------------- dependences, core shapes

// t0 = in, t1 = out (int32 x 8): out = in + s0, after s1 PIPE_V barriers.
void AddKernel(int64_t* args) {
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TLOAD(t, GlobalTensor<int32_t>{TensorArg(args, 0)->data<int32_t>(), 8});
  TADDS(t, t, static_cast<int32_t>(args[2]));
  for (int64_t i = 0; i < args[3]; ++i) pipe_barrier(PIPE_V);
  TSTORE(GlobalTensor<int32_t>{TensorArg(args, 1)->data<int32_t>(), 8}, t);
}

rt::Tensor Buffer(StubMemory& mem, uint64_t bytes, const char* label, uint32_t elem_bytes = 1) {
  return rt::Tensor{*mem.GmOf(0).Alloc(bytes, label), 0, bytes, 0, elem_bytes};
}

// t0: y = x + 1 (slow); t1: z = y + 10 (RAW on y); t2: x = z + 100 writes
// x, which t0 reads (WAR, ordered only by an explicit dependency); then the
// orchestration reads z[0] and writes z[1] = 2 * z[0]. Values z0, z1.
ModuleRun Pipeline(bool explicit_war_dep) {
  auto z_addr = std::make_shared<uint64_t>(0);
  return RunBuilt(
      [=](StubMemory& mem) {
        const rt::Tensor tx = Buffer(mem, 32, "x"), ty = Buffer(mem, 32, "y");
        const rt::Tensor tz = Buffer(mem, 32, "z", 4);
        *z_addr = tz.base;
        rt::ChipCallable c;
        c.name = "pipeline";
        c.kernels = {&AddKernel};
        c.kernel_names = {"add"};
        c.entry = [=](rt::Orchestrator& o, const rt::ChipArgs&) {
          rt::TaskArgs a0;
          a0.add_input(tx);
          a0.add_output(ty);
          a0.add_scalar(1);
          a0.add_scalar(2000);
          const rt::TaskId t0 = o.submit_aiv_task(0, a0).task;
          rt::TaskArgs a1;
          a1.add_input(ty);
          a1.add_output(tz);
          a1.add_scalar(10);
          a1.add_scalar(0);
          o.submit_aiv_task(0, a1);
          rt::TaskArgs a2;
          a2.add_no_dep(tz);  // reads z without ordering: only the WAR matters
          a2.add_output(tx);
          a2.add_scalar(100);
          a2.add_scalar(0);
          if (explicit_war_dep) a2.add_dep(t0);
          o.submit_aiv_task(0, a2);
          const int32_t z0 = o.get_tensor_data<int32_t>(tz, 0);
          o.set_tensor_data<int32_t>(tz, 1, z0 * 2);
        };
        return std::vector<Dispatch>{{c, rt::ChipArgs{}}};
      },
      nullptr,
      [=](StubMemory&, ModuleRun& r) {
        const int32_t* z = reinterpret_cast<const int32_t*>(*z_addr);
        r.values["z0"] = z[0];
        r.values["z1"] = z[1];
      });
}

TEST(AicpuTest, RawOrdersTheConsumerAndWarNeedsAnExplicitDep) {
  ModuleRun no_dep = Pipeline(false);
  ModuleRun dep = Pipeline(true);
  ASSERT_EQ(no_dep.failure, "");
  ASSERT_EQ(dep.failure, "");
  ASSERT_EQ(no_dep.value("error_code"), 0) << no_dep.text("error");
  ASSERT_EQ(dep.value("error_code"), 0) << dep.text("error");
  ASSERT_EQ(no_dep.value("tasks"), 3);
  EXPECT_GE(no_dep.value("task1_start_ps"), no_dep.value("task0_end_ps"));  // RAW on y
  EXPECT_LT(no_dep.value("task2_start_ps"), no_dep.value("task0_end_ps"));  // WAR: overlaps
  EXPECT_GE(dep.value("task2_start_ps"), dep.value("task0_end_ps"));        // explicit dep
  // The consumer becomes ready when FIN is seen through COND (600 ns), then
  // pays the COND read (100 ns), dispatch (140 ns) and the warm head of the
  // core t0 ran on (400 ns).
  EXPECT_EQ(dep.value("task1_ready_ps") - dep.value("task0_end_ps"), 600000);
  EXPECT_EQ(dep.value("task1_start_ps") - dep.value("task0_end_ps"),
            600000 + 100000 + 140000 + 400000);
  // z = (x + 1) + 10 with x = 0, read by the orchestration after its producer.
  EXPECT_EQ(dep.value("z0"), 11);
  EXPECT_EQ(dep.value("z1"), 22);
}

TEST(AicpuTest, AicTasksRunOnAicCoresAndAivTasksOnAivCores) {
  rt::ChipCallable c;
  c.name = "shapes";
  c.kernels = {&NopKernel};
  c.kernel_names = {"nop"};
  c.entry = [](rt::Orchestrator& o, const rt::ChipArgs&) {
    rt::TaskArgs aic;
    aic.launch_spec.set_core_num(kAicCores);
    o.submit_aic_task(0, aic);
    rt::TaskArgs aiv;
    aiv.launch_spec.set_core_num(3);
    o.submit_aiv_task(0, aiv);
  };
  ModuleRun r = RunCallable(c);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), 0) << r.text("error");
  EXPECT_EQ(r.value("aic_blocks"), kAicCores);
  EXPECT_EQ(r.value("blocks"), kAicCores + 3);
}

}  // namespace
}  // namespace pto::sim
