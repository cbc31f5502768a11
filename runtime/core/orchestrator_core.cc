#include "runtime/core/orchestrator_core.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {

namespace {
constexpr size_t kMaxExplicitDeps = 64;  // fanin inline cap (§1.6)
// One task's blocks must fit a ready queue (65,536 per shape, §1.6); larger
// widths are a bug, and simulating them would look like a hang.
constexpr int32_t kMaxCoreNum = 65536;
}  // namespace

Tensor OrchestratorCore::OutputTensor(const TensorCreateInfo& info,
                                      uint64_t addr) const {
  Tensor t{addr, 0, info.bytes, backend_->device_id(), info.elem_bytes};
  t.ndims = info.ndims;
  std::copy(info.shape, info.shape + kMaxTensorDims, t.shape);
  return t;
}

OrchestratorCore::OrchestratorCore(ChipBackend* backend, uint32_t task_window,
                                   int task_rings)
    : backend_(backend), rings_(task_rings, task_window) {}

bool OrchestratorCore::Fail(int code, const std::string& message) {
  if (latch_.Latch(code, message)) backend_->OnFatal(latch_);
  return false;
}

void OrchestratorCore::report_fatal(int code, const std::string& message) {
  Fail(code == 0 ? kErrorExplicitOrchFatal : code, message);
}

void OrchestratorCore::log_timing(const std::string& line) {
  if (latch_.fatal()) return;
  log_.push_back(line);
}

bool OrchestratorCore::AdmitArgs(const ChipCallable& callable,
                                 const ChipArgs& args) {
  if (latch_.fatal()) return false;
  const size_t got = args.tensors.size() + args.scalars.size();
  if (callable.expected_arg_count > 0 &&
      got < static_cast<size_t>(callable.expected_arg_count)) {
    return Fail(kErrorInvalidArgs,
                absl::StrCat("chip callable ", callable.name,
                             " expects expected_arg_count=",
                             callable.expected_arg_count, " args, dispatch has ",
                             got, " (", args.tensors.size(), " tensors + ",
                             args.scalars.size(), " scalars)"));
  }
  return true;
}

void OrchestratorCore::RunEntry(const ChipCallable& callable,
                                const ChipArgs& args) {
  if (!AdmitArgs(callable, args)) return;
  scope_begin();
  const size_t depth = scope_stack_.size();
  try {
    callable.entry(*this, args);
  } catch (...) {
    report_fatal(kErrorExplicitOrchFatal,
                 absl::StrCat("chip orchestration ", callable.name,
                              " threw a C++ exception"));
  }
  if (latch_.fatal()) return;
  if (scope_stack_.size() != depth) {
    Fail(kErrorInvalidArgs,
         absl::StrCat("chip orchestration ", callable.name, " returned with ",
                      scope_stack_.size() - depth,
                      " scope(s) open (scope_begin without scope_end)"));
    return;
  }
  scope_end();
}

// simpler's CONSUMED state: complete, its scope closed and every consumer
// complete (each holds a fanout reference on the producer's slot).
bool OrchestratorCore::Freeable(const Task& t) const {
  if (t.state != TaskState::kCompleted) return false;
  if (t.scope >= 0 && scope_open_[t.scope]) return false;
  for (TaskId c : t.fanout) {
    if (tasks_[c]->state != TaskState::kCompleted) return false;
  }
  return true;
}

void OrchestratorCore::Reclaim() {
  rings_.Reclaim([this](TaskId id) { return Freeable(*tasks_[id]); });
}

int OrchestratorCore::ScopeDepth() const {
  return scope_stack_.empty() ? 0 : scope_depth_[scope_stack_.back()];
}

namespace {

std::string Ids(const std::vector<TaskId>& ids) {
  std::string out;
  for (TaskId id : ids) absl::StrAppend(&out, out.empty() ? "" : ", ", id);
  return out;
}

}  // namespace

std::string OrchestratorCore::RingFullReport(int ring, const Task& head) const {
  std::string state;
  switch (head.state) {
    case TaskState::kPending: {
      std::vector<TaskId> waits;
      for (TaskId p : head.fanin) {
        if (tasks_[p]->state != TaskState::kCompleted) waits.push_back(p);
      }
      state = absl::StrCat("pending on producer task(s) ", Ids(waits));
      break;
    }
    case TaskState::kReady:
      state = "ready, waiting for a core";
      break;
    case TaskState::kRunning:
      state = absl::StrCat("running, ", head.blocks_done, " of ", head.core_num, " blocks done");
      break;
    case TaskState::kCompleted: {
      std::vector<TaskId> waits;
      for (TaskId c : head.fanout) {
        if (tasks_[c]->state != TaskState::kCompleted) waits.push_back(c);
      }
      state = waits.empty() ? "completed"
                            : absl::StrCat("completed, its consumer task(s) ", Ids(waits),
                                           " not yet");
      break;
    }
  }
  const int head_depth = head.scope < 0 ? 0 : scope_depth_[head.scope];
  return absl::StrCat("task ring ", ring, " of ", rings_.rings(), " (scope depth ", ring,
                      ring + 1 == rings_.rings() ? " and deeper" : "", ") is full, ",
                      rings_.window(), " slots: the orchestrator waits to submit a task at "
                      "scope depth ", ScopeDepth(), " for the ring's oldest task ", head.id,
                      " (func ", head.func_id, ", scope depth ", head_depth, ", ", state, ")");
}

