// The per-collective operand rules a CollectiveDef names as its check hooks
// (collective_def.cc): what kinds, arity, aliasing and core_num, which the
// registration loops check for every collective, leave to each one.
// Private to the op_registry library.
#ifndef PTO_COMPILER_OPS_COLLECTIVE_CHECKS_H_
#define PTO_COMPILER_OPS_COLLECTIVE_CHECKS_H_

#include "absl/status/status.h"
#include "compiler/ops/op_registry.h"

namespace pto::ops::checks {

// Public pld.tensor.* ops (their deducer has checked operand kinds).
absl::Status AllReduce(const CollectiveDef& d, const CallSite& s);
absl::Status Barrier(const CollectiveDef& d, const CallSite& s);
absl::Status Broadcast(const CollectiveDef& d, const CallSite& s);
absl::Status ReduceScatter(const CollectiveDef& d, const CallSite& s);
absl::Status AllGather(const CollectiveDef& d, const CallSite& s);
absl::Status AllToAll(const CollectiveDef& d, const CallSite& s);
absl::Status AllToAllV(const CollectiveDef& d, const CallSite& s);
absl::Status IndexedAllToAllV(const CollectiveDef& d, const CallSite& s);

// HOST builtins builtin.tensor.* (every operand a window view).
absl::Status BuiltinAllReduce(const CollectiveDef& d, const CallSite& s);
absl::Status BuiltinAllReduceRing(const CollectiveDef& d, const CallSite& s);
absl::Status BuiltinBarrier(const CollectiveDef& d, const CallSite& s);
absl::Status BuiltinBroadcast(const CollectiveDef& d, const CallSite& s);
absl::Status BuiltinReduceScatter(const CollectiveDef& d, const CallSite& s);
absl::Status BuiltinRowExchange(const CollectiveDef& d, const CallSite& s);  // allgather, all_to_all
absl::Status BuiltinAllToAllV(const CollectiveDef& d, const CallSite& s);

}  // namespace pto::ops::checks

#endif  // PTO_COMPILER_OPS_COLLECTIVE_CHECKS_H_
