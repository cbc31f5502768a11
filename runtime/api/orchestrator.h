// The chip (L2) orchestration API: what a chip callable's entry calls.
#ifndef PTO_RUNTIME_API_ORCHESTRATOR_H_
#define PTO_RUNTIME_API_ORCHESTRATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/api/task_args.h"
#include "runtime/device/kernel_abi.h"

namespace pto::rt {

// The kernels of a MIX task, by slot of its 1C2V cluster (simpler's MIX
// resource shape): the AIC's and the two AIV lanes' (-1: the lane is unused;
// at least one AIV lane is used).
struct MixKernels {
  int aic = -1;
  int aiv0 = -1;
  int aiv1 = -1;
};

class Orchestrator {
 public:
  virtual ~Orchestrator() = default;

  // Submits one SPMD task of launch_spec.core_num blocks of kernel `func_id`
  // (an index into the callable's kernels). A no-op once fatal.
  virtual TaskOutputs submit_aiv_task(int func_id, const TaskArgs& args) = 0;
  virtual TaskOutputs submit_aic_task(int func_id, const TaskArgs& args) = 0;
  // A MIX task: each of its launch_spec.core_num blocks occupies one whole
  // cluster (its AIC and the AIV lanes `kernels` uses), every core of the
  // block running its slot's kernel with the same args, all started
  // together; they talk through the cluster's TPUSH / TPOP pipes
  // (runtime/device/pipe_api.h).
  virtual TaskOutputs submit_mix_task(const MixKernels& kernels, const TaskArgs& args) = 0;
  // simpler's rt_submit_dummy_task: a dependency-only task (no kernel, no
  // core) that completes as soon as every task of args.deps() has. `args`
  // holds dependencies only (INVALID_ARGS otherwise).
  virtual TaskOutputs submit_dummy_task(const TaskArgs& args) = 0;

  // Lifetime scopes for intermediates.
  virtual void scope_begin() = 0;
  virtual void scope_end() = 0;
  // simpler's PTO2_SCOPE(PTO2ScopeMode::MANUAL), closed by scope_end(): a task
  // submitted in it waits for its explicit deps only (no TensorMap lookup);
  // its writes are still recorded, so tasks after the scope wait for them. A
  // scope (manual or not) inside a manual scope is INVALID_ARGS, as in simpler.
  virtual void manual_scope_begin() = 0;

  // Orchestration-side element access: waits (in simulated time) for the
  // producer, and for set also for its consumers; code 8 on timeout.
  virtual bool read_tensor(const Tensor& t, uint64_t byte_offset, void* out,
                           uint64_t bytes) = 0;
  virtual bool write_tensor(const Tensor& t, uint64_t byte_offset,
                            const void* in, uint64_t bytes) = 0;

  virtual int available_aiv_count() const = 0;
  virtual int available_aic_count() const = 0;
  virtual int device_id() const = 0;

  // The fatal latch: the first code wins; later calls are logged only.
  virtual bool is_fatal() const = 0;
  virtual void report_fatal(int code, const std::string& message) = 0;

  // simpler's LOG_TIMING: one DFX line, collected per run in dispatch order
  // (the sim puts it in RunReport.log tagged with the device). Dropped once
  // fatal, like every other call.
  virtual void log_timing(const std::string& line) = 0;

  template <typename T>
  T get_tensor_data(const Tensor& t, uint64_t index) {
    T v{};
    read_tensor(t, index * sizeof(T), &v, sizeof(T));
    return v;
  }
  template <typename T>
  void set_tensor_data(const Tensor& t, uint64_t index, T v) {
    write_tensor(t, index * sizeof(T), &v, sizeof(T));
  }
};

// Arguments of a chip dispatch: tensors, then scalars.
struct ChipArgs {
  std::vector<Tensor> tensors;
  std::vector<uint64_t> scalars;
};

// A chip callable: an orchestration entry plus its kernels by func_id.
struct ChipCallable {
  std::string name;
  std::function<void(Orchestrator&, const ChipArgs&)> entry;
  std::vector<KernelEntry> kernels;
  std::vector<std::string> kernel_names;  // for reports and traces
  // aicpu_orchestration_config's expected_arg_count (tensors + scalars): a
  // dispatch with fewer args fails with INVALID_ARGS before the entry runs;
  // extra trailing args are accepted. 0 = no minimum.
  int expected_arg_count = 0;
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_API_ORCHESTRATOR_H_