bool OrchestratorCore::AcquireSlot() {
  const int ring = rings_.RingOf(ScopeDepth());
  while (rings_.Full(ring)) {
    const Task& head = *tasks_[rings_.Oldest(ring)];
    // No open scope can end while the orchestrator waits here: a head in one
    // never frees its slot (simpler's head-of-line deadlock).
    if (head.scope >= 0 && scope_open_[head.scope]) {
      return Fail(kErrorScopeDeadlock,
                  absl::StrCat(RingFullReport(ring, head),
                               ", which keeps its slot until its scope ends, and that scope is "
                               "open: end scopes sooner or raise aicpu.task_window"));
    }
    if (!backend_->WaitForCompletion(backend_->tensor_wait_timeout_ns())) {
      return Fail(kErrorFlowControlDeadlock,
                  absl::StrCat(RingFullReport(ring, head),
                               ", and no task completed before the timeout"));
    }
    if (latch_.fatal()) return false;
    Reclaim();
  }
  return true;
}

TaskOutputs OrchestratorCore::submit_dummy_task(const TaskArgs& args) {
  if (latch_.fatal()) return {};
  if (!args.tensors().empty() || !args.scalars().empty()) {
    Fail(kErrorInvalidArgs,
         absl::StrCat("a dummy task takes dependencies only, got ", args.tensors().size(),
                      " tensors and ", args.scalars().size(), " scalars"));
    return {};
  }
  return Submit(/*func_id=*/-1, args, CoreShape::kAiv, /*dummy=*/true);
}

TaskOutputs OrchestratorCore::submit_mix_task(const MixKernels& k, const TaskArgs& args) {
  if (latch_.fatal()) return {};
  const int n = backend_->kernel_count();
  auto bad = [n](int id) { return id < -1 || id >= n; };
  if (k.aic < 0 || k.aic >= n || bad(k.aiv0) || bad(k.aiv1) || (k.aiv0 < 0 && k.aiv1 < 0)) {
    Fail(kErrorInvalidArgs,
         absl::StrCat("MIX task kernels (aic ", k.aic, ", aiv0 ", k.aiv0, ", aiv1 ", k.aiv1,
                      "): the AIC and at least one AIV lane must be kernels of the callable (", n,
                      " kernels)"));
    return {};
  }
  return Submit(k.aic, args, CoreShape::kMix, /*dummy=*/false, &k);
}

namespace {

// The kernel's view of a task tensor; a tensor without a shape is 1-D.
TensorDesc DescOf(const Tensor& tensor) {
  TensorDesc d{};
  d.addr = tensor.base;
  d.start_offset = tensor.offset;
  d.bytes = tensor.bytes;
  d.elem_bytes = tensor.elem_bytes == 0 ? 1 : tensor.elem_bytes;
  if (tensor.ndims == 0) {
    d.ndims = 1;
    d.shape[0] = tensor.bytes / d.elem_bytes;
  } else {
    d.ndims = tensor.ndims;
    std::copy(tensor.shape, tensor.shape + tensor.ndims, d.shape);
    if (tensor.strided()) std::copy(tensor.strides, tensor.strides + tensor.ndims, d.strides);
  }
  return d;
}

}  // namespace

