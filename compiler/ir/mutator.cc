#include "compiler/ir/mutator.h"

#include <algorithm>
#include <variant>

namespace pto::ir {

// ---- Vars ----

VarPtr IRMutator::LookupVarReplacement(const Var* var) const {
  auto it = var_map_.find(var);
  return it == var_map_.end() ? nullptr : it->second.second;
}

void IRMutator::SetVarReplacement(const VarPtr& from, VarPtr to) {
  var_map_[from.get()] = {from, std::move(to)};
}

VarPtr IRMutator::RemapVar(const VarPtr& var) {
  if (var == nullptr) return nullptr;
  if (VarPtr mapped = LookupVarReplacement(var.get())) return mapped;
  VarPtr rebuilt = RebuildVar(var);
  // Recorded even when unchanged so the type is mutated once per var, not once
  // per use.
  SetVarReplacement(var, rebuilt);
  return rebuilt;
}

VarPtr IRMutator::RebuildVar(const VarPtr& var) {
  switch (var->kind()) {
    case NodeKind::kIterArg: {
      auto ia = std::static_pointer_cast<const IterArg>(var);
      TypePtr type = MutateType(ia->type());
      ExprPtr init = MutateExpr(ia->init_value());
      if (type == ia->type() && init == ia->init_value()) return var;
      return std::make_shared<IterArg>(ia->name_hint(), std::move(type), std::move(init),
                                       ia->span());
    }
    case NodeKind::kMemRef: {
      auto m = std::static_pointer_cast<const MemRef>(var);
      ExprPtr addr = MutateExpr(m->addr());
      if (addr == m->addr()) return var;
      return std::make_shared<MemRef>(m->name_hint(), m->memory_space(), std::move(addr), m->size(),
                                      m->id(), m->span());
    }
    case NodeKind::kWindowBuffer: {
      auto wb = std::static_pointer_cast<const WindowBuffer>(var);
      VarPtr base = wb->base();
      if (base != nullptr) {
        // The base is an allocation token; only a Var can stand for it.
        if (VarPtr b = As<Var>(MutateExpr(base))) base = b;
      }
      ExprPtr size = MutateExpr(wb->size());
      if (base == wb->base() && size == wb->size()) return var;
      return std::make_shared<WindowBuffer>(std::move(base), std::move(size), wb->load_from_host(),
                                            wb->store_to_host(), wb->span());
    }
    default: {
      TypePtr type = MutateType(var->type());
      if (type == var->type()) return var;
      return std::make_shared<Var>(var->name_hint(), std::move(type), var->span());
    }
  }
}

VarPtr IRMutator::MutateVarDef(const VarPtr& var) { return RemapVar(var); }

ExprPtr IRMutator::MutateVar(const VarPtr& var) { return RemapVar(var); }

std::optional<AttrList> IRMutator::MutateAttrs(const AttrList& attrs) {
  std::optional<AttrList> out;
  for (size_t i = 0; i < attrs.size(); ++i) {
    const AttrValue& value = attrs[i].second;
    std::optional<AttrValue> replaced;
    if (const auto* e = std::get_if<ExprPtr>(&value)) {
      ExprPtr n = MutateExpr(*e);
      if (n != *e) replaced = AttrValue(std::move(n));
    } else if (const auto* es = std::get_if<std::vector<ExprPtr>>(&value)) {
      bool changed = false;
      std::vector<ExprPtr> n = MutateExprs(*es, &changed);
      if (changed) replaced = AttrValue(std::move(n));
    }
    if (replaced.has_value()) {
      if (!out.has_value()) out = attrs;
      (*out)[i].second = std::move(*replaced);
    }
  }
  return out;
}

std::vector<ExprPtr> IRMutator::MutateExprs(const std::vector<ExprPtr>& exprs, bool* changed) {
  std::vector<ExprPtr> out;
  out.reserve(exprs.size());
  for (const ExprPtr& e : exprs) {
    out.push_back(MutateExpr(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

std::vector<VarPtr> IRMutator::MutateVarDefs(const std::vector<VarPtr>& vars, bool* changed) {
  std::vector<VarPtr> out;
  out.reserve(vars.size());
  for (const VarPtr& v : vars) {
    out.push_back(v == nullptr ? v : MutateVarDef(v));
    if (out.back() != v) *changed = true;
  }
  return out;
}

std::vector<IterArgPtr> IRMutator::MutateIterArgs(const std::vector<IterArgPtr>& iter_args,
                                                  bool* changed) {
  std::vector<IterArgPtr> out;
  out.reserve(iter_args.size());
  for (const IterArgPtr& ia : iter_args) {
    IterArgPtr n = ia;
    if (ia != nullptr) {
      // A def hook that breaks the kind contract keeps the old iter arg.
      if (IterArgPtr m = As<IterArg>(MutateVarDef(ia))) n = std::move(m);
    }
    if (n != ia) *changed = true;
    out.push_back(std::move(n));
  }
  return out;
}

StmtPtr IRMutator::MutateBody(const StmtPtr& body, bool* changed) {
  if (body == nullptr) return body;
  StmtPtr n = MutateStmt(body);
  if (n == nullptr) n = std::make_shared<SeqStmts>(std::vector<StmtPtr>{}, body->span());
  if (n != body) *changed = true;
  return n;
}

// ---- Program and Function ----

ProgramPtr IRMutator::MutateProgram(const ProgramPtr& program) {
  if (program == nullptr) return program;
  bool changed = false;
  bool renamed = false;
  std::vector<std::pair<GlobalVarPtr, FunctionPtr>> entries;
  entries.reserve(program->functions().size());
  for (const auto& [gv, func] : program->functions()) {
    FunctionPtr n = MutateFunction(func);
    if (n == func) {
      entries.emplace_back(gv, func);
      continue;
    }
    changed = true;
    if (n != nullptr && gv != nullptr && n->name() != gv->name()) {
      renamed = true;
      entries.emplace_back(std::make_shared<GlobalVar>(n->name(), n->span()), std::move(n));
    } else if (n != nullptr) {
      entries.emplace_back(gv, std::move(n));
    }
  }
  if (!changed) return program;
  if (renamed) {
    // Keep the by-name order of spec §1.1; a duplicate name is left for the
    // verifier to report.
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.first->name() < b.first->name();
    });
  }
  return std::make_shared<const Program>(Program::Private{}, std::move(entries), program->name(),
                                         program->span());
}

FunctionPtr IRMutator::MutateFunction(const FunctionPtr& func) {
  if (func == nullptr) return func;
  bool changed = false;
  std::vector<VarPtr> params = MutateVarDefs(func->params(), &changed);
  std::vector<TypePtr> return_types;
  return_types.reserve(func->return_types().size());
  for (const TypePtr& t : func->return_types()) {
    return_types.push_back(MutateType(t));
    if (return_types.back() != t) changed = true;
  }
  std::optional<AttrList> attrs = MutateAttrs(func->attrs());
  if (attrs.has_value()) changed = true;
  StmtPtr body = MutateBody(func->body(), &changed);
  if (!changed) return func;
  return std::make_shared<const Function>(
      Function::Private{}, func->name(), std::move(params), func->param_directions(),
      std::move(return_types), std::move(body), func->func_type(), func->level(), func->role(),
      attrs.has_value() ? std::move(*attrs) : func->attrs(), func->requires_runtime_binding(),
      func->span());
}

// ---- Types ----

TypePtr IRMutator::MutateType(const TypePtr& type) {
  if (type == nullptr) return type;
  switch (type->kind()) {
    case NodeKind::kTensorType:
      return MutateTensorType(std::static_pointer_cast<const TensorType>(type));
    case NodeKind::kDistributedTensorType:
      return MutateDistributedTensorType(
          std::static_pointer_cast<const DistributedTensorType>(type));
    case NodeKind::kTileType:
      return MutateTileType(std::static_pointer_cast<const TileType>(type));
    case NodeKind::kTupleType:
      return MutateTupleType(std::static_pointer_cast<const TupleType>(type));
    case NodeKind::kArrayType:
      return MutateArrayType(std::static_pointer_cast<const ArrayType>(type));
    default:
      return type;  // Scalars and singletons have no children.
  }
}

std::optional<MemRefPtr> IRMutator::MutateMemRefField(const std::optional<MemRefPtr>& memref,
                                                      bool* changed) {
  if (!memref.has_value() || *memref == nullptr) return memref;
  // Only a MemRef can stand in this slot; anything else keeps the old one.
  MemRefPtr n = As<MemRef>(MutateExpr(*memref));
  if (n == nullptr || n == *memref) return memref;
  *changed = true;
  return n;
}

std::optional<TensorView> IRMutator::MutateTensorViewField(const std::optional<TensorView>& view,
                                                           bool* changed) {
  if (!view.has_value()) return view;
  TensorView n = *view;
  n.stride = MutateExprs(view->stride, changed);
  n.valid_shape = MutateExprs(view->valid_shape, changed);
  return n;
}

TypePtr IRMutator::MutateTensorType(const std::shared_ptr<const TensorType>& type) {
  bool changed = false;
  std::vector<ExprPtr> shape = MutateExprs(type->shape(), &changed);
  std::optional<MemRefPtr> memref = MutateMemRefField(type->memref(), &changed);
  std::optional<TensorView> view = MutateTensorViewField(type->tensor_view(), &changed);
  if (!changed) return type;
  return std::make_shared<TensorType>(std::move(shape), type->dtype(), std::move(memref),
                                      std::move(view), type->span());
}

TypePtr IRMutator::MutateDistributedTensorType(
    const std::shared_ptr<const DistributedTensorType>& type) {
  bool changed = false;
  std::vector<ExprPtr> shape = MutateExprs(type->shape(), &changed);
  std::optional<MemRefPtr> memref = MutateMemRefField(type->memref(), &changed);
  std::optional<TensorView> view = MutateTensorViewField(type->tensor_view(), &changed);
  std::optional<WindowBufferPtr> wb = type->window_buffer();
  if (wb.has_value() && *wb != nullptr) {
    if (WindowBufferPtr n = As<WindowBuffer>(MutateExpr(*wb)); n != nullptr && n != *wb) {
      wb = n;
      changed = true;
    }
  }
  if (!changed) return type;
  return std::make_shared<DistributedTensorType>(std::move(shape), type->dtype(), std::move(memref),
                                                 std::move(view), std::move(wb), type->span());
}

TypePtr IRMutator::MutateTileType(const std::shared_ptr<const TileType>& type) {
  bool changed = false;
  std::vector<ExprPtr> shape = MutateExprs(type->shape(), &changed);
  std::optional<MemRefPtr> memref = MutateMemRefField(type->memref(), &changed);
  std::vector<ExprPtr> valid_shape = MutateExprs(type->valid_shape(), &changed);
  if (!changed) return type;
  return std::make_shared<TileType>(std::move(shape), type->dtype(), std::move(memref),
                                    std::move(valid_shape), type->span(), type->memory_space());
}

TypePtr IRMutator::MutateTupleType(const std::shared_ptr<const TupleType>& type) {
  bool changed = false;
  std::vector<TypePtr> types;
  types.reserve(type->types().size());
  for (const TypePtr& t : type->types()) {
    types.push_back(MutateType(t));
    if (types.back() != t) changed = true;
  }
  if (!changed) return type;
  return std::make_shared<TupleType>(std::move(types), type->span());
}

TypePtr IRMutator::MutateArrayType(const std::shared_ptr<const ArrayType>& type) {
  ExprPtr extent = MutateExpr(type->extent());
  if (extent == type->extent()) return type;
  return std::make_shared<ArrayType>(std::move(extent), type->dtype(), type->span());
}

// ---- Expressions ----

ExprPtr IRMutator::MutateExpr(const ExprPtr& expr) {
  if (expr == nullptr) return expr;
  switch (expr->kind()) {
    case NodeKind::kVar:
    case NodeKind::kIterArg:
    case NodeKind::kMemRef:
    case NodeKind::kWindowBuffer:
      return MutateVar(std::static_pointer_cast<const Var>(expr));
    case NodeKind::kBinaryExpr:
      return MutateBinaryExpr(std::static_pointer_cast<const BinaryExpr>(expr));
    case NodeKind::kUnaryExpr:
      return MutateUnaryExpr(std::static_pointer_cast<const UnaryExpr>(expr));
    case NodeKind::kCall:
      return MutateCall(std::static_pointer_cast<const Call>(expr));
    case NodeKind::kMakeTuple:
      return MutateMakeTuple(std::static_pointer_cast<const MakeTuple>(expr));
    case NodeKind::kTupleGetItem:
      return MutateTupleGetItem(std::static_pointer_cast<const TupleGetItem>(expr));
    case NodeKind::kCast:
      return MutateCast(std::static_pointer_cast<const Cast>(expr));
    default:
      return MutateLeafExpr(expr);
  }
}

ExprPtr IRMutator::MutateLeafExpr(const ExprPtr& expr) { return expr; }

ExprPtr IRMutator::MutateBinaryExpr(const std::shared_ptr<const BinaryExpr>& expr) {
  ExprPtr lhs = MutateExpr(expr->lhs());
  ExprPtr rhs = MutateExpr(expr->rhs());
  TypePtr type = MutateType(expr->type());
  if (lhs == expr->lhs() && rhs == expr->rhs() && type == expr->type()) return expr;
  return std::make_shared<BinaryExpr>(expr->op(), std::move(lhs), std::move(rhs), std::move(type),
                                      expr->span());
}

ExprPtr IRMutator::MutateUnaryExpr(const std::shared_ptr<const UnaryExpr>& expr) {
  ExprPtr operand = MutateExpr(expr->operand());
  TypePtr type = MutateType(expr->type());
  if (operand == expr->operand() && type == expr->type()) return expr;
  return std::make_shared<UnaryExpr>(expr->op(), std::move(operand), std::move(type), expr->span());
}

ExprPtr IRMutator::MutateCall(const CallPtr& call) {
  bool changed = false;
  OpPtr op = call->op();
  if (op != nullptr) {
    // Only an Op can be a callee; anything else keeps the old one.
    if (OpPtr n = As<Op>(MutateExpr(op)); n != nullptr && n != op) {
      op = std::move(n);
      changed = true;
    }
  }
  std::vector<ExprPtr> args = MutateExprs(call->args(), &changed);
  std::optional<AttrList> kwargs = MutateAttrs(call->kwargs());
  std::optional<AttrList> attrs = MutateAttrs(call->attrs());
  TypePtr type = MutateType(call->type());
  if (!changed && !kwargs.has_value() && !attrs.has_value() && type == call->type()) {
    return call;
  }
  return std::make_shared<Call>(
      std::move(op), std::move(args), kwargs.has_value() ? std::move(*kwargs) : call->kwargs(),
      attrs.has_value() ? std::move(*attrs) : call->attrs(), std::move(type), call->span());
}

ExprPtr IRMutator::MutateMakeTuple(const std::shared_ptr<const MakeTuple>& expr) {
  bool changed = false;
  std::vector<ExprPtr> elements = MutateExprs(expr->elements(), &changed);
  if (!changed) return expr;
  return std::make_shared<MakeTuple>(std::move(elements), expr->span());
}

ExprPtr IRMutator::MutateTupleGetItem(const std::shared_ptr<const TupleGetItem>& expr) {
  ExprPtr tuple = MutateExpr(expr->tuple());
  TypePtr type = MutateType(expr->type());
  if (tuple == expr->tuple() && type == expr->type()) return expr;
  return std::make_shared<TupleGetItem>(std::move(tuple), expr->index(), std::move(type),
                                        expr->span());
}

ExprPtr IRMutator::MutateCast(const std::shared_ptr<const Cast>& expr) {
  ExprPtr value = MutateExpr(expr->value());
  if (value == expr->value()) return expr;
  return std::make_shared<Cast>(std::move(value), expr->dtype(), expr->span());
}

// ---- Statements ----

StmtPtr IRMutator::MutateStmt(const StmtPtr& stmt) {
  if (stmt == nullptr) return stmt;
  switch (stmt->kind()) {
    case NodeKind::kAssignStmt:
      return MutateAssignStmt(std::static_pointer_cast<const AssignStmt>(stmt));
    case NodeKind::kEvalStmt:
      return MutateEvalStmt(std::static_pointer_cast<const EvalStmt>(stmt));
    case NodeKind::kReturnStmt:
      return MutateReturnStmt(std::static_pointer_cast<const ReturnStmt>(stmt));
    case NodeKind::kSeqStmts:
      return MutateSeqStmts(std::static_pointer_cast<const SeqStmts>(stmt));
    case NodeKind::kIfStmt:
      return MutateIfStmt(std::static_pointer_cast<const IfStmt>(stmt));
    case NodeKind::kForStmt:
      return MutateForStmt(std::static_pointer_cast<const ForStmt>(stmt));
    case NodeKind::kWhileStmt:
      return MutateWhileStmt(std::static_pointer_cast<const WhileStmt>(stmt));
    case NodeKind::kYieldStmt:
      return MutateYieldStmt(std::static_pointer_cast<const YieldStmt>(stmt));
    case NodeKind::kCommDomainScopeStmt:
      return MutateCommDomainScopeStmt(std::static_pointer_cast<const CommDomainScopeStmt>(stmt));
    case NodeKind::kRuntimeScopeStmt:
      return MutateRuntimeScopeStmt(std::static_pointer_cast<const RuntimeScopeStmt>(stmt));
    case NodeKind::kExecScopeStmt:
      return MutateExecScopeStmt(std::static_pointer_cast<const ExecScopeStmt>(stmt));
    default:  // BreakStmt, ContinueStmt: nothing inside
      return stmt;
  }
}

StmtPtr IRMutator::MutateAssignStmt(const std::shared_ptr<const AssignStmt>& stmt) {
  // The value is evaluated before the target is defined.
  ExprPtr value = MutateExpr(stmt->value());
  VarPtr var = stmt->var() == nullptr ? nullptr : MutateVarDef(stmt->var());
  if (value == stmt->value() && var == stmt->var()) return stmt;
  return std::make_shared<AssignStmt>(std::move(var), std::move(value), stmt->span());
}

StmtPtr IRMutator::MutateEvalStmt(const std::shared_ptr<const EvalStmt>& stmt) {
  ExprPtr expr = MutateExpr(stmt->expr());
  if (expr == stmt->expr()) return stmt;
  return std::make_shared<EvalStmt>(std::move(expr), stmt->leading_comments(), stmt->span());
}

StmtPtr IRMutator::MutateReturnStmt(const std::shared_ptr<const ReturnStmt>& stmt) {
  bool changed = false;
  std::vector<ExprPtr> value = MutateExprs(stmt->value(), &changed);
  if (!changed) return stmt;
  return std::make_shared<ReturnStmt>(std::move(value), stmt->leading_comments(), stmt->span());
}

StmtPtr IRMutator::MutateSeqStmts(const std::shared_ptr<const SeqStmts>& stmt) {
  bool changed = false;
  std::vector<StmtPtr> stmts;
  stmts.reserve(stmt->stmts().size());
  for (const StmtPtr& s : stmt->stmts()) {
    StmtPtr n = MutateStmt(s);
    if (n != s) changed = true;
    if (n != nullptr) stmts.push_back(std::move(n));
  }
  if (!changed) return stmt;
  return std::make_shared<SeqStmts>(std::move(stmts), stmt->span());
}

StmtPtr IRMutator::MutateIfStmt(const std::shared_ptr<const IfStmt>& stmt) {
  bool changed = false;
  ExprPtr cond = MutateExpr(stmt->condition());
  if (cond != stmt->condition()) changed = true;
  StmtPtr then_body = MutateBody(stmt->then_body(), &changed);
  std::optional<StmtPtr> else_body = stmt->else_body();
  if (else_body.has_value()) else_body = MutateBody(*else_body, &changed);
  std::vector<VarPtr> return_vars = MutateVarDefs(stmt->return_vars(), &changed);
  if (!changed) return stmt;
  return std::make_shared<IfStmt>(std::move(cond), std::move(then_body), std::move(else_body),
                                  std::move(return_vars), stmt->span());
}

StmtPtr IRMutator::MutateForStmt(const std::shared_ptr<const ForStmt>& stmt) {
  bool changed = false;
  ExprPtr start = MutateExpr(stmt->start());
  ExprPtr stop = MutateExpr(stmt->stop());
  ExprPtr step = MutateExpr(stmt->step());
  if (start != stmt->start() || stop != stmt->stop() || step != stmt->step()) changed = true;
  std::optional<AttrList> attrs = MutateAttrs(stmt->attrs());
  if (attrs.has_value()) changed = true;
  VarPtr loop_var = stmt->loop_var() == nullptr ? nullptr : MutateVarDef(stmt->loop_var());
  if (loop_var != stmt->loop_var()) changed = true;
  std::vector<IterArgPtr> iter_args = MutateIterArgs(stmt->iter_args(), &changed);
  StmtPtr body = MutateBody(stmt->body(), &changed);
  std::vector<VarPtr> return_vars = MutateVarDefs(stmt->return_vars(), &changed);
  if (!changed) return stmt;
  return std::make_shared<ForStmt>(
      std::move(loop_var), std::move(start), std::move(stop), std::move(step), std::move(iter_args),
      std::move(body), std::move(return_vars), stmt->for_kind(),
      attrs.has_value() ? std::move(*attrs) : stmt->attrs(), stmt->span());
}

StmtPtr IRMutator::MutateWhileStmt(const std::shared_ptr<const WhileStmt>& stmt) {
  bool changed = false;
  std::vector<IterArgPtr> iter_args = MutateIterArgs(stmt->iter_args(), &changed);
  ExprPtr cond = MutateExpr(stmt->condition());
  if (cond != stmt->condition()) changed = true;
  StmtPtr body = MutateBody(stmt->body(), &changed);
  std::vector<VarPtr> return_vars = MutateVarDefs(stmt->return_vars(), &changed);
  if (!changed) return stmt;
  return std::make_shared<WhileStmt>(std::move(cond), std::move(iter_args), std::move(body),
                                     std::move(return_vars), stmt->span());
}

StmtPtr IRMutator::MutateYieldStmt(const std::shared_ptr<const YieldStmt>& stmt) {
  bool changed = false;
  std::vector<ExprPtr> value = MutateExprs(stmt->value(), &changed);
  if (!changed) return stmt;
  return std::make_shared<YieldStmt>(std::move(value), stmt->span());
}

StmtPtr IRMutator::MutateCommDomainScopeStmt(
    const std::shared_ptr<const CommDomainScopeStmt>& stmt) {
  bool changed = false;
  std::vector<WindowBufferPtr> slots;
  slots.reserve(stmt->slots().size());
  for (const WindowBufferPtr& slot : stmt->slots()) {
    WindowBufferPtr n = slot;
    if (slot != nullptr) {
      if (WindowBufferPtr m = As<WindowBuffer>(MutateExpr(slot))) n = std::move(m);
    }
    if (n != slot) changed = true;
    slots.push_back(std::move(n));
  }
  std::optional<AttrList> attrs = MutateAttrs(stmt->attrs());
  if (attrs.has_value()) changed = true;
  StmtPtr body = MutateBody(stmt->body(), &changed);
  if (!changed) return stmt;
  return std::make_shared<CommDomainScopeStmt>(
      stmt->name_hint(), stmt->devices(), std::move(slots), std::move(body),
      attrs.has_value() ? std::move(*attrs) : stmt->attrs(), stmt->span());
}

StmtPtr IRMutator::MutateRuntimeScopeStmt(const std::shared_ptr<const RuntimeScopeStmt>& stmt) {
  bool changed = false;
  std::optional<AttrList> attrs = MutateAttrs(stmt->attrs());
  if (attrs.has_value()) changed = true;
  StmtPtr body = MutateBody(stmt->body(), &changed);
  if (!changed) return stmt;
  return std::make_shared<RuntimeScopeStmt>(stmt->name_hint(), stmt->manual(), std::move(body),
                                            attrs.has_value() ? std::move(*attrs) : stmt->attrs(),
                                            stmt->span());
}

StmtPtr IRMutator::MutateExecScopeStmt(const std::shared_ptr<const ExecScopeStmt>& stmt) {
  bool changed = false;
  ExprPtr core_num = stmt->core_num() != nullptr ? MutateExpr(stmt->core_num()) : nullptr;
  if (core_num != stmt->core_num()) changed = true;
  std::optional<AttrList> attrs = MutateAttrs(stmt->attrs());
  if (attrs.has_value()) changed = true;
  StmtPtr body = MutateBody(stmt->body(), &changed);
  if (!changed) return stmt;
  return std::make_shared<ExecScopeStmt>(
      stmt->GetScopeKind(), stmt->name_hint(), stmt->level(), stmt->role(), std::move(core_num),
      stmt->sync_start(), std::move(body), attrs.has_value() ? std::move(*attrs) : stmt->attrs(),
      stmt->span());
}

// ---- Substitute ----

namespace {

class SubstituteMutator : public IRMutator {
 public:
  explicit SubstituteMutator(const VarSubstMap& map) : map_(map) {}

 protected:
  ExprPtr MutateVar(const VarPtr& var) override {
    auto it = map_.find(var.get());
    if (it != map_.end() && it->second != nullptr) return it->second;
    return IRMutator::MutateVar(var);
  }

  VarPtr MutateVarDef(const VarPtr& var) override {
    auto it = map_.find(var.get());
    if (it != map_.end()) {
      // A definition needs a Var of the same kind; otherwise keep the old one.
      if (VarPtr v = As<Var>(it->second); v != nullptr && v->kind() == var->kind()) return v;
    }
    return IRMutator::MutateVarDef(var);
  }

 private:
  const VarSubstMap& map_;
};

}  // namespace

ExprPtr Substitute(const ExprPtr& expr, const VarSubstMap& map) {
  if (map.empty()) return expr;
  SubstituteMutator m(map);
  return m.MutateExpr(expr);
}

StmtPtr Substitute(const StmtPtr& stmt, const VarSubstMap& map) {
  if (map.empty()) return stmt;
  SubstituteMutator m(map);
  return m.MutateStmt(stmt);
}

TypePtr Substitute(const TypePtr& type, const VarSubstMap& map) {
  if (map.empty()) return type;
  SubstituteMutator m(map);
  return m.MutateType(type);
}

FunctionPtr Substitute(const FunctionPtr& func, const VarSubstMap& map) {
  if (map.empty()) return func;
  SubstituteMutator m(map);
  return m.MutateFunction(func);
}

StmtPtr FlatteningMutator::MutateSeqStmts(const std::shared_ptr<const SeqStmts>& stmt) {
  StmtPtr out = IRMutator::MutateSeqStmts(stmt);
  if (out == stmt) return out;
  auto seq = As<SeqStmts>(out);
  return SeqStmts::Flatten(seq->stmts(), seq->span());
}

FunctionPtr SpanTrackingMutator::MutateFunction(const FunctionPtr& func) {
  if (func != nullptr) span_ = func->span();
  return FlatteningMutator::MutateFunction(func);
}

StmtPtr SpanTrackingMutator::MutateStmt(const StmtPtr& stmt) {
  if (stmt != nullptr) span_ = stmt->span();
  return FlatteningMutator::MutateStmt(stmt);
}

VarPtr SpanTrackingMutator::MutateVarDef(const VarPtr& var) {
  Span saved = span_;
  span_ = var->span();
  VarPtr out = FlatteningMutator::MutateVarDef(var);
  span_ = saved;
  return out;
}

ExprPtr SpanTrackingMutator::MutateCall(const CallPtr& call) {
  Span saved = span_;
  span_ = call->span();
  ExprPtr out = MutateCallAt(call);
  span_ = saved;
  return out;
}

}  // namespace pto::ir
