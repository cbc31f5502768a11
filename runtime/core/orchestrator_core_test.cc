#include "runtime/core/orchestrator_core.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {
namespace {

// A backend without time: tasks complete only when the test says so.
class FakeBackend : public ChipBackend {
 public:
  int device_id() const override { return 0; }
  int aiv_count() const override { return 48; }
  int aic_count() const override { return 24; }
  int kernel_count() const override { return 2; }
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override {
    uint64_t a = next_;
    next_ += (bytes + 63) / 64 * 64;
    return a;
  }
  void ChargeSubmit() override {}
  void OnReady(Task* t) override { ready.push_back(t->id); }
  bool WaitForCompletion(double) override {
    if (pending_completions.empty()) return false;
    TaskId id = pending_completions.front();
    pending_completions.erase(pending_completions.begin());
    core->OnTaskComplete(id);
    return true;
  }
  double tensor_wait_timeout_ns() const override { return 1e9; }
  double NowNs() const override { return 0; }
  void ReadMemory(uint64_t, void* out, uint64_t n) override {
    std::memset(out, 0x5A, n);
  }
  void WriteMemory(uint64_t, const void*, uint64_t) override {}
  void OnFatal(const ErrorLatch& l) override { fatal_text = l.Text(); }

  OrchestratorCore* core = nullptr;
  std::vector<TaskId> ready;
  std::vector<TaskId> pending_completions;
  std::string fatal_text;

 private:
  uint64_t next_ = 0x100000;
};

class OrchestratorCoreTest : public ::testing::Test {
 protected:
  explicit OrchestratorCoreTest(uint32_t window = 16, int rings = kTaskRings)
      : core_(&backend_, window, rings) {
    backend_.core = &core_;
  }
  Tensor Buf(uint64_t base, uint64_t bytes = 256) {
    return Tensor{base, 0, bytes, 0, 4};
  }
  // A task that writes (reads) the buffer at `base`.
  TaskId Writes(uint64_t base) {
    TaskArgs w;
    w.add_output(Buf(base));
    return core_.submit_aiv_task(0, w).task;
  }
  TaskId Reads(uint64_t base) {
    TaskArgs r;
    r.add_input(Buf(base));
    return core_.submit_aiv_task(0, r).task;
  }
  FakeBackend backend_;
  OrchestratorCore core_;
};

TEST_F(OrchestratorCoreTest, RawEdgeWaitsForTheWriter) {
  TaskArgs w;
  w.add_output(Buf(0x1000));
  TaskId a = core_.submit_aiv_task(0, w).task;
  TaskArgs r;
  r.add_input(Buf(0x1000));
  TaskId b = core_.submit_aiv_task(0, r).task;
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a}));
  EXPECT_EQ(core_.task(b)->fanin, std::vector<TaskId>({a}));
  core_.OnTaskComplete(a);
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a, b}));
}

TEST_F(OrchestratorCoreTest, WawEdgeOrdersTwoWriters) {
  TaskArgs w1;
  w1.add_output(Buf(0x1000));
  TaskId a = core_.submit_aiv_task(0, w1).task;
  TaskArgs w2;
  w2.add_output(Buf(0x1000));
  TaskId b = core_.submit_aiv_task(0, w2).task;
  EXPECT_EQ(core_.task(b)->fanin, std::vector<TaskId>({a}));
}

TEST_F(OrchestratorCoreTest, WarIsNotTrackedWithoutAnExplicitDependency) {
  TaskArgs r;
  r.add_input(Buf(0x1000));
  TaskId reader = core_.submit_aiv_task(0, r).task;
  TaskArgs w;
  w.add_output(Buf(0x1000));
  TaskId writer = core_.submit_aiv_task(0, w).task;
  EXPECT_TRUE(core_.task(writer)->fanin.empty());  // runs alongside the reader
  TaskArgs w2;
  w2.add_inout(Buf(0x2000));
  TaskId r2 = core_.submit_aiv_task(0, r).task;
  TaskArgs w3;
  w3.add_output(Buf(0x1000));
  w3.add_dep(r2);
  TaskId writer2 = core_.submit_aiv_task(0, w3).task;
  EXPECT_EQ(core_.task(writer2)->fanin, std::vector<TaskId>({writer, r2}));
  (void)reader;
}