// The checks of a submit, before it takes a slot: false (with the error
// latched) when the task cannot be submitted.
bool OrchestratorCore::CheckSubmit(int func_id, const TaskArgs& args, CoreShape shape,
                                   bool dummy) {
  if (latch_.fatal()) return false;
  if (args.has_error()) {
    Fail(kErrorInvalidArgs, absl::StrCat("TaskArgs: ", args.error_msg()));
    return false;
  }
  if (!dummy && (func_id < 0 || func_id >= backend_->kernel_count())) {
    Fail(kErrorInvalidArgs,
         absl::StrCat("func_id ", func_id, " is not a kernel of the callable (",
                      backend_->kernel_count(), " kernels)"));
    return false;
  }
  const LaunchSpec& ls = args.launch_spec;
  if (ls.core_num < 1 || ls.core_num > kMaxCoreNum) {
    Fail(kErrorInvalidArgs, absl::StrCat("core_num=", ls.core_num,
                                         " outside [1, ", kMaxCoreNum, "]"));
    return false;
  }
  const int limit = shape == CoreShape::kAiv ? backend_->aiv_count()
                                             : backend_->aic_count();
  if (ls.require_sync_start && ls.core_num > 1 && limit > 0 &&
      ls.core_num > limit) {
    Fail(kErrorRequireSyncStartInvalid,
         absl::StrCat("require_sync_start block_num=", ls.core_num,
                      " > limit=", limit, " (deadlock guaranteed)"));
    return false;
  }
  if (args.deps().size() > kMaxExplicitDeps) {
    Fail(kErrorDepPoolOverflow,
         absl::StrCat(args.deps().size(), " explicit dependencies > ",
                      kMaxExplicitDeps));
    return false;
  }
  for (TaskId d : args.deps()) {
    if (d < 0 || static_cast<size_t>(d) >= tasks_.size()) {
      Fail(kErrorInvalidArgs,
           absl::StrCat("explicit dependency on unknown task ", d));
      return false;
    }
  }
  for (size_t i = 0; i < args.tensors().size(); ++i) {
    const TaskArgs::TensorArg& a = args.tensors()[i];
    if (a.dir != ArgDirection::kOutput &&
        a.tensor.device != backend_->device_id()) {
      Fail(kErrorInvalidArgs,
           absl::StrCat("tensor of device ", a.tensor.device,
                        " passed to a task on device ",
                        backend_->device_id()));
      return false;
    }
    // Kernels size their loops from the shape, so it must describe exactly
    // the bytes the dependency tracking and the kernel are given.
    const std::string bad = ShapeError(
        a.dir == ArgDirection::kOutput ? OutputTensor(a.create, 0) : a.tensor);
    if (!bad.empty()) {
      Fail(kErrorInvalidArgs,
           absl::StrCat("tensor argument ", i, ": ", bad));
      return false;
    }
  }
  return true;
}

TaskOutputs OrchestratorCore::Submit(int func_id, const TaskArgs& args,
                                     CoreShape shape, bool dummy, const MixKernels* mix) {
  if (!CheckSubmit(func_id, args, shape, dummy)) return {};
  const LaunchSpec& ls = args.launch_spec;
  if (!AcquireSlot()) return {};
  backend_->ChargeSubmit();

  auto task = std::make_unique<Task>();
  Task& t = *task;
  t.id = static_cast<TaskId>(tasks_.size());
  t.func_id = func_id;
  t.shape = shape;
  t.core_num = ls.core_num;
  t.sync_start = ls.require_sync_start && ls.core_num > 1;
  t.scope = scope_stack_.empty() ? -1 : scope_stack_.back();
  t.scalars = args.scalars();
  t.dummy = dummy;
  if (mix != nullptr) t.mix = *mix;
  if (dummy) t.core_num = 0;
  // In a manual scope the explicit deps are the task's only producers.
  const bool manual = InManualScope();

  TaskOutputs out;
  std::vector<TaskId> producers;
  std::vector<Tensor> writes;
  for (const TaskArgs::TensorArg& a : args.tensors()) {
    Tensor tensor = a.tensor;
    if (a.dir == ArgDirection::kOutput) {
      absl::StatusOr<uint64_t> addr = backend_->AllocGm(a.create.bytes);
      if (!addr.ok()) {
        Fail(kErrorHeapRingDeadlock,
             absl::StrCat("output of ", a.create.bytes,
                          " bytes: ", addr.status().message()));
        return {};
      }
      tensor = OutputTensor(a.create, *addr);
      out.outputs.push_back(tensor);
    }
    switch (a.dir) {
      case ArgDirection::kInput:
      case ArgDirection::kInout:
      case ArgDirection::kOutputExisting:  // WAW on the previous writer
        if (manual) break;
        for (TaskId p : tensor_map_.Lookup(tensor)) producers.push_back(p);
        break;
      case ArgDirection::kOutput:
      case ArgDirection::kNoDep:
        break;
    }
    if (a.dir == ArgDirection::kInout || a.dir == ArgDirection::kOutput ||
        a.dir == ArgDirection::kOutputExisting) {
      writes.push_back(tensor);
    }
    t.descs.push_back(DescOf(tensor));
  }
  for (TaskId d : args.deps()) producers.push_back(d);
  for (const Tensor& w : writes) {
    if (!tensor_map_.Insert(w, t.id)) {
      tensor_map_.Prune([this](TaskId id) {
        return tasks_[id]->state == TaskState::kCompleted;
      });
      if (!tensor_map_.Insert(w, t.id)) {
        Fail(kErrorTensorMapOverflow, "TensorMap full of live writers");
        return {};
      }
    }
  }
  std::sort(producers.begin(), producers.end());
  producers.erase(std::unique(producers.begin(), producers.end()),
                  producers.end());
  for (TaskId p : producers) {
    Task& prod = *tasks_[p];
    t.fanin.push_back(p);
    if (prod.state != TaskState::kCompleted) {
      prod.fanout.push_back(t.id);
      ++t.fanin_remaining;
    }
  }
  tasks_.push_back(std::move(task));
  rings_.Push(rings_.RingOf(ScopeDepth()), t.id);
  out.task = t.id;
  if (t.fanin_remaining == 0) {
    t.state = TaskState::kReady;
    backend_->OnReady(&t);
  }
  return out;
}

