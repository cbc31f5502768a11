#include "compiler/ir/verifier.h"

#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::ir {

// ---- Type helpers ----

namespace {

bool IsTensorLike(const TypePtr& t) { return AsTensorTypeLike(t) != nullptr; }

}  // namespace

bool TypesAgree(const TypePtr& expected, const TypePtr& actual) {
  // A missing type is an IR-construction bug that other checks do not depend on.
  if (expected == nullptr || actual == nullptr) return true;
  if (IsTensorLike(expected) && IsTensorLike(actual)) {
    // The expected side may be the more specific DistributedTensorType.
    if (expected->kind() == NodeKind::kTensorType &&
        actual->kind() == NodeKind::kDistributedTensorType) {
      return false;
    }
    auto e = AsTensorTypeLike(expected);
    auto a = AsTensorTypeLike(actual);
    if (e->dtype() != a->dtype() || e->shape().size() != a->shape().size()) return false;
    auto ed = As<DistributedTensorType>(expected);
    auto ad = As<DistributedTensorType>(actual);
    if (ed != nullptr && ad != nullptr && ed->window_buffer().has_value() &&
        ad->window_buffer().has_value() && *ed->window_buffer() != *ad->window_buffer()) {
      return false;  // Window buffer identity is load-bearing (spec §1.4).
    }
    return true;
  }
  if (expected->kind() != actual->kind()) return false;
  switch (expected->kind()) {
    case NodeKind::kScalarType:
      return static_cast<const ScalarType&>(*expected).dtype() ==
             static_cast<const ScalarType&>(*actual).dtype();
    case NodeKind::kTileType: {
      const auto& e = static_cast<const TileType&>(*expected);
      const auto& a = static_cast<const TileType&>(*actual);
      return e.dtype() == a.dtype() && e.shape().size() == a.shape().size();
    }
    case NodeKind::kArrayType: {
      const auto& e = static_cast<const ArrayType&>(*expected);
      const auto& a = static_cast<const ArrayType&>(*actual);
      return e.dtype() == a.dtype() && e.ConstExtent() == a.ConstExtent();
    }
    case NodeKind::kTupleType: {
      const auto& e = static_cast<const TupleType&>(*expected).types();
      const auto& a = static_cast<const TupleType&>(*actual).types();
      if (e.size() != a.size()) return false;
      for (size_t i = 0; i < e.size(); ++i) {
        if (!TypesAgree(e[i], a[i])) return false;
      }
      return true;
    }
    default:
      return true;  // Singletons.
  }
}

// ---- The verifier ----

namespace {

// A function declared to return a plain Tensor may return a DistributedTensor
// of the same dtype and rank (a window-bound view is a tensor, as in PyPTO
// where DistributedTensorType derives from TensorType): the caller sees the
// declared plain type.
bool ReturnsWindowAsTensor(const TypePtr& declared, const TypePtr& value) {
  if (declared == nullptr || value == nullptr || declared->kind() != NodeKind::kTensorType ||
      value->kind() != NodeKind::kDistributedTensorType) {
    return false;
  }
  auto d = AsTensorTypeLike(declared);
  auto v = AsTensorTypeLike(value);
  return d->dtype() == v->dtype() && d->shape().size() == v->shape().size();
}

// All definition sites of a function, to tell "before its definition" from
// "undefined".
class DefCollector : public IRVisitor {
 public:
  explicit DefCollector(absl::flat_hash_set<const Var*>* defs) : defs_(defs) {}
  void VisitType(const TypePtr&) override {}

 protected:
  void VisitVarDef(const VarPtr& var) override {
    if (var != nullptr) defs_->insert(var.get());
  }

