#include "compiler/ir/visitor.h"

#include <variant>

namespace pto::ir {

void IRVisitor::VisitProgram(const ProgramPtr& program) {
  if (program == nullptr) return;
  for (const auto& [gv, func] : program->functions()) VisitFunction(func);
}

void IRVisitor::VisitFunction(const FunctionPtr& func) {
  if (func == nullptr) return;
  // Params first: their types may name other params (dynamic shapes).
  for (const VarPtr& p : func->params()) VisitVarDef(p);
  for (const TypePtr& t : func->return_types()) VisitType(t);
  VisitAttrs(func->attrs());
  VisitStmt(func->body());
}

void IRVisitor::VisitStmt(const StmtPtr& stmt) {
  if (stmt == nullptr) return;
  switch (stmt->kind()) {
    case NodeKind::kAssignStmt:
      return VisitAssignStmt(std::static_pointer_cast<const AssignStmt>(stmt));
    case NodeKind::kEvalStmt:
      return VisitEvalStmt(std::static_pointer_cast<const EvalStmt>(stmt));
    case NodeKind::kReturnStmt:
      return VisitReturnStmt(std::static_pointer_cast<const ReturnStmt>(stmt));
    case NodeKind::kSeqStmts:
      return VisitSeqStmts(std::static_pointer_cast<const SeqStmts>(stmt));
    case NodeKind::kIfStmt:
      return VisitIfStmt(std::static_pointer_cast<const IfStmt>(stmt));
    case NodeKind::kForStmt:
      return VisitForStmt(std::static_pointer_cast<const ForStmt>(stmt));
    case NodeKind::kWhileStmt:
      return VisitWhileStmt(std::static_pointer_cast<const WhileStmt>(stmt));
    case NodeKind::kYieldStmt:
      return VisitYieldStmt(std::static_pointer_cast<const YieldStmt>(stmt));
    case NodeKind::kCommDomainScopeStmt:
      return VisitCommDomainScopeStmt(std::static_pointer_cast<const CommDomainScopeStmt>(stmt));
    case NodeKind::kRuntimeScopeStmt:
      return VisitRuntimeScopeStmt(std::static_pointer_cast<const RuntimeScopeStmt>(stmt));
    case NodeKind::kExecScopeStmt:
      return VisitExecScopeStmt(std::static_pointer_cast<const ExecScopeStmt>(stmt));
    case NodeKind::kBreakStmt:
      return VisitBreakStmt(std::static_pointer_cast<const BreakStmt>(stmt));
    case NodeKind::kContinueStmt:
      return VisitContinueStmt(std::static_pointer_cast<const ContinueStmt>(stmt));
    default:
      return;  // Not a statement kind; Stmt::Matches rules it out.
  }
}

void IRVisitor::VisitExpr(const ExprPtr& expr) {
  if (expr == nullptr) return;
  switch (expr->kind()) {
    case NodeKind::kVar:
      return VisitVar(std::static_pointer_cast<const Var>(expr));
    case NodeKind::kIterArg:
      return VisitIterArg(std::static_pointer_cast<const IterArg>(expr));
    case NodeKind::kMemRef:
      return VisitMemRef(std::static_pointer_cast<const MemRef>(expr));
    case NodeKind::kWindowBuffer:
      return VisitWindowBuffer(std::static_pointer_cast<const WindowBuffer>(expr));
    case NodeKind::kOp:
      return VisitOp(std::static_pointer_cast<const Op>(expr));
    case NodeKind::kGlobalVar:
      return VisitGlobalVar(std::static_pointer_cast<const GlobalVar>(expr));
    case NodeKind::kConstInt:
      return VisitConstInt(std::static_pointer_cast<const ConstInt>(expr));
    case NodeKind::kConstFloat:
      return VisitConstFloat(std::static_pointer_cast<const ConstFloat>(expr));
    case NodeKind::kConstBool:
      return VisitConstBool(std::static_pointer_cast<const ConstBool>(expr));
    case NodeKind::kConstString:
      return VisitConstString(std::static_pointer_cast<const ConstString>(expr));
    case NodeKind::kDynDim:
      return VisitDynDim(std::static_pointer_cast<const DynDim>(expr));
    case NodeKind::kBinaryExpr:
      return VisitBinaryExpr(std::static_pointer_cast<const BinaryExpr>(expr));
    case NodeKind::kUnaryExpr:
      return VisitUnaryExpr(std::static_pointer_cast<const UnaryExpr>(expr));
    case NodeKind::kCall:
      return VisitCall(std::static_pointer_cast<const Call>(expr));
    case NodeKind::kMakeTuple:
      return VisitMakeTuple(std::static_pointer_cast<const MakeTuple>(expr));
    case NodeKind::kTupleGetItem:
      return VisitTupleGetItem(std::static_pointer_cast<const TupleGetItem>(expr));
    case NodeKind::kCast:
      return VisitCast(std::static_pointer_cast<const Cast>(expr));
    default:
      return;
  }
}

void IRVisitor::VisitType(const TypePtr& type) {
  if (type == nullptr) return;
  switch (type->kind()) {
    case NodeKind::kScalarType:
      return VisitScalarType(std::static_pointer_cast<const ScalarType>(type));
    case NodeKind::kTensorType:
      return VisitTensorType(std::static_pointer_cast<const TensorType>(type));
    case NodeKind::kDistributedTensorType:
      return VisitDistributedTensorType(
          std::static_pointer_cast<const DistributedTensorType>(type));
    case NodeKind::kTileType:
      return VisitTileType(std::static_pointer_cast<const TileType>(type));
    case NodeKind::kTupleType:
      return VisitTupleType(std::static_pointer_cast<const TupleType>(type));
    case NodeKind::kArrayType:
      return VisitArrayType(std::static_pointer_cast<const ArrayType>(type));
    default:
      return VisitLeafType(type);
  }
}

void IRVisitor::VisitVarDef(const VarPtr& var) {
  if (var == nullptr) return;
  VisitType(var->type());
  if (auto m = As<MemRef>(var)) {
    VisitExpr(m->addr());
  } else if (auto wb = As<WindowBuffer>(var)) {
    VisitExpr(wb->base());
    VisitExpr(wb->size());
  }
}

void IRVisitor::VisitAttrs(const AttrList& attrs) {
  for (const auto& [key, value] : attrs) {
    if (const auto* e = std::get_if<ExprPtr>(&value)) {
      VisitExpr(*e);
    } else if (const auto* es = std::get_if<std::vector<ExprPtr>>(&value)) {
      VisitExprs(*es);
    }
  }
}

void IRVisitor::VisitExprs(const std::vector<ExprPtr>& exprs) {
  for (const ExprPtr& e : exprs) VisitExpr(e);
}

// ---- Types ----

void IRVisitor::VisitScalarType(const std::shared_ptr<const ScalarType>&) {}

void IRVisitor::VisitShapedFields(const ShapedType& type) {
  VisitExprs(type.shape());
  if (type.memref().has_value()) VisitExpr(*type.memref());
}

void IRVisitor::VisitTensorFields(const TensorType& type) {
  VisitShapedFields(type);
  if (const auto& view = type.tensor_view()) {
    VisitExprs(view->stride);
    VisitExprs(view->valid_shape);
  }
}

void IRVisitor::VisitTensorType(const std::shared_ptr<const TensorType>& type) {
  VisitTensorFields(*type);
}

void IRVisitor::VisitDistributedTensorType(
    const std::shared_ptr<const DistributedTensorType>& type) {
  VisitTensorFields(*type);
  if (type->window_buffer().has_value()) VisitExpr(*type->window_buffer());
}

void IRVisitor::VisitTileType(const std::shared_ptr<const TileType>& type) {
  VisitShapedFields(*type);
  VisitExprs(type->valid_shape());
}

void IRVisitor::VisitTupleType(const std::shared_ptr<const TupleType>& type) {
  for (const TypePtr& t : type->types()) VisitType(t);
}

void IRVisitor::VisitArrayType(const std::shared_ptr<const ArrayType>& type) {
  VisitExpr(type->extent());
}

void IRVisitor::VisitLeafType(const TypePtr&) {}

// ---- Expressions ----

void IRVisitor::VisitVar(const VarPtr& var) { VisitType(var->type()); }

void IRVisitor::VisitIterArg(const IterArgPtr& var) { VisitType(var->type()); }

void IRVisitor::VisitMemRef(const MemRefPtr& var) {
  VisitType(var->type());
  VisitExpr(var->addr());
}

void IRVisitor::VisitWindowBuffer(const WindowBufferPtr& var) {
  VisitType(var->type());
  VisitExpr(var->base());
  VisitExpr(var->size());
}

void IRVisitor::VisitOp(const OpPtr& op) { VisitType(op->type()); }

void IRVisitor::VisitGlobalVar(const GlobalVarPtr& gv) { VisitType(gv->type()); }

void IRVisitor::VisitConstInt(const std::shared_ptr<const ConstInt>& expr) {
  VisitType(expr->type());
}

void IRVisitor::VisitConstFloat(const std::shared_ptr<const ConstFloat>& expr) {
  VisitType(expr->type());
}

void IRVisitor::VisitConstBool(const std::shared_ptr<const ConstBool>& expr) {
  VisitType(expr->type());
}

void IRVisitor::VisitConstString(const std::shared_ptr<const ConstString>& expr) {
  VisitType(expr->type());
}

void IRVisitor::VisitBinaryExpr(const std::shared_ptr<const BinaryExpr>& expr) {
  VisitExpr(expr->lhs());
  VisitExpr(expr->rhs());
  VisitType(expr->type());
}

void IRVisitor::VisitUnaryExpr(const std::shared_ptr<const UnaryExpr>& expr) {
  VisitExpr(expr->operand());
  VisitType(expr->type());
}

void IRVisitor::VisitCall(const CallPtr& call) {
  VisitExpr(call->op());
  VisitExprs(call->args());
  VisitAttrs(call->kwargs());
  VisitAttrs(call->attrs());
  VisitType(call->type());
}

void IRVisitor::VisitMakeTuple(const std::shared_ptr<const MakeTuple>& expr) {
  VisitExprs(expr->elements());
  VisitType(expr->type());
}

void IRVisitor::VisitTupleGetItem(const std::shared_ptr<const TupleGetItem>& expr) {
  VisitExpr(expr->tuple());
  VisitType(expr->type());
}

void IRVisitor::VisitCast(const std::shared_ptr<const Cast>& expr) {
  VisitExpr(expr->value());
  VisitType(expr->type());
}

// ---- Statements ----

void IRVisitor::VisitAssignStmt(const std::shared_ptr<const AssignStmt>& stmt) {
  VisitExpr(stmt->value());
  VisitVarDef(stmt->var());
}

void IRVisitor::VisitEvalStmt(const std::shared_ptr<const EvalStmt>& stmt) {
  VisitExpr(stmt->expr());
}

void IRVisitor::VisitReturnStmt(const std::shared_ptr<const ReturnStmt>& stmt) {
  VisitExprs(stmt->value());
}

void IRVisitor::VisitSeqStmts(const std::shared_ptr<const SeqStmts>& stmt) {
  for (const StmtPtr& s : stmt->stmts()) VisitStmt(s);
}

void IRVisitor::VisitIfStmt(const std::shared_ptr<const IfStmt>& stmt) {
  VisitExpr(stmt->condition());
  VisitStmt(stmt->then_body());
  if (stmt->else_body().has_value()) VisitStmt(*stmt->else_body());
  for (const VarPtr& v : stmt->return_vars()) VisitVarDef(v);
}

void IRVisitor::VisitForStmt(const std::shared_ptr<const ForStmt>& stmt) {
  // Evaluation order: bounds and init values outside the loop, then the body.
  VisitExpr(stmt->start());
  VisitExpr(stmt->stop());
  VisitExpr(stmt->step());
  for (const IterArgPtr& ia : stmt->iter_args()) {
    if (ia != nullptr) VisitExpr(ia->init_value());
  }
  VisitAttrs(stmt->attrs());
  VisitVarDef(stmt->loop_var());
  for (const IterArgPtr& ia : stmt->iter_args()) VisitVarDef(ia);
  VisitStmt(stmt->body());
  for (const VarPtr& v : stmt->return_vars()) VisitVarDef(v);
}

void IRVisitor::VisitWhileStmt(const std::shared_ptr<const WhileStmt>& stmt) {
  for (const IterArgPtr& ia : stmt->iter_args()) {
    if (ia != nullptr) VisitExpr(ia->init_value());
  }
  // The condition reads the iter args (`pl.cond(...)` over them).
  for (const IterArgPtr& ia : stmt->iter_args()) VisitVarDef(ia);
  VisitExpr(stmt->condition());
  VisitStmt(stmt->body());
  for (const VarPtr& v : stmt->return_vars()) VisitVarDef(v);
}

void IRVisitor::VisitYieldStmt(const std::shared_ptr<const YieldStmt>& stmt) {
  VisitExprs(stmt->value());
}

void IRVisitor::VisitCommDomainScopeStmt(const std::shared_ptr<const CommDomainScopeStmt>& stmt) {
  for (const WindowBufferPtr& slot : stmt->slots()) VisitExpr(slot);
  VisitAttrs(stmt->attrs());
  VisitStmt(stmt->body());
}

void IRVisitor::VisitRuntimeScopeStmt(const std::shared_ptr<const RuntimeScopeStmt>& stmt) {
  VisitAttrs(stmt->attrs());
  VisitStmt(stmt->body());
}

void IRVisitor::VisitExecScopeStmt(const std::shared_ptr<const ExecScopeStmt>& stmt) {
  VisitExpr(stmt->core_num());
  // `with pl.at(...) as tid:` defines tid after the body; the other attrs use.
  VarPtr tid = ScopeTaskIdVar(*stmt);
  if (tid == nullptr) {
    VisitAttrs(stmt->attrs());
  } else {
    AttrList uses;
    for (const auto& kv : stmt->attrs()) {
      if (kv.first != kAttrTaskIdVar) uses.push_back(kv);
    }
    VisitAttrs(uses);
  }
  VisitStmt(stmt->body());
  if (tid != nullptr) VisitVarDef(tid);
}

VarPtr ScopeTaskIdVar(const ExecScopeStmt& stmt) {
  std::optional<ExprPtr> e = GetAttr<ExprPtr>(stmt.attrs(), kAttrTaskIdVar);
  return e.has_value() ? As<Var>(*e) : nullptr;
}

}  // namespace pto::ir
