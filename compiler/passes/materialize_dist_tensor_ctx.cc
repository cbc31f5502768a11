#include "compiler/passes/materialize_dist_tensor_ctx.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::CallPtr;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::StmtPtr;
using ir::VarPtr;

// The arg an operator writes back into (its result rebinds that tensor):
// the first argument with a Write or ReadWrite effect (pl.tile.store ->
// args[2], pl.tensor.assemble -> args[0], collectives -> their target).
int WritebackArgIndex(const ops::OpDef& def, size_t num_args) {
  for (size_t i = 0; i < num_args; ++i) {
    if (def.EffectOf(i) != ops::ArgEffect::kRead) return static_cast<int>(i);
  }
  return -1;
}

bool IsTensorLike(const ir::TypePtr& t) { return ir::AsTensorTypeLike(t) != nullptr; }

// Every name a function defines (params, assignment targets, loop vars, iter
// args, return vars), so synthesized names never collide.
class NameCollector : public ir::IRVisitor {
 public:
  explicit NameCollector(absl::flat_hash_set<std::string>* names) : names_(names) {}
  void VisitType(const ir::TypePtr&) override {}

 protected:
  void VisitVarDef(const VarPtr& var) override { names_->insert(var->name_hint()); }

 private:
  absl::flat_hash_set<std::string>* names_;
};

class NameSet {
 public:
  explicit NameSet(const FunctionPtr& func) {
    NameCollector c(&names_);
    c.VisitFunction(func);
  }
  // `want`, or `want_1`, `want_2`, ... whichever is free; then taken.
  std::string Fresh(const std::string& want) {
    std::string name = want;
    // Resume where the last search for `want` stopped: many dispatches of one
    // window stay linear.
    int& next = next_suffix_[want];
    if (next == 0) next = 1;
    if (names_.contains(name)) {
      do {
        name = pto::StrCat(want, "_", next++);
      } while (names_.contains(name));
    }
    names_.insert(name);
    return name;
  }
  void Reserve(const std::string& name) { names_.insert(name); }

 private:
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, int> next_suffix_;
};

struct FuncPlan {
  std::vector<int> dist_param_indices;  // in parameter order
  std::vector<VarPtr> ctx_params;       // one per entry above
};

// Finds the function's last top-level ReturnStmt (through sequences and scopes).
std::shared_ptr<const ir::ReturnStmt> TopLevelReturn(const StmtPtr& body) {
  if (auto r = ir::As<ir::ReturnStmt>(body)) return r;
  if (auto seq = ir::As<ir::SeqStmts>(body)) {
    for (auto it = seq->stmts().rbegin(); it != seq->stmts().rend(); ++it) {
      if (auto r = TopLevelReturn(*it)) return r;
    }
  }
  if (auto scope = ir::As<ir::ScopeStmt>(body)) return TopLevelReturn(scope->body());
  return nullptr;
}

class Materializer;

// Rewrites one function body with the alias map of §3.12 step 3.
class BodyRewriter {
 public:
  BodyRewriter(Materializer* m, const FunctionPtr& func, const FuncPlan* plan);
  absl::StatusOr<StmtPtr> Run();

 private:
  // ---- alias map with block scoping (SSA: a key is set at most once) ----
  void SetCtx(const ir::Var* v, VarPtr ctx) {
    if (ctx == nullptr) return;
    if (ctx_.emplace(v, std::move(ctx)).second) undo_.push_back({v, false});
  }
  void SetTupleCtx(const ir::Var* v, std::vector<VarPtr> ctxs) {
    if (tuple_ctx_.emplace(v, std::move(ctxs)).second) undo_.push_back({v, true});
  }
  size_t Mark() const { return undo_.size(); }
  void PopTo(size_t mark) {
    while (undo_.size() > mark) {
      auto [v, tuple] = undo_.back();
      undo_.pop_back();
      if (tuple) {
        tuple_ctx_.erase(v);
      } else {
        ctx_.erase(v);
      }
    }
  }

  // ---- resolution ----
  VarPtr ResolveCtx(const ExprPtr& e);
  VarPtr ResolveCallPosition(const CallPtr& call, int pos);

