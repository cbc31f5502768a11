// Loops: pl.range / pl.parallel / pl.unroll / pl.pipeline, pl.while_, plain
// while, and break / continue.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

absl::StatusOr<std::vector<ExprPtr>> Parser::LowerInitValues(const Ast* a) {
  std::vector<ExprPtr> inits;
  if (a->kind == AstKind::kTuple || a->kind == AstKind::kList) {
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
      inits.push_back(std::move(e));
    }
  } else {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
    inits.push_back(std::move(e));
  }
  return inits;
}

absl::Status Parser::CheckLoopYield(const YieldInfo& y, size_t num_iter_args, const Ast* stmt,
                                    std::string_view what) {
  if (num_iter_args > 0 && !y.present) {
    return ErrorAt(stmt, pto::StrCat("the body of a ", what,
                                      " with init_values must end with pl.yield_(...) of its ",
                                      num_iter_args, " loop-carried value",
                                      num_iter_args == 1 ? "" : "s"));
  }
  if (y.present && y.values.size() != num_iter_args) {
    return UserError(y.span, pto::StrCat("pl.yield_ gives ", y.values.size(), " value",
                                         y.values.size() == 1 ? "" : "s", " but the ", what,
                                         " carries ", num_iter_args));
  }
  return absl::OkStatus();
}

absl::Status Parser::LowerFor(const Ast* stmt, std::vector<StmtPtr>* out) {
  const Ast* iter = Kid(stmt, 1);
  std::string kind;
  if (iter->kind == AstKind::kCall) {
    const Ast* f = Kid(iter, 0);
    if (f->kind == AstKind::kName && f->text == "range") {
      kind = "pl.range";
    } else if (f->kind == AstKind::kAttribute && DottedPath(f)) {
      kind = path_;
    }
  }
  if (kind == "pl.while_") {
    RETURN_IF_ERROR(LowerWhileFor(stmt, out));
  } else if (kind == "pl.spmd") {
    const Ast* target = Kid(stmt, 0);
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, "for ... in pl.spmd(...) must use a single loop variable");
    }
    for (uint32_t i = 0; i < iter->num_kws; ++i) {
      std::string_view k = KwAt(iter, i).name;
      if (k == "init_values" || k == "chunk" || k == "chunk_policy" || k == "attrs" ||
          k == "step" || k == "stage" || k == "deps") {
        return UserError(KwSpan(KwAt(iter, i)),
                         pto::StrCat("pl.spmd() loop form does not accept '", k, "='"));
      }
    }
    YieldInfo y;
    RETURN_IF_ERROR(LowerExecScope(stmt, kind, out, &y, target));
    if (y.present) {
      return UserError(y.span, "pl.yield_ in a pl.spmd(...) loop: its blocks carry no values");
    }
  } else {
    std::optional<ir::ForKind> fk;
    if (StartsWith(kind, "pl.")) fk = ir::ForKindFromName(std::string_view(kind).substr(3));
    if (kind == "pl.split_aiv") {
      const Ast* target = Kid(stmt, 0);
      if (target->kind != AstKind::kName) {
        return ErrorAt(target, "for ... in pl.split_aiv(...) must use a single loop variable");
      }
      YieldInfo y;
      RETURN_IF_ERROR(LowerSplitAiv(stmt, out, &y, target));
      if (y.present) {
        return UserError(y.span, "pl.yield_ in a pl.split_aiv(...) loop: its lanes carry no "
                                 "values");
      }
      return absl::OkStatus();
    }
    if (!fk) {
      return ErrorAt(iter, "a for loop must iterate over range(...), pl.range(...), "
                           "pl.parallel(...), pl.unroll(...), pl.pipeline(...), pl.while_(...) "
                           "or pl.spmd(...)");
    }
    RETURN_IF_ERROR(LowerRangeFor(stmt, *fk, out));
  }
  return absl::OkStatus();
}

