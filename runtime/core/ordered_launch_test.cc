#include "runtime/core/ordered_launch.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/core/device_error.h"

namespace pto::rt {
namespace {

// A device in host memory whose kernels run when they are waited for, as a
// stream runs them after the host has moved on: a consumer launched before
// its producer was waited for would read stale data. Each block gets its own
// LocalContext, as a core provides its block index on the board.
class HostQueue : public LaunchQueue {
 public:
  explicit HostQueue(std::vector<KernelEntry> kernels) : kernels_(std::move(kernels)) {}
  ~HostQueue() override {
    for (auto& [addr, bytes] : live_) std::free(reinterpret_cast<void*>(addr));
  }
  int device_id() const override { return 0; }
  int aiv_count() const override { return 4; }
  int aic_count() const override { return 2; }
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override {
    if (fail_alloc) return AclStatus("aclrtMalloc", 207001);
    void* p = std::calloc(1, bytes == 0 ? 1 : bytes);
    live_[reinterpret_cast<uint64_t>(p)] = bytes;
    return reinterpret_cast<uint64_t>(p);
  }
  absl::Status FreeGm(uint64_t addr) override {
    std::free(reinterpret_cast<void*>(addr));
    live_.erase(addr);
    return absl::OkStatus();
  }
  absl::Status Write(uint64_t addr, const void* in, uint64_t bytes) override {
    std::memcpy(reinterpret_cast<void*>(addr), in, bytes);
    return absl::OkStatus();
  }
  absl::Status Read(uint64_t addr, void* out, uint64_t bytes) override {
    std::memcpy(out, reinterpret_cast<const void*>(addr), bytes);
    return absl::OkStatus();
  }
  absl::Status Launch(const LaunchKernel& k, int32_t blocks,
                      const KernelArgSlots& slots) override {
    if (launch_error != 0) return AclStatus("rtKernelLaunchWithHandleV2", launch_error);
    std::vector<int> cores = {k.func_id};
    if (k.shape == CoreShape::kMix) {
      events.push_back(absl::StrCat("launch mix ", LaunchBinaryName(k, {"k0", "k1"})));
      cores = {k.mix.aic, k.mix.aiv0, k.mix.aiv1};
    } else {
      events.push_back(absl::StrCat("launch k", k.func_id));
    }
    pending_.push_back({k.func_id, blocks, slots, cores});
    return absl::OkStatus();
  }
  absl::StatusOr<double> WaitOldest(double timeout_ns) override {
    if (pending_.empty()) return absl::InternalError("nothing launched");
    if (hang) return AclStatus("aclrtSynchronizeEventWithTimeout", 507046);
    Pending p = pending_.front();
    pending_.erase(pending_.begin());
    for (int32_t b = 0; b < p.blocks; ++b) {
      // Every core of the block in slot order (these kernels use no pipe).
      for (int kernel : p.cores) {
        if (kernel < 0) continue;
        KernelArgSlots s = p.slots;
        LocalContext local{b, p.blocks};
        s[kLocalContextIndex] = reinterpret_cast<int64_t>(&local);
        kernels_[kernel](s.data());
      }
    }
    events.push_back(absl::StrCat("done k", p.func_id));
    return 1000.0 * (p.func_id + 1);
  }
  double NowNs() const override { return 0; }
  size_t live_allocations() const { return live_.size(); }

  std::vector<std::string> events;
  bool fail_alloc = false;
  bool hang = false;
  int launch_error = 0;