 private:
  absl::flat_hash_set<const Var*>* defs_;
};

// The statement a body ends with, looking through nested SeqStmts.
StmtPtr TrailingStmt(const StmtPtr& body) {
  StmtPtr s = body;
  while (auto seq = As<SeqStmts>(s)) {
    if (seq->stmts().empty()) return nullptr;
    s = seq->stmts().back();
  }
  return s;
}

class Verifier : public IRVisitor {
 public:
  Verifier(const Program* program, VerifyOptions options)
      : program_(program), options_(options) {}

  absl::Status status() const { return status_; }

  void CheckProgram(const ProgramPtr& program) {
    absl::flat_hash_map<std::string, const Function*> names;
    for (const auto& [gv, func] : program->functions()) {
      if (gv == nullptr || func == nullptr) {
        return Error(program->span(), "program has a null function entry");
      }
      if (gv->name() != func->name()) {
        return Error(func->span(),
                     StrCat("GlobalVar '", gv->name(), "' names function '", func->name(), "'"));
      }
      if (!names.emplace(gv->name(), func.get()).second) {
        return Error(func->span(), StrCat("function '", gv->name(),
                                          "' is defined more than once (GlobalVar names must "
                                          "be unique)"));
      }
    }
    for (const auto& [gv, func] : program->functions()) {
      VisitFunction(func);
      if (!ok()) return;
    }
  }

  void VisitFunction(const FunctionPtr& func) override {
    if (!ok() || func == nullptr) return;
    func_ = func.get();
    func_ptr_ = &func;
    defined_.clear();
    blocks_.clear();
    spans_.clear();
    yields_.clear();

    SpanScope fs(this, func->span());
    blocks_.push_back({BlockKind::kFunction, {}});
    // Params are visible in the whole function, their types included.
    for (const VarPtr& p : func->params()) {
      Define(p, DefKind::kParam, p != nullptr && p->span().known() ? p->span() : func->span());
    }
    for (const VarPtr& p : func->params()) {
      if (p != nullptr) CheckTypeScoping(p->type());
    }
    for (const TypePtr& t : func->return_types()) CheckTypeScoping(t);
    VisitAttrs(func->attrs());
    VisitStmt(func->body());
    blocks_.pop_back();
    func_ = nullptr;
    func_ptr_ = nullptr;
  }

  void VisitStmt(const StmtPtr& stmt) override {
    if (!ok() || stmt == nullptr) return;
    SpanScope s(this, stmt->span());
    IRVisitor::VisitStmt(stmt);
  }

  void VisitExpr(const ExprPtr& expr) override {
    if (!ok() || expr == nullptr) return;
    if (Is<Var>(expr)) return IRVisitor::VisitExpr(expr);  // Its span is its definition.
    SpanScope s(this, expr->span());
    IRVisitor::VisitExpr(expr);
  }

  // Types are checked only where they are written (CheckTypeScoping).
  void VisitType(const TypePtr& type) override {
    if (ok() && check_types_ > 0) IRVisitor::VisitType(type);
  }

 protected:
  // ---- Uses ----

  void VisitVar(const VarPtr& var) override { Use(var); }
  void VisitIterArg(const IterArgPtr& var) override { Use(var); }
  // Allocation handles referenced from types and scope slots need no
  // definition; their fields belong to where they were created.
  void VisitMemRef(const MemRefPtr&) override {}
  void VisitWindowBuffer(const WindowBufferPtr&) override {}

  void VisitCall(const CallPtr& call) override {
    IRVisitor::VisitCall(call);
    if (!ok()) return;
    CheckDeps(*call);
    if (!ok()) return;
    auto gv = As<GlobalVar>(call->op());
    if (gv == nullptr || program_ == nullptr) return;
    FunctionPtr callee = program_->GetFunction(gv->name());
    if (callee == nullptr) {
      return Error(CurrentSpan(), StrCat("call to unknown function '", gv->name(), "'"));
    }
    size_t nargs = call->args().size();
    const auto& params = callee->params();
    bool ok_count = nargs <= params.size();
    // Trailing CommCtx params may be absent: MaterializeDistTensorCtx binds them.
    for (size_t i = nargs; ok_count && i < params.size(); ++i) {
      ok_count = params[i] != nullptr && Is<CommCtxType>(params[i]->type());
    }
    if (!ok_count) {
      Error(CurrentSpan(), StrCat("function '", gv->name(), "' takes ", params.size(),
                                  " arguments but ", nargs, " were given"));
    }
  }

