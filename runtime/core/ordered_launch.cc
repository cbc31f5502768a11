#include "runtime/core/ordered_launch.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "runtime/core/device_error.h"
#include "runtime/device/kernel_abi.h"

namespace pto::rt {
namespace {

// One task's staging block: its descriptors, then the two contexts, each on
// a 64-byte boundary as the kernel ABI's TensorDesc is.
constexpr uint64_t kContextBytes = 64;

std::string KernelName(int func_id, const std::vector<std::string>& names) {
  if (func_id < 0) return "-";
  if (func_id < static_cast<int>(names.size())) return names[func_id];
  return absl::StrCat("kernel", func_id);
}

}  // namespace

int LaunchCores(CoreShape shape, int aiv, int aic) {
  switch (shape) {
    case CoreShape::kAiv:
      return aiv;
    case CoreShape::kAic:
      return aic;
    case CoreShape::kMix:
      return std::min(aic, aiv / 2);
  }
  return 0;
}

std::string LaunchBinaryName(const LaunchKernel& kernel, const std::vector<std::string>& names) {
  if (kernel.shape != CoreShape::kMix) return KernelName(kernel.func_id, names);
  return absl::StrCat(KernelName(kernel.mix.aic, names), "+", KernelName(kernel.mix.aiv0, names),
                      "+", KernelName(kernel.mix.aiv1, names));
}

OrderedLaunchBackend::OrderedLaunchBackend(LaunchQueue* queue, int kernel_count,
                                           OrderedLaunchOptions options)
    : queue_(queue), kernel_count_(kernel_count), options_(options) {}

void OrderedLaunchBackend::Latch(const absl::Status& s, const std::string& what) {
  core_->report_fatal(RuntimeErrorOf(s), absl::StrCat(what, ": ", s.message()));
}

absl::StatusOr<uint64_t> OrderedLaunchBackend::AllocGm(uint64_t bytes) {
  absl::StatusOr<uint64_t> addr = queue_->AllocGm(bytes);
  if (addr.ok()) allocations_.push_back(*addr);
  return addr;
}

void OrderedLaunchBackend::OnReady(Task* task) {
  if (core_->is_fatal()) return;
  const std::string what = absl::StrCat("task ", task->id, " (kernel ", task->func_id, ")");
  const int cores = LaunchCores(task->shape, aiv_count(), aic_count());
  if (absl::Status s =
          CheckLaunchWidth(task->core_num, cores, absl::StrCat("device ", device_id()));
      !s.ok()) {
    core_->report_fatal(kErrorRequireSyncStartInvalid, absl::StrCat(what, ": ", s.message()));
    return;
  }
  // Descriptors and contexts live in device memory: the kernel dereferences
  // every slot there.
  const uint64_t desc_bytes = task->descs.size() * sizeof(TensorDesc);
  absl::StatusOr<uint64_t> block = AllocGm(desc_bytes + 2 * kContextBytes);
  if (!block.ok()) return Latch(block.status(), absl::StrCat(what, ": staging its arguments"));
  std::vector<uint64_t> desc_addrs;
  for (size_t i = 0; i < task->descs.size(); ++i) {
    desc_addrs.push_back(*block + i * sizeof(TensorDesc));
  }
  // The block index and sub-block id come from the core on the board (the
  // device layer reads them there); the contexts carry the launch width.
  std::vector<uint8_t> staged(desc_bytes + 2 * kContextBytes, 0);
  if (desc_bytes > 0) std::memcpy(staged.data(), task->descs.data(), desc_bytes);
  const LocalContext local{0, task->core_num};
  const GlobalContext global{0, 0};
  std::memcpy(staged.data() + desc_bytes, &local, sizeof(local));
  std::memcpy(staged.data() + desc_bytes + kContextBytes, &global, sizeof(global));
  if (absl::Status s = queue_->Write(*block, staged.data(), staged.size()); !s.ok()) {
    return Latch(s, absl::StrCat(what, ": staging its arguments"));
  }
  absl::StatusOr<KernelArgSlots> slots = MarshalKernelArgs(
      desc_addrs, task->scalars, *block + desc_bytes, *block + desc_bytes + kContextBytes);
  if (!slots.ok()) {
    core_->report_fatal(kErrorInvalidArgs, absl::StrCat(what, ": ", slots.status().message()));
    return;
  }
  LaunchKernel kernel{task->shape, task->func_id, {}};
  if (task->shape == CoreShape::kMix) kernel.mix = task->mix;
  if (absl::Status s = queue_->Launch(kernel, task->core_num, *slots); !s.ok()) {
    return Latch(s, absl::StrCat(what, ": launch"));
  }
  task->state = TaskState::kRunning;
  in_flight_.push_back({task->id, task->func_id, task->core_num, 0});
}

bool OrderedLaunchBackend::WaitForCompletion(double timeout_ns) {
  if (in_flight_.empty() || core_->is_fatal()) return false;
  // A launch runs at most op_timeout_ns; a shorter wait that expires is the
  // caller's timeout (get_tensor_data), the launch still being in flight.
  const bool op_bound = timeout_ns >= options_.op_timeout_ns;
  absl::StatusOr<double> ns = queue_->WaitOldest(op_bound ? options_.op_timeout_ns : timeout_ns);
  if (!ns.ok()) {
    const bool timed_out = ns.status().code() == absl::StatusCode::kDeadlineExceeded;
    if (!op_bound && timed_out) return false;
    const LaunchedTask& t = in_flight_.front();
    Latch(ns.status(), absl::StrCat("task ", t.task, " (kernel ", t.func_id, ", ", t.blocks,
                                    " blocks) did not complete"));
    // A launch that timed out is still in flight; any other failure ended it.
    if (!timed_out) in_flight_.pop_front();
    return false;
  }
  LaunchedTask t = in_flight_.front();
  in_flight_.pop_front();
  t.device_ns = *ns;
  completed_.push_back(t);
  core_->OnTaskComplete(t.task);
  return true;
}

void OrderedLaunchBackend::ReadMemory(uint64_t addr, void* out, uint64_t bytes) {
  if (absl::Status s = queue_->Read(addr, out, bytes); !s.ok()) Latch(s, "get_tensor_data");
}

void OrderedLaunchBackend::WriteMemory(uint64_t addr, const void* in, uint64_t bytes) {
  if (absl::Status s = queue_->Write(addr, in, bytes); !s.ok()) Latch(s, "set_tensor_data");
}

void OrderedLaunchBackend::Drain() {
  while (!in_flight_.empty()) {
    absl::StatusOr<double> ns = queue_->WaitOldest(options_.op_timeout_ns);
    if (!ns.ok() && ns.status().code() == absl::StatusCode::kDeadlineExceeded) {
      // Still running: its memory stays allocated rather than be reused
      // under a live kernel (the device is reset when the host closes it).
      Latch(ns.status(), absl::StrCat("task ", in_flight_.front().task, " did not complete"));
      return;
    }
    LaunchedTask t = in_flight_.front();
    in_flight_.pop_front();
    if (!ns.ok()) {
      Latch(ns.status(), absl::StrCat("task ", t.task, " did not complete"));
      continue;
    }
    t.device_ns = *ns;
    completed_.push_back(t);
    if (!core_->is_fatal()) core_->OnTaskComplete(t.task);
  }
  for (uint64_t a : allocations_) {
    if (absl::Status s = queue_->FreeGm(a); !s.ok()) Latch(s, "freeing run memory");
  }
  allocations_.clear();
}

ChipRunResult RunChipCallable(LaunchQueue& queue, const ChipCallable& callable,
                              const ChipArgs& args, const OrderedLaunchOptions& options) {
  OrderedLaunchBackend backend(&queue, static_cast<int>(callable.kernels.size()), options);
  OrchestratorCore core(&backend, options.task_window);
  backend.set_core(&core);
  core.RunEntry(callable, args);
  while (!core.all_complete() && !core.is_fatal()) {
    if (!backend.WaitForCompletion(options.op_timeout_ns) && !core.is_fatal()) {
      core.report_fatal(
          kErrorSchedulerTimeout,
          absl::StrCat(core.task_count(), " tasks submitted, ", backend.completed().size(),
                       " completed and none in flight: a task waits for a "
                       "producer that was never launched"));
    }
  }
  backend.Drain();
  ChipRunResult r;
  r.error_code = core.latch().code();
  r.error_text = core.latch().Text();
  r.log = core.log();
  r.tasks = backend.completed();
  return r;
}

}  // namespace pto::rt