  // ---- rewriting ----
  absl::StatusOr<StmtPtr> RewriteBlock(const StmtPtr& body);
  // A loop or branch body in its own scope; `yield_ctx` gets the ctx of each
  // value of the trailing yield (nullptr when untraceable).
  absl::StatusOr<StmtPtr> RewriteScopedBody(const StmtPtr& body,
                                            const std::vector<std::pair<VarPtr, VarPtr>>& seeds,
                                            std::vector<VarPtr>* yield_ctx,
                                            std::shared_ptr<const ir::YieldStmt>* yield);
  absl::StatusOr<StmtPtr> RewriteStmt(const StmtPtr& stmt, std::vector<StmtPtr>* prefix);
  absl::StatusOr<ExprPtr> RewriteExpr(const ExprPtr& e, std::vector<StmtPtr>* prefix);
  absl::StatusOr<std::vector<ExprPtr>> RewriteExprs(const std::vector<ExprPtr>& es,
                                                    std::vector<StmtPtr>* prefix, bool* changed);
  absl::StatusOr<ExprPtr> RewriteCall(const CallPtr& call, std::vector<StmtPtr>* prefix);
  // The ctx of DistributedTensor `arg` passed to `callee`'s param `param`.
  absl::StatusOr<VarPtr> CtxForArg(const ExprPtr& arg, const FunctionPtr& callee, int param,
                                   const CallPtr& call, std::vector<StmtPtr>* prefix);
  void RecordAssign(const VarPtr& var, const ExprPtr& value);
  NameSet& Names() {
    if (!names_) {
      names_.emplace(func_);
      if (plan_ != nullptr) {
        for (const VarPtr& c : plan_->ctx_params) names_->Reserve(c->name_hint());
      }
    }
    return *names_;
  }

  Materializer* m_;
  FunctionPtr func_;
  const FuncPlan* plan_;
  bool host_;
  absl::flat_hash_map<const ir::Var*, VarPtr> ctx_;
  absl::flat_hash_map<const ir::Var*, std::vector<VarPtr>> tuple_ctx_;
  std::vector<std::pair<const ir::Var*, bool>> undo_;
  std::optional<NameSet> names_;
};

class Materializer {
 public:
  explicit Materializer(const ir::ProgramPtr& program) : program_(program) {}

  absl::StatusOr<ir::ProgramPtr> Run() {
    // Step 1: plan.
    for (const auto& [gv, func] : program_->functions()) {
      FuncPlan plan;
      std::optional<NameSet> names;
      for (size_t i = 0; i < func->params().size(); ++i) {
        const VarPtr& p = func->params()[i];
        if (!ir::Is<ir::DistributedTensorType>(p->type())) continue;
        if (!names) names.emplace(func);
        plan.dist_param_indices.push_back(static_cast<int>(i));
        plan.ctx_params.push_back(std::make_shared<ir::Var>(
            names->Fresh(pto::StrCat(p->name_hint(), "_ctx")), ir::CommCtxType::Get(),
            p->span()));
      }
      if (!plan.ctx_params.empty()) plans_.emplace(func->name(), std::move(plan));
    }
    if (plans_.empty()) return program_;

    // Steps 2 and 3: extend signatures, rewrite bodies.
    std::vector<FunctionPtr> out;
    bool changed = false;
    for (const auto& [gv, func] : program_->functions()) {
      const FuncPlan* plan = PlanOf(func->name());
      BodyRewriter rw(this, func, plan);
      ASSIGN_OR_RETURN(StmtPtr body, rw.Run());
      if (plan == nullptr && body == func->body()) {
        out.push_back(func);
        continue;
      }
      changed = true;
      std::vector<VarPtr> params = func->params();
      std::vector<ir::ParamDirection> dirs = func->param_directions();
      if (plan != nullptr) {
        for (const VarPtr& c : plan->ctx_params) {
          params.push_back(c);
          dirs.push_back(ir::ParamDirection::kIn);
        }
      }
      ASSIGN_OR_RETURN(FunctionPtr nf,
                       ir::Function::Create(func->name(), std::move(params), std::move(dirs),
                                            func->return_types(), body, func->func_type(),
                                            func->level(), func->role(), func->attrs(),
                                            func->requires_runtime_binding(), func->span()));
      out.push_back(std::move(nf));
    }
    if (!changed) return program_;
    return ir::Program::Create(std::move(out), program_->name(), program_->span());
  }

