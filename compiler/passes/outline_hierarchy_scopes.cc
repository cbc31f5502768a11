#include "compiler/passes/outline_hierarchy_scopes.h"

#include "compiler/ir/visitor.h"
#include "compiler/passes/scope_outliner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// A SubWorker runs a self-contained function, not a region of its caller.
class SubWorkerScopeFinder : public ir::IRVisitor {
 public:
  const ir::ExecScopeStmt* found = nullptr;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override {
    if (found == nullptr && s->GetScopeKind() == ir::ScopeKind::kHierarchy &&
        s->role() == ir::Role::kSubWorker) {
      found = s.get();
    }
    ir::IRVisitor::VisitExecScopeStmt(s);
  }
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> OutlineHierarchyScopesPass::Run(const ir::ProgramPtr& program) {
  for (const auto& [gv, f] : program->functions()) {
    SubWorkerScopeFinder finder;
    finder.VisitStmt(f->body());
    if (finder.found != nullptr) {
      return UserError(finder.found->span(),
                       "OutlineHierarchyScopes: a `with pl.at(..., role=pl.Role.SubWorker)` scope "
                       "is not supported; declare the SubWorker as its own @pl.function(level=..., "
                       "role=pl.Role.SubWorker)");
    }
  }
  OutlineSpec spec;
  spec.pass = name();
  spec.matches = [](const ir::ExecScopeStmt& s) {
    return s.GetScopeKind() == ir::ScopeKind::kHierarchy;
  };
  spec.eligible = [](const ir::Function& f) {
    return f.func_type() == ir::FunctionType::kOpaque;
  };
  spec.func_type = [](const ir::ExecScopeStmt&) { return ir::FunctionType::kOpaque; };
  spec.level = [](const ir::ExecScopeStmt& s) { return s.level(); };
  spec.role = [](const ir::ExecScopeStmt& s) { return s.role(); };
  spec.default_name = [](const std::string& parent, const ir::ExecScopeStmt& s, int n) {
    std::string name = parent + "_" + LevelSuffix(s.level().value_or(ir::Level::kUndefined));
    if (s.role() == ir::Role::kOrchestrator) name += "_orch";
    return pto::StrCat(name, "_", n);
  };
  return OutlineScopes(program, spec);
}

std::unique_ptr<Pass> CreateOutlineHierarchyScopesPass() {
  return std::make_unique<OutlineHierarchyScopesPass>();
}

}  // namespace pto::passes
