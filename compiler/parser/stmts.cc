// Statements: blocks, assignments (with pl.yield_), expression statements,
// return and if/elif/else. Loops and with-scopes are in loops.cc.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/ir/printer.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

namespace {

std::string JoinNames(const std::vector<std::string_view>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += ", ";
    s.append(names[i].data(), names[i].size());
  }
  return s;
}

}  // namespace

bool Parser::IsPathCall(const Ast* a, std::string_view path) {
  if (a->kind != AstKind::kCall) return false;
  const Ast* f = Kid(a, 0);
  if (f->kind != AstKind::kAttribute) return false;
  // Cheap reject on the last component before building the dotted path.
  std::string_view last = path.substr(path.rfind('.') + 1);
  if (f->text != last) return false;
  return DottedPath(f) && path_ == path;
}

absl::Status Parser::LowerBlockStmt(const Ast* s, std::vector<StmtPtr>* out, YieldInfo* yield) {
  if (yield->present) {
    return UserError(yield->span, "pl.yield_ must be the last statement of a loop or if body");
  }
  if (expect_cond_) {
    expect_cond_ = false;
    return LowerCond(s);
  }
  return LowerStmt(s, out, yield);
}

absl::Status Parser::LowerBlock(const Ast* block, std::vector<StmtPtr>* out, YieldInfo* yield) {
  for (uint32_t i = 0; i < block->num_kids; ++i) {
    RETURN_IF_ERROR(LowerBlockStmt(Kid(block, i), out, yield));
  }
  return absl::OkStatus();
}

// The first statement of a pl.while_ body: its condition.
absl::Status Parser::LowerCond(const Ast* s) {
  if (s->kind == AstKind::kExprStmt && IsPathCall(Kid(s, 0), "pl.cond")) {
    const Ast* a = Kid(s, 0);
    RETURN_IF_ERROR(CheckPosCount(a, 1, 1, "pl.cond"));
    RETURN_IF_ERROR(CheckNoKeywords(a, "pl.cond"));
    ASSIGN_OR_RETURN(cond_result_, LowerScalarOperand(PosArg(a, 0), "pl.cond"));
    return absl::OkStatus();
  }
  return UserError(Span(file_, s->line, s->col, s->line, s->col + 1),
                   "the body of a pl.while_ loop must start with pl.cond(...)");
}

absl::Status Parser::LowerStmt(const Ast* s, std::vector<StmtPtr>* out, YieldInfo* yield) {
  switch (s->kind) {
    case AstKind::kPass:
      return absl::OkStatus();
    case AstKind::kBreak:
    case AstKind::kContinue: {
      bool brk = s->kind == AstKind::kBreak;
      if (loop_depth_ == 0) {
        return ErrorAt(s, pto::StrCat("'", brk ? "break" : "continue",
                                      "' outside of a loop: it must be inside a for or while "
                                      "body"));
      }
      if (brk) {
        out->push_back(ir::MakeNode<ir::BreakStmt>(SpanOf(s)));
      } else {
        out->push_back(ir::MakeNode<ir::ContinueStmt>(SpanOf(s)));
      }
      return absl::OkStatus();
    }
    case AstKind::kReturn:
      return LowerReturn(s, out);
    case AstKind::kExprStmt:
      return LowerExprStatement(s, out, yield);
    case AstKind::kAssign:
      return LowerAssign(s, Kid(s, 0), nullptr, Kid(s, 1), out, yield);
    case AstKind::kAnnAssign:
      return LowerAssign(s, Kid(s, 0), Kid(s, 1), Kid(s, 2), out, yield);
    case AstKind::kIf:
      return LowerIf(s, out, nullptr);
    case AstKind::kFor:
      return LowerFor(s, out);
    case AstKind::kWhile:
      return LowerWhile(s, out);
    case AstKind::kWith:
      return LowerWith(s, out, yield);
    default:
      return ErrorAt(s, "unsupported statement");
  }
}