void OrchestratorCore::OnTaskComplete(TaskId id) {
  Task& t = *tasks_[id];
  t.state = TaskState::kCompleted;
  ++completed_;
  for (TaskId c : t.fanout) {
    Task& consumer = *tasks_[c];
    if (--consumer.fanin_remaining == 0 &&
        consumer.state == TaskState::kPending) {
      consumer.state = TaskState::kReady;
      backend_->OnReady(&consumer);
    }
  }
  // The task, or the last consumer of a producer, may free slots at the
  // rings' tails.
  Reclaim();
}

void OrchestratorCore::scope_begin() {
  if (latch_.fatal()) return;
  if (InManualScope()) {
    Fail(kErrorInvalidArgs, "scope_begin inside a manual scope (simpler forbids nesting in MANUAL)");
    return;
  }
  scope_depth_.push_back(scope_stack_.empty() ? 0 : ScopeDepth() + 1);
  scope_stack_.push_back(static_cast<int>(scope_open_.size()));
  scope_open_.push_back(true);
  scope_manual_.push_back(false);
}

void OrchestratorCore::manual_scope_begin() {
  if (latch_.fatal()) return;
  if (InManualScope()) {
    Fail(kErrorInvalidArgs, "manual_scope_begin inside a manual scope (simpler forbids nesting in MANUAL)");
    return;
  }
  scope_begin();
  scope_manual_.back() = true;
}

void OrchestratorCore::scope_end() {
  if (latch_.fatal()) return;
  if (scope_stack_.empty()) {
    Fail(kErrorInvalidArgs, "scope_end without scope_begin");
    return;
  }
  scope_open_[scope_stack_.back()] = false;
  scope_stack_.pop_back();
  Reclaim();
}

bool OrchestratorCore::WaitFor(const std::function<bool()>& done,
                               const std::string& what) {
  const double timeout = backend_->tensor_wait_timeout_ns();
  const double deadline = backend_->NowNs() + timeout;
  while (!done()) {
    if (latch_.fatal()) return false;
    const double left = deadline - backend_->NowNs();
    if (left <= 0 || !backend_->WaitForCompletion(left)) {
      return Fail(kErrorTensorWaitTimeout,
                  absl::StrCat(what, ": waited ", timeout / 1e9,
                               " s of simulated time"));
    }
  }
  return !latch_.fatal();
}

bool OrchestratorCore::read_tensor(const Tensor& t, uint64_t byte_offset,
                                   void* out, uint64_t bytes) {
  if (latch_.fatal()) return false;
  if (byte_offset + bytes > t.bytes || !t.valid()) {
    return Fail(kErrorInvalidArgs,
                absl::StrCat("get_tensor_data at byte ", byte_offset,
                             " outside a tensor of ", t.bytes, " bytes"));
  }
  const std::vector<TaskId> writers = tensor_map_.Lookup(t.View(byte_offset, bytes));
  auto done = [&] {
    for (TaskId w : writers) {
      if (tasks_[w]->state != TaskState::kCompleted) return false;
    }
    return true;
  };
  if (!WaitFor(done, "get_tensor_data")) return false;
  backend_->ReadMemory(t.addr() + byte_offset, out, bytes);
  return true;
}

bool OrchestratorCore::write_tensor(const Tensor& t, uint64_t byte_offset,
                                    const void* in, uint64_t bytes) {
  if (latch_.fatal()) return false;
  if (byte_offset + bytes > t.bytes || !t.valid()) {
    return Fail(kErrorInvalidArgs,
                absl::StrCat("set_tensor_data at byte ", byte_offset,
                             " outside a tensor of ", t.bytes, " bytes"));
  }
  const std::vector<TaskId> writers = tensor_map_.Lookup(t.View(byte_offset, bytes));
  auto done = [&] {
    for (TaskId w : writers) {
      if (tasks_[w]->state != TaskState::kCompleted) return false;
      for (TaskId c : tasks_[w]->fanout) {
        if (tasks_[c]->state != TaskState::kCompleted) return false;
      }
    }
    return true;
  };
  if (!WaitFor(done, "set_tensor_data")) return false;
  backend_->WriteMemory(t.addr() + byte_offset, in, bytes);
  return true;
}

}  // namespace pto::rt