  // Typed task dependencies (PyPTO's Submit::deps_): only a pl.submit carries
  // deps=, and every entry is a Var of Scalar[TASK_ID] or Array[N, TASK_ID].
  void CheckDeps(const Call& call) {
    const AttrValue* deps = FindAttr(call.attrs(), kAttrDeps);
    if (deps == nullptr) return;
    const bool submit = Is<GlobalVar>(call.op()) && GetAttr<bool>(call.attrs(), kAttrSubmit).value_or(false);
    if (!submit) {
      return Error(CurrentSpan(), "deps= on a call that is not a pl.submit(...)");
    }
    const auto* list = std::get_if<std::vector<ExprPtr>>(deps);
    if (list == nullptr) return Error(CurrentSpan(), "pl.submit deps= is not a list of task ids");
    for (const ExprPtr& d : *list) {
      auto st = As<ScalarType>(d->type());
      auto at = As<ArrayType>(d->type());
      if (!Is<Var>(d) || !((st != nullptr && st->dtype() == DataType::kTaskId) ||
                           (at != nullptr && at->dtype() == DataType::kTaskId))) {
        return Error(CurrentSpan(), "pl.submit deps= entry is not a Scalar[TASK_ID] or "
                                    "Array[N, TASK_ID] variable");
      }
    }
  }

  // ---- Statements ----

  void VisitAssignStmt(const std::shared_ptr<const AssignStmt>& stmt) override {
    VisitExpr(stmt->value());
    if (!ok() || stmt->var() == nullptr) return;
    // A reassignment (before ConvertToSSA) targets a Var that is visible
    // here; it defines nothing new.
    auto it = defined_.find(stmt->var().get());
    bool reassignment = it != defined_.end() && it->second.visible &&
                        it->second.kind != DefKind::kIterArg &&
                        stmt->var()->kind() == NodeKind::kVar;
    if (!reassignment) {
      Define(stmt->var(), LocalDefKind(), DefSpan(stmt->var(), stmt->span()), /*assigned=*/true);
    }
    CheckTypeScoping(stmt->var()->type());
    if (!ok() || stmt->value() == nullptr) return;
    if (!TypesAgree(stmt->var()->type(), stmt->value()->type())) {
      Error(stmt->span(),
            StrCat("type of '", stmt->var()->name_hint(), "' (", PrintType(stmt->var()->type()),
                   ") does not match the type of its value (", PrintType(stmt->value()->type()),
                   ")"));
    }
  }

  void VisitReturnStmt(const std::shared_ptr<const ReturnStmt>& stmt) override {
    IRVisitor::VisitReturnStmt(stmt);
    if (!ok() || func_ == nullptr) return;
    const auto& values = stmt->value();
    const auto& types = func_->return_types();
    if (values.size() != types.size()) {
      return Error(stmt->span(), StrCat("function '", func_->name(), "' returns ", values.size(),
                                        " values but is declared to return ", types.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] != nullptr && !TypesAgree(types[i], values[i]->type()) &&
          !ReturnsWindowAsTensor(types[i], values[i]->type())) {
        return Error(ExprSpan(values[i], stmt->span()),
                     StrCat("return value ", i, " of function '", func_->name(), "' has type ",
                            PrintType(values[i]->type()), " but the declared type is ",
                            PrintType(types[i])));
      }
    }
  }