// In a manual scope a task waits for its explicit deps only: the reader
// of a tensor written in the scope runs at once unless it names the writer,
// and the writes still order the tasks after the scope.
TEST_F(OrchestratorCoreTest, ManualScopeTasksWaitForTheirDepsOnly) {
  core_.manual_scope_begin();
  TaskArgs w;
  w.add_output(Buf(0x1000));
  TaskId writer = core_.submit_aiv_task(0, w).task;
  TaskArgs r;
  r.add_input(Buf(0x1000));
  TaskId free_reader = core_.submit_aiv_task(0, r).task;
  TaskArgs rd;
  rd.add_input(Buf(0x1000));
  rd.add_dep(writer);
  TaskId reader = core_.submit_aiv_task(0, rd).task;
  core_.scope_end();
  TaskArgs after;
  after.add_input(Buf(0x1000));
  TaskId later = core_.submit_aiv_task(0, after).task;
  EXPECT_TRUE(core_.task(free_reader)->fanin.empty());
  EXPECT_EQ(core_.task(reader)->fanin, std::vector<TaskId>({writer}));
  EXPECT_EQ(core_.task(later)->fanin, std::vector<TaskId>({writer}));
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({writer, free_reader}));
  EXPECT_FALSE(core_.is_fatal());
}

TEST_F(OrchestratorCoreTest, NoScopeInsideAManualScope) {
  core_.manual_scope_begin();
  core_.scope_begin();
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("scope_begin inside a manual scope"), std::string::npos)
      << backend_.fatal_text;
}

TEST_F(OrchestratorCoreTest, NoManualScopeInsideAManualScope) {
  core_.manual_scope_begin();
  core_.manual_scope_begin();
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("manual_scope_begin inside a manual scope"),
            std::string::npos)
      << backend_.fatal_text;
}

// A dummy task (a phase fence) is ready when its deps completed, runs no
// kernel, and orders its consumers after all of its producers.
TEST_F(OrchestratorCoreTest, DummyTaskFencesItsDeps) {
  core_.manual_scope_begin();
  TaskArgs w;
  w.add_output(Buf(0x1000));
  TaskId a = core_.submit_aiv_task(0, w).task;
  TaskId b = core_.submit_aiv_task(1, w).task;
  TaskArgs fence_args;
  fence_args.add_dep(a);
  fence_args.add_dep(b);
  TaskId fence = core_.submit_dummy_task(fence_args).task;
  TaskArgs c;
  c.add_input(Buf(0x1000));
  c.add_dep(fence);
  TaskId consumer = core_.submit_aiv_task(0, c).task;
  EXPECT_TRUE(core_.task(fence)->dummy);
  EXPECT_EQ(core_.task(fence)->core_num, 0);
  EXPECT_EQ(core_.task(fence)->fanin, std::vector<TaskId>({a, b}));
  EXPECT_EQ(core_.task(consumer)->fanin, std::vector<TaskId>({fence}));
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a, b}));
  core_.OnTaskComplete(a);
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a, b}));
  core_.OnTaskComplete(b);
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a, b, fence}));
  core_.OnTaskComplete(fence);
  EXPECT_EQ(backend_.ready, std::vector<TaskId>({a, b, fence, consumer}));
  // Without deps it is ready at once.
  TaskId lone = core_.submit_dummy_task(TaskArgs()).task;
  EXPECT_EQ(backend_.ready.back(), lone);
  core_.scope_end();
  EXPECT_FALSE(core_.is_fatal());
}

TEST_F(OrchestratorCoreTest, DummyTaskTakesDependenciesOnly) {
  TaskArgs bad;
  bad.add_input(Buf(0x1000));
  EXPECT_FALSE(core_.submit_dummy_task(bad).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("a dummy task takes dependencies only, got 1 tensors"),
            std::string::npos)
      << backend_.fatal_text;
}

TEST_F(OrchestratorCoreTest, NoDepSkipsTheTensorMap) {
  TaskArgs w;
  w.add_output(Buf(0x1000));
  core_.submit_aiv_task(0, w);
  TaskArgs n;
  n.add_no_dep(Buf(0x1000));
  TaskId b = core_.submit_aiv_task(0, n).task;
  EXPECT_TRUE(core_.task(b)->fanin.empty());
}

TEST_F(OrchestratorCoreTest, RuntimeAllocatedOutputsAreDistinct) {
  TaskArgs a;
  a.add_output(TensorCreateInfo{1000, 4});
  a.add_output(TensorCreateInfo{64, 4});
  TaskOutputs out = core_.submit_aiv_task(0, a);
  ASSERT_EQ(out.outputs.size(), 2u);
  EXPECT_EQ(out.outputs[0].bytes, 1000u);
  EXPECT_GE(out.outputs[1].base, out.outputs[0].base + 1000);
  TaskArgs r;
  r.add_input(out.outputs[1]);
  EXPECT_EQ(core_.task(core_.submit_aiv_task(0, r).task)->fanin,
            std::vector<TaskId>({out.task}));
}