// The keywords of pl.range / pl.parallel / pl.unroll / pl.pipeline, as PyPTO
// takes them: init_values=, attrs= and, on pl.pipeline only and required
// there, stage=N (a positive constant), kept as the loop attribute
// "pipeline_stages".
absl::Status Parser::LowerLoopKeywords(const Ast* iter, ir::ForKind kind, std::string_view what,
                                       const Ast** init_ast, ir::AttrList* attrs) {
  const Ast* stage_ast = nullptr;
  for (uint32_t i = 0; i < iter->num_kws; ++i) {
    const KwName& k = KwAt(iter, i);
    if (k.name == "init_values") {
      *init_ast = KwValue(iter, i);
    } else if (k.name == "attrs") {
      ASSIGN_OR_RETURN(*attrs, ConvertAttrDict(KwValue(iter, i), /*call_attrs=*/false));
    } else if (k.name == "stage" && kind == ir::ForKind::kPipeline) {
      stage_ast = KwValue(iter, i);
    } else if (k.name == "stage") {
      return UserError(KwSpan(k), pto::StrCat("stage= is only for pl.pipeline(...), not ", what,
                                              " (write pl.pipeline(n, stage=4))"));
    } else {
      std::string_view allowed = kind == ir::ForKind::kPipeline
                                     ? "init_values=, stage= and attrs="
                                     : "init_values= and attrs=";
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name, "' for ",
                                              what, " (it takes ", allowed, ")"));
    }
  }
  if (kind != ir::ForKind::kPipeline) return absl::OkStatus();
  if (ir::FindAttr(*attrs, ir::kAttrPipelineStages) != nullptr) {
    if (stage_ast == nullptr) return absl::OkStatus();  // the printed form of old IR
    return ErrorAt(stage_ast, "the pipeline depth is given twice (stage= and attrs=)");
  }
  if (stage_ast == nullptr) {
    return ErrorAt(iter, "pl.pipeline(...) needs stage=N, the pipeline depth (a positive "
                         "integer), e.g. pl.pipeline(n, stage=2)");
  }
  ASSIGN_OR_RETURN(int64_t stage, ConstInt(stage_ast, "the pl.pipeline stage"));
  if (stage < 1) {
    return ErrorAt(stage_ast, pto::StrCat("the pl.pipeline stage must be at least 1, got ", stage));
  }
  attrs->emplace_back(std::string(ir::kAttrPipelineStages), stage);
  return absl::OkStatus();
}