 private:
  struct Pending {
    int func_id;
    int32_t blocks;
    KernelArgSlots slots;
    std::vector<int> cores;  // the kernel of each core of a block (-1: unused)
  };
  std::vector<KernelEntry> kernels_;
  std::vector<Pending> pending_;
  std::map<uint64_t, uint64_t> live_;
};

// out[i] = in[i] + 1 over the block's share of the elements.
void AddOne(int64_t* args) {
  const TensorDesc* in = TensorArg(args, 0);
  const TensorDesc* out = TensorArg(args, 1);
  const uint64_t n = in->bytes / 4;
  for (uint64_t i = get_block_idx(args); i < n; i += get_block_num(args)) {
    out->data<int32_t>()[i] = in->data<int32_t>()[i] + 1;
  }
}

// x[i] *= scalar 0.
void Scale(int64_t* args) {
  const TensorDesc* x = TensorArg(args, 0);
  for (uint64_t i = get_block_idx(args); i < x->bytes / 4; i += get_block_num(args)) {
    x->data<int32_t>()[i] *= static_cast<int32_t>(args[1]);
  }
}

// ErrorLatch::Text() ends with the code's detail line.
void ExpectStartsWith(const std::string& text, const std::string& prefix) {
  EXPECT_EQ(text.substr(0, prefix.size()), prefix) << text;
}

class OrderedLaunchTest : public ::testing::Test {
 protected:
  OrderedLaunchTest() : queue_({AddOne, Scale}) {}
  Tensor Buffer(uint64_t elems) {
    absl::StatusOr<uint64_t> a = queue_.AllocGm(elems * 4);
    Tensor t{*a, 0, elems * 4, 0, 4};
    return t;
  }
  ChipCallable Callable(std::function<void(Orchestrator&, const ChipArgs&)> entry) {
    ChipCallable c;
    c.name = "two_stage";
    c.entry = std::move(entry);
    c.kernels = {AddOne, Scale};
    c.kernel_names = {"add_one", "scale"};
    return c;
  }
  // One `scale` task by 1 on the first tensor: the smallest run that reaches
  // the launch queue, for the failure cases.
  ChipCallable OneScaleTask() {
    return Callable([](Orchestrator& o, const ChipArgs& a) {
      TaskArgs s;
      s.add_inout(a.tensors[0]);
      s.add_scalar(1);
      o.submit_aiv_task(1, s);
    });
  }
  HostQueue queue_;
};

TEST_F(OrderedLaunchTest, AConsumerIsLaunchedOnlyAfterItsProducerCompleted) {
  Tensor in = Buffer(8), mid = Buffer(8);
  for (int i = 0; i < 8; ++i) reinterpret_cast<int32_t*>(in.base)[i] = i;
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& a) {
    TaskArgs add;
    add.add_input(a.tensors[0]);
    add.add_output(a.tensors[1]);
    add.launch_spec.core_num = 3;
    o.submit_aiv_task(0, add);
    TaskArgs scale;
    scale.add_inout(a.tensors[1]);
    scale.add_scalar(10);
    scale.launch_spec.core_num = 2;
    o.submit_aiv_task(1, scale);
  });
  const size_t before = queue_.live_allocations();
  ChipRunResult r = RunChipCallable(queue_, c, {{in, mid}, {}}, {});
  ASSERT_EQ(r.error_code, 0) << r.error_text;
  EXPECT_EQ(queue_.events,
            (std::vector<std::string>{"launch k0", "done k0", "launch k1", "done k1"}));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(reinterpret_cast<int32_t*>(mid.base)[i], (i + 1) * 10);
  ASSERT_EQ(r.tasks.size(), 2u);
  EXPECT_EQ(r.tasks[0].blocks, 3);
  EXPECT_EQ(r.tasks[1].device_ns, 2000.0);
  // Descriptor staging is freed after the run.
  EXPECT_EQ(queue_.live_allocations(), before);
}

TEST_F(OrderedLaunchTest, IndependentTasksAreLaunchedBeforeEitherIsWaitedFor) {
  Tensor a = Buffer(4), b = Buffer(4);
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& args) {
    for (const Tensor& t : args.tensors) {
      TaskArgs s;
      s.add_inout(t);
      s.add_scalar(2);
      o.submit_aiv_task(1, s);
    }
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{a, b}, {}}, {});
  ASSERT_EQ(r.error_code, 0) << r.error_text;
  EXPECT_EQ(queue_.events,
            (std::vector<std::string>{"launch k1", "launch k1", "done k1", "done k1"}));
}

TEST_F(OrderedLaunchTest, GetTensorDataWaitsForTheWriter) {
  Tensor in = Buffer(2), out = Buffer(2);
  reinterpret_cast<int32_t*>(in.base)[1] = 41;
  int32_t seen = 0;
  ChipCallable c = Callable([&](Orchestrator& o, const ChipArgs& a) {
    TaskArgs add;
    add.add_input(a.tensors[0]);
    add.add_output(a.tensors[1]);
    o.submit_aiv_task(0, add);
    seen = o.get_tensor_data<int32_t>(a.tensors[1], 1);
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{in, out}, {}}, {});
  ASSERT_EQ(r.error_code, 0) << r.error_text;
  EXPECT_EQ(seen, 42);
}

TEST_F(OrderedLaunchTest, ALaunchWiderThanTheDeviceIsLatched) {
  Tensor x = Buffer(4);
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& a) {
    TaskArgs s;
    s.add_inout(a.tensors[0]);
    s.add_scalar(1);
    s.launch_spec.core_num = 5;  // the queue has 4 AIV
    o.submit_aiv_task(1, s);
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorRequireSyncStartInvalid);
  ExpectStartsWith(r.error_text,
                   "code=7 REQUIRE_SYNC_START_INVALID: task 0 (kernel 1): launch of 5 blocks on "
                   "device 0 (1..4 cores)");
  EXPECT_TRUE(queue_.events.empty());
}