  const FuncPlan* PlanOf(std::string_view name) const {
    auto it = plans_.find(ToAbsl(name));
    return it == plans_.end() ? nullptr : &it->second;
  }
  FunctionPtr Callee(const CallPtr& call) const {
    if (!ir::Is<ir::GlobalVar>(call->op())) return nullptr;
    return program_->GetFunction(call->op()->name());
  }
  const std::vector<int>& ReturnedParams(const FunctionPtr& f) {
    auto it = returned_.find(f.get());
    if (it == returned_.end()) it = returned_.emplace(f.get(), ExplicitReturnedParamIndices(f)).first;
    return it->second;
  }

 private:
  ir::ProgramPtr program_;
  absl::flat_hash_map<std::string, FuncPlan> plans_;
  absl::flat_hash_map<const ir::Function*, std::vector<int>> returned_;
};

BodyRewriter::BodyRewriter(Materializer* m, const FunctionPtr& func, const FuncPlan* plan)
    : m_(m), func_(func), plan_(plan), host_(func->IsHostOrch()) {}

absl::StatusOr<StmtPtr> BodyRewriter::Run() {
  // Seeds: each DistributedTensor param stands for its own ctx param.
  if (plan_ != nullptr) {
    for (size_t k = 0; k < plan_->ctx_params.size(); ++k) {
      SetCtx(func_->params()[plan_->dist_param_indices[k]].get(), plan_->ctx_params[k]);
    }
  }
  if (func_->body() == nullptr) return func_->body();
  return RewriteBlock(func_->body());
}

VarPtr BodyRewriter::ResolveCtx(const ExprPtr& e) {
  if (auto v = ir::As<ir::Var>(e)) {
    auto it = ctx_.find(v.get());
    return it == ctx_.end() ? nullptr : it->second;
  }
  if (auto g = ir::As<ir::TupleGetItem>(e)) {
    if (auto tv = ir::As<ir::Var>(g->tuple())) {
      auto it = tuple_ctx_.find(tv.get());
      if (it == tuple_ctx_.end() || g->index() < 0 ||
          static_cast<size_t>(g->index()) >= it->second.size()) {
        return nullptr;
      }
      return it->second[g->index()];
    }
    if (auto c = ir::As<ir::Call>(g->tuple())) return ResolveCallPosition(c, g->index());
    if (auto mt = ir::As<ir::MakeTuple>(g->tuple())) {
      if (g->index() >= 0 && static_cast<size_t>(g->index()) < mt->elements().size()) {
        return ResolveCtx(mt->elements()[g->index()]);
      }
    }
    return nullptr;
  }
  if (auto c = ir::As<ir::Call>(e)) {
    if (ir::Is<ir::TupleType>(c->type())) return nullptr;
    return ResolveCallPosition(c, 0);
  }
  return nullptr;
}

VarPtr BodyRewriter::ResolveCallPosition(const CallPtr& call, int pos) {
  if (FunctionPtr callee = m_->Callee(call)) {
    const std::vector<int>& ret = m_->ReturnedParams(callee);
    if (pos < 0 || static_cast<size_t>(pos) >= ret.size()) return nullptr;
    int p = ret[pos];
    if (p < 0 || static_cast<size_t>(p) >= call->args().size()) return nullptr;
    return ResolveCtx(call->args()[p]);
  }
  if (pos != 0 || !IsTensorLike(call->type())) return nullptr;
  const ops::OpDef* def = ops::DefOf(*call);
  if (def == nullptr) return nullptr;
  // A zero-copy view (OpTraits::view) aliases args[0]'s buffer, so it shares
  // its context.
  if (def->traits.IsView()) {
    return call->args().empty() ? nullptr : ResolveCtx(call->args()[0]);
  }
  int wb = WritebackArgIndex(*def, call->args().size());
  return wb < 0 ? nullptr : ResolveCtx(call->args()[wb]);
}

void BodyRewriter::RecordAssign(const VarPtr& var, const ExprPtr& value) {
  if (auto tt = ir::As<ir::TupleType>(var->type())) {
    std::vector<VarPtr> ctxs(tt->types().size());
    bool any = false;
    if (auto tv = ir::As<ir::Var>(value)) {
      auto it = tuple_ctx_.find(tv.get());
      if (it == tuple_ctx_.end()) return;
      ctxs = it->second;
      any = true;
    } else if (auto call = ir::As<ir::Call>(value)) {
      for (size_t i = 0; i < ctxs.size(); ++i) {
        ctxs[i] = ResolveCallPosition(call, static_cast<int>(i));
        any |= ctxs[i] != nullptr;
      }
    } else if (auto mt = ir::As<ir::MakeTuple>(value)) {
      for (size_t i = 0; i < ctxs.size() && i < mt->elements().size(); ++i) {
        ctxs[i] = ResolveCtx(mt->elements()[i]);
        any |= ctxs[i] != nullptr;
      }
    }
    if (any) SetTupleCtx(var.get(), std::move(ctxs));
    return;
  }
  SetCtx(var.get(), ResolveCtx(value));
}

