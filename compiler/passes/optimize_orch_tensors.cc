#include "compiler/passes/optimize_orch_tensors.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/passes/optimize_orch_tensors_internal.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace orch_tensors {

std::vector<ir::StmtPtr> TopLevel(const ir::StmtPtr& body) {
  if (auto seq = ir::As<ir::SeqStmts>(body)) return seq->stmts();
  return body != nullptr ? std::vector<ir::StmtPtr>{body} : std::vector<ir::StmtPtr>{};
}

// The kernel a call runs, or nullptr.
ir::FunctionPtr KernelOf(const ir::ProgramPtr& program, const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op())) return nullptr;
  ir::FunctionPtr f = program->GetFunction(call->op()->name());
  return f != nullptr && f->body() != nullptr && ir::IsInCoreType(f->func_type()) ? f : nullptr;
}


std::optional<FinalStore> FindFinalStore(const ir::FunctionPtr& f) {
  std::vector<ir::StmtPtr> stmts = TopLevel(f->body());
  if (f->return_types().size() != 1 || stmts.empty()) return std::nullopt;
  auto ret = ir::As<ir::ReturnStmt>(stmts.back());
  if (ret == nullptr || ret->value().size() != 1) return std::nullopt;
  auto r = ir::As<ir::Var>(ret->value()[0]);
  // The store right before the return: every read of the kernel's inputs
  // happens before it (what merging an input into the output relies on).
  if (stmts.size() >= 2) {
    auto a = ir::As<ir::AssignStmt>(stmts[stmts.size() - 2]);
    if (a == nullptr || a->var() != r || !ir::IsOp(a->value(), ir::OpId::kPlTileStore)) {
      return std::nullopt;
    }
    const auto& args = ir::As<ir::Call>(a->value())->args();
    if (args.size() < 3) return std::nullopt;
    for (size_t i = 0; i < f->params().size(); ++i) {
      if (args[2] == f->params()[i] && f->param_directions()[i] == ir::ParamDirection::kOut) {
        return FinalStore{i, a};
      }
    }
  }
  return std::nullopt;
}

absl::StatusOr<ir::FunctionPtr> Rebuilt(const ir::FunctionPtr& f, std::string name,
                                        std::vector<ir::VarPtr> params,
                                        std::vector<ir::ParamDirection> dirs,
                                        std::vector<ir::TypePtr> returns, ir::StmtPtr body) {
  return ir::Function::Create(std::move(name), std::move(params), std::move(dirs),
                              std::move(returns), std::move(body), f->func_type(), f->level(),
                              f->role(), f->attrs(), f->requires_runtime_binding(), f->span());
}

void UseCounter::VisitCall(const ir::CallPtr& call) {
  if (ir::Is<ir::GlobalVar>(call->op())) ++calls[call->op()->name()];
  ir::IRVisitor::VisitCall(call);
}
void UseCounter::VisitVar(const ir::VarPtr& var) {
  ++uses[var.get()];
  ir::IRVisitor::VisitVar(var);
}
void UseCounter::VisitIterArg(const ir::IterArgPtr& var) {
  ++uses[var.get()];
  ir::IRVisitor::VisitIterArg(var);
}

UseCounter CountUses(const ir::ProgramPtr& program) {
  UseCounter counts;
  for (const auto& [gv, f] : program->functions()) counts.VisitFunction(f);
  return counts;
}

absl::StatusOr<ir::ProgramPtr> Rebuild(const ir::ProgramPtr& program,
                                       std::vector<ir::FunctionPtr> funcs) {
  return ir::Program::Create(std::move(funcs), program->name(), program->span());
}

}  // namespace orch_tensors

absl::StatusOr<ir::ProgramPtr> OptimizeOrchTensorsPass::Run(const ir::ProgramPtr& program) {
  ASSIGN_OR_RETURN(ir::ProgramPtr reused, orch_tensors::ReuseIterArgs(program));
  ASSIGN_OR_RETURN(ir::ProgramPtr assembled, orch_tensors::RewriteAssembleLoops(reused));
  return orch_tensors::ExternalizeWindows(assembled);
}

std::unique_ptr<Pass> CreateOptimizeOrchTensorsPass() {
  return std::make_unique<OptimizeOrchTensorsPass>();
}

}  // namespace pto::passes
