#include "compiler/passes/property_verifiers.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/classify_iter_arg_carry.h"
#include "compiler/passes/expand_mixed_kernel.h"
#include "compiler/passes/infer_tile_memory_space.h"
#include "compiler/passes/derive_call_directions.h"
#include "compiler/passes/materialize_runtime_scopes.h"
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
        ir::IsOp(call, ir::OpId::kPldSystemGetCommCtx)) {
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

// The first statement or call that breaks a structural property: a scope kind
// still present, a loop kind, break/continue, or a call of an Inline function.
class FirstOffender : public ir::IRVisitor {
 public:
  FirstOffender(IRProperty property, const ir::ProgramPtr& program)
      : property_(property), program_(program) {}
  const ir::Node* found = nullptr;
  std::string what;

  void VisitStmt(const ir::StmtPtr& stmt) override {
    if (found == nullptr) ir::IRVisitor::VisitStmt(stmt);
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override {
    ir::ScopeKind k = s->GetScopeKind();
    if ((property_ == IRProperty::kSplitIncoreOrch && k == ir::ScopeKind::kInCore) ||
        (property_ == IRProperty::kHierarchyOutlined && k == ir::ScopeKind::kHierarchy) ||
        (property_ == IRProperty::kClusterOutlined &&
         (k == ir::ScopeKind::kCluster || k == ir::ScopeKind::kSpmd))) {
      Found(s.get(), "an execution scope is still inline (it was not outlined)");
      return;
    }
    ir::IRVisitor::VisitExecScopeStmt(s);
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    if (property_ == IRProperty::kUnrollResolved && s->for_kind() == ir::ForKind::kUnroll) {
      Found(s.get(), "a pl.unroll loop survives");
      return;
    }
    ir::IRVisitor::VisitForStmt(s);
  }
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    if (property_ == IRProperty::kStructuredCtrlFlow) Found(s.get(), "'break' survives");
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    if (property_ == IRProperty::kStructuredCtrlFlow) Found(s.get(), "'continue' survives");
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (found != nullptr) return;
    if (property_ == IRProperty::kInlineFunctionsEliminated && ir::Is<ir::GlobalVar>(call->op())) {
      ir::FunctionPtr callee = program_->GetFunction(call->op()->name());
      if (callee != nullptr && callee->func_type() == ir::FunctionType::kInline) {
        Found(call.get(), pto::StrCat("a call of Inline function '", callee->name(), "' survives"));
        return;
      }
    }
    ir::IRVisitor::VisitCall(call);
  }

 private:
  void Found(const ir::Node* n, std::string w) {
    if (found != nullptr) return;
    found = n;
    what = std::move(w);
  }
  IRProperty property_;
  const ir::ProgramPtr& program_;
};

absl::Status VerifyNoOffender(IRProperty property, const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    if (property == IRProperty::kInlineFunctionsEliminated &&
        func->func_type() == ir::FunctionType::kInline) {
      return InternalError(func->span(), pto::StrCat("property InlineFunctionsEliminated: Inline "
                                                     "function '", func->name(),
                                                     "' is still in the program"));
    }
    FirstOffender finder(property, program);
    finder.VisitStmt(func->body());
    if (finder.found != nullptr) {
      return InternalError(finder.found->span(),
                           pto::StrCat("property ", IRPropertyName(property), ": ", finder.what,
                                       " in function '", func->name(), "'"));
    }
  }
  return absl::OkStatus();
}

// SSAForm: every Var is defined once (parameter, assignment, loop variable,
// iter arg or return var).
class DefCounter : public ir::IRVisitor {
 public:
  const ir::Var* twice = nullptr;
  Span where;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitVarDef(const ir::VarPtr& var) override {
    if (!seen_.insert(var.get()).second && twice == nullptr) {
      twice = var.get();
      where = var->span();
    }
    ir::IRVisitor::VisitVarDef(var);
  }
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    if (!seen_.contains(stmt->var().get())) {
      ir::IRVisitor::VisitAssignStmt(stmt);
      return;
    }
    if (twice == nullptr) {
      twice = stmt->var().get();
      where = stmt->span();
    }
  }

 private:
  absl::flat_hash_set<const ir::Var*> seen_;
};

absl::Status VerifySSA(const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    DefCounter counter;
    counter.VisitFunction(func);
    if (counter.twice != nullptr) {
      return InternalError(counter.where,
                           pto::StrCat("property SSAForm: '", counter.twice->name_hint(),
                                       "' is assigned more than once in function '", func->name(),
                                       "'"));
    }
  }
  // In SSA form a value assigned inside a loop or if body is not read after it
  // (ConvertToSSA carried every such value out as an iter arg or phi).
  absl::Status scoping = ir::VerifyProgram(program, {.strict_scoping = true});
  if (scoping.ok()) return scoping;
  absl::Status out(absl::StatusCode::kInternal,
                   pto::StrCat("property SSAForm: ", scoping.message()));
  scoping.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