absl::StatusOr<StmtPtr> BodyRewriter::RewriteBlock(const StmtPtr& body) {
  if (auto seq = ir::As<ir::SeqStmts>(body)) {
    std::vector<StmtPtr> out;
    out.reserve(seq->stmts().size());
    bool changed = false;
    for (const StmtPtr& s : seq->stmts()) {
      std::vector<StmtPtr> prefix;
      ASSIGN_OR_RETURN(StmtPtr ns, RewriteStmt(s, &prefix));
      changed |= ns != s || !prefix.empty();
      for (StmtPtr& p : prefix) out.push_back(std::move(p));
      out.push_back(std::move(ns));
    }
    if (!changed) return body;
    return StmtPtr(std::make_shared<ir::SeqStmts>(std::move(out), seq->span()));
  }
  std::vector<StmtPtr> prefix;
  ASSIGN_OR_RETURN(StmtPtr ns, RewriteStmt(body, &prefix));
  if (prefix.empty()) return ns;
  prefix.push_back(std::move(ns));
  return StmtPtr(std::make_shared<ir::SeqStmts>(std::move(prefix), body->span()));
}

absl::StatusOr<StmtPtr> BodyRewriter::RewriteScopedBody(
    const StmtPtr& body, const std::vector<std::pair<VarPtr, VarPtr>>& seeds,
    std::vector<VarPtr>* yield_ctx, std::shared_ptr<const ir::YieldStmt>* yield) {
  size_t mark = Mark();
  for (const auto& [v, c] : seeds) SetCtx(v.get(), c);
  absl::StatusOr<StmtPtr> out = RewriteBlock(body);
  if (out.ok()) {
    StmtPtr last = *out;
    if (auto seq = ir::As<ir::SeqStmts>(last)) last = seq->stmts().empty() ? nullptr : seq->stmts().back();
    if (auto y = ir::As<ir::YieldStmt>(last)) {
      *yield = y;
      for (const ExprPtr& v : y->value()) yield_ctx->push_back(ResolveCtx(v));
    }
  }
  PopTo(mark);
  return out;
}