TEST_F(OrchestratorCoreTest, SyncStartAdmissionIsExactAndLatchesSeven) {
  TaskArgs full;
  full.launch_spec.set_core_num(48);
  full.launch_spec.set_require_sync_start(true);
  EXPECT_TRUE(core_.submit_aiv_task(0, full).ok());
  TaskArgs over = full;
  over.launch_spec.set_core_num(49);
  EXPECT_FALSE(core_.submit_aiv_task(0, over).ok());
  EXPECT_EQ(core_.latch().code(), kErrorRequireSyncStartInvalid);
  EXPECT_NE(backend_.fatal_text.find("block_num=49 > limit=48"),
            std::string::npos);
  // Every later call is a no-op.
  EXPECT_FALSE(core_.submit_aiv_task(0, TaskArgs{}).ok());
  EXPECT_EQ(core_.task_count(), 1u);
}

TEST_F(OrchestratorCoreTest, AicAdmissionUsesTheAicCount) {
  TaskArgs over;
  over.launch_spec.set_core_num(25);
  over.launch_spec.set_require_sync_start(true);
  EXPECT_FALSE(core_.submit_aic_task(0, over).ok());
  EXPECT_NE(backend_.fatal_text.find("limit=24"), std::string::npos);
}

TEST_F(OrchestratorCoreTest, AMixTaskRecordsItsSlotKernels) {
  ASSERT_TRUE(core_.submit_mix_task(MixKernels{1, 0, -1}, TaskArgs{}).ok());
  const Task& t = *core_.task(0);
  EXPECT_EQ(t.shape, CoreShape::kMix);
  EXPECT_EQ(t.func_id, 1);
  EXPECT_EQ(t.mix.aiv0, 0);
  EXPECT_EQ(t.mix.aiv1, -1);
}

TEST_F(OrchestratorCoreTest, AMixTaskNeedsItsAicAndAnAivLane) {
  EXPECT_FALSE(core_.submit_mix_task(MixKernels{0, -1, -1}, TaskArgs{}).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("MIX task kernels (aic 0, aiv0 -1, aiv1 -1): the AIC and at "
                                     "least one AIV lane must be kernels of the callable (2 "
                                     "kernels)"),
            std::string::npos)
      << backend_.fatal_text;
}

TEST_F(OrchestratorCoreTest, WaveLaunchAboveTheCoreCountIsAccepted) {
  TaskArgs waves;
  waves.launch_spec.set_core_num(1000);
  EXPECT_TRUE(core_.submit_aiv_task(0, waves).ok());
}

TEST_F(OrchestratorCoreTest, ArgumentErrorsBecomeInvalidArgs) {
  TaskArgs bad;
  for (int i = 0; i < 17; ++i) bad.add_scalar(i);
  EXPECT_FALSE(core_.submit_aiv_task(0, bad).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("more than 16 scalar"), std::string::npos);
}

TEST_F(OrchestratorCoreTest, AbsurdCoreNumIsInvalidArgs) {
  TaskArgs a;
  a.launch_spec.set_core_num(1 << 30);
  EXPECT_FALSE(core_.submit_aiv_task(0, a).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("core_num=1073741824 outside [1, 65536]"),
            std::string::npos);
}

