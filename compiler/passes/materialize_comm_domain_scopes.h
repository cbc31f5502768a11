// MaterializeCommDomainScopes (spec §3.10, seed 001): for each HOST
// orchestrator, traces `alloc_window_buffer -> window -> chip dispatch
// (device=...)`, builds one WindowBuffer per allocation and binds it into the
// type of every window view (one shared object per allocation), infers which
// devices use each allocation, clusters allocations with the same device set
// into communication domains and wraps the body in nested
// `CommDomainScopeStmt`s named "comm_d<n>". Produces
// CommDomainScopesMaterialized.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_COMM_DOMAIN_SCOPES_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_COMM_DOMAIN_SCOPES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class MaterializeCommDomainScopes : public Pass {
 public:
  std::string_view name() const override { return "MaterializeCommDomainScopes"; }
  IRPropertySet produced() const override { return {IRProperty::kCommDomainScopesMaterialized}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeCommDomainScopesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_COMM_DOMAIN_SCOPES_H_