absl::StatusOr<StmtPtr> BodyRewriter::RewriteStmt(const StmtPtr& stmt,
                                                  std::vector<StmtPtr>* prefix) {
  switch (stmt->kind()) {
    case ir::NodeKind::kAssignStmt: {
      auto s = ir::As<ir::AssignStmt>(stmt);
      ASSIGN_OR_RETURN(ExprPtr v, RewriteExpr(s->value(), prefix));
      RecordAssign(s->var(), v);
      if (v == s->value()) return stmt;
      return StmtPtr(std::make_shared<ir::AssignStmt>(s->var(), v, s->span()));
    }
    case ir::NodeKind::kEvalStmt: {
      auto s = ir::As<ir::EvalStmt>(stmt);
      ASSIGN_OR_RETURN(ExprPtr e, RewriteExpr(s->expr(), prefix));
      if (e == s->expr()) return stmt;
      return StmtPtr(std::make_shared<ir::EvalStmt>(e, s->leading_comments(), s->span()));
    }
    case ir::NodeKind::kReturnStmt: {
      auto s = ir::As<ir::ReturnStmt>(stmt);
      bool changed = false;
      ASSIGN_OR_RETURN(std::vector<ExprPtr> vs, RewriteExprs(s->value(), prefix, &changed));
      if (!changed) return stmt;
      return StmtPtr(std::make_shared<ir::ReturnStmt>(std::move(vs), s->leading_comments(),
                                                      s->span()));
    }
    case ir::NodeKind::kYieldStmt: {
      auto s = ir::As<ir::YieldStmt>(stmt);
      bool changed = false;
      ASSIGN_OR_RETURN(std::vector<ExprPtr> vs, RewriteExprs(s->value(), prefix, &changed));
      if (!changed) return stmt;
      return StmtPtr(std::make_shared<ir::YieldStmt>(std::move(vs), s->span()));
    }
    case ir::NodeKind::kSeqStmts:
      return RewriteBlock(stmt);
    case ir::NodeKind::kCommDomainScopeStmt: {
      // `with` blocks do not open a scope.
      auto s = ir::As<ir::CommDomainScopeStmt>(stmt);
      ASSIGN_OR_RETURN(StmtPtr body, RewriteBlock(s->body()));
      if (body == s->body()) return stmt;
      return StmtPtr(std::make_shared<ir::CommDomainScopeStmt>(
          s->name_hint(), s->devices(), s->slots(), body, s->attrs(), s->span()));
    }
    case ir::NodeKind::kRuntimeScopeStmt: {
      auto s = ir::As<ir::RuntimeScopeStmt>(stmt);
      ASSIGN_OR_RETURN(StmtPtr body, RewriteBlock(s->body()));
      if (body == s->body()) return stmt;
      return StmtPtr(std::make_shared<ir::RuntimeScopeStmt>(s->name_hint(), s->manual(), body,
                                                            s->attrs(), s->span()));
    }
    case ir::NodeKind::kIfStmt: {
      auto s = ir::As<ir::IfStmt>(stmt);
      ASSIGN_OR_RETURN(ExprPtr cond, RewriteExpr(s->condition(), prefix));
      std::vector<VarPtr> then_ctx, else_ctx;
      std::shared_ptr<const ir::YieldStmt> then_yield, else_yield;
      ASSIGN_OR_RETURN(StmtPtr then_body,
                       RewriteScopedBody(s->then_body(), {}, &then_ctx, &then_yield));
      std::optional<StmtPtr> else_body;
      if (s->else_body()) {
        ASSIGN_OR_RETURN(else_body,
                         RewriteScopedBody(*s->else_body(), {}, &else_ctx, &else_yield));
      }
      // No CommCtx travels through if results: a result inherits a context
      // only when both branches yield tensors of the same one.
      for (size_t i = 0; i < s->return_vars().size(); ++i) {
        VarPtr t = i < then_ctx.size() ? then_ctx[i] : nullptr;
        VarPtr e = i < else_ctx.size() ? else_ctx[i] : nullptr;
        if (t == nullptr || e == nullptr) continue;
        if (t != e) {
          return UserErrorF(
              s->span(), "Assigning a different DistributedTensor in each branch of an `if` is "
              "not supported: '", s->return_vars()[i]->name_hint(),
              "' would take its data pointer from one allocation and its communication context "
              "from another. Yield the same DistributedTensor from both branches, or make the "
              "call that uses it inside each branch (see GitHub issue #2027)");
        }
        SetCtx(s->return_vars()[i].get(), t);
      }
      if (cond == s->condition() && then_body == s->then_body() &&
          else_body == s->else_body()) {
        return stmt;
      }
      return StmtPtr(std::make_shared<ir::IfStmt>(cond, then_body, else_body, s->return_vars(),
                                                  s->span()));
    }
    case ir::NodeKind::kForStmt:
    case ir::NodeKind::kWhileStmt: {
      auto f = ir::As<ir::ForStmt>(stmt);
      auto w = ir::As<ir::WhileStmt>(stmt);
      const std::vector<ir::IterArgPtr>& iter_args = f ? f->iter_args() : w->iter_args();
      const std::vector<VarPtr>& return_vars = f ? f->return_vars() : w->return_vars();
      // Carries are seeded from their init values before the body is walked,
      // so a self-carry resolves.
      std::vector<std::pair<VarPtr, VarPtr>> seeds;
      std::vector<VarPtr> seed_of(iter_args.size());
      for (size_t k = 0; k < iter_args.size(); ++k) {
        seed_of[k] = ResolveCtx(iter_args[k]->init_value());
        if (seed_of[k] != nullptr) seeds.push_back({iter_args[k], seed_of[k]});
      }
      std::vector<VarPtr> yield_ctx;
      std::shared_ptr<const ir::YieldStmt> yield;
      ASSIGN_OR_RETURN(StmtPtr body,
                       RewriteScopedBody(f ? f->body() : w->body(), seeds, &yield_ctx, &yield));
      for (size_t k = 0; k < iter_args.size(); ++k) {
        VarPtr y = k < yield_ctx.size() ? yield_ctx[k] : nullptr;
        if (y != nullptr && seed_of[k] != nullptr && y != seed_of[k]) {
          return UserErrorF(
              yield ? yield->span() : stmt->span(), "Rebinding loop-carried DistributedTensor '",
              iter_args[k]->name_hint(),
              "' to a different DistributedTensor inside the loop is not supported: the carried "
              "value would keep the communication context of its initial value. Yield the "
              "carried DistributedTensor (or a value derived from it) instead "
              "(see GitHub issue #2027)");
        }
        if (k < return_vars.size()) SetCtx(return_vars[k].get(), seed_of[k]);
      }
      if (body == (f ? f->body() : w->body())) return stmt;
      if (f) {
        return StmtPtr(std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(),
                                                     f->step(), f->iter_args(), body,
                                                     f->return_vars(), f->for_kind(), f->attrs(),
                                                     f->span()));
      }
      return StmtPtr(std::make_shared<ir::WhileStmt>(w->condition(), w->iter_args(), body,
                                                     w->return_vars(), w->span()));
    }
    default:
      return stmt;
  }
}

