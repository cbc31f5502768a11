#include "compiler/passes/flatten_call_expr.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

class Flattener {
 public:
  ir::StmtPtr Body(const ir::StmtPtr& body) {
    std::vector<ir::StmtPtr> out;
    Stmt(body, &out);
    if (out.size() == 1 && out[0] == body) return body;
    return ir::SeqStmts::Flatten(out, body->span());
  }

 private:
  // `e` with every call below its top moved to a temporary (appended to
  // `temps`); with `hoist_top` a call at the top moves too.
  ir::ExprPtr Expr(const ir::ExprPtr& e, bool hoist_top, std::vector<ir::StmtPtr>* temps) {
    if (e == nullptr) return e;
    switch (e->kind()) {
      case ir::NodeKind::kCall: {
        auto c = ir::As<ir::Call>(e);
        bool changed = false;
        std::vector<ir::ExprPtr> args;
        args.reserve(c->args().size());
        for (const ir::ExprPtr& a : c->args()) {
          args.push_back(Expr(a, /*hoist_top=*/true, temps));
          changed |= args.back() != a;
        }
        ir::ExprPtr call = e;
        if (changed) {
          call = std::make_shared<ir::Call>(c->op(), std::move(args), c->kwargs(), c->attrs(),
                                            c->type(), c->span());
        }
        if (!hoist_top) return call;
        auto tmp = std::make_shared<ir::Var>(pto::StrCat("_tmp", counter_++), call->type(),
                                             call->span());
        temps->push_back(std::make_shared<ir::AssignStmt>(tmp, call, call->span()));
        return tmp;
      }
      case ir::NodeKind::kBinaryExpr: {
        auto b = ir::As<ir::BinaryExpr>(e);
        ir::ExprPtr l = Expr(b->lhs(), true, temps), r = Expr(b->rhs(), true, temps);
        if (l == b->lhs() && r == b->rhs()) return e;
        return std::make_shared<ir::BinaryExpr>(b->op(), l, r, b->type(), b->span());
      }
      case ir::NodeKind::kUnaryExpr: {
        auto u = ir::As<ir::UnaryExpr>(e);
        ir::ExprPtr x = Expr(u->operand(), true, temps);
        if (x == u->operand()) return e;
        return std::make_shared<ir::UnaryExpr>(u->op(), x, u->type(), u->span());
      }
      case ir::NodeKind::kCast: {
        auto c = ir::As<ir::Cast>(e);
        ir::ExprPtr x = Expr(c->value(), true, temps);
        if (x == c->value()) return e;
        return std::make_shared<ir::Cast>(x, c->dtype(), c->span());
      }
      case ir::NodeKind::kMakeTuple: {
        auto t = ir::As<ir::MakeTuple>(e);
        bool changed = false;
        std::vector<ir::ExprPtr> elems;
        for (const ir::ExprPtr& x : t->elements()) {
          elems.push_back(Expr(x, true, temps));
          changed |= elems.back() != x;
        }
        if (!changed) return e;
        return std::make_shared<ir::MakeTuple>(std::move(elems), t->span());
      }
      case ir::NodeKind::kTupleGetItem: {
        auto g = ir::As<ir::TupleGetItem>(e);
        ir::ExprPtr x = Expr(g->tuple(), true, temps);
        if (x == g->tuple()) return e;
        return std::make_shared<ir::TupleGetItem>(x, g->index(), g->type(), g->span());
      }
      default:
        return e;
    }
  }

  std::vector<ir::ExprPtr> Values(const std::vector<ir::ExprPtr>& in, std::vector<ir::StmtPtr>* t,
                                  bool* changed) {
    std::vector<ir::ExprPtr> out;
    for (const ir::ExprPtr& v : in) {
      out.push_back(Expr(v, true, t));
      *changed |= out.back() != v;
    }
    return out;
  }

  // Iter args with their init values flattened (temporaries before the loop).
  std::vector<ir::IterArgPtr> Inits(const std::vector<ir::IterArgPtr>& in,
                                    std::vector<ir::StmtPtr>* out, bool* changed) {
    std::vector<ir::IterArgPtr> ias;
    for (const ir::IterArgPtr& ia : in) {
      ir::ExprPtr init = Expr(ia->init_value(), true, out);
      ias.push_back(init == ia->init_value()
                        ? ia
                        : std::make_shared<ir::IterArg>(ia->name_hint(), ia->type(), init,
                                                        ia->span()));
      *changed |= ias.back() != ia;
    }
    return ias;
  }
  // A rebuilt IterArg is a new object: uses in the loop must follow it.
  static ir::VarSubstMap Renames(const std::vector<ir::IterArgPtr>& from,
                                 const std::vector<ir::IterArgPtr>& to) {
    ir::VarSubstMap subst;
    for (size_t k = 0; k < from.size(); ++k) {
      if (from[k] != to[k]) subst[from[k].get()] = to[k];
    }
    return subst;
  }