absl::Status Parser::LowerAssign(const Ast* stmt, const Ast* target, const Ast* ann,
                                 const Ast* value, std::vector<StmtPtr>* out, YieldInfo* yield) {
  if (IsPathCall(value, "pl.yield_")) return LowerYield(stmt, target, ann, value, out, yield);
  if (target->kind == AstKind::kName) {
    std::string_view name = target->text;
    ExprPtr v;
    TypePtr var_type;
    if (ann != nullptr) {
      ASSIGN_OR_RETURN(TypePtr ann_type, LowerType(ann));
      auto st = ir::As<ir::ScalarType>(ann_type);
      if (st != nullptr && IsSimpleLiteral(value)) {
        // The annotation gives a literal its dtype.
        ASSIGN_OR_RETURN(ConstVal c, ConstEval(value));
        ASSIGN_OR_RETURN(v, TypedConst(c, st->dtype(), SpanOf(value)));
      } else {
        if (value->kind == AstKind::kCall) {
          ASSIGN_OR_RETURN(v, LowerCall(value, name));
          v = AsAnnotatedUnknown(ann_type, AsFlattenedLoad(ann_type, v));
        } else {
          ASSIGN_OR_RETURN(v, LowerExpr(value));
        }
        RETURN_IF_ERROR(CheckAnnotation(ann_type, v->type(), ann));
      }
      // A tile annotation without a TileView states the shape, not that the
      // whole tile is valid: a partial load keeps its valid_shape.
      auto ann_tile = ir::As<ir::TileType>(ann_type);
      auto v_tile = v != nullptr ? ir::As<ir::TileType>(v->type()) : nullptr;
      if (ann_tile != nullptr && v_tile != nullptr && ann_tile->valid_shape().empty() &&
          !v_tile->valid_shape().empty()) {
        ann_type = ir::MakeNode<ir::TileType>(ann_tile->shape(), ann_tile->dtype(),
                                              ann_tile->memref(), v_tile->valid_shape(),
                                              ann_tile->span(), ann_tile->memory_space());
      }
      var_type = std::move(ann_type);
    } else {
      if (value->kind == AstKind::kCall) {
        ASSIGN_OR_RETURN(v, LowerCall(value, name));
      } else {
        ASSIGN_OR_RETURN(v, LowerExpr(value));
      }
      var_type = v->type();
    }
    bool reassigned = false;
    VarPtr var = AssignTarget(name, var_type, SpanOf(target), &reassigned);
    if (auto call = ir::As<ir::Call>(v);
        call != nullptr &&
        std::string_view(call->op()->name()) == "pld.tensor.alloc_window_buffer" &&
        !ir::Is<ir::GlobalVar>(call->op()) && !call->args().empty() && cur_func_ != nullptr) {
      WinAlloc& w = cur_func_->windows[name];
      if (w.base != nullptr) {
        // The name is the runtime buffer's name: one allocation per name.
        return UserError(SpanOf(stmt),
                         pto::StrCat("window buffer '", name, "' is allocated twice in function '",
                                     cur_func_->name, "' (first at line ", w.span.line,
                                     "); each allocation needs its own name"));
      }
      w.base = var;
      w.size = call->args()[0];
      w.span = SpanOf(stmt);
      w.wb = nullptr;
    }
    out->push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(v), SpanOf(stmt)));
    if (!reassigned) Define(name, std::move(var), /*assigned=*/true);
    return absl::OkStatus();
  }
  if (target->kind == AstKind::kTuple) {
    if (ann != nullptr) return ErrorAt(ann, "a tuple unpacking cannot have an annotation");
    for (uint32_t i = 0; i < target->num_kids; ++i) {
      const Ast* e = Kid(target, i);
      if (e->kind == AstKind::kTuple) {
        return ErrorAt(e, "unsupported Python construct: nested tuple unpacking (unpack in two steps)");
      }
      if (e->kind != AstKind::kName) {
        return ErrorAt(e, "unsupported assignment target: only names can be assigned");
      }
    }
    ASSIGN_OR_RETURN(ExprPtr v, LowerExpr(value));
    auto tt = ir::As<ir::TupleType>(v->type());
    if (tt == nullptr) {
      return ErrorAt(value, pto::StrCat("cannot unpack a value of type ", TypeText(v->type()),
                                        " into ", target->num_kids, " names"));
    }
    if (tt->types().size() != target->num_kids) {
      return ErrorAt(value, pto::StrCat("cannot unpack a tuple of ", tt->types().size(),
                                        " values into ", target->num_kids, " names"));
    }
    Span span = SpanOf(stmt);
    // A tuple of constants built here (`M, N = t.shape`) binds its elements
    // directly, so constant dimensions stay constants. (Not one holding
    // values: `a, b = b, a` must read both before assigning either.)
    auto made = ir::As<ir::MakeTuple>(v);
    for (const ExprPtr& e : made != nullptr ? made->elements() : std::vector<ExprPtr>{}) {
      if (!ir::Is<ir::ConstInt>(e) && !ir::Is<ir::DynDim>(e)) made = nullptr;
    }
    VarPtr tmp;
    if (made == nullptr) {
      tmp = ir::MakeNode<const ir::Var>("_tuple_tmp", v->type(), span);
      out->push_back(ir::MakeNode<ir::AssignStmt>(tmp, v, span));
    }
    std::vector<std::pair<std::string_view, VarPtr>> defs;
    for (uint32_t i = 0; i < target->num_kids; ++i) {
      const Ast* e = Kid(target, i);
      TypePtr et = tt->types()[i];
      bool reassigned = false;
      VarPtr var = AssignTarget(e->text, et, SpanOf(e), &reassigned);
      ExprPtr get = made != nullptr ? made->elements()[i]
                                    : ExprPtr(ir::MakeNode<ir::TupleGetItem>(
                                          tmp, static_cast<int>(i), et, SpanOf(e)));
      out->push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(get), span));
      if (!reassigned) defs.emplace_back(e->text, std::move(var));
    }
    for (auto& [n, var] : defs) Define(n, std::move(var), /*assigned=*/true);
    return absl::OkStatus();
  }
  if (target->kind == AstKind::kSubscript) {
    if (ann != nullptr) {
      return ErrorAt(ann, "a subscript write takes no annotation (write `dst[...] = src`)");
    }
    return LowerSubscriptAssign(stmt, target, value, out);
  }
  if (target->kind == AstKind::kAttribute) {
    return ErrorAt(target, "unsupported assignment target: an attribute");
  }
  return ErrorAt(target, "unsupported assignment target: only names can be assigned");
}

