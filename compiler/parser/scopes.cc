// With-scopes: pld.comm_domain and pl.runtime_scope (ours), PyPTO's
// pl.manual_scope / pl.scope (runtime scopes), and pl.at / pl.cluster /
// pl.spmd (ExecScopeStmt). A with body does not open a name scope: its
// definitions stay visible after it, as in Python.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/ops/enum_spellings.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

absl::Status Parser::LowerWith(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* yield) {
  const Ast* item = Kid(stmt, 0);
  std::string what;
  if (item->kind == AstKind::kCall && Kid(item, 0)->kind == AstKind::kAttribute &&
      DottedPath(Kid(item, 0))) {
    what = path_;
  }
  if (what == "pl.at" || what == "pl.spmd") return LowerExecScope(stmt, what, out, yield);
  if (stmt->num_kids > 2) {
    return ErrorAt(Kid(stmt, 2), pto::StrCat("`with ", what.empty() ? "..." : what,
                                             "(...) as name` is not supported: only pl.at(...) "
                                             "and pl.spmd(...) name their task id"));
  }
  if (what == "pl.cluster") return LowerExecScope(stmt, what, out, yield);
  if (what == "pl.split_aiv") return LowerSplitAiv(stmt, out, yield, nullptr);
  if (what == "pl.manual_scope" || what == "pl.scope") {
    return LowerScopeAlias(stmt, what, out, yield);
  }
  if (what != "pld.comm_domain" && what != "pl.runtime_scope") {
    return ErrorAt(item, "unsupported with-statement context: the contexts are pl.at(...), "
                         "pl.spmd(...), pl.cluster(...), pl.scope(...), pl.manual_scope(), "
                         "pl.runtime_scope(...) and pld.comm_domain(...)");
  }
  std::string name;
  if (NumPos(item) > 1) RETURN_IF_ERROR(CheckPosCount(item, 0, 1, what));
  if (NumPos(item) == 1) {
    const Ast* n = PosArg(item, 0);
    if (!IsConstAst(n)) return ErrorAt(n, pto::StrCat(what, " takes a name string first"));
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(n));
    if (v.kind != ConstVal::kStr) return ErrorAt(n, pto::StrCat(what, " takes a name string first"));
    name = std::move(v.s);
  }
  std::vector<int64_t> devices;
  std::vector<std::pair<std::string, Span>> slot_names;
  bool manual = false;
  ir::AttrList attrs;
  bool comm = what == "pld.comm_domain";
  for (uint32_t i = 0; i < item->num_kws; ++i) {
    const KwName& k = KwAt(item, i);
    const Ast* v = KwValue(item, i);
    if (k.name == "attrs") {
      ASSIGN_OR_RETURN(attrs, ConvertAttrDict(v, /*call_attrs=*/false));
    } else if (comm && (k.name == "devices" || k.name == "slots")) {
      if (v->kind != AstKind::kList && v->kind != AstKind::kTuple) {
        return ErrorAt(v, pto::StrCat(k.name, " must be a list"));
      }
      for (uint32_t j = 0; j < v->num_kids; ++j) {
        const Ast* e = Kid(v, j);
        if (!IsConstAst(e)) return ErrorAt(e, pto::StrCat(k.name, " must hold constants"));
        ASSIGN_OR_RETURN(ConstVal c, ConstEval(e));
        if (k.name == "devices") {
          if (c.kind != ConstVal::kInt) return ErrorAt(e, "devices must be integers");
          devices.push_back(c.i);
        } else {
          if (c.kind != ConstVal::kStr) return ErrorAt(e, "slots must be buffer name strings");
          slot_names.emplace_back(std::move(c.s), SpanOf(e));
        }
      }
    } else if (!comm && k.name == "manual") {
      if (!IsConstAst(v)) return ErrorAt(v, "manual must be True or False");
      ASSIGN_OR_RETURN(ConstVal c, ConstEval(v));
      if (c.kind != ConstVal::kBool) return ErrorAt(v, "manual must be True or False");
      manual = c.i != 0;
    } else {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name, "' for ",
                                              what));
    }
  }
  Span header = SpanOf(stmt);
  // `with` bodies do not open a scope: their definitions stay visible.
  std::vector<StmtPtr> body;
  RETURN_IF_ERROR(LowerBlock(Kid(stmt, 1), &body, yield));
  auto body_stmt = ir::MakeNode<ir::SeqStmts>(std::move(body), header);
  if (!comm) {
    out->push_back(ir::MakeNode<ir::RuntimeScopeStmt>(std::move(name), manual,
                                                          std::move(body_stmt), std::move(attrs),
                                                          header));
    return absl::OkStatus();
  }
  std::vector<ir::WindowBufferPtr> slots;
  slots.reserve(slot_names.size());
  for (const auto& [slot, span] : slot_names) {
    WinAlloc* w = nullptr;
    if (cur_func_ != nullptr) {
      auto it = cur_func_->windows.find(slot);
      if (it != cur_func_->windows.end()) w = &it->second;
    }
    if (w == nullptr) {
      return UserError(span, pto::StrCat("comm_domain slot '", slot,
                                         "' names no window allocation in this function "
                                         "(expected `",
                                         slot, " = pld.tensor.alloc_window_buffer(size)`)"));
    }
    if (w->wb == nullptr) {
      w->wb = ir::MakeNode<const ir::WindowBuffer>(w->base, w->size, false, false, w->span);
    }
    slots.push_back(w->wb);
  }
  out->push_back(ir::MakeNode<ir::CommDomainScopeStmt>(
      std::move(name), std::move(devices), std::move(slots), std::move(body_stmt),
      std::move(attrs), header));
  return absl::OkStatus();
}

