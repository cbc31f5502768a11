// The HOST-rail chip orchestration entry every builtin collective but
// all_to_all_v shares (docs/collectives.md): check the
// dispatch's args, turn the requested block limit L into the launched width
// B, check the signal's lanes and submit the AIV kernel once. Each rendered
// entry.cpp.in is this call with its collective's operand list. Header-only:
// the entries are compiled into every generated program.
#ifndef PTO_RUNTIME_BUILTINS_COLLECTIVE_ENTRY_H_
#define PTO_RUNTIME_BUILTINS_COLLECTIVE_ENTRY_H_

#include <cstdint>
#include <limits>
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

// How L becomes B (common/launch_width.h).
enum class EntryWidth {
  kOneBlock,  // B = 1; L must be 1
  kOneShot,   // B = CalOneShotAllReduceBlocks(P, L); needs S >= B lanes
  kPerPeer,   // B = P, one block per peer on the rank's [P] signal; L must be 1
};

struct CollectiveEntry {
  const char* variant;             // for messages and the LOG_TIMING line
  std::vector<bool> read_only;     // per tensor operand: input (true) or inout
  int signal_index = 0;            // the INT32 signal among the operands
  EntryWidth width = EntryWidth::kOneBlock;
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
  if (l < 1 || l > std::numeric_limits<int32_t>::max()) {
    reject(absl::StrCat("core_num=", l, " outside [1, INT32_MAX]"));
    return;
  }
  const int64_t p = ctx->rankNum;
  if (e.root >= 0 && e.root >= p) {
    reject(absl::StrCat("root=", e.root, " outside [0, nranks=", p, ")"));
    return;
  }
  int64_t b = 1;
  if (e.width == EntryWidth::kOneShot) {
    absl::StatusOr<int64_t> w = CalOneShotAllReduceBlocks(p, l);
    if (!w.ok()) {
      reject(absl::StrCat("nranks=", p, ": ", w.status().message()));
      return;
    }
    b = *w;
  } else if (l != 1) {
    // kOneBlock and kPerPeer: the width is the collective's, not requested.
    reject(absl::StrCat("core_num=", l, " but this collective launches one block"));
    return;
  }
  if (e.width == EntryWidth::kPerPeer) b = p;
  const int64_t lanes = SignalLanes(args.tensors[e.signal_index]);
  if (e.width == EntryWidth::kOneShot && lanes < b) {
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