TEST(LaunchShapeTest, AMixBlockIsAWholeClusterAndItsBinaryNamesItsKernels) {
  EXPECT_EQ(LaunchCores(CoreShape::kAiv, 48, 24), 48);
  EXPECT_EQ(LaunchCores(CoreShape::kAic, 48, 24), 24);
  EXPECT_EQ(LaunchCores(CoreShape::kMix, 48, 24), 24);
  EXPECT_EQ(LaunchCores(CoreShape::kMix, 6, 4), 3);  // three clusters have both lanes
  const std::vector<std::string> names = {"mm_aic", "mm_aiv", "post"};
  EXPECT_EQ(LaunchBinaryName({CoreShape::kAic, 0, {}}, names), "mm_aic");
  EXPECT_EQ(LaunchBinaryName({CoreShape::kAiv, 7, {}}, names), "kernel7");
  EXPECT_EQ(LaunchBinaryName({CoreShape::kMix, 0, {0, 1, 2}}, names), "mm_aic+mm_aiv+post");
  EXPECT_EQ(LaunchBinaryName({CoreShape::kMix, 0, {0, -1, 1}}, names), "mm_aic+-+mm_aiv");
}

// A MIX task reaches the queue as one launch of its cluster kernels, as
// wide as its core_num in clusters, and runs every used lane of each block.
TEST_F(OrderedLaunchTest, AMixTaskIsOneLaunchOfItsClusterKernels) {
  Tensor x = Buffer(4);
  for (int i = 0; i < 4; ++i) reinterpret_cast<int32_t*>(x.base)[i] = i;
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& a) {
    TaskArgs t;
    t.add_inout(a.tensors[0]);
    t.add_scalar(3);
    t.launch_spec.core_num = 2;  // both clusters of the queue (4 AIV, 2 AIC)
    o.submit_mix_task({/*aic=*/1, /*aiv0=*/-1, /*aiv1=*/1}, t);
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  ASSERT_EQ(r.error_code, 0) << r.error_text;
  EXPECT_EQ(queue_.events, (std::vector<std::string>{"launch mix k1+-+k1", "done k1"}));
  ASSERT_EQ(r.tasks.size(), 1u);
  EXPECT_EQ(r.tasks[0].blocks, 2);
  // The AIC and lane 1 each scaled every element by 3; lane 0 ran nothing.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(reinterpret_cast<int32_t*>(x.base)[i], 9 * i);
}

TEST_F(OrderedLaunchTest, AMixLaunchWiderThanTheClustersIsLatched) {
  Tensor x = Buffer(4), y = Buffer(4);
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& a) {
    TaskArgs t;
    t.add_inout(a.tensors[0]);
    t.add_output(a.tensors[1]);
    t.add_scalar(1);
    t.launch_spec.core_num = 3;  // 2 clusters
    o.submit_mix_task({0, 1, -1}, t);
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{x, y}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorRequireSyncStartInvalid);
  ExpectStartsWith(r.error_text,
                   "code=7 REQUIRE_SYNC_START_INVALID: task 0 (kernel 0): launch of 3 blocks on "
                   "device 0 (1..2 cores)");
  EXPECT_TRUE(queue_.events.empty());
}

TEST_F(OrderedLaunchTest, ADeviceErrorIsLatchedWithItsMappedCode) {
  Tensor x = Buffer(4);
  ChipCallable c = OneScaleTask();
  queue_.launch_error = 507015;
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorAicoreFault);
  ExpectStartsWith(r.error_text,
                   "code=110 AICORE_FAULT: task 0 (kernel 1): launch: rtKernelLaunchWithHandleV2 "
                   "failed: 507015 (ACL_ERROR_RT_AICORE_EXCEPTION)");
}

TEST_F(OrderedLaunchTest, AHungLaunchIsASchedulerTimeout) {
  Tensor x = Buffer(4);
  ChipCallable c = OneScaleTask();
  queue_.hang = true;
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorSchedulerTimeout);
  ExpectStartsWith(
      r.error_text,
      "code=100 SCHEDULER_TIMEOUT: task 0 (kernel 1, 1 blocks) did not complete: "
      "aclrtSynchronizeEventWithTimeout failed: 507046 (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)");
}

TEST_F(OrderedLaunchTest, StagingThatCannotBeAllocatedIsAHeapError) {
  Tensor x = Buffer(4);
  ChipCallable c = OneScaleTask();
  queue_.fail_alloc = true;
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorHeapRingDeadlock);
  EXPECT_NE(r.error_text.find("staging its arguments: aclrtMalloc failed: 207001"),
            std::string::npos)
      << r.error_text;
}

TEST_F(OrderedLaunchTest, AThrowingEntryIsFatalAndNothingIsLeftRunning) {
  Tensor x = Buffer(4);
  ChipCallable c = Callable([](Orchestrator& o, const ChipArgs& a) {
    TaskArgs s;
    s.add_inout(a.tensors[0]);
    s.add_scalar(1);
    o.submit_aiv_task(1, s);
    throw std::runtime_error("boom");
  });
  ChipRunResult r = RunChipCallable(queue_, c, {{x}, {}}, {});
  EXPECT_EQ(r.error_code, kErrorExplicitOrchFatal);
  ExpectStartsWith(
      r.error_text,
      "code=9 EXPLICIT_ORCH_FATAL: chip orchestration two_stage threw a C++ exception");
  // The launched task was still waited for before its memory went.
  EXPECT_EQ(queue_.events, (std::vector<std::string>{"launch k1", "done k1"}));
}

}  // namespace
}  // namespace pto::rt
