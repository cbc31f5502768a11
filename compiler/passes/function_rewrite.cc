#include "compiler/passes/function_rewrite.h"

#include <vector>

#include "compiler/support/status_macros.h"

namespace pto::passes {

absl::StatusOr<ir::ProgramPtr> RewriteFunctionBodies(const ir::ProgramPtr& program,
                                                     const BodyRewrite& rewrite) {
  std::vector<ir::FunctionPtr> functions;
  functions.reserve(program->functions().size());
  bool changed = false;
  for (const auto& [gv, func] : program->functions()) {
    ASSIGN_OR_RETURN(ir::StmtPtr body, rewrite(func));
    if (body == func->body()) {
      functions.push_back(func);
    } else {
      functions.push_back(func->WithBody(std::move(body)));
      changed = true;
    }
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

}  // namespace pto::passes