absl::Status Parser::LowerYield(const Ast* stmt, const Ast* target, const Ast* ann,
                                const Ast* call, std::vector<StmtPtr>* out, YieldInfo* yield) {
  RETURN_IF_ERROR(CheckNoKeywords(call, "pl.yield_"));
  YieldInfo y;
  y.present = true;
  y.values.reserve(NumPos(call));
  for (uint32_t i = 0; i < NumPos(call); ++i) {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(PosArg(call, i)));
    y.values.push_back(std::move(e));
  }
  if (target != nullptr) {
    y.has_names = true;
    if (target->kind == AstKind::kName) {
      y.names.push_back(target->text);
      y.name_spans.push_back(SpanOf(target));
    } else if (target->kind == AstKind::kTuple) {
      if (ann != nullptr) return ErrorAt(ann, "a tuple unpacking cannot have an annotation");
      for (uint32_t i = 0; i < target->num_kids; ++i) {
        const Ast* e = Kid(target, i);
        if (e->kind != AstKind::kName) {
          return ErrorAt(e, "the results of pl.yield_ must be plain names");
        }
        y.names.push_back(e->text);
        y.name_spans.push_back(SpanOf(e));
      }
    } else {
      return ErrorAt(target, "the results of pl.yield_ must be plain names");
    }
    if (y.names.size() != y.values.size()) {
      return ErrorAt(call, pto::StrCat("pl.yield_ gives ", y.values.size(), " value",
                                       y.values.size() == 1 ? "" : "s", " but ", y.names.size(),
                                       " name", y.names.size() == 1 ? " is" : "s are",
                                       " assigned"));
    }
    if (ann != nullptr) {
      ASSIGN_OR_RETURN(y.annotation, LowerType(ann));
      RETURN_IF_ERROR(CheckAnnotation(y.annotation, y.values[0]->type(), ann));
    }
  }
  y.span = SpanOf(stmt);
  out->push_back(ir::MakeNode<ir::YieldStmt>(y.values, y.span));
  *yield = std::move(y);
  return absl::OkStatus();
}