absl::StatusOr<std::vector<ExprPtr>> BodyRewriter::RewriteExprs(const std::vector<ExprPtr>& es,
                                                                std::vector<StmtPtr>* prefix,
                                                                bool* changed) {
  std::vector<ExprPtr> out;
  out.reserve(es.size());
  for (const ExprPtr& e : es) {
    ASSIGN_OR_RETURN(ExprPtr ne, RewriteExpr(e, prefix));
    *changed |= ne != e;
    out.push_back(std::move(ne));
  }
  return out;
}

absl::StatusOr<ExprPtr> BodyRewriter::RewriteExpr(const ExprPtr& e, std::vector<StmtPtr>* prefix) {
  if (e == nullptr) return e;
  switch (e->kind()) {
    case ir::NodeKind::kCall:
      return RewriteCall(ir::As<ir::Call>(e), prefix);
    case ir::NodeKind::kTupleGetItem: {
      auto g = ir::As<ir::TupleGetItem>(e);
      ASSIGN_OR_RETURN(ExprPtr t, RewriteExpr(g->tuple(), prefix));
      if (t == g->tuple()) return e;
      return ExprPtr(std::make_shared<ir::TupleGetItem>(t, g->index(), g->type(), g->span()));
    }
    case ir::NodeKind::kMakeTuple: {
      auto mt = ir::As<ir::MakeTuple>(e);
      bool changed = false;
      ASSIGN_OR_RETURN(std::vector<ExprPtr> es, RewriteExprs(mt->elements(), prefix, &changed));
      if (!changed) return e;
      return ExprPtr(std::make_shared<ir::MakeTuple>(std::move(es), mt->span()));
    }
    default:
      // Scalar arithmetic holds no DistributedTensor calls.
      return e;
  }
}

absl::StatusOr<VarPtr> BodyRewriter::CtxForArg(const ExprPtr& arg, const FunctionPtr& callee,
                                               int param, const CallPtr& call,
                                               std::vector<StmtPtr>* prefix) {
  if (VarPtr c = ResolveCtx(arg)) return c;
  auto v = ir::As<ir::Var>(arg);
  std::string shown = v ? v->name_hint() : ir::PrintExpr(arg);
  if (!host_) {
    return UserErrorF(
        call->span(),
        "Cannot determine the communication context of DistributedTensor '", shown,
        "' passed from '", func_->name(),
        "'. Only host orchestration can query a context at runtime; a chip-orchestration or "
        "device function must reach its DistributedTensor from one of its own parameters. "
        "Pass the DistributedTensor (or the tensor it is a view of) in as a parameter");
  }
  // Host orchestration: query the window's per-rank context right before use.
  std::string base = v ? v->name_hint() : callee->params()[param]->name_hint();
  ASSIGN_OR_RETURN(CallPtr query, ops::OpRegistry::Global().MakeCall(ir::OpId::kPldSystemGetCommCtx,
                                                                     {arg}, {}, {}, call->span()));
  auto ctx = std::make_shared<ir::Var>(Names().Fresh(pto::StrCat(base, "_ctx")), query->type(),
                                       call->span());
  prefix->push_back(std::make_shared<ir::AssignStmt>(ctx, query, call->span()));
  if (v) SetCtx(v.get(), ctx);
  return VarPtr(ctx);
}

