// Running a chip callable on a device whose kernels execute asynchronously in
// launch order (a CANN stream), with the orchestration on the host CPU: the
// execution model of the hw backend (docs/hw.md). Backend-independent, so CI
// tests it: a task is launched when OrchestratorCore says it is ready (its
// producers have completed), its descriptors and contexts are staged in
// device memory first, and completions are collected oldest first.
#ifndef PTO_RUNTIME_CORE_ORDERED_LAUNCH_H_
#define PTO_RUNTIME_CORE_ORDERED_LAUNCH_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/api/orchestrator.h"
#include "runtime/core/kernel_launch.h"
#include "runtime/core/orchestrator_core.h"

namespace pto::rt {

// What one launch runs: one AIV or AIC kernel, or a MIX task's cluster
// kernels (each block one whole 1C2V cluster, docs/hw.md).
struct LaunchKernel {
  CoreShape shape = CoreShape::kAiv;
  int func_id = 0;  // kAiv / kAic: the kernel; kMix: mix.aic
  MixKernels mix;   // kMix only
};

// The blocks a launch of `shape` can have at most on a chip of `aiv` AIV
// and `aic` AIC cores: one core per block, a MIX block a whole cluster (its
// AIC and both AIV lanes: min(aic, aiv / 2)).
int LaunchCores(CoreShape shape, int aiv, int aic);

// The name of the device binary a launch runs: the kernel's name for AIV and
// AIC; a MIX task's one binary holds its cluster's kernels and is named
// "<aic>+<aiv0>+<aiv1>", "-" for an unused lane. `names` are the callable's
// kernel_names (a missing one is "kernel<func_id>").
std::string LaunchBinaryName(const LaunchKernel& kernel, const std::vector<std::string>& names);

// What the device provides. Every call may fail with a status from
// AclStatus (runtime/core/device_error.h); the runner latches it.
class LaunchQueue {
 public:
  virtual ~LaunchQueue() = default;
  virtual int device_id() const = 0;
  virtual int aiv_count() const = 0;
  virtual int aic_count() const = 0;
  virtual absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) = 0;
  virtual absl::Status FreeGm(uint64_t addr) = 0;
  virtual absl::Status Write(uint64_t addr, const void* in, uint64_t bytes) = 0;
  virtual absl::Status Read(uint64_t addr, void* out, uint64_t bytes) = 0;
  // Queues all `blocks` blocks of `kernel` behind every earlier launch;
  // every block (every core of a MIX block) gets `slots` (the block index
  // and sub-block id come from the core).
  virtual absl::Status Launch(const LaunchKernel& kernel, int32_t blocks,
                              const KernelArgSlots& slots) = 0;
  // Waits for the oldest launch not yet waited for: its measured run time
  // in ns. DeadlineExceeded after `timeout_ns` leaves it in flight (it may
  // be waited for again); any other failure ends it.
  virtual absl::StatusOr<double> WaitOldest(double timeout_ns) = 0;
  // Wall time in ns (any epoch).
  virtual double NowNs() const = 0;
};

// One completed task as measured (the golden's per-task timing).
struct LaunchedTask {
  TaskId task = kInvalidTaskId;
  int func_id = 0;
  int32_t blocks = 0;
  double device_ns = 0;  // from WaitOldest
};

struct OrderedLaunchOptions {
  uint32_t task_window = 1024;
  double tensor_wait_timeout_ns = 1e9;
  // How long one launch may run before the run is declared hung.
  double op_timeout_ns = 5e9;
};

// The ChipBackend of OrchestratorCore on a LaunchQueue.
class OrderedLaunchBackend : public ChipBackend {
 public:
  OrderedLaunchBackend(LaunchQueue* queue, int kernel_count, OrderedLaunchOptions options);
  void set_core(OrchestratorCore* core) { core_ = core; }

  int device_id() const override { return queue_->device_id(); }
  int aiv_count() const override { return queue_->aiv_count(); }
  int aic_count() const override { return queue_->aic_count(); }
  int kernel_count() const override { return kernel_count_; }
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override;
  void ChargeSubmit() override {}
  void OnReady(Task* task) override;
  bool WaitForCompletion(double timeout_ns) override;
  double tensor_wait_timeout_ns() const override { return options_.tensor_wait_timeout_ns; }
  double NowNs() const override { return queue_->NowNs(); }
  void ReadMemory(uint64_t addr, void* out, uint64_t bytes) override;
  void WriteMemory(uint64_t addr, const void* in, uint64_t bytes) override;
  void OnFatal(const ErrorLatch&) override {}

  // Waits for every launch still in flight (after a fatal error too, so no
  // kernel outlives the memory it uses), then frees the staging memory and
  // the outputs; a launch that never completes keeps them allocated. The
  // first failure is latched.
  void Drain();
  const std::vector<LaunchedTask>& completed() const { return completed_; }

 private:
  // Latches the code the status maps to (kErrorAicoreFault when none).
  void Latch(const absl::Status& s, const std::string& what);

  LaunchQueue* queue_;
  int kernel_count_;
  OrderedLaunchOptions options_;
  OrchestratorCore* core_ = nullptr;
  std::deque<LaunchedTask> in_flight_;
  std::vector<LaunchedTask> completed_;
  std::vector<uint64_t> allocations_;  // staging (freed by Drain)
};

struct ChipRunResult {
  int error_code = 0;      // runtime/api/error_codes.h; 0 = success
  std::string error_text;  // ErrorLatch::Text()
  std::vector<std::string> log;
  std::vector<LaunchedTask> tasks;  // in completion order
};

// Runs `callable` with `args` on `queue`: admits the args, runs the entry
// on the calling thread (a C++ exception is a fatal error), waits for every
// task. Never throws; a device failure is in the result.
ChipRunResult RunChipCallable(LaunchQueue& queue, const ChipCallable& callable,
                              const ChipArgs& args, const OrderedLaunchOptions& options);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_ORDERED_LAUNCH_H_
