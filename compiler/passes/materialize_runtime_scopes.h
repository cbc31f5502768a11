// MaterializeRuntimeScopes (PyPTO pass 44): places the runtime task scopes of
// every chip orchestration (FunctionType.Orchestration) in the IR, so code
// generation emits scope_begin/scope_end only where a RuntimeScopeStmt is.
// An AUTO scope wraps the whole body and the body of each for loop and each
// if branch, except inside a manual scope (the runtime refuses AUTO inside
// MANUAL) and where the body already is an AUTO scope. The function is then
// marked auto_scope=False, which makes the pass idempotent and is how a user
// opts out: an auto_scope=False function is left as written.
// See docs/passes/MaterializeRuntimeScopes.md.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_RUNTIME_SCOPES_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_RUNTIME_SCOPES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

// The function attr that says who places the scopes: absent or true, this
// pass; false, the program (and after this pass ran).
inline constexpr char kAttrAutoScope[] = "auto_scope";

class MaterializeRuntimeScopesPass : public Pass {
 public:
  std::string_view name() const override { return "MaterializeRuntimeScopes"; }
  // As PyPTO declares it.
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kCallDirectionsResolved};
  }
  IRPropertySet produced() const override { return {IRProperty::kRuntimeScopesMaterialized}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeRuntimeScopesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_RUNTIME_SCOPES_H_