  // Appends the flattened `s` (its temporaries first) to `out`.
  void Stmt(const ir::StmtPtr& s, std::vector<ir::StmtPtr>* out) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      for (const ir::StmtPtr& c : seq->stmts()) Stmt(c, out);
      return;
    }
    if (auto a = ir::As<ir::AssignStmt>(s)) {
      ir::ExprPtr v = Expr(a->value(), false, out);
      out->push_back(v == a->value() ? s : std::make_shared<ir::AssignStmt>(a->var(), v, a->span()));
      return;
    }
    if (auto e = ir::As<ir::EvalStmt>(s)) {
      ir::ExprPtr v = Expr(e->expr(), false, out);
      out->push_back(v == e->expr() ? s
                                    : std::make_shared<ir::EvalStmt>(v, e->leading_comments(),
                                                                     e->span()));
      return;
    }
    if (auto r = ir::As<ir::ReturnStmt>(s)) {
      bool changed = false;
      std::vector<ir::ExprPtr> v = Values(r->value(), out, &changed);
      out->push_back(!changed ? s
                              : std::make_shared<ir::ReturnStmt>(std::move(v),
                                                                 r->leading_comments(), r->span()));
      return;
    }
    if (auto y = ir::As<ir::YieldStmt>(s)) {
      bool changed = false;
      std::vector<ir::ExprPtr> v = Values(y->value(), out, &changed);
      out->push_back(!changed ? s : std::make_shared<ir::YieldStmt>(std::move(v), y->span()));
      return;
    }
    if (auto i = ir::As<ir::IfStmt>(s)) {
      ir::ExprPtr cond = Expr(i->condition(), true, out);
      ir::StmtPtr then_body = Body(i->then_body());
      std::optional<ir::StmtPtr> else_body;
      if (i->else_body().has_value()) else_body = Body(*i->else_body());
      if (cond == i->condition() && then_body == i->then_body() && else_body == i->else_body()) {
        out->push_back(s);
      } else {
        out->push_back(std::make_shared<ir::IfStmt>(cond, then_body, else_body, i->return_vars(),
                                                    i->span()));
      }
      return;
    }
    if (auto f = ir::As<ir::ForStmt>(s)) {
      ir::ExprPtr start = Expr(f->start(), true, out), stop = Expr(f->stop(), true, out),
                  step = Expr(f->step(), true, out);
      bool changed = start != f->start() || stop != f->stop() || step != f->step();
      bool inits_changed = false;
      std::vector<ir::IterArgPtr> ias = Inits(f->iter_args(), out, &inits_changed);
      ir::StmtPtr body = Body(f->body());
      if (inits_changed) body = ir::Substitute(body, Renames(f->iter_args(), ias));
      changed |= inits_changed;
      if (!changed && body == f->body()) {
        out->push_back(s);
      } else {
        out->push_back(std::make_shared<ir::ForStmt>(f->loop_var(), start, stop, step,
                                                     std::move(ias), body, f->return_vars(),
                                                     f->for_kind(), f->attrs(), f->span()));
      }
      return;
    }
    if (auto w = ir::As<ir::WhileStmt>(s)) {
      bool changed = false;
      std::vector<ir::IterArgPtr> ias = Inits(w->iter_args(), out, &changed);
      ir::ExprPtr cond = w->condition();
      ir::StmtPtr body = Body(w->body());
      if (changed) {
        ir::VarSubstMap subst = Renames(w->iter_args(), ias);
        cond = ir::Substitute(cond, subst);
        body = ir::Substitute(body, subst);
      }
      out->push_back(!changed && body == w->body()
                         ? s
                         : std::make_shared<ir::WhileStmt>(cond, std::move(ias), body,
                                                           w->return_vars(), w->span()));
      return;
    }
    if (auto ex = ir::As<ir::ExecScopeStmt>(s)) {
      ir::ExprPtr core_num = Expr(ex->core_num(), true, out);  // evaluated before the scope
      ir::StmtPtr body = Body(ex->body());
      out->push_back(body == ex->body() && core_num == ex->core_num()
                         ? s
                         : std::make_shared<ir::ExecScopeStmt>(
                               ex->GetScopeKind(), ex->name_hint(), ex->level(), ex->role(),
                               core_num, ex->sync_start(), body, ex->attrs(), ex->span()));
      return;
    }
    if (auto rt = ir::As<ir::RuntimeScopeStmt>(s)) {
      ir::StmtPtr body = Body(rt->body());
      out->push_back(body == rt->body() ? s
                                        : std::make_shared<ir::RuntimeScopeStmt>(
                                              rt->name_hint(), rt->manual(), body, rt->attrs(),
                                              rt->span()));
      return;
    }
    if (auto cd = ir::As<ir::CommDomainScopeStmt>(s)) {
      ir::StmtPtr body = Body(cd->body());
      out->push_back(body == cd->body() ? s
                                        : std::make_shared<ir::CommDomainScopeStmt>(
                                              cd->name_hint(), cd->devices(), cd->slots(), body,
                                              cd->attrs(), cd->span()));
      return;
    }
    out->push_back(s);
  }

  int counter_ = 0;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> FlattenCallExprPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    Flattener flat;
    return flat.Body(f->body());
  });
}

std::unique_ptr<Pass> CreateFlattenCallExprPass() {
  return std::make_unique<FlattenCallExprPass>();
}

}  // namespace pto::passes
