#include "compiler/passes/materialize_runtime_scopes.h"

#include <optional>
#include <utility>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

using ir::StmtPtr;

// True for an AUTO scope, looking through a one-statement sequence (the
// parser's shape of a `with` block's body).
bool IsAutoScope(const StmtPtr& s) {
  if (auto scope = ir::As<ir::RuntimeScopeStmt>(s)) return !scope->manual();
  if (auto seq = ir::As<ir::SeqStmts>(s); seq != nullptr && seq->stmts().size() == 1) {
    return IsAutoScope(seq->stmts()[0]);
  }
  return false;
}

StmtPtr WrapAuto(const StmtPtr& body) {
  if (IsAutoScope(body)) return body;
  return std::make_shared<ir::RuntimeScopeStmt>("", /*manual=*/false, body, ir::AttrList{},
                                                body->span());
}

// A loop or branch body in an AUTO scope. Its trailing yield stays outside
// the scope, where the IR's loop and branch shape wants it; code generation
// emits no block for a scope, so the yielded values are the same either way.
StmtPtr WrapAutoKeepingYield(const StmtPtr& body) {
  auto seq = ir::As<ir::SeqStmts>(body);
  if (seq == nullptr || seq->stmts().empty() || !ir::Is<ir::YieldStmt>(seq->stmts().back())) {
    return ir::Is<ir::YieldStmt>(body) ? body : WrapAuto(body);
  }
  std::vector<StmtPtr> inner(seq->stmts().begin(), seq->stmts().end() - 1);
  if (inner.size() == 1 && IsAutoScope(inner[0])) return body;
  if (inner.empty()) return body;
  StmtPtr scoped = WrapAuto(ir::SeqStmts::Flatten(inner, body->span()));
  return std::make_shared<ir::SeqStmts>(std::vector<StmtPtr>{scoped, seq->stmts().back()},
                                        body->span());
}

class ScopeInserter : public ir::IRMutator {
 protected:
  StmtPtr MutateRuntimeScopeStmt(const std::shared_ptr<const ir::RuntimeScopeStmt>& s) override {
    if (s->manual()) ++manual_depth_;
    StmtPtr out = ir::IRMutator::MutateRuntimeScopeStmt(s);
    if (s->manual()) --manual_depth_;
    return out;
  }

  StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    StmtPtr base = ir::IRMutator::MutateForStmt(s);
    auto loop = ir::As<ir::ForStmt>(base);
    if (manual_depth_ > 0 || loop == nullptr) return base;
    StmtPtr body = WrapAutoKeepingYield(loop->body());
    if (body == loop->body()) return base;
    return std::make_shared<ir::ForStmt>(loop->loop_var(), loop->start(), loop->stop(),
                                         loop->step(), loop->iter_args(), std::move(body),
                                         loop->return_vars(), loop->for_kind(), loop->attrs(),
                                         loop->span());
  }

  StmtPtr MutateIfStmt(const std::shared_ptr<const ir::IfStmt>& s) override {
    StmtPtr base = ir::IRMutator::MutateIfStmt(s);
    auto branch = ir::As<ir::IfStmt>(base);
    if (manual_depth_ > 0 || branch == nullptr) return base;
    StmtPtr then_body = WrapAutoKeepingYield(branch->then_body());
    std::optional<StmtPtr> else_body = branch->else_body();
    if (else_body.has_value()) else_body = WrapAutoKeepingYield(*else_body);
    if (then_body == branch->then_body() && else_body == branch->else_body()) return base;
    return std::make_shared<ir::IfStmt>(branch->condition(), std::move(then_body),
                                        std::move(else_body), branch->return_vars(),
                                        branch->span());
  }

 private:
  int manual_depth_ = 0;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> MaterializeRuntimeScopesPass::Run(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& [gv, func] : program->functions()) {
    if (func->func_type() != ir::FunctionType::kOrchestration ||
        !ir::GetAttr<bool>(func->attrs(), kAttrAutoScope).value_or(true)) {
      functions.push_back(func);
      continue;
    }
    ScopeInserter inserter;
    StmtPtr body = WrapAuto(inserter.MutateStmt(func->body()));
    ASSIGN_OR_RETURN(
        ir::FunctionPtr scoped,
        ir::Function::Create(func->name(), func->params(), func->param_directions(),
                             func->return_types(), std::move(body), func->func_type(),
                             func->level(), func->role(),
                             ir::WithAttr(func->attrs(), kAttrAutoScope, false),
                             func->requires_runtime_binding(), func->span()));
    functions.push_back(std::move(scoped));
    changed = true;
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateMaterializeRuntimeScopesPass() {
  return std::make_unique<MaterializeRuntimeScopesPass>();
}

}  // namespace pto::passes