// NoNestedCalls: a call is only the whole value of an assignment or an
// expression statement (a while condition, which runs every iteration, is not
// checked).
// NormalizedStmtStructure: no SeqStmts directly inside a SeqStmts.
class StructureChecker : public ir::IRVisitor {
 public:
  explicit StructureChecker(IRProperty property) : property_(property) {}
  const ir::Node* found = nullptr;
  std::string what;

  void VisitStmt(const ir::StmtPtr& stmt) override {
    top_ = nullptr;
    if (found == nullptr) ir::IRVisitor::VisitStmt(stmt);
  }
  void VisitExpr(const ir::ExprPtr& expr) override {
    if (found != nullptr || expr == nullptr) return;
    if (property_ == IRProperty::kNoNestedCalls && top_ != expr.get() && ir::Is<ir::Call>(expr)) {
      found = expr.get();
      what = "a call nested in another expression or statement";
      return;
    }
    ir::IRVisitor::VisitExpr(expr);
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAttrs(const ir::AttrList&) override {}
  void VisitCall(const ir::CallPtr& call) override {
    top_ = nullptr;
    ir::IRVisitor::VisitCall(call);
  }
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    top_ = s->value().get();
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    top_ = s->expr().get();
    ir::IRVisitor::VisitEvalStmt(s);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    // The condition runs every iteration: it is not flattened.
    for (const ir::IterArgPtr& ia : s->iter_args()) VisitExpr(ia->init_value());
    VisitStmt(s->body());
  }
  void VisitSeqStmts(const std::shared_ptr<const ir::SeqStmts>& s) override {
    if (property_ == IRProperty::kNormalizedStmtStructure) {
      for (const ir::StmtPtr& c : s->stmts()) {
        if (ir::Is<ir::SeqStmts>(c) && found == nullptr) {
          found = c.get();
          what = "a statement sequence nested directly in another";
        }
      }
    }
    top_ = nullptr;
    ir::IRVisitor::VisitSeqStmts(s);
  }

 private:
  IRProperty property_;
  const ir::Expr* top_ = nullptr;
};

absl::Status VerifyStructure(IRProperty property, const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    StructureChecker checker(property);
    checker.VisitStmt(func->body());
    if (checker.found != nullptr) {
      return InternalError(checker.found->span(),
                           pto::StrCat("property ", IRPropertyName(property), ": ", checker.what,
                                       " in function '", func->name(), "'"));
    }
  }
  return absl::OkStatus();
}

// TensorViewCanonical (strict, after MaterializeTensorStrides): a tensor type
// that has a view states one stride per dim and is not NZ. TileOps2D (after
// FlattenTileNdTo2D): no kernel tile has rank above 2.
class TypeFormChecker : public ir::IRVisitor {
 public:
  explicit TypeFormChecker(IRProperty property) : property_(property) {}
  std::string what;
  Span at;

  void VisitFunction(const ir::FunctionPtr& func) override {
    at_ = func->span();
    kernel_ = ir::IsInCoreType(func->func_type());
    ir::IRVisitor::VisitFunction(func);
  }
  void VisitStmt(const ir::StmtPtr& stmt) override {
    if (stmt != nullptr) at_ = stmt->span();
    ir::IRVisitor::VisitStmt(stmt);
  }

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    Span saved = at_;
    at_ = var->span();
    ir::IRVisitor::VisitVarDef(var);
    at_ = saved;
  }
  void VisitTensorType(const std::shared_ptr<const ir::TensorType>& type) override {
    CheckTensor(*type);
    ir::IRVisitor::VisitTensorType(type);
  }
  void VisitDistributedTensorType(
      const std::shared_ptr<const ir::DistributedTensorType>& type) override {
    CheckTensor(*type);
    ir::IRVisitor::VisitDistributedTensorType(type);
  }
  void VisitTileType(const std::shared_ptr<const ir::TileType>& type) override {
    if (property_ == IRProperty::kTileOps2D && kernel_ && type->shape().size() > 2 &&
        what.empty()) {
      what = pto::StrCat("a tile of rank ", type->shape().size());
      at = at_;
    }
    ir::IRVisitor::VisitTileType(type);
  }

 private:
  void CheckTensor(const ir::TensorType& t) {
    if (property_ != IRProperty::kTensorViewCanonical || !t.tensor_view() || !what.empty()) return;
    const ir::TensorView& v = *t.tensor_view();
    if (v.layout == ir::TensorLayout::kNZ) {
      what = "a tensor with layout NZ";
    } else if (v.stride.size() != t.shape().size()) {
      what = pto::StrCat("a tensor view with ", v.stride.size(), " strides for ",
                         t.shape().size(), " dims");
    } else {
      return;
    }
    at = at_;
  }

  IRProperty property_;
  Span at_;
  bool kernel_ = false;
};