absl::Status Parser::LowerExprStatement(const Ast* stmt, std::vector<StmtPtr>* out,
                                        YieldInfo* yield) {
  const Ast* a = Kid(stmt, 0);
  // `...` and bare strings (docstrings anywhere) are no-ops, as in Python.
  if (a->kind == AstKind::kEllipsis || a->kind == AstKind::kString) return absl::OkStatus();
  if (IsPathCall(a, "pl.yield_")) return LowerYield(stmt, nullptr, nullptr, a, out, yield);
  if (a->kind == AstKind::kCall && Kid(a, 0)->kind == AstKind::kAttribute &&
      Kid(a, 0)->text == "bind_dynamic" && Kid(Kid(a, 0), 0)->kind == AstKind::kName) {
    return CheckBindDynamic(a);
  }
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  out->push_back(ir::MakeNode<ir::EvalStmt>(std::move(e), LeadingComments(stmt->line),
                                                SpanOf(stmt)));
  return absl::OkStatus();
}

// `x.bind_dynamic(dim, N)` (python/pypto/language/typing/tensor.py): PyPTO's
// JIT specializer reads it to make dimension `dim` of parameter x the dynamic
// dimension N, and strips it. A parameter whose type already has N there
// (written in its annotation) needs nothing more; another dimension would be
// silently static, so it is a located error.
absl::Status Parser::CheckBindDynamic(const Ast* call) {
  const Ast* recv = Kid(Kid(call, 0), 0);
  RETURN_IF_ERROR(CheckPosCount(call, 2, 2, "bind_dynamic"));
  RETURN_IF_ERROR(CheckNoKeywords(call, "bind_dynamic"));
  const VarPtr* var = LookupLocal(recv->text);
  bool is_param = false;
  if (var != nullptr && cur_func_ != nullptr) {
    for (const VarPtr& p : cur_func_->params) is_param = is_param || p == *var;
  }
  std::shared_ptr<const ir::TensorType> tt = is_param ? ir::AsTensorTypeLike((*var)->type()) : nullptr;
  if (!jit_form_ || tt == nullptr) {
    return ErrorAt(call, pto::StrCat("bind_dynamic is a statement of a @pl.jit function on one "
                                     "of its tensor parameters; '", recv->text, "' is not one"));
  }
  ASSIGN_OR_RETURN(int64_t dim, ConstInt(PosArg(call, 0), "the dimension of bind_dynamic"));
  const int64_t rank = static_cast<int64_t>(tt->shape().size());
  if (dim < 0 || dim >= rank) {
    return ErrorAt(PosArg(call, 0), pto::StrCat("dimension ", dim, " of bind_dynamic is out of "
                                                "range for '", recv->text, "' of rank ", rank));
  }
  const Ast* dyn = PosArg(call, 1);
  const ConstVal* c = dyn->kind == AstKind::kName ? LookupConst(dyn->text) : nullptr;
  if (c == nullptr || c->kind != ConstVal::kDynDim) {
    return ErrorAt(dyn, "bind_dynamic needs a dynamic dimension declared with pl.dynamic(...) "
                        "at module level");
  }
  const ExprPtr& have = tt->shape()[static_cast<size_t>(dim)];
  if (have != c->dyn) {
    return ErrorAt(call, pto::StrCat("bind_dynamic makes dimension ", dim, " of '", recv->text,
                                     "' the dynamic dimension ", dyn->text, ", but its type has ",
                                     ir::PrintExpr(have), " there; write ", dyn->text,
                                     " in its annotation (pl.Tensor[[", dyn->text, ", ...], ...])"));
  }
  return absl::OkStatus();
}