absl::Status Parser::LowerRangeFor(const Ast* stmt, ir::ForKind kind, std::vector<StmtPtr>* out) {
  const Ast* target = Kid(stmt, 0);
  const Ast* iter = Kid(stmt, 1);
  std::string what = pto::StrCat("pl.", ir::ForKindName(kind));
  RETURN_IF_ERROR(CheckPosCount(iter, 1, 3, what));
  const Ast* init_ast = nullptr;
  ir::AttrList attrs;
  RETURN_IF_ERROR(LowerLoopKeywords(iter, kind, what, &init_ast, &attrs));
  ExprPtr bounds[3];
  for (uint32_t i = 0; i < NumPos(iter); ++i) {
    ASSIGN_OR_RETURN(bounds[i], LowerScalarOperand(PosArg(iter, i), pto::StrCat(what, " bound")));
  }
  Span iter_span = SpanOf(iter);
  ExprPtr start_e, stop_e, step_e;
  if (NumPos(iter) == 1) {
    start_e = ir::MakeNode<ir::ConstInt>(0, DataType::kIndex, iter_span);
    stop_e = bounds[0];
  } else {
    start_e = bounds[0];
    stop_e = bounds[1];
  }
  step_e = NumPos(iter) == 3 ? bounds[2]
                             : ir::MakeNode<ir::ConstInt>(1, DataType::kIndex, iter_span);
  std::vector<ExprPtr> inits;
  if (init_ast != nullptr) {
    ASSIGN_OR_RETURN(inits, LowerInitValues(init_ast));
  }
  // Targets: `i` or `i, (a, b)` (also `i, a, b`).
  const Ast* loop_name = nullptr;
  std::vector<const Ast*> carried;
  if (init_ast == nullptr) {
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, pto::StrCat("a ", what, " loop without init_values has a single "
                                         "loop variable"));
    }
    loop_name = target;
  } else {
    if (target->kind != AstKind::kTuple || target->num_kids < 2 ||
        Kid(target, 0)->kind != AstKind::kName) {
      return ErrorAt(target, "a loop with init_values is written `for i, (a, b) in ...`");
    }
    loop_name = Kid(target, 0);
    if (target->num_kids == 2 && Kid(target, 1)->kind == AstKind::kTuple) {
      const Ast* inner = Kid(target, 1);
      for (uint32_t i = 0; i < inner->num_kids; ++i) carried.push_back(Kid(inner, i));
    } else {
      for (uint32_t i = 1; i < target->num_kids; ++i) carried.push_back(Kid(target, i));
    }
    for (const Ast* c : carried) {
      if (c->kind != AstKind::kName) return ErrorAt(c, "loop-carried names must be plain names");
    }
    if (carried.size() != inits.size()) {
      return ErrorAt(target, pto::StrCat("the loop names ", carried.size(),
                                         " loop-carried value", carried.size() == 1 ? "" : "s",
                                         " but init_values has ", inits.size()));
    }
  }
  Span header = SpanOf(stmt);
  PushScope("for loop body");
  auto loop_var = ir::MakeNode<const ir::Var>(
      std::string(loop_name->text), ir::ScalarType::Get(DataType::kIndex), SpanOf(loop_name));
  Define(loop_name->text, loop_var);
  std::vector<ir::IterArgPtr> iter_args;
  std::vector<TypePtr> types;
  DefineIterArgs(carried, inits, &iter_args, &types);
  std::vector<StmtPtr> body;
  YieldInfo y;
  ++loop_depth_;
  absl::Status body_status = LowerBlock(Kid(stmt, 2), &body, &y);
  --loop_depth_;
  RETURN_IF_ERROR(body_status);
  std::vector<Escaped> escaped;
  PopScope(&escaped);
  RETURN_IF_ERROR(CheckLoopYield(y, iter_args.size(), stmt, "loop"));
  for (size_t i = 0; i < y.values.size() && i < types.size(); ++i) {
    if (!ir::TypesAgree(types[i], y.values[i]->type())) {
      return UserError(y.span, pto::StrCat("pl.yield_ value ", i, " has type ",
                                           TypeText(y.values[i]->type()),
                                           " but the loop-carried value has type ",
                                           TypeText(types[i])));
    }
  }
  std::vector<VarPtr> return_vars;
  if (y.has_names) {
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(y, types));
  }
  out->push_back(ir::MakeNode<ir::ForStmt>(
      std::move(loop_var), std::move(start_e), std::move(stop_e), std::move(step_e),
      std::move(iter_args), ir::MakeNode<ir::SeqStmts>(std::move(body), header), return_vars,
      kind, std::move(attrs), header));
  BindEscaped(escaped);
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

// Binds each loop-carried name to an IterArg of its init value's type.
void Parser::DefineIterArgs(const std::vector<const Ast*>& carried,
                            const std::vector<ExprPtr>& inits,
                            std::vector<ir::IterArgPtr>* iter_args,
                            std::vector<TypePtr>* types) {
  for (size_t i = 0; i < carried.size(); ++i) {
    auto ia = ir::MakeNode<const ir::IterArg>(std::string(carried[i]->text),
                                                  inits[i]->type(), inits[i], SpanOf(carried[i]));
    types->push_back(inits[i]->type());
    Define(carried[i]->text, ia);
    iter_args->push_back(std::move(ia));
  }
}

