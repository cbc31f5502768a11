#include "compiler/passes/outline_incore_scopes.h"

#include "compiler/passes/scope_outliner.h"
#include "compiler/support/strings.h"

namespace pto::passes {

absl::StatusOr<ir::ProgramPtr> OutlineIncoreScopesPass::Run(const ir::ProgramPtr& program) {
  OutlineSpec spec;
  spec.pass = name();
  spec.matches = [](const ir::ExecScopeStmt& s) {
    return s.GetScopeKind() == ir::ScopeKind::kInCore;
  };
  spec.eligible = [](const ir::Function& f) {
    return f.func_type() == ir::FunctionType::kOpaque ||
           f.func_type() == ir::FunctionType::kOrchestration ||
           f.func_type() == ir::FunctionType::kGroup;
  };
  spec.func_type = [](const ir::ExecScopeStmt&) { return ir::FunctionType::kInCore; };
  spec.level = [](const ir::ExecScopeStmt&) { return std::optional<ir::Level>(); };
  spec.role = [](const ir::ExecScopeStmt&) { return std::optional<ir::Role>(); };
  spec.default_name = [](const std::string& parent, const ir::ExecScopeStmt&, int n) {
    return pto::StrCat(parent, "_incore_", n);
  };
  spec.promote_parent = true;
  // The opt-in of OptimizeOrchTensors' static windows rides on the kernel.
  spec.func_attrs = [](const ir::ExecScopeStmt& s) {
    ir::AttrList attrs;
    if (ir::GetAttr<bool>(s.attrs(), "windowize").value_or(false)) {
      attrs.emplace_back("windowize", true);
    }
    return attrs;
  };
  return OutlineScopes(program, spec);
}

std::unique_ptr<Pass> CreateOutlineIncoreScopesPass() {
  return std::make_unique<OutlineIncoreScopesPass>();
}

}  // namespace pto::passes