absl::Status Parser::LowerReturn(const Ast* stmt, std::vector<StmtPtr>* out) {
  std::vector<ExprPtr> values;
  if (stmt->num_kids == 1) {
    const Ast* a = Kid(stmt, 0);
    if (a->kind == AstKind::kTuple) {
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
        values.push_back(std::move(e));
      }
    } else {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
      values.push_back(std::move(e));
    }
  }
  Span span = SpanOf(stmt);
  if (cur_func_ != nullptr && cur_func_->derive_results) RETURN_IF_ERROR(DeriveResults(values, span));
  size_t declared = cur_func_ != nullptr ? cur_func_->ret_types.size() : values.size();
  if (values.size() == 1 && declared > 1) {
    // `return self.f(...)` of a function that returns `declared` values, as in
    // PyPTO: the tuple is bound once and its items are returned.
    auto tt = ir::As<ir::TupleType>(values[0]->type());
    if (tt != nullptr && tt->types().size() == declared) {
      auto tmp = ir::MakeNode<const ir::Var>("_tuple_tmp", values[0]->type(), span);
      out->push_back(ir::MakeNode<ir::AssignStmt>(tmp, std::move(values[0]), span));
      values.clear();
      for (size_t i = 0; i < declared; ++i) {
        values.push_back(ir::MakeNode<ir::TupleGetItem>(tmp, static_cast<int>(i),
                                                        tt->types()[i], span));
      }
    }
  }
  if (values.size() != declared) {
    return UserError(span, pto::StrCat("function '", cur_func_->name, "' declares ", declared,
                                       " result", declared == 1 ? "" : "s",
                                       " but this return gives ", values.size(), " value",
                                       values.size() == 1 ? "" : "s"));
  }
  out->push_back(ir::MakeNode<ir::ReturnStmt>(std::move(values), LeadingComments(stmt->line),
                                                  span));
  return absl::OkStatus();
}