  void VisitIfStmt(const std::shared_ptr<const IfStmt>& stmt) override {
    VisitExpr(stmt->condition());
    if (!ok()) return;
    if (stmt->condition() != nullptr && !Is<ScalarType>(stmt->condition()->type())) {
      return Error(
          ExprSpan(stmt->condition(), stmt->span()),
          StrCat("if condition must be a scalar, got ", PrintType(stmt->condition()->type())));
    }
    size_t n = stmt->return_vars().size();
    if (n > 0 && !stmt->else_body().has_value()) {
      return Error(stmt->span(),
                   StrCat("if statement with ", n, " return values needs an else branch"));
    }
    YieldContext ctx{YieldContext::kIf, nullptr, &stmt->return_vars(), n > 0};
    VisitBody(stmt->then_body(), BlockKind::kIfBranch, ctx, stmt->span());
    if (stmt->else_body().has_value()) {
      VisitBody(*stmt->else_body(), BlockKind::kIfBranch, ctx, stmt->span());
    }
    for (const VarPtr& v : stmt->return_vars()) {
      if (!ok()) return;
      Define(v, LocalDefKind(), DefSpan(v, stmt->span()));
    }
  }

  void VisitForStmt(const std::shared_ptr<const ForStmt>& stmt) override {
    CheckBound("start", stmt->start(), stmt->span());
    CheckBound("stop", stmt->stop(), stmt->span());
    CheckBound("step", stmt->step(), stmt->span());
    VisitLoop(stmt, stmt->iter_args(), stmt->return_vars(), [&] {
      Define(stmt->loop_var(), DefKind::kLoopVar, DefSpan(stmt->loop_var(), stmt->span()));
    });
  }

  void VisitWhileStmt(const std::shared_ptr<const WhileStmt>& stmt) override {
    VisitLoop(stmt, stmt->iter_args(), stmt->return_vars(), [] {});
  }