namespace {

// pl.at keywords kept as scope attributes, by their PyPTO names.
bool IsAtAttrKeyword(std::string_view k) {
  return k == "deps" || k == "no_dep_args" || k == "dumps" || k == "allow_early_resolve" ||
         k == "windowize";
}

}  // namespace

// PyPTO's `optimizations=[pl.split(pl.SplitMode.X), pl.cross_core_slot(slot_num=N)]`
// (language/parser/ast_parser.py, _parse_optimizations_list). Both tune the
// split of mixed AIC + AIV kernels (passes 20-24), which this toolchain does
// not have: a well-formed list is a warning and is dropped; a malformed one is
// an error with PyPTO's message.
absl::Status Parser::CheckOptimizations(const Ast* v, std::string_view what) {
  if (v->kind != AstKind::kList) {
    return ErrorAt(v, pto::StrCat(what, "(optimizations=...) must be a list literal"));
  }
  bool seen_split = false, seen_slot = false;
  for (uint32_t i = 0; i < v->num_kids; ++i) {
    const Ast* e = Kid(v, i);
    std::string callee;
    if (e->kind == AstKind::kCall && DottedPath(Kid(e, 0))) callee = path_;
    if (callee == "pl.split" || callee == "pl.optimizations.split") {
      if (seen_split) return ErrorAt(e, "Duplicate 'pl.split(...)' in optimizations=[...]");
      seen_split = true;
      const Ast* mode = NumPos(e) > 0 ? PosArg(e, 0) : nullptr;
      for (uint32_t k = 0; k < e->num_kws; ++k) {
        if (KwAt(e, k).name == "mode") mode = KwValue(e, k);
      }
      if (mode == nullptr ||
          !(DottedPath(mode) && StartsWith(path_, "pl.SplitMode.") &&
            ops::EnumValueFromPath("SplitMode", path_).has_value())) {
        return ErrorAt(e, "pl.split(...) takes a mode: pl.SplitMode.NONE, "
                          "pl.SplitMode.UP_DOWN or pl.SplitMode.LEFT_RIGHT");
      }
    } else if (callee == "pl.cross_core_slot" || callee == "pl.optimizations.cross_core_slot") {
      if (seen_slot) {
        return ErrorAt(e, "Duplicate 'pl.cross_core_slot(...)' in optimizations=[...]");
      }
      seen_slot = true;
    } else {
      return ErrorAt(e, pto::StrCat("Unsupported entry in ", what, "(optimizations=[...]): each "
                                    "entry must be pl.split(pl.SplitMode.X) or "
                                    "pl.cross_core_slot(slot_num=N)"));
    }
  }
  if (v->num_kids > 0 && warnings_ != nullptr) {
    warnings_->push_back(UserError(
        SpanOf(v), pto::StrCat(what, "(optimizations=...) is ignored: the cross-core split it "
                                     "tunes (PyPTO passes 20-24) is not implemented here")));
  }
  return absl::OkStatus();
}