// A function without `-> T` takes its results from the first return that
// has values; every other return must give as many.
absl::Status Parser::DeriveResults(const std::vector<ExprPtr>& values, const Span& span) {
  FuncState* f = cur_func_;
  if (f->first_return.line == 0 && !values.empty()) {
    if (f->bare_return) {
      return UserError(span, pto::StrCat("function '", f->name, "' returns values here but "
                                         "nothing at an earlier return; give every return "
                                         "the same values"));
    }
    for (const ExprPtr& v : values) f->ret_types.push_back(v->type());
    f->first_return = span;
    return absl::OkStatus();
  }
  if (values.empty() && f->first_return.line == 0) {
    f->bare_return = true;
    return absl::OkStatus();
  }
  if (values.size() != f->ret_types.size()) {
    return UserError(span, pto::StrCat("function '", f->name, "' returns ", f->ret_types.size(),
                                       " value", f->ret_types.size() == 1 ? "" : "s",
                                       " at line ", f->first_return.line,
                                       " but this return gives ", values.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<VarPtr>> Parser::MakeResultVars(const YieldInfo& y,
                                                           const std::vector<TypePtr>& types) {
  std::vector<VarPtr> vars;
  vars.reserve(y.names.size());
  for (size_t i = 0; i < y.names.size(); ++i) {
    TypePtr t = (i == 0 && y.annotation != nullptr) ? y.annotation : types[i];
    vars.push_back(ir::MakeNode<const ir::Var>(std::string(y.names[i]), std::move(t),
                                                   y.name_spans[i]));
  }
  return vars;
}

// `out_result` (for elif) receives the names of the statement's results.
absl::Status Parser::LowerIf(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* out_result) {
  ASSIGN_OR_RETURN(ExprPtr cond, LowerScalarOperand(Kid(stmt, 0), "an if condition"));
  Span header = SpanOf(stmt);

  std::vector<StmtPtr> then_stmts;
  YieldInfo ty;
  // A name the then branch rebinds is stale after the if, not in the else
  // branch, which does not run after it.
  SvMap<DeadName> stale_before = stale_;
  PushScope("if branch");
  RETURN_IF_ERROR(LowerBlock(Kid(stmt, 1), &then_stmts, &ty));
  std::vector<Escaped> then_escaped, else_escaped;
  PopScope(&then_escaped);
  SvMap<DeadName> then_stale = std::move(stale_);
  stale_ = std::move(stale_before);
  pending_.push_back(then_escaped);

  bool has_else = false;
  std::vector<StmtPtr> else_stmts;
  YieldInfo ey;
  const Ast* else_ast = stmt->num_kids == 3 ? Kid(stmt, 2) : nullptr;
  if (else_ast != nullptr && else_ast->kind == AstKind::kIf) {
    has_else = true;
    PushScope("else branch");
    YieldInfo inner;
    absl::Status st = LowerIf(else_ast, &else_stmts, &inner);
    if (!st.ok()) return st;
    if (inner.present) {
      // The nested if's results are this else branch's results.
      auto nested = ir::As<ir::IfStmt>(else_stmts.back());
      ey.present = true;
      ey.has_names = true;
      ey.names = inner.names;
      ey.name_spans = inner.name_spans;
      ey.span = inner.span;
      for (const VarPtr& v : nested->return_vars()) ey.values.push_back(v);
      else_stmts.push_back(ir::MakeNode<ir::YieldStmt>(ey.values, ey.span));
    }
    PopScope(&else_escaped);
  } else if (else_ast != nullptr) {
    has_else = true;
    PushScope("else branch");
    RETURN_IF_ERROR(LowerBlock(else_ast, &else_stmts, &ey));
    PopScope(&else_escaped);
  }
  pending_.pop_back();

  for (auto& [name, d] : then_stale) stale_.try_emplace(name, d);
  std::vector<VarPtr> return_vars;
  if (ty.has_names || ey.has_names) {
    const YieldInfo& named = ty.has_names ? ty : ey;
    if (!has_else) {
      return UserError(ty.span, "an if whose body yields values needs an else branch that "
                                "yields the same names");
    }
    if (!ty.has_names || !ey.has_names) {
      const YieldInfo& other = ty.has_names ? ey : ty;
      return UserError(other.present ? other.span : named.span,
                       pto::StrCat("both branches of an if must end with `",
                                   JoinNames(named.names), " = pl.yield_(...)`"));
    }
    if (ty.names != ey.names) {
      return UserError(ey.span, pto::StrCat("both branches of an if must yield the same names (",
                                            JoinNames(ty.names), " vs ", JoinNames(ey.names),
                                            ")"));
    }
    std::vector<TypePtr> types;
    for (const ExprPtr& v : ty.values) types.push_back(v->type());
    if (ty.annotation == nullptr && ey.annotation != nullptr) ty.annotation = ey.annotation;
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(ty, types));
    if (out_result != nullptr) {
      out_result->present = true;
      out_result->has_names = true;
      out_result->names = ty.names;
      out_result->name_spans = ty.name_spans;
      out_result->span = ty.span;
    }
  } else if (ty.present && ey.present && ty.values.size() != ey.values.size()) {
    return UserError(ey.span, "both branches of an if must yield the same number of values");
  }
  std::optional<StmtPtr> else_body;
  if (has_else) else_body = ir::MakeNode<ir::SeqStmts>(std::move(else_stmts), header);
  out->push_back(ir::MakeNode<ir::IfStmt>(
      std::move(cond), ir::MakeNode<ir::SeqStmts>(std::move(then_stmts), header),
      std::move(else_body), return_vars, header));
  // Names either branch assigned first live on (the else branch reused the
  // then branch's Var where the types agree); one the branches give values
  // of different types has no one Var after the if.
  std::vector<Escaped> after;
  for (const Escaped& t : then_escaped) {
    auto e = std::find_if(else_escaped.begin(), else_escaped.end(),
                          [&](const Escaped& x) { return x.name == t.name; });
    if (e == else_escaped.end() || e->var == t.var) {
      after.push_back(t);
    } else {
      dead_[t.name] = DeadName{"if statement (its branches give it values of different types)",
                               t.var->span().line};
    }
  }
  for (const Escaped& e : else_escaped) {
    bool in_then = std::any_of(then_escaped.begin(), then_escaped.end(),
                               [&](const Escaped& x) { return x.name == e.name; });
    if (!in_then) after.push_back(e);
  }
  BindEscaped(after);
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

}  // namespace pto::parser::internal