absl::StatusOr<ExprPtr> BodyRewriter::RewriteCall(const CallPtr& call,
                                                  std::vector<StmtPtr>* prefix) {
  bool changed = false;
  ASSIGN_OR_RETURN(std::vector<ExprPtr> args, RewriteExprs(call->args(), prefix, &changed));
  ir::AttrList attrs = call->attrs();

  if (FunctionPtr callee = m_->Callee(call)) {
    if (const FuncPlan* plan = m_->PlanOf(callee->name())) {
      bool has_dirs = ir::HasAttr(attrs, ir::kAttrArgDirections);
      std::vector<ir::ArgDirection> dirs = call->GetArgDirections();
      std::vector<ExprPtr> ctx_args;
      for (int idx : plan->dist_param_indices) {
        if (static_cast<size_t>(idx) >= args.size()) {
          return InternalErrorF(call->span(), "call of '", callee->name(), "' from '",
                                func_->name(), "' provides no argument for its DistributedTensor "
                                "parameter '", callee->params()[idx]->name_hint(), "'");
        }
        ASSIGN_OR_RETURN(VarPtr c, CtxForArg(args[idx], callee, idx, call, prefix));
        ctx_args.push_back(c);
      }
      for (ExprPtr& c : ctx_args) {
        args.push_back(std::move(c));
        if (has_dirs) dirs.push_back(ir::ArgDirection::kScalar);
      }
      if (has_dirs) attrs = ir::WithAttr(std::move(attrs), ir::kAttrArgDirections, dirs);
      changed = true;
    }
  } else if (ir::IsOp(call, ir::OpId::kPldSystemGetCommCtx) && !host_) {
    // Outside host orchestration the query has no runtime form: use the
    // context that the caller passes in.
    if (!args.empty()) {
      if (VarPtr c = ResolveCtx(args[0])) return ExprPtr(c);
    }
    std::string shown = args.empty() ? "" : ir::PrintExpr(args[0]);
    return UserErrorF(call->span(), "Cannot resolve pld.system.get_comm_ctx('", shown, "') in '",
                      func_->name(),
                      "'. Outside host orchestration the query has no runtime representation; "
                      "the DistributedTensor must come from one of the function's parameters so "
                      "that its context can be passed in");
  }
  if (!changed) return ExprPtr(call);
  return ExprPtr(std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(),
                                            std::move(attrs), call->type(), call->span()));
}

// Every ReturnStmt of a function body.
class ReturnFinder : public ir::IRVisitor {
 public:
  void VisitType(const ir::TypePtr&) override {}
  void VisitExpr(const ExprPtr&) override {}
  std::vector<std::shared_ptr<const ir::ReturnStmt>> returns;

 protected:
  void VisitReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& stmt) override {
    returns.push_back(stmt);
  }
};

}  // namespace

std::vector<int> ExplicitReturnedParamIndices(const FunctionPtr& func) {
  std::vector<int> out;
  auto ret = func->body() ? TopLevelReturn(func->body()) : nullptr;
  if (ret == nullptr) return out;
  for (const ExprPtr& v : ret->value()) {
    int idx = -1;
    for (size_t i = 0; i < func->params().size(); ++i) {
      if (func->params()[i] == v) {
        idx = static_cast<int>(i);
        break;
      }
    }
    out.push_back(idx);
  }
  return out;
}

absl::Status VerifyReturnParamsExplicit(const ir::ProgramPtr& program) {
  for (const auto& [gv, func] : program->functions()) {
    if (!ir::IsInCoreType(func->func_type()) && !ir::IsWrapperType(func->func_type())) continue;
    ReturnFinder finder;
    finder.VisitStmt(func->body());
    for (const auto& ret : finder.returns) {
      for (const ExprPtr& v : ret->value()) {
        if (!IsTensorLike(v->type())) continue;
        bool is_param = false;
        for (const VarPtr& p : func->params()) is_param |= p == v;
        if (is_param) continue;
        return UserErrorF(ret->span(), "Function '", func->name(), "' (",
                          ir::FunctionTypeName(func->func_type()), ") returns '",
                          ir::PrintExpr(v),
                          "', which is not one of its parameters: a kernel or wrapper returns its "
                          "tensors through the parameters it writes (ReturnParamsExplicit)");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::ProgramPtr> MaterializeDistTensorCtxPass::Run(const ir::ProgramPtr& program) {
  return Materializer(program).Run();
}

std::unique_ptr<Pass> CreateMaterializeDistTensorCtxPass() {
  return std::make_unique<MaterializeDistTensorCtxPass>();
}

}  // namespace pto::passes