// `with pl.at(level, role=None, *, name_hint=, deps=, ...)`, `with
// pl.cluster(name_hint=)` and `with pl.spmd(core_num, *, sync_start=,
// name_hint=)`, with PyPTO's signatures (python/pypto/language/dsl_api.py).
absl::Status Parser::LowerExecScope(const Ast* stmt, std::string_view what,
                                    std::vector<StmtPtr>* out, YieldInfo* yield,
                                    const Ast* spmd_loop_var) {
  const bool for_form = spmd_loop_var != nullptr;
  const Ast* item = Kid(stmt, for_form ? 1 : 0);
  const bool at = what == "pl.at", spmd = what == "pl.spmd";
  const uint32_t max_pos = at ? 2 : spmd ? 1 : 0;
  if (NumPos(item) > max_pos) RETURN_IF_ERROR(CheckPosCount(item, 0, max_pos, what));
  const Ast* level_ast = at && NumPos(item) > 0 ? PosArg(item, 0) : nullptr;
  const Ast* role_ast = at && NumPos(item) > 1 ? PosArg(item, 1) : nullptr;
  const Ast* core_ast = spmd && NumPos(item) > 0 ? PosArg(item, 0) : nullptr;
  std::string name;
  bool sync_start = false;
  ir::AttrList attrs;
  for (uint32_t i = 0; i < item->num_kws; ++i) {
    const KwName& k = KwAt(item, i);
    const Ast* v = KwValue(item, i);
    auto repeated = [&](const Ast* given) -> absl::Status {
      if (given == nullptr) return absl::OkStatus();
      return UserError(KwSpan(k), pto::StrCat(what, " got '", k.name, "' twice"));
    };
    if (at && k.name == "level") {
      RETURN_IF_ERROR(repeated(level_ast));
      level_ast = v;
    } else if (at && k.name == "role") {
      RETURN_IF_ERROR(repeated(role_ast));
      role_ast = v;
    } else if (spmd && k.name == "core_num") {
      RETURN_IF_ERROR(repeated(core_ast));
      core_ast = v;
    } else if (k.name == "name_hint") {
      ASSIGN_OR_RETURN(ConstVal c, ConstEval(v));
      if (c.kind != ConstVal::kStr) return ErrorAt(v, "name_hint must be a string");
      name = std::move(c.s);
    } else if (spmd && k.name == "sync_start") {
      ASSIGN_OR_RETURN(ConstVal c, ConstEval(v));
      if (c.kind != ConstVal::kBool) return ErrorAt(v, "sync_start must be True or False");
      sync_start = c.i != 0;
    } else if (k.name == "attrs") {
      ASSIGN_OR_RETURN(ir::AttrList given, ConvertAttrDict(v, /*call_attrs=*/false));
      for (auto& kv : given) attrs.push_back(std::move(kv));
    } else if ((at || spmd) && k.name == "deps") {
      // Task ids, as pl.submit's: the outliner puts them on the submitted call.
      ASSIGN_OR_RETURN(std::vector<ExprPtr> deps, LowerTaskDeps(v, what));
      attrs.emplace_back(ir::kAttrDeps, std::move(deps));
    } else if ((at && IsAtAttrKeyword(k.name)) || (spmd && (k.name == "deps" ||
                                                           k.name == "allow_early_resolve"))) {
      ASSIGN_OR_RETURN(ir::AttrValue a, ConvertAttr(v));
      attrs.emplace_back(std::string(k.name), std::move(a));
    } else if (k.name == "optimizations" && (at || spmd)) {
      RETURN_IF_ERROR(CheckOptimizations(v, what));
    } else if (k.name == "optimizations" || k.name == "predicate") {
      return UserError(KwSpan(k), pto::StrCat(what, "(", k.name, "=...) is not supported yet; "
                                              "leave it out (the pipeline picks the default)"));
    } else {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name, "' for ",
                                              what));
    }
  }
  ir::ScopeKind kind = ir::ScopeKind::kCluster;
  std::optional<ir::Level> level;
  std::optional<ir::Role> role;
  ExprPtr core_num;
  if (at) {
    if (level_ast == nullptr) {
      return ErrorAt(item, "pl.at(...) needs a level, e.g. pl.at(level=pl.Level.CORE_GROUP)");
    }
    if (DottedPath(level_ast) && StartsWith(path_, "pl.Level.")) {
      level = ir::LevelFromName(std::string_view(path_).substr(9));
    }
    if (!level) return ErrorAt(level_ast, "expected a level such as pl.Level.CORE_GROUP");
    if (role_ast != nullptr && role_ast->kind != AstKind::kNone) {
      if (DottedPath(role_ast) && StartsWith(path_, "pl.Role.")) {
        role = ir::RoleFromName(std::string_view(path_).substr(8));
      }
      if (!role) return ErrorAt(role_ast, "expected a role such as pl.Role.Orchestrator");
    }
    // PyPTO: CORE_GROUP regions are InCore scopes, other levels hierarchy scopes.
    kind = *level == ir::Level::kCoreGroup && !role ? ir::ScopeKind::kInCore
                                                    : ir::ScopeKind::kHierarchy;
  } else if (spmd) {
    if (core_ast == nullptr) return ErrorAt(item, "pl.spmd(...) needs core_num, e.g. pl.spmd(4)");
    ASSIGN_OR_RETURN(core_num, LowerScalarOperand(core_ast, "pl.spmd core_num"));
    kind = ir::ScopeKind::kSpmd;
  }
  Span header = SpanOf(stmt);
  std::vector<StmtPtr> body;
  if (for_form) {
    // PyPTO's `for i in pl.spmd(n):` (ast_parser.py, _parse_spmd_for_loop): an
    // SPMD scope around one InCore scope whose first statement binds i to the
    // block index.
    std::vector<StmtPtr> inner;
    ASSIGN_OR_RETURN(ExprPtr idx, MakeOpCall("pl.tile.get_block_idx", {}, {}, {},
                                             SpanOf(spmd_loop_var)));
    bool reassigned = false;
    VarPtr var = AssignTarget(spmd_loop_var->text, idx->type(), SpanOf(spmd_loop_var),
                              &reassigned);
    inner.push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(idx), SpanOf(spmd_loop_var)));
    if (!reassigned) Define(spmd_loop_var->text, std::move(var), /*assigned=*/true);
    RETURN_IF_ERROR(LowerBlock(Kid(stmt, 2), &inner, yield));
    body.push_back(ir::MakeNode<ir::ExecScopeStmt>(
        ir::ScopeKind::kInCore, std::string(), ir::Level::kCoreGroup, std::nullopt, nullptr,
        false, ir::MakeNode<ir::SeqStmts>(std::move(inner), header), ir::AttrList{}, header));
  } else {
    RETURN_IF_ERROR(LowerBlock(Kid(stmt, 1), &body, yield));
  }
  if (!for_form && stmt->num_kids > 2) {
    // PyPTO's `with pl.at(...) as tid:` (ast_parser.py, task_id_var): a
    // Scalar[TASK_ID] of the enclosing block, bound to the task the outlined
    // scope submits; visible after the scope (e.g. `deps=[tid]`), not in it.
    const Ast* target = Kid(stmt, 2);
    bool reassigned = false;
    TypePtr tid_type = ir::ScalarType::Get(ir::DataType::kTaskId);
    VarPtr tid = AssignTarget(target->text, tid_type, SpanOf(target), &reassigned);
    if (reassigned) {
      // Rebinding a task id of an enclosing block (a dependency chain carried
      // by a loop, `with ... as prev_tid:`): the scope binds a fresh task id
      // and the name is reassigned to it after the scope, the non-SSA form
      // ConvertToSSA (04) carries out of the loop.
      VarPtr fresh = ir::MakeNode<const ir::Var>(pto::StrCat(target->text, "_task"), tid_type,
                                                 SpanOf(target));
      attrs.emplace_back(ir::kAttrTaskIdVar, ExprPtr(fresh));
      out->push_back(ir::MakeNode<ir::ExecScopeStmt>(
          kind, std::move(name), level, role, std::move(core_num), sync_start,
          ir::MakeNode<ir::SeqStmts>(std::move(body), header), std::move(attrs), header));
      out->push_back(ir::MakeNode<ir::AssignStmt>(std::move(tid), std::move(fresh),
                                                  SpanOf(target)));
      return absl::OkStatus();
    }
    attrs.emplace_back(ir::kAttrTaskIdVar, ExprPtr(tid));
    Define(target->text, std::move(tid), /*assigned=*/true);
  }
  out->push_back(ir::MakeNode<ir::ExecScopeStmt>(
      kind, std::move(name), level, role, std::move(core_num), sync_start,
      ir::MakeNode<ir::SeqStmts>(std::move(body), header), std::move(attrs), header));
  return absl::OkStatus();
}

