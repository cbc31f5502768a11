// MaterializeDistTensorCtx (docs/passes/MaterializeDistTensorCtx.md): makes the
// communication-context dataflow explicit. Every function with
// DistributedTensor parameters gets one trailing `pld.CommCtx` parameter per
// such parameter; every call of it passes the matching contexts, traced
// through aliases, views, write-backs and returned parameters; a host
// orchestrator that cannot trace one queries it with
// `pld.system.get_comm_ctx`, and nobody else may query at all.
// See docs/passes/MaterializeDistTensorCtx.md.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_DIST_TENSOR_CTX_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_DIST_TENSOR_CTX_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/function.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class MaterializeDistTensorCtxPass : public Pass {
 public:
  std::string_view name() const override { return "MaterializeDistTensorCtx"; }
  // PyPTO also requires ReturnParamsExplicit, which its NormalizeReturnOrder
  // (25, out of scope: docs/language.md) produces.
  // The pass does not need it to be sound: a returned tensor that is not a
  // parameter by pointer identity is simply not traced (an untraceable
  // context is queried on the host and rejected elsewhere), so it is not
  // required here (docs/passes/MaterializeDistTensorCtx.md).
  IRPropertySet required() const override {
    return {IRProperty::kCommDomainScopesMaterialized};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kCommDomainScopesMaterialized, IRProperty::kDistTensorCtxMaterialized};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeDistTensorCtxPass();

// For each return position of `func`, the index of the parameter returned there
// (pointer identity of the ReturnStmt value), or -1. Reads the last top-level
// ReturnStmt; empty when there is none.
std::vector<int> ExplicitReturnedParamIndices(const ir::FunctionPtr& func);

// The ReturnParamsExplicit property (spec §1.9): every tensor an InCore, AIC,
// AIV, Group or Spmd function returns is one of its parameters, by pointer
// identity. A located user error names the first violation. The pass manager
// may use this to establish the property on user input.
absl::Status VerifyReturnParamsExplicit(const ir::ProgramPtr& program);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_DIST_TENSOR_CTX_H_
