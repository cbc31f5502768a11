// OutlineClusterScopes (PyPTO pass 09): every `with pl.cluster()` scope
// becomes a Group function (`<parent>_cluster_<n>`) and every `with
// pl.spmd(core_num, sync_start=)` scope outside a cluster a Spmd function
// (`<parent>_spmd_<n>`); the launch spec rides the call (attrs core_num,
// sync_start). A cluster whose body is one pl.spmd scope keeps one Group
// function, the spmd's launch spec on its call and `spmd_unwrapped` on the
// function. See docs/passes/OutlineClusterScopes.md.
#ifndef PTO_COMPILER_PASSES_OUTLINE_CLUSTER_SCOPES_H_
#define PTO_COMPILER_PASSES_OUTLINE_CLUSTER_SCOPES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class OutlineClusterScopesPass : public Pass {
 public:
  std::string_view name() const override { return "OutlineClusterScopes"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kClusterOutlined};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateOutlineClusterScopesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_OUTLINE_CLUSTER_SCOPES_H_
