// The HOST-rail chip orchestration entry every builtin collective but
// all_to_all_v shares (docs/collectives.md): check the
// dispatch's args, turn the requested block limit L into the launched width
// B by the collective's LaunchWidthRule, check the signal's lanes and submit
// the AIV kernel once. runtime/builtins/host_rail/entry.cpp.in renders this
// call with a CollectiveDef's operands. Header-only: the entries are compiled
// into every generated program.
#ifndef PTO_RUNTIME_BUILTINS_COLLECTIVE_ENTRY_H_
#define PTO_RUNTIME_BUILTINS_COLLECTIVE_ENTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/launch_width.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"
#include "runtime/device/comm_context.h"

namespace pto::builtins {

struct CollectiveEntry {
  const char* variant;             // for messages and the LOG_TIMING line
  std::vector<bool> read_only;     // per tensor operand: input (true) or inout
  int signal_index = 0;            // the INT32 signal among the operands
  // The collective's rule, rendered from its CollectiveDef: the entry applies
  // it (common/launch_width.h) and keeps no copy of it.
  LaunchWidthRule width = LaunchWidthRule::kOneBlock;
  int64_t root = -1;               // broadcast's root, checked against P
};

// Tensors + `_ord` are accepted, scalars = CommContext*, L.
inline int ExpectedArgCount(const CollectiveEntry& e) {
  return static_cast<int>(e.read_only.size()) + 2;
}

// Signal lanes S: 1 for a rank-1 [P] signal, else shape[1].
inline int64_t SignalLanes(const rt::Tensor& signal) {
  return signal.ndims <= 1 ? 1 : static_cast<int64_t>(signal.shape[1]);
}

// Rejects with INVALID_ARGS (code 5), nothing submitted, or submits B blocks.
inline void RunCollectiveEntry(const CollectiveEntry& e, rt::Orchestrator& orch,
                               const rt::ChipArgs& args) {
  auto reject = [&](const std::string& why) {
    orch.report_fatal(rt::kErrorInvalidArgs, absl::StrCat(e.variant, ": ", why));
  };
  const size_t tensors = e.read_only.size();
  if (args.tensors.size() < tensors || args.scalars.size() < 2) {
    reject(absl::StrCat("expected ", tensors, " tensors and 2 scalars, got ",
                        args.tensors.size(), " tensors and ", args.scalars.size(),
                        " scalars"));
    return;
  }
  const auto* ctx = reinterpret_cast<const CommContext*>(args.scalars[0]);
  if (ctx == nullptr) {
    reject("CommContext* (scalar 0) is null");
    return;
  }
  const int64_t l = static_cast<int64_t>(args.scalars[1]);
  if (absl::Status range = CheckRequestedCoreNum(l); !range.ok()) {
    reject(std::string(range.message()));
    return;
  }
  const int64_t p = ctx->rankNum;
  if (e.root >= 0 && e.root >= p) {
    reject(absl::StrCat("root=", e.root, " outside [0, nranks=", p, ")"));
    return;
  }
  const absl::StatusOr<int64_t> width = LaunchedBlocks(e.width, p, l);
  if (!width.ok()) {
    // One-block rules: the width is the collective's, not requested.
    reject(TakesCoreNum(e.width) ? absl::StrCat("nranks=", p, ": ", width.status().message())
                                 : std::string(width.status().message()));
    return;
  }
  const int64_t b = *width;
  const int64_t lanes = SignalLanes(args.tensors[e.signal_index]);
  if (NeedsLanePerBlock(e.width) && lanes < b) {
    // A lane past S would count into the next peer's row (§4.7).
    reject(absl::StrCat("signal lanes ", lanes, " < launched_core_num=", b,
                        " (requested_core_num=", l, " nranks=", p,
                        "); allocate the signal as [P, core_num]"));
    return;
  }
  orch.log_timing(absl::StrCat(e.variant, ": rank=", ctx->rankId, " requested_core_num=", l,
                               " launched_core_num=", b, " nranks=", p));
  rt::TaskArgs task;
  for (size_t i = 0; i < tensors; ++i) {
    if (e.read_only[i]) {
      task.add_input(args.tensors[i]);
    } else {
      task.add_inout(args.tensors[i]);
    }
  }
  task.add_scalar(args.scalars[0]);
  task.launch_spec.set_core_num(static_cast<int32_t>(b));
  // Every lane waits on its peers' lanes: all B blocks resident at once or
  // the runtime refuses the launch (code 7) before any block starts.
  task.launch_spec.set_require_sync_start(b > 1);
  orch.submit_aiv_task(0, task);
}

}  // namespace pto::builtins

#endif  // PTO_RUNTIME_BUILTINS_COLLECTIVE_ENTRY_H_