// PyPTO's AIV-split region (ast_parser.py, _parse_split_aiv_for_loop): n is
// the AIV sub-core count, fixed at 2; mode= (pl.SplitMode) is required. The
// loop variable is the lane, `aiv_id = pl.tile.get_subblock_idx()`, the first
// statement of the region. It prints as `with pl.split_aiv(2, mode=...)`
// around that statement; PyPTO's pass 20 LowerAutoVectorSplit lowers it, so
// the pipeline stops at it with a located "out of scope" (pass_manager.cc).
absl::Status Parser::LowerSplitAiv(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* yield,
                                   const Ast* loop_var) {
  const Ast* item = Kid(stmt, loop_var != nullptr ? 1 : 0);
  if (split_aiv_mode_) {
    return ErrorAt(stmt, "nested 'for ... in pl.split_aiv(...)' is not allowed: a split_aiv "
                         "body already represents the two AIV lanes");
  }
  if (NumPos(item) != 1) {
    return ErrorAt(item, "pl.split_aiv() takes exactly one positional argument (n, the AIV "
                         "sub-core count)");
  }
  ASSIGN_OR_RETURN(ConstVal n, ConstEval(PosArg(item, 0)));
  if (n.kind != ConstVal::kInt || n.i != 2) {
    return ErrorAt(PosArg(item, 0), "pl.split_aiv(n) requires n == 2 (the AIV sub-core count "
                                    "is hardware-fixed at 2)");
  }
  std::optional<ir::AttrValue> mode;
  for (uint32_t i = 0; i < item->num_kws; ++i) {
    const KwName& k = KwAt(item, i);
    if (k.name != "mode") {
      return UserError(KwSpan(k), pto::StrCat("pl.split_aiv() got unexpected keyword argument '",
                                              k.name, "'"));
    }
    const Ast* v = KwValue(item, i);
    if (DottedPath(v)) mode = ops::EnumValueFromPath("SplitMode", path_);
    if (!mode) {
      return ErrorAt(v, "expected pl.SplitMode.NONE, pl.SplitMode.UP_DOWN or "
                        "pl.SplitMode.LEFT_RIGHT");
    }
  }
  if (!mode) {
    return ErrorAt(item, "pl.split_aiv() needs mode= (pl.SplitMode.NONE, UP_DOWN or LEFT_RIGHT)");
  }
  Span header = SpanOf(stmt);
  std::vector<StmtPtr> body;
  if (loop_var != nullptr) {
    ASSIGN_OR_RETURN(ExprPtr lane, MakeOpCall("pl.tile.get_subblock_idx", {}, {}, {},
                                              SpanOf(loop_var)));
    bool reassigned = false;
    VarPtr var = AssignTarget(loop_var->text, lane->type(), SpanOf(loop_var), &reassigned);
    body.push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(lane), SpanOf(loop_var)));
    if (!reassigned) Define(loop_var->text, std::move(var), /*assigned=*/true);
  }
  split_aiv_mode_ = std::get<int64_t>(*mode);
  absl::Status lowered = LowerBlock(Kid(stmt, loop_var != nullptr ? 2 : 1), &body, yield);
  split_aiv_mode_.reset();
  RETURN_IF_ERROR(lowered);
  out->push_back(ir::MakeNode<ir::ExecScopeStmt>(
      ir::ScopeKind::kSplitAiv, std::string(), std::nullopt, std::nullopt, nullptr, false,
      ir::MakeNode<ir::SeqStmts>(std::move(body), header),
      ir::AttrList{{"mode", std::move(*mode)}}, header));
  return absl::OkStatus();
}