absl::Status VerifyTypeForms(IRProperty property, const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    TypeFormChecker checker(property);
    checker.VisitFunction(func);
    if (!checker.what.empty()) {
      return InternalError(checker.at, pto::StrCat("property ", IRPropertyName(property), ": ",
                                                   checker.what, " in function '", func->name(),
                                                   "'"));
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

// RuntimeScopesMaterialized: every chip orchestration has had its scopes
// placed (by MaterializeRuntimeScopes or by hand), i.e. says auto_scope=False.
absl::Status VerifyRuntimeScopes(const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    if (func->func_type() != ir::FunctionType::kOrchestration) continue;
    if (!ir::GetAttr<bool>(func->attrs(), kAttrAutoScope).value_or(true)) continue;
    return InternalError(func->span(),
                         pto::StrCat("chip orchestration '", func->name(),
                                     "' has no placed runtime scopes (auto_scope is not False; "
                                     "run MaterializeRuntimeScopes)"));
  }
  return absl::OkStatus();
}

// IterArgCarryClassified: every iter_arg of a chip orchestration's loops has
// its iter_arg_rebind_<i> plan; without it code generation cannot lower the
// carry.
class UnclassifiedLoopFinder : public ir::IRVisitor {
 public:
  std::shared_ptr<const ir::ForStmt> found;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& loop) override {
    for (size_t i = 0; i < loop->iter_args().size() && found == nullptr; ++i) {
      if (!IterArgIsRebind(*loop, i).has_value()) found = loop;
    }
    if (found == nullptr) ir::IRVisitor::VisitForStmt(loop);
  }
};

absl::Status VerifyIterArgCarry(const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    if (func->func_type() != ir::FunctionType::kOrchestration) continue;
    UnclassifiedLoopFinder finder;
    finder.VisitStmt(func->body());
    if (finder.found != nullptr) {
      return InternalError(finder.found->span(),
                           pto::StrCat("a loop of '", func->name(),
                                       "' carries an iter_arg without an iter_arg_rebind plan "
                                       "(run ClassifyIterArgCarry)"));
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
    case IRProperty::kRuntimeScopesMaterialized:
      return VerifyRuntimeScopes(program);
    case IRProperty::kIterArgCarryClassified:
      return VerifyIterArgCarry(program);
    case IRProperty::kSSAForm:
      return VerifySSA(program);
    case IRProperty::kTileMemoryInferred:
      return VerifyTileMemoryInferred(program);
    case IRProperty::kMixedKernelExpanded:
      return VerifyMixedKernelExpanded(program);
    case IRProperty::kNoNestedCalls:
    case IRProperty::kNormalizedStmtStructure:
      return VerifyStructure(property, program);
    case IRProperty::kSplitIncoreOrch:
    case IRProperty::kHierarchyOutlined:
    case IRProperty::kClusterOutlined:
    case IRProperty::kStructuredCtrlFlow:
    case IRProperty::kUnrollResolved:
    case IRProperty::kInlineFunctionsEliminated:
      return VerifyNoOffender(property, program);
    case IRProperty::kTensorViewCanonical:
    case IRProperty::kTileOps2D:
      return VerifyTypeForms(property, program);
    default:
      return absl::OkStatus();
  }
}

bool HasPropertyVerifier(IRProperty property) {
  switch (property) {
    case IRProperty::kCommDomainScopesMaterialized:
    case IRProperty::kDistTensorCtxMaterialized:
    case IRProperty::kCallDirectionsResolved:
    case IRProperty::kRuntimeScopesMaterialized:
    case IRProperty::kIterArgCarryClassified:
    case IRProperty::kSSAForm:
    case IRProperty::kTileMemoryInferred:
    case IRProperty::kMixedKernelExpanded:
    case IRProperty::kNoNestedCalls:
    case IRProperty::kNormalizedStmtStructure:
    case IRProperty::kSplitIncoreOrch:
    case IRProperty::kHierarchyOutlined:
    case IRProperty::kClusterOutlined:
    case IRProperty::kStructuredCtrlFlow:
    case IRProperty::kUnrollResolved:
    case IRProperty::kInlineFunctionsEliminated:
    case IRProperty::kTensorViewCanonical:
    case IRProperty::kTileOps2D:
      return true;
    default:
      return false;
  }
}

}  // namespace pto::passes