TEST_F(OrchestratorCoreTest, UnknownKernelIsInvalidArgs) {
  EXPECT_FALSE(core_.submit_aiv_task(7, TaskArgs{}).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
}

TEST_F(OrchestratorCoreTest, UnshapedTensorsReachTheKernelAsOneD) {
  TaskArgs a;
  a.add_input(Buf(0x1000, 256));
  const TaskId id = core_.submit_aiv_task(0, a).task;
  const TensorDesc& d = core_.task(id)->descs[0];
  EXPECT_EQ(d.ndims, 1u);
  EXPECT_EQ(d.shape[0], 64u);  // 256 B / 4 B
  EXPECT_EQ(d.elem_bytes, 4u);
}

TEST_F(OrchestratorCoreTest, ShapesReachTheKernelDescriptor) {
  TaskArgs a;
  a.add_input(Buf(0x1000, 240).WithShape({2, 3, 10}));
  a.add_inout(Buf(0x2000, 4 * 2 * 3 * 5 * 7 * 11).WithShape({2, 3, 5, 7, 11}));
  TensorCreateInfo out{64, 4};
  out.ndims = 2;
  out.shape[0] = 4;
  out.shape[1] = 4;
  a.add_output(out);
  const TaskOutputs res = core_.submit_aiv_task(0, a);
  ASSERT_TRUE(res.ok()) << backend_.fatal_text;
  const Task& t = *core_.task(res.task);
  EXPECT_EQ(t.descs[0].ndims, 3u);
  EXPECT_EQ(std::vector<uint64_t>(t.descs[0].shape, t.descs[0].shape + 3),
            std::vector<uint64_t>({2, 3, 10}));
  EXPECT_EQ(t.descs[1].ndims, 5u);
  EXPECT_EQ(std::vector<uint64_t>(t.descs[1].shape, t.descs[1].shape + 5),
            std::vector<uint64_t>({2, 3, 5, 7, 11}));
  // The runtime-allocated output carries its shape to the kernel and back.
  EXPECT_EQ(t.descs[2].ndims, 2u);
  EXPECT_EQ(t.descs[2].shape[0], 4u);
  EXPECT_EQ(t.descs[2].shape[1], 4u);
  ASSERT_EQ(res.outputs.size(), 1u);
  EXPECT_EQ(res.outputs[0].ndims, 2u);
  EXPECT_EQ(res.outputs[0].shape[1], 4u);
}

TEST(TensorShapeTest, ViewsKeepTheInnerDimsOrSetAShape) {
  const Tensor t = Tensor{0x1000, 0, 8 * 16 * 4, 0, 4}.WithShape({8, 16});
  const Tensor rows = t.View(2 * 64, 3 * 64);  // rows [2, 5)
  EXPECT_EQ(rows.offset, 128u);
  EXPECT_EQ(rows.ndims, 2u);
  EXPECT_EQ(rows.shape[0], 3u);
  EXPECT_EQ(rows.shape[1], 16u);
  EXPECT_EQ(ShapeError(rows), "");
  const Tensor flat = t.View(64, 64, {4, 4});
  EXPECT_EQ(flat.ndims, 2u);
  EXPECT_EQ(flat.shape[0], 4u);
  EXPECT_EQ(flat.shape[1], 4u);
  EXPECT_EQ(ShapeError(flat), "");
  // An unshaped tensor's views stay unshaped (1-D at submit).
  const Tensor unshaped{0x1000, 0, 64, 0, 4};
  EXPECT_EQ(unshaped.View(0, 32).ndims, 0u);
  // Half a row is not whole rows: the view fails the check.
  EXPECT_NE(ShapeError(t.View(0, 32)), "");
}

TEST(TensorShapeTest, ShapeErrorExplainsTheMismatch) {
  const Tensor t{0x1000, 0, 64, 0, 4};
  EXPECT_EQ(ShapeError(t), "");
  EXPECT_EQ(ShapeError(t.WithShape({4, 4})), "");
  EXPECT_EQ(ShapeError(t.WithShape({4, 5})),
            "shape [4, 5] x 4 B != view of 64 bytes");
  EXPECT_EQ(ShapeError(t.WithShape({1, 1, 1, 1, 1, 16})), "ndims=6 > 5");
  // 2^62 * 2^2 * 4 B wraps to 0 in 64 bits; it must still be rejected.
  const Tensor empty{0x1000, 0, 0, 0, 4};
  EXPECT_NE(ShapeError(empty.WithShape({uint64_t{1} << 62, 4})), "");
  EXPECT_EQ(ShapeError(empty.WithShape({0, 16})), "");
}

TEST_F(OrchestratorCoreTest, ShapeNotCoveringTheBytesIsInvalidArgs) {
  TaskArgs a;
  a.add_input(Buf(0x1000, 256));
  a.add_input(Buf(0x2000, 256).WithShape({8, 9}));
  EXPECT_FALSE(core_.submit_aiv_task(0, a).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find(
                "tensor argument 1: shape [8, 9] x 4 B != view of 256 bytes"),
            std::string::npos)
      << backend_.fatal_text;
  EXPECT_EQ(core_.task_count(), 0u);
}

TEST_F(OrchestratorCoreTest, BadOutputShapeIsInvalidArgs) {
  TaskArgs a;
  TensorCreateInfo out{64, 4};
  out.ndims = 6;
  a.add_output(out);
  EXPECT_FALSE(core_.submit_aiv_task(0, a).ok());
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find("tensor argument 0: ndims=6 > 5"),
            std::string::npos)
      << backend_.fatal_text;
}

