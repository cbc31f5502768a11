#include "compiler/passes/property_verifiers.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/derive_call_directions.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using CommScopePtr = std::shared_ptr<const ir::CommDomainScopeStmt>;

class CommScopeCollector : public ir::IRVisitor {
 public:
  std::vector<CommScopePtr> scopes;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitCommDomainScopeStmt(const CommScopePtr& stmt) override {
    scopes.push_back(stmt);
    IRVisitor::VisitCommDomainScopeStmt(stmt);
  }
};

// Finds pld.system.get_comm_ctx calls.
class GetCommCtxFinder : public ir::IRVisitor {
 public:
  ir::CallPtr first;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitCall(const ir::CallPtr& call) override {
    if (first != nullptr) return;
    if (call->op() != nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
        call->op()->name() == "pld.system.get_comm_ctx") {
      first = call;
      return;
    }
    IRVisitor::VisitCall(call);
  }
};

absl::Status VerifyDistTensorCtx(const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    if (func->IsHostOrch()) continue;
    GetCommCtxFinder finder;
    finder.VisitStmt(func->body());
    if (finder.first != nullptr) {
      return InternalError(
          finder.first->span(),
          pto::StrCat("Function '", func->name(),
                      "' still calls pld.system.get_comm_ctx. Only host orchestration may query a "
                      "communication context at runtime; chip orchestrations and device kernels "
                      "must receive it as an explicit CommCtx parameter (run "
                      "MaterializeDistTensorCtx)."));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyCommDomainScopes(const std::vector<CommScopePtr>& scopes) {
  // WindowBuffer -> the scope that first holds it as a slot.
  absl::flat_hash_map<const ir::WindowBuffer*, const ir::CommDomainScopeStmt*> owner;
  for (const CommScopePtr& scope : scopes) {
    if (scope == nullptr) return InternalError(Span(), "null CommDomainScopeStmt in IR");
    const std::string& n = scope->name_hint();
    if (scope->slots().empty()) {
      return InternalError(scope->span(),
                           pto::StrCat("CommDomainScopeStmt '", n,
                                       "' has no slots — every comm-domain scope must carry at "
                                       "least one WindowBuffer"));
    }
    for (const ir::WindowBufferPtr& slot : scope->slots()) {
      if (slot == nullptr) {
        return InternalError(scope->span(),
                             pto::StrCat("CommDomainScopeStmt '", n, "' has a null slot"));
      }
      auto [it, inserted] = owner.emplace(slot.get(), scope.get());
      if (!inserted && it->second != scope.get()) {
        return InternalError(scope->span(),
                             pto::StrCat("WindowBuffer '", slot->name_hint(),
                                         "' appears in multiple CommDomainScopeStmts ('",
                                         it->second->name_hint(), "' and '", n, "')"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyProperty(IRProperty property, const ir::ProgramPtr& program) {
  switch (property) {
    case IRProperty::kCommDomainScopesMaterialized: {
      CommScopeCollector collector;
      for (const auto& [gv, func] : program->functions()) collector.VisitStmt(func->body());
      return VerifyCommDomainScopes(collector.scopes);
    }
    case IRProperty::kDistTensorCtxMaterialized:
      return VerifyDistTensorCtx(program);
    case IRProperty::kCallDirectionsResolved:
      return VerifyCallDirectionsResolved(program);
    default:
      return absl::OkStatus();
  }
}

}  // namespace pto::passes