absl::Status Parser::LowerWhileFor(const Ast* stmt, std::vector<StmtPtr>* out) {
  const Ast* target = Kid(stmt, 0);
  const Ast* iter = Kid(stmt, 1);
  RETURN_IF_ERROR(CheckPosCount(iter, 0, 0, "pl.while_"));
  const Ast* init_ast = nullptr;
  for (uint32_t i = 0; i < iter->num_kws; ++i) {
    const KwName& k = KwAt(iter, i);
    if (k.name != "init_values") {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name,
                                              "' for pl.while_"));
    }
    init_ast = KwValue(iter, i);
  }
  if (init_ast == nullptr) {
    return ErrorAt(iter, "pl.while_ needs init_values=(...); write a plain `while cond:` for a "
                         "loop without loop-carried values");
  }
  ASSIGN_OR_RETURN(std::vector<ExprPtr> inits, LowerInitValues(init_ast));
  std::vector<const Ast*> carried;
  if (target->kind == AstKind::kTuple) {
    for (uint32_t i = 0; i < target->num_kids; ++i) carried.push_back(Kid(target, i));
  } else {
    carried.push_back(target);
  }
  for (const Ast* c : carried) {
    if (c->kind != AstKind::kName) return ErrorAt(c, "loop-carried names must be plain names");
  }
  if (carried.size() != inits.size()) {
    return ErrorAt(target, pto::StrCat("the loop names ", carried.size(), " loop-carried value",
                                       carried.size() == 1 ? "" : "s", " but init_values has ",
                                       inits.size()));
  }
  Span header = SpanOf(stmt);
  PushScope("while loop body");
  std::vector<ir::IterArgPtr> iter_args;
  std::vector<TypePtr> types;
  DefineIterArgs(carried, inits, &iter_args, &types);
  std::vector<StmtPtr> body;
  YieldInfo y;
  expect_cond_ = true;
  cond_result_ = nullptr;
  ++loop_depth_;
  absl::Status body_status = LowerBlock(Kid(stmt, 2), &body, &y);
  --loop_depth_;
  RETURN_IF_ERROR(body_status);
  if (expect_cond_) {
    expect_cond_ = false;
    return ErrorAt(stmt, "the body of a pl.while_ loop must start with pl.cond(...)");
  }
  ExprPtr cond = std::move(cond_result_);
  std::vector<Escaped> escaped;
  PopScope(&escaped);
  RETURN_IF_ERROR(CheckLoopYield(y, iter_args.size(), stmt, "while loop"));
  std::vector<VarPtr> return_vars;
  if (y.has_names) {
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(y, types));
  }
  out->push_back(ir::MakeNode<ir::WhileStmt>(
      std::move(cond), std::move(iter_args),
      ir::MakeNode<ir::SeqStmts>(std::move(body), header), return_vars, header));
  BindEscaped(escaped);
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

absl::Status Parser::LowerWhile(const Ast* stmt, std::vector<StmtPtr>* out) {
  ASSIGN_OR_RETURN(ExprPtr cond, LowerScalarOperand(Kid(stmt, 0), "a while condition"));
  Span header = SpanOf(stmt);
  PushScope("while loop body");
  std::vector<StmtPtr> body;
  YieldInfo y;
  ++loop_depth_;
  absl::Status body_status = LowerBlock(Kid(stmt, 1), &body, &y);
  --loop_depth_;
  RETURN_IF_ERROR(body_status);
  std::vector<Escaped> escaped;
  PopScope(&escaped);
  if (y.present && !y.values.empty()) {
    return UserError(y.span, "a plain while loop has no loop-carried values; write `for (x,) in "
                             "pl.while_(init_values=(...))` to carry values");
  }
  out->push_back(ir::MakeNode<ir::WhileStmt>(
      std::move(cond), std::vector<ir::IterArgPtr>{},
      ir::MakeNode<ir::SeqStmts>(std::move(body), header), std::vector<VarPtr>{}, header));
  BindEscaped(escaped);
  return absl::OkStatus();
}

}  // namespace pto::parser::internal