// PyPTO's runtime scopes: `with pl.manual_scope():` and `with
// pl.scope(mode=pl.ScopeMode.AUTO | MANUAL):` are our pl.runtime_scope.
absl::Status Parser::LowerScopeAlias(const Ast* stmt, std::string_view what,
                                     std::vector<StmtPtr>* out, YieldInfo* yield) {
  const Ast* item = Kid(stmt, 0);
  bool manual = what == "pl.manual_scope";
  if (manual) {
    RETURN_IF_ERROR(CheckPosCount(item, 0, 0, what));
    RETURN_IF_ERROR(CheckNoKeywords(item, what));
  } else {
    RETURN_IF_ERROR(CheckPosCount(item, 0, 1, what));
    const Ast* mode = NumPos(item) == 1 ? PosArg(item, 0) : nullptr;
    for (uint32_t i = 0; i < item->num_kws; ++i) {
      if (KwAt(item, i).name != "mode" || mode != nullptr) {
        return UserError(KwSpan(KwAt(item, i)),
                         pto::StrCat("unknown keyword argument '", KwAt(item, i).name,
                                     "' for pl.scope (it takes mode=)"));
      }
      mode = KwValue(item, i);
    }
    if (mode != nullptr) {
      std::string m = DottedPath(mode) ? path_ : std::string();
      if (m != "pl.ScopeMode.AUTO" && m != "pl.ScopeMode.MANUAL") {
        return ErrorAt(mode, "expected pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL");
      }
      manual = m == "pl.ScopeMode.MANUAL";
    }
  }
  Span header = SpanOf(stmt);
  std::vector<StmtPtr> body;
  RETURN_IF_ERROR(LowerBlock(Kid(stmt, 1), &body, yield));
  out->push_back(ir::MakeNode<ir::RuntimeScopeStmt>(
      "", manual, ir::MakeNode<ir::SeqStmts>(std::move(body), header), ir::AttrList{},
      header));
  return absl::OkStatus();
}

}  // namespace pto::parser::internal
