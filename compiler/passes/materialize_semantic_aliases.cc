#include "compiler/passes/materialize_semantic_aliases.h"

#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/memory_reuse.h"

namespace pto::passes {

absl::StatusOr<ir::ProgramPtr> MaterializeSemanticAliasesPass::Run(
    const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, MaterializeCarries);
}

std::unique_ptr<Pass> CreateMaterializeSemanticAliasesPass() {
  return std::make_unique<MaterializeSemanticAliasesPass>();
}

}  // namespace pto::passes
