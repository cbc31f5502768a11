// What generated orchestration code builds per task: tensors with directions,
// scalars, explicit dependencies and the launch spec (runtime-and-sim.md §1.4).
#ifndef PTO_RUNTIME_API_TASK_ARGS_H_
#define PTO_RUNTIME_API_TASK_ARGS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/device/kernel_abi.h"

namespace pto::rt {

// Dimensions a tensor can carry: what the kernel-side TensorDesc holds.
inline constexpr int kMaxTensorDims = 5;
static_assert(sizeof(TensorDesc::shape) == kMaxTensorDims * sizeof(uint64_t));

// A view of a GM buffer on one device. Dependencies are keyed by `base`.
// The shape is what kernels see (TensorDesc::ndims/shape); ndims == 0 means
// none was given and kernels see 1-D [bytes / elem_bytes]. Submit checks
// that a given shape covers exactly `bytes` (INVALID_ARGS otherwise).
//
// A strided view (Slice of a box that is not one run of its parent) keeps its
// parent's strides; its `bytes` then span its first to one past its last
// element, which is the region dependencies are tracked on.
struct Tensor {
  uint64_t base = 0;    // address of the whole buffer
  uint64_t offset = 0;  // bytes from base to the view
  uint64_t bytes = 0;   // bytes of the view (strided: of its span)
  int32_t device = -1;
  uint32_t elem_bytes = 1;
  uint32_t ndims = 0;                    // 0: 1-D over bytes / elem_bytes
  uint64_t shape[kMaxTensorDims] = {};   // elements per dim, outermost first
  // Elements from one index of a dim to the next; all 0: row-major over
  // `shape` (every tensor but a strided view).
  uint64_t strides[kMaxTensorDims] = {};

  bool valid() const { return base != 0; }
  uint64_t addr() const { return base + offset; }
  bool strided() const { return ndims > 0 && ndims <= kMaxTensorDims && strides[ndims - 1] != 0; }
  // The stride of dim k: the explicit one, or row-major over `shape`.
  uint64_t Stride(uint32_t k) const;
  // The view of `shape` at element `offsets` (one per dim of this tensor's
  // shape), with this tensor's strides: simpler's ChipTensor::view. A box
  // that is one run of this tensor is an ordinary row-major tensor. When the
  // ranks differ or the box leaves the tensor, returns an invalid tensor and
  // sets `*error` (a submit of it fails with INVALID_ARGS).
  Tensor Slice(std::initializer_list<int64_t> offsets,
               std::initializer_list<int64_t> shape, std::string* error) const;
  // The same elements without the first `n` dims (the caller knows they are
  // 1): a rank-padded slice passed to a kernel parameter of lower rank.
  Tensor DropLeadingDims(uint32_t n) const;
  // The same bytes with shape `dims`. More than kMaxTensorDims dims are
  // kept as a count only, so submit rejects them.
  Tensor WithShape(std::initializer_list<uint64_t> dims) const;
  // `n` bytes at `off`. A shaped tensor keeps its inner dims and gets
  // dim 0 = the rows `n` covers (a row range of [R, C] is [n / row, C]);
  // a view that is not whole rows fails the submit check.
  Tensor View(uint64_t off, uint64_t n) const;
  // `n` bytes at `off` with shape `dims`.
  Tensor View(uint64_t off, uint64_t n,
              std::initializer_list<uint64_t> dims) const {
    return View(off, n).WithShape(dims);
  }
};

// Empty if `t`'s shape is absent or covers exactly its bytes (a strided
// view: its span), else why not.
std::string ShapeError(const Tensor& t);

enum class ArgDirection : uint8_t {
  kInput,           // RAW: waits for the current writer
  kOutput,          // runtime-allocated output
  kInout,           // RAW + becomes the writer
  kOutputExisting,  // becomes the writer (WAW on the previous one)
  kNoDep,           // no TensorMap lookup or insert
};

// A runtime-allocated output; the allocated tensor carries `shape` (absent:
// 1-D), checked against `bytes` at submit like any tensor argument.
struct TensorCreateInfo {
  uint64_t bytes = 0;
  uint32_t elem_bytes = 1;
  uint32_t ndims = 0;
  uint64_t shape[kMaxTensorDims] = {};
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