  void VisitYieldStmt(const std::shared_ptr<const YieldStmt>& stmt) override {
    IRVisitor::VisitYieldStmt(stmt);
    if (!ok()) return;
    auto it = yields_.find(stmt.get());
    if (it == yields_.end()) {
      return Error(stmt->span(), "pl.yield_ must be the last statement of a loop or if body");
    }
    const YieldContext& ctx = it->second;
    const auto& values = stmt->value();
    if (ctx.kind == YieldContext::kLoop) {
      const auto& ias = *ctx.iter_args;
      if (values.size() != ias.size()) {
        return Error(stmt->span(), StrCat("pl.yield_ yields ", values.size(),
                                          " values but the loop has ", ias.size(), " iter args"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] == nullptr || ias[i] == nullptr) continue;
        if (!TypesAgree(ias[i]->type(), values[i]->type())) {
          return Error(ExprSpan(values[i], stmt->span()),
                       StrCat("type of yielded value ", i, " (", PrintType(values[i]->type()),
                              ") does not match iter arg '", ias[i]->name_hint(), "' (",
                              PrintType(ias[i]->type()), ")"));
        }
      }
      return;
    }
    if (!ctx.constrained) return;  // `pl.yield_(v)` without results.
    const auto& rvs = *ctx.return_vars;
    if (values.size() != rvs.size()) {
      return Error(stmt->span(),
                   StrCat("pl.yield_ yields ", values.size(), " values but the if statement has ",
                          rvs.size(), " return vars"));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] == nullptr || rvs[i] == nullptr) continue;
      if (!TypesAgree(rvs[i]->type(), values[i]->type())) {
        return Error(ExprSpan(values[i], stmt->span()),
                     StrCat("type of yielded value ", i, " (", PrintType(values[i]->type()),
                            ") does not match return var '", rvs[i]->name_hint(), "' (",
                            PrintType(rvs[i]->type()), ")"));
      }
    }
  }

  void VisitExecScopeStmt(const std::shared_ptr<const ExecScopeStmt>& stmt) override {
    IRVisitor::VisitExecScopeStmt(stmt);
    VarPtr tid = ScopeTaskIdVar(*stmt);
    if (!ok() || tid == nullptr) return;
    // Like an assignment after the scope: a rebinding of a visible tid (a
    // loop's previous task) defines nothing new.
    auto it = defined_.find(tid.get());
    if (it == defined_.end() || !it->second.visible) {
      Define(tid, LocalDefKind(), DefSpan(tid, stmt->span()), /*assigned=*/true);
    }
  }

  void VisitCommDomainScopeStmt(const std::shared_ptr<const CommDomainScopeStmt>& stmt) override {
    for (const WindowBufferPtr& slot : stmt->slots()) {
      if (slot == nullptr) continue;
      auto [it, inserted] = slot_owner_.try_emplace(slot.get(), stmt->name_hint());
      if (!inserted) {
        // Spec §1.9 (CommDomainScopesMaterialized) message.
        return Error(stmt->span(), StrCat("WindowBuffer '", slot->name_hint(),
                                          "' appears in multiple CommDomainScopeStmts ('",
                                          it->second, "' and '", stmt->name_hint(), "')"));
      }
    }
    IRVisitor::VisitCommDomainScopeStmt(stmt);
  }

  void VisitBreakStmt(const std::shared_ptr<const BreakStmt>& stmt) override {
    CheckInLoop(*stmt, "break");
  }
  void VisitContinueStmt(const std::shared_ptr<const ContinueStmt>& stmt) override {
    CheckInLoop(*stmt, "continue");
  }

 private:
  void CheckInLoop(const Stmt& stmt, std::string_view what) {
    if (!ok()) return;
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
      if (it->kind == BlockKind::kLoopBody) return;
    }
    Error(stmt.span(), StrCat("'", what, "' outside of a loop"));
  }

  enum class BlockKind { kFunction, kLoopBody, kIfBranch };
  enum class DefKind { kParam, kLocal, kLoopBodyLocal, kIfBranchLocal, kLoopVar, kIterArg };

  struct DefInfo {
    DefKind kind;
    const Span* span;  // in the IR being verified
    bool visible;
    bool assigned;  // an assignment's target (VerifyOptions)
  };
  struct Block {
    BlockKind kind;
    std::vector<const Var*> vars;
  };
  struct YieldContext {
    enum Kind { kLoop, kIf } kind;
    const std::vector<IterArgPtr>* iter_args;
    const std::vector<VarPtr>* return_vars;
    bool constrained;  // an if without return vars accepts any yield
  };

  class SpanScope {
   public:
    SpanScope(Verifier* v, const Span& span) : v_(v), pushed_(span.known()) {
      if (pushed_) v_->spans_.push_back(&span);
    }
    ~SpanScope() {
      if (pushed_) v_->spans_.pop_back();
    }
    SpanScope(const SpanScope&) = delete;
    SpanScope& operator=(const SpanScope&) = delete;

   private:
    Verifier* v_;
    bool pushed_;
  };

  bool ok() const { return status_.ok(); }

  void Error(const Span& span, std::string message) {
    if (ok()) status_ = UserError(span, std::move(message));
  }

  Span CurrentSpan() const { return spans_.empty() ? Span() : *spans_.back(); }

  Span ExprSpan(const ExprPtr& e, const Span& fallback) const {
    return e != nullptr && !Is<Var>(e) && e->span().known() ? e->span() : fallback;
  }

  // A definition is reported at the defining statement, else at the var.
  static const Span& DefSpan(const VarPtr& var, const Span& stmt_span) {
    if (stmt_span.known() || var == nullptr) return stmt_span;
    return var->span();
  }

  DefKind LocalDefKind() const {
    switch (blocks_.back().kind) {
      case BlockKind::kLoopBody:
        return DefKind::kLoopBodyLocal;
      case BlockKind::kIfBranch:
        return DefKind::kIfBranchLocal;
      default:
        return DefKind::kLocal;
    }
  }

  void Define(const VarPtr& var, DefKind kind, const Span& span, bool assigned = false) {
    if (!ok() || var == nullptr) return;
    auto [it, inserted] = defined_.try_emplace(var.get(), DefInfo{kind, &span, true, assigned});
    if (!inserted) {
      std::string first = it->second.span->known()
                              ? StrCat(" (first definition at ", it->second.span->ToString(), ")")
                              : "";
      return Error(span, StrCat("'", var->name_hint(), "' is defined more than once", first));
    }
    blocks_.back().vars.push_back(var.get());
  }

  void Use(const VarPtr& var) {
    if (!ok()) return;
    auto it = defined_.find(var.get());
    const std::string& name = var->name_hint();
    if (it == defined_.end()) {
      // All definition sites, only needed to word this error.
      absl::flat_hash_set<const Var*> all_defs;
      if (func_ptr_ != nullptr) DefCollector(&all_defs).VisitFunction(*func_ptr_);
      if (all_defs.contains(var.get())) {
        return Error(CurrentSpan(), StrCat("use of '", name, "' before its definition"));
      }
      return Error(CurrentSpan(), StrCat("use of undefined variable '", name, "'"));
    }
    if (it->second.visible) return;
    switch (it->second.kind) {
      case DefKind::kLoopVar:
        return Error(CurrentSpan(),
                     StrCat("loop variable '", name, "' is visible only in the loop body"));
      case DefKind::kIterArg:
        return Error(CurrentSpan(),
                     StrCat("iter arg '", name, "' is visible only in the loop body"));
      case DefKind::kIfBranchLocal:
        return Error(CurrentSpan(), StrCat("'", name,
                                           "' is defined inside an if branch and is not "
                                           "visible here"));
      default:
        return Error(CurrentSpan(), StrCat("'", name,
                                           "' is defined inside a loop body and is not "
                                           "visible here"));
    }
  }

  void PushBlock(BlockKind kind) { blocks_.push_back({kind, {}}); }

  void PopBlock() {
    std::vector<const Var*> vars = std::move(blocks_.back().vars);
    blocks_.pop_back();
    for (const Var* v : vars) {
      DefInfo& d = defined_[v];
      if (d.assigned && !options_.strict_scoping) {
        blocks_.back().vars.push_back(v);  // escapes to the enclosing block
      } else {
        d.visible = false;
      }
    }
  }

  void CheckTypeScoping(const TypePtr& type) {
    ++check_types_;
    IRVisitor::VisitType(type);
    --check_types_;
  }

  void CheckBound(const char* which, const ExprPtr& bound, const Span& stmt_span) {
    VisitExpr(bound);
    if (!ok() || bound == nullptr) return;
    auto s = As<ScalarType>(bound->type());
    if (s == nullptr || !IsIntegral(s->dtype())) {
      Error(
          ExprSpan(bound, stmt_span),
          StrCat("for loop ", which, " must be an integer scalar, got ", PrintType(bound->type())));
    }
  }

  // Registers the trailing yield of `body` (or reports its absence when
  // values are required) and visits the body as a block.
  void VisitBody(const StmtPtr& body, BlockKind kind, const YieldContext& ctx,
                 const Span& owner_span) {
    if (!ok()) return;
    auto yield = As<YieldStmt>(TrailingStmt(body));
    size_t required = ctx.kind == YieldContext::kLoop ? ctx.iter_args->size()
                      : ctx.constrained               ? ctx.return_vars->size()
                                                      : 0;
    if (yield == nullptr && required > 0) {
      return Error(owner_span, StrCat(ctx.kind == YieldContext::kLoop ? "loop body" : "if branch",
                                      " must end with a pl.yield_ of ", required, " values"));
    }
    if (yield != nullptr) yields_[yield.get()] = ctx;
    PushBlock(kind);
    VisitStmt(body);
    PopBlock();
  }

  template <typename LoopPtr>
  void VisitLoop(const LoopPtr& stmt, const std::vector<IterArgPtr>& iter_args,
                 const std::vector<VarPtr>& return_vars,
                 const std::function<void()>& def_loop_var) {
    if (!ok()) return;
    // Init values are evaluated before the loop.
    for (const IterArgPtr& ia : iter_args) {
      if (ia != nullptr) VisitExpr(ia->init_value());
    }
    if constexpr (std::is_same_v<LoopPtr, std::shared_ptr<const ForStmt>>) {
      VisitAttrs(stmt->attrs());
    }
    if (!ok()) return;
    if (!return_vars.empty() && return_vars.size() != iter_args.size()) {
      return Error(stmt->span(), StrCat("loop has ", iter_args.size(), " iter args but ",
                                        return_vars.size(), " return vars"));
    }
    for (size_t i = 0; i < iter_args.size(); ++i) {
      const IterArgPtr& ia = iter_args[i];
      if (ia == nullptr || ia->init_value() == nullptr) continue;
      if (!TypesAgree(ia->type(), ia->init_value()->type())) {
        return Error(
            ExprSpan(ia->init_value(), stmt->span()),
            StrCat("type of iter arg '", ia->name_hint(), "' (", PrintType(ia->type()),
                   ") does not match its init value (", PrintType(ia->init_value()->type()), ")"));
      }
      if (i < return_vars.size() && return_vars[i] != nullptr &&
          !TypesAgree(return_vars[i]->type(), ia->type())) {
        return Error(stmt->span(),
                     StrCat("type of return var '", return_vars[i]->name_hint(), "' (",
                            PrintType(return_vars[i]->type()), ") does not match iter arg '",
                            ia->name_hint(), "' (", PrintType(ia->type()), ")"));
      }
    }
    PushBlock(BlockKind::kLoopBody);
    def_loop_var();
    for (const IterArgPtr& ia : iter_args) Define(ia, DefKind::kIterArg, DefSpan(ia, stmt->span()));
    if constexpr (std::is_same_v<LoopPtr, std::shared_ptr<const WhileStmt>>) {
      VisitExpr(stmt->condition());
      if (ok() && stmt->condition() != nullptr && !Is<ScalarType>(stmt->condition()->type())) {
        Error(
            ExprSpan(stmt->condition(), stmt->span()),
            StrCat("while condition must be a scalar, got ", PrintType(stmt->condition()->type())));
      }
    }
    YieldContext ctx{YieldContext::kLoop, &iter_args, &return_vars, true};
    VisitBody(stmt->body(), BlockKind::kLoopBody, ctx, stmt->span());
    PopBlock();
    for (const VarPtr& v : return_vars) {
      if (!ok()) return;
      Define(v, LocalDefKind(), DefSpan(v, stmt->span()));
    }
  }

  const Program* program_;
  VerifyOptions options_;
  const Function* func_ = nullptr;
  const FunctionPtr* func_ptr_ = nullptr;
  absl::Status status_;
  absl::flat_hash_map<const Var*, DefInfo> defined_;
  std::vector<Block> blocks_;
  std::vector<const Span*> spans_;
  absl::flat_hash_map<const YieldStmt*, YieldContext> yields_;
  // Program-wide: a slot belongs to at most one scope.
  absl::flat_hash_map<const WindowBuffer*, std::string> slot_owner_;
  int check_types_ = 0;
};

}  // namespace

absl::Status VerifyProgram(const ProgramPtr& program, VerifyOptions options) {
  if (program == nullptr) return InternalError(Span(), "VerifyProgram: null program");
  Verifier v(program.get(), options);
  v.CheckProgram(program);
  return v.status();
}

absl::Status VerifyFunction(const FunctionPtr& func, const ProgramPtr& program,
                            VerifyOptions options) {
  if (func == nullptr) return InternalError(Span(), "VerifyFunction: null function");
  Verifier v(program.get(), options);
  v.VisitFunction(func);
  return v.status();
}

}  // namespace pto::ir
