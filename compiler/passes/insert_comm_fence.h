// InsertCommFence (docs/passes/InsertCommFence.md): makes written data visible
// before a peer reads it and drops stale cache lines after a wait.
//
// Phase A (InCore bodies): after a local publishing write of a window a region
// `pl.system.cacheinvalid(t, t.shape, zeros)` + `pl.system.fence()`; after a
// remote write a fence; after an opaque call a whole-GM invalidate + fence;
// after a wait (or a run of waits, or a pure wait-loop) one whole-GM
// `pl.system.cacheinvalid()`; async puts are fenced after the draining wait.
// Phase B (orchestration bodies): once a managed collective has been
// dispatched, every later InCore callee gets a whole-GM invalidate at entry; a
// sequential loop whose body publishes is rescanned as already published
// (loop-carried consume-then-collective), a parallel loop is not.
// Idempotent. See docs/passes/InsertCommFence.md.
#ifndef PTO_COMPILER_PASSES_INSERT_COMM_FENCE_H_
#define PTO_COMPILER_PASSES_INSERT_COMM_FENCE_H_

#include <memory>

#include "compiler/ir/op_id.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

inline constexpr ir::OpId kCacheInvalidOp = ir::OpId::kPlSystemCacheinvalid;
inline constexpr ir::OpId kFenceOp = ir::OpId::kPlSystemFence;

// The marker and async-put operators are registered in compiler/ops/runtime_ops.cc.

class InsertCommFencePass : public Pass {
 public:
  std::string_view name() const override { return "InsertCommFence"; }
  // As PyPTO declares it; OutlineIncoreScopes produces SplitIncoreOrch, and
  // its verifier accepts a program without inline InCore scopes.
  IRPropertySet required() const override { return {IRProperty::kSplitIncoreOrch}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateInsertCommFencePass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_INSERT_COMM_FENCE_H_
