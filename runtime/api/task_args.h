// What generated orchestration code builds per task: tensors with directions,
// scalars, explicit dependencies and the launch spec (runtime-and-sim.md §1.4).
#ifndef PTO_RUNTIME_API_TASK_ARGS_H_
#define PTO_RUNTIME_API_TASK_ARGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device/kernel_abi.h"

namespace pto::rt {

// A view of a GM buffer on one device. Dependencies are keyed by `base`.
struct Tensor {
  uint64_t base = 0;    // address of the whole buffer
  uint64_t offset = 0;  // bytes from base to the view
  uint64_t bytes = 0;   // bytes of the view
  int32_t device = -1;
  uint32_t elem_bytes = 1;

  bool valid() const { return base != 0; }
  uint64_t addr() const { return base + offset; }
  Tensor View(uint64_t off, uint64_t n) const {
    Tensor t = *this;
    t.offset = offset + off;
    t.bytes = n;
    return t;
  }
};

enum class ArgDirection : uint8_t {
  kInput,           // RAW: waits for the current writer
  kOutput,          // runtime-allocated output
  kInout,           // RAW + becomes the writer
  kOutputExisting,  // becomes the writer (WAW on the previous one)
  kNoDep,           // no TensorMap lookup or insert
};

struct TensorCreateInfo {
  uint64_t bytes = 0;
  uint32_t elem_bytes = 1;
};

using TaskId = int64_t;
inline constexpr TaskId kInvalidTaskId = -1;

struct LaunchSpec {
  int32_t core_num = 1;
  bool require_sync_start = false;
  void set_core_num(int32_t n) { core_num = n; }
  void set_block_num(int32_t n) { core_num = n; }  // a2a3 spelling
  void set_require_sync_start(bool v) { require_sync_start = v; }
};

class TaskArgs {
 public:
  struct TensorArg {
    Tensor tensor;               // kOutput: filled at submit
    TensorCreateInfo create;     // kOutput only
    ArgDirection dir;
  };

  void add_input(const Tensor& t) { AddTensor(t, ArgDirection::kInput); }
  void add_inout(const Tensor& t) { AddTensor(t, ArgDirection::kInout); }
  void add_output(const Tensor& t) {
    AddTensor(t, ArgDirection::kOutputExisting);
  }
  void add_output(const TensorCreateInfo& info);
  void add_no_dep(const Tensor& t) { AddTensor(t, ArgDirection::kNoDep); }
  void add_scalar(uint64_t v);
  // Explicit task -> task edges (the only way to order WAR).
  void add_dep(TaskId id) { deps_.push_back(id); }

  LaunchSpec launch_spec;

  bool has_error() const { return !error_.empty(); }
  const std::string& error_msg() const { return error_; }
  const std::vector<TensorArg>& tensors() const { return tensors_; }
  const std::vector<uint64_t>& scalars() const { return scalars_; }
  const std::vector<TaskId>& deps() const { return deps_; }

 private:
  void AddTensor(const Tensor& t, ArgDirection dir);
  void SetError(std::string msg);

  std::vector<TensorArg> tensors_;
  std::vector<uint64_t> scalars_;
  std::vector<TaskId> deps_;
  std::string error_;
};

// What a submit returns: the task id and its runtime-allocated outputs, in
// add_output(TensorCreateInfo) order. Empty after a fatal error.
struct TaskOutputs {
  TaskId task = kInvalidTaskId;
  std::vector<Tensor> outputs;
  bool ok() const { return task != kInvalidTaskId; }
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_API_TASK_ARGS_H_
