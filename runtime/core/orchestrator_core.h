// The backend-independent chip runtime: argument validation, TensorMap
// dependencies, explicit edges, scopes, the task rings with back-pressure,
// sync-start admission and the fatal latch. A backend supplies time, memory
// and dispatch through ChipBackend.
#ifndef PTO_RUNTIME_CORE_ORCHESTRATOR_CORE_H_
#define PTO_RUNTIME_CORE_ORCHESTRATOR_CORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/orchestrator.h"
#include "runtime/core/error_latch.h"
#include "runtime/core/task_rings.h"
#include "runtime/core/tensor_map.h"

namespace pto::rt {

enum class CoreShape { kAiv, kAic, kMix };
enum class TaskState { kPending, kReady, kRunning, kCompleted };

struct Task {
  TaskId id = kInvalidTaskId;
  int func_id = 0;
  CoreShape shape = CoreShape::kAiv;
  int32_t core_num = 1;
  bool sync_start = false;
  std::vector<TensorDesc> descs;  // kernel view of every tensor argument
  std::vector<uint64_t> scalars;
  std::vector<TaskId> fanin;      // producers (deduplicated)
  std::vector<TaskId> fanout;
  int fanin_remaining = 0;
  TaskState state = TaskState::kPending;
  int scope = -1;                 // innermost open scope at submit; -1 none
  int blocks_dispatched = 0;
  int blocks_done = 0;
  bool dummy = false;             // submit_dummy_task: no kernel, no blocks
  MixKernels mix;                 // kMix: the kernel of each cluster slot
};

class ChipBackend {
 public:
  virtual ~ChipBackend() = default;
  virtual int device_id() const = 0;
  virtual int aiv_count() const = 0;
  virtual int aic_count() const = 0;
  virtual int kernel_count() const = 0;
  virtual absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) = 0;
  virtual void ChargeSubmit() = 0;
  // The task's dependencies are satisfied: queue it for dispatch.
  virtual void OnReady(Task* task) = 0;
  // Blocks (in simulated time) until a task completes or `timeout_ns` passes.
  // Returns false on timeout.
  virtual bool WaitForCompletion(double timeout_ns) = 0;
  virtual double tensor_wait_timeout_ns() const = 0;
  virtual double NowNs() const = 0;
  // Orchestration-side memory access (AICPU view of GM).
  virtual void ReadMemory(uint64_t addr, void* out, uint64_t bytes) = 0;
  virtual void WriteMemory(uint64_t addr, const void* in, uint64_t bytes) = 0;
  // The latch fired: end the run.
  virtual void OnFatal(const ErrorLatch& latch) = 0;
};

class OrchestratorCore : public Orchestrator {
 public:
  // `task_window` slots in each of `task_rings` rings by scope depth
  // (task_rings.h); one ring is a single window shared by every depth.
  OrchestratorCore(ChipBackend* backend, uint32_t task_window, int task_rings = kTaskRings);

  TaskOutputs submit_aiv_task(int func_id, const TaskArgs& args) override {
    return Submit(func_id, args, CoreShape::kAiv);
  }
  TaskOutputs submit_aic_task(int func_id, const TaskArgs& args) override {
    return Submit(func_id, args, CoreShape::kAic);
  }
  TaskOutputs submit_mix_task(const MixKernels& kernels, const TaskArgs& args) override;
  TaskOutputs submit_dummy_task(const TaskArgs& args) override;
  void scope_begin() override;
  void scope_end() override;
  void manual_scope_begin() override;
  bool read_tensor(const Tensor& t, uint64_t byte_offset, void* out,
                   uint64_t bytes) override;
  bool write_tensor(const Tensor& t, uint64_t byte_offset, const void* in,
                    uint64_t bytes) override;
  int available_aiv_count() const override { return backend_->aiv_count(); }
  int available_aic_count() const override { return backend_->aic_count(); }
  int device_id() const override { return backend_->device_id(); }
  bool is_fatal() const override { return latch_.fatal(); }
  void report_fatal(int code, const std::string& message) override;
  void log_timing(const std::string& line) override;

  // Before the entry runs: latches INVALID_ARGS and returns false when `args`
  // has fewer tensors + scalars than the callable's expected_arg_count.
  bool AdmitArgs(const ChipCallable& callable, const ChipArgs& args);

  // Admits `args` and runs the callable's entry as simpler's orchestrator
  // thread does: inside an implicit top-level scope, so a task submitted
  // outside every scope of the entry keeps its window slot until the entry
  // returns. A C++ exception from the entry latches EXPLICIT_ORCH_FATAL; an
  // entry that returns with a scope of its own still open latches
  // INVALID_ARGS.
  void RunEntry(const ChipCallable& callable, const ChipArgs& args);

  // Scheduler side: a task finished all its blocks. Releases its consumers
  // (OnReady for every one that becomes ready).
  void OnTaskComplete(TaskId id);

  Task* task(TaskId id) { return tasks_[id].get(); }
  size_t task_count() const { return tasks_.size(); }
  size_t live_tasks() const { return rings_.live(); }
  const TaskRings& task_rings() const { return rings_; }
  bool all_complete() const { return completed_ == tasks_.size(); }
  const ErrorLatch& latch() const { return latch_; }
  const TensorMap& tensor_map() const { return tensor_map_; }
  const std::vector<std::string>& log() const { return log_; }

 private:
  TaskOutputs Submit(int func_id, const TaskArgs& args, CoreShape shape, bool dummy = false,
                     const MixKernels* mix = nullptr);
  bool CheckSubmit(int func_id, const TaskArgs& args, CoreShape shape, bool dummy);
  bool InManualScope() const {
    return !scope_stack_.empty() && scope_manual_[scope_stack_.back()];
  }
  bool Fail(int code, const std::string& message);  // latches; returns false
  // The tensor a runtime-allocated output at `addr` becomes (its shape too).
  Tensor OutputTensor(const TensorCreateInfo& info, uint64_t addr) const;
  int ScopeDepth() const;  // of the innermost open scope; 0 outside every scope
  bool AcquireSlot();
  bool Freeable(const Task& t) const;
  void Reclaim();
  // Who waits on what when ring `ring` is full and its oldest task `head`
  // cannot be freed (or no task completes).
  std::string RingFullReport(int ring, const Task& head) const;
  bool WaitFor(const std::function<bool()>& done, const std::string& what);

  ChipBackend* backend_;
  TaskRings rings_;
  ErrorLatch latch_;
  TensorMap tensor_map_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<bool> scope_open_;  // by scope id
  std::vector<int> scope_depth_;  // by scope id: 0 for the entry's implicit scope
  std::vector<bool> scope_manual_;  // by scope id: manual_scope_begin
  std::vector<int> scope_stack_;
  size_t completed_ = 0;
  std::vector<std::string> log_;  // log_timing lines, in call order
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_ORCHESTRATOR_CORE_H_