TEST_F(OrchestratorCoreTest, ReportFatalFirstWriterWins) {
  core_.report_fatal(kErrorExplicitOrchFatal, "user says stop");
  core_.report_fatal(kErrorInvalidArgs, "ignored");
  EXPECT_EQ(core_.latch().code(), 9);
  EXPECT_EQ(core_.latch().later().size(), 1u);
}

class SmallWindowTest : public OrchestratorCoreTest {
 protected:
  SmallWindowTest() : OrchestratorCoreTest(4) {}
};

TEST_F(SmallWindowTest, FullWindowInsideAnOpenScopeIsCodeOne) {
  core_.scope_begin();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(core_.submit_aiv_task(0, TaskArgs{}).ok());
  }
  EXPECT_FALSE(core_.submit_aiv_task(0, TaskArgs{}).ok());
  EXPECT_EQ(core_.latch().code(), kErrorScopeDeadlock);
  EXPECT_EQ(core_.latch().message(),
            "task ring 0 of 4 (scope depth 0) is full, 4 slots: the orchestrator waits "
            "to submit a task at scope depth 0 for the ring's oldest task 0 (func 0, scope depth "
            "0, ready, waiting for a core), which keeps its slot until its scope ends, and that "
            "scope is open: end scopes sooner or raise aicpu.task_window");
}

// A completed task whose consumer has not run holds its slot, and the ring's
// later slots behind it: the report names the consumer.
TEST_F(SmallWindowTest, FullRingReportsWhatItsOldestTaskWaitsOn) {
  TaskId a = Writes(0x1000);
  Reads(0x1000);
  core_.submit_aiv_task(0, TaskArgs{});
  core_.submit_aiv_task(0, TaskArgs{});
  core_.OnTaskComplete(a);
  core_.OnTaskComplete(2);  // a later task completes: its slot stays behind task 0
  EXPECT_EQ(core_.live_tasks(), 4u);
  EXPECT_FALSE(core_.submit_aiv_task(0, TaskArgs{}).ok());
  EXPECT_EQ(core_.latch().code(), kErrorFlowControlDeadlock);
  EXPECT_NE(backend_.fatal_text.find("the ring's oldest task 0 (func 0, scope depth 0, "
                                     "completed, its consumer task(s) 1 not yet), and no task "
                                     "completed before the timeout"),
            std::string::npos)
      << backend_.fatal_text;
}

TEST(TaskRingsTest, ScopeDepthsAtOrBeyondTheLastRingShareIt) {
  TaskRings four(kTaskRings, 8);
  EXPECT_EQ(four.RingOf(0), 0);
  EXPECT_EQ(four.RingOf(2), 2);
  EXPECT_EQ(four.RingOf(3), 3);
  EXPECT_EQ(four.RingOf(7), 3);
  TaskRings one(1, 8);
  EXPECT_EQ(one.RingOf(5), 0);
}

TEST(TaskRingsTest, SlotsAreFreedInSubmissionOrderOnly) {
  TaskRings rings(2, 2);
  rings.Push(1, 10);
  rings.Push(1, 11);
  rings.Push(0, 12);
  EXPECT_TRUE(rings.Full(1));
  rings.Reclaim([](TaskId id) { return id != 10; });  // 11 and 12 are done
  EXPECT_EQ(rings.live(1), 2u);                       // 11 waits behind 10
  EXPECT_EQ(rings.live(0), 0u);
  rings.Reclaim([](TaskId) { return true; });
  EXPECT_EQ(rings.live(), 0u);
}

// A parent scope keeps a task live while a child scope turns over many
// short-lived tasks. With one window shared by every depth (simpler's
// single-ring runtime), the parent's task heads the ring and holds every slot
// behind it: the child starves at the fourth task. With a ring per depth the
// child reuses its ring's slots and all eight run.
class ScopeRingsTest : public OrchestratorCoreTest, public ::testing::WithParamInterface<int> {
 protected:
  ScopeRingsTest() : OrchestratorCoreTest(4, GetParam()) {}
  int ChildTasksSubmitted() {
    core_.scope_begin();                         // the parent, depth 0
    core_.submit_aiv_task(0, TaskArgs{});        // lives as long as the parent
    int submitted = 0;
    for (int i = 0; i < 8 && !core_.is_fatal(); ++i) {
      core_.scope_begin();                       // the child, depth 1
      TaskOutputs t = core_.submit_aiv_task(0, TaskArgs{});
      core_.scope_end();
      if (!t.ok()) break;
      ++submitted;
      core_.OnTaskComplete(t.task);
    }
    return submitted;
  }
};

TEST_P(ScopeRingsTest, AChildScopeStarvesOnlyWhenItSharesItsParentsWindow) {
  const int submitted = ChildTasksSubmitted();
  if (GetParam() == 1) {
    EXPECT_EQ(submitted, 3);
    EXPECT_EQ(core_.latch().code(), kErrorScopeDeadlock);
    EXPECT_NE(backend_.fatal_text.find("task ring 0 of 1 (scope depth 0 and deeper) is full, 4 "
                                       "slots: the orchestrator waits to submit a task at scope "
                                       "depth 1 for the ring's oldest task 0 (func 0, scope "
                                       "depth 0, ready, waiting for a core), which keeps its "
                                       "slot until its scope ends"),
              std::string::npos)
        << backend_.fatal_text;
  } else {
    EXPECT_EQ(submitted, 8) << backend_.fatal_text;
    EXPECT_FALSE(core_.is_fatal());
    EXPECT_EQ(core_.task_rings().live(0), 1u);  // the parent's task
    EXPECT_EQ(core_.task_rings().live(1), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(OneWindowOrRingsPerDepth, ScopeRingsTest,
                         ::testing::Values(1, kTaskRings));

TEST_F(SmallWindowTest, BackPressureWaitsForACompletion) {
  for (int i = 0; i < 4; ++i) core_.submit_aiv_task(0, TaskArgs{});
  backend_.pending_completions = {0};
  EXPECT_TRUE(core_.submit_aiv_task(0, TaskArgs{}).ok());
  EXPECT_EQ(core_.live_tasks(), 4u);
}

TEST_F(OrchestratorCoreTest, GetTensorDataWaitsForTheProducer) {
  TaskArgs w;
  w.add_output(Buf(0x1000));
  TaskId a = core_.submit_aiv_task(0, w).task;
  backend_.pending_completions = {a};
  EXPECT_EQ(core_.get_tensor_data<uint8_t>(Buf(0x1000), 3), 0x5A);
  EXPECT_EQ(core_.task(a)->state, TaskState::kCompleted);
}

TEST_F(OrchestratorCoreTest, GetTensorDataTimesOutWithCodeEight) {
  TaskArgs w;
  w.add_output(Buf(0x1000));
  core_.submit_aiv_task(0, w);
  core_.get_tensor_data<uint8_t>(Buf(0x1000), 0);
  EXPECT_EQ(core_.latch().code(), kErrorTensorWaitTimeout);
}

TEST_F(OrchestratorCoreTest, LogTimingKeepsLinesInCallOrderUntilFatal) {
  core_.log_timing("first");
  core_.log_timing("second");
  core_.report_fatal(kErrorExplicitOrchFatal, "stop");
  core_.log_timing("after fatal");
  EXPECT_EQ(core_.log(), std::vector<std::string>({"first", "second"}));
}

ChipCallable CallableExpecting(int n) {
  ChipCallable c;
  c.name = "needs_three";
  c.expected_arg_count = n;
  return c;
}

TEST_F(OrchestratorCoreTest, FewerArgsThanExpectedIsInvalidArgs) {
  ChipArgs a;
  a.tensors = {Buf(0x1000)};
  a.scalars = {7};
  EXPECT_FALSE(core_.AdmitArgs(CallableExpecting(3), a));
  EXPECT_EQ(core_.latch().code(), kErrorInvalidArgs);
  EXPECT_NE(backend_.fatal_text.find(
                "chip callable needs_three expects expected_arg_count=3 args, "
                "dispatch has 2 (1 tensors + 1 scalars)"),
            std::string::npos)
      << backend_.fatal_text;
}

TEST_F(OrchestratorCoreTest, ExactAndExtraTrailingArgsAreAccepted) {
  ChipArgs a;
  a.tensors = {Buf(0x1000), Buf(0x2000)};
  a.scalars = {7};
  EXPECT_TRUE(core_.AdmitArgs(CallableExpecting(3), a));
  a.tensors.push_back(Buf(0x3000));  // a trailing `_ord`-style token
  EXPECT_TRUE(core_.AdmitArgs(CallableExpecting(3), a));
  EXPECT_TRUE(core_.AdmitArgs(CallableExpecting(0), ChipArgs{}));
  EXPECT_FALSE(core_.is_fatal());
}

}  // namespace
}  // namespace pto::rt
