#include "compiler/passes/tile_liveness.h"

#include <memory>

#include "compiler/ir/dtype.h"
#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/tile_memrefs.h"

namespace pto::passes {
namespace {

// Tile vars read by an expression (types are not reads).
class TileReads : public ir::IRVisitor {
 public:
  std::vector<ir::VarPtr> vars;

 protected:
  void VisitVar(const ir::VarPtr& var) override {
    if (ir::Is<ir::TileType>(var->type())) vars.push_back(var);
  }
  void VisitIterArg(const ir::IterArgPtr& var) override {
    if (ir::Is<ir::TileType>(var->type())) vars.push_back(var);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// Elementwise operators read an element before they write it, so their
// result may take the buffer of an operand whose last read they are
// (OpTraits::in_place_safe).
bool InPlaceSafe(const ir::CallPtr& call) {
  if (ops::TraitsOf(*call).in_place_safe) return true;
  if (ir::IsOp(call, ir::OpId::kPlTileCast) && !call->args().empty()) {
    // A widening cast writes ahead of what it has read.
    auto in = ir::As<ir::ShapedType>(call->args()[0]->type());
    auto out = ir::As<ir::ShapedType>(call->type());
    return in != nullptr && out != nullptr &&
           ir::DataTypeBytes(out->dtype()) <= ir::DataTypeBytes(in->dtype());
  }
  return false;
}

class Walker {
 public:
  explicit Walker(TileLiveness* out) : out_(out) {}

  // Resolves the loops of every read once all loops have closed.
  void Finish() {
    for (const Pending& u : pending_) {
      TileUse use{u.pos, {}};
      for (int id : u.loop_ids) use.loops.push_back(loop_region_.at(id));
      out_->uses[u.var].push_back(std::move(use));
    }
  }

  void Stmt(const ir::StmtPtr& stmt) {
    if (stmt == nullptr) return;
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) Stmt(s);
      return;
    }
    if (auto a = ir::As<ir::AssignStmt>(stmt)) {
      const int p = ++counter_;
      Reads(a->value(), p);
      TileDef def{p};
      if (auto call = ir::As<ir::Call>(a->value())) {
        def.op = call->op()->name();
        def.in_place_safe = InPlaceSafe(call);
      }
      Def(a->var(), def);
      return;
    }
    if (auto e = ir::As<ir::EvalStmt>(stmt)) return Reads(e->expr(), ++counter_);
    if (auto r = ir::As<ir::ReturnStmt>(stmt)) {
      const int p = ++counter_;
      for (const ir::ExprPtr& v : r->value()) Reads(v, p);
      return;
    }
    if (auto y = ir::As<ir::YieldStmt>(stmt)) {
      const int p = ++counter_;
      for (const ir::ExprPtr& v : y->value()) Reads(v, p);
      return;
    }
    if (auto f = ir::As<ir::ForStmt>(stmt)) {
      const int p = ++counter_;
      Reads(f->start(), p);
      Reads(f->stop(), p);
      Reads(f->step(), p);
      Loop(stmt.get(), p, f->iter_args(), nullptr, f->body(), f->return_vars());
      return;
    }
    if (auto w = ir::As<ir::WhileStmt>(stmt)) {
      Loop(stmt.get(), ++counter_, w->iter_args(), w->condition(), w->body(), w->return_vars());
      return;
    }
    if (auto i = ir::As<ir::IfStmt>(stmt)) {
      const int p = ++counter_;
      Reads(i->condition(), p);
      Region r;
      r.start = p;
      r.stmt = stmt.get();
      Stmt(i->then_body());
      r.else_start = counter_ + 1;
      if (i->else_body()) Stmt(*i->else_body());
      r.end = ++counter_;
      if (auto y = TrailingYield(i->then_body())) r.yields = y->value();
      if (i->else_body()) {
        if (auto y = TrailingYield(*i->else_body())) r.else_yields = y->value();
      }
      r.return_vars = i->return_vars();
      for (const ir::VarPtr& rv : r.return_vars) Def(rv, TileDef{r.end});
      out_->regions.push_back(std::move(r));
      return;
    }
    if (auto s = ir::As<ir::ScopeStmt>(stmt)) Stmt(s->body());
  }

 private:
  void Loop(const ir::Stmt* stmt, int p, const std::vector<ir::IterArgPtr>& iter_args,
            const ir::ExprPtr& condition, const ir::StmtPtr& body,
            const std::vector<ir::VarPtr>& return_vars) {
    for (const ir::IterArgPtr& ia : iter_args) Reads(ia->init_value(), p);
    for (const ir::IterArgPtr& ia : iter_args) Def(ia, TileDef{p});
    loop_ids_.push_back(next_loop_id_++);
    // A while condition is tested before every iteration: a read inside the loop.
    if (condition != nullptr) Reads(condition, p);
    Stmt(body);
    Region r;
    r.is_loop = true;
    r.start = p;
    r.end = ++counter_;
    r.stmt = stmt;
    r.iter_args = iter_args;
    r.return_vars = return_vars;
    if (auto y = TrailingYield(body)) r.yields = y->value();
    const int id = loop_ids_.back();
    loop_ids_.pop_back();
    loop_region_[id] = static_cast<int>(out_->regions.size());
    out_->regions.push_back(std::move(r));
    for (const ir::VarPtr& rv : return_vars) Def(rv, TileDef{out_->regions.back().end});
  }

  void Reads(const ir::ExprPtr& e, int p) {
    if (e == nullptr) return;
    TileReads reads;
    reads.VisitExpr(e);
    for (const ir::VarPtr& v : reads.vars) {
      // Loop ids now; they become region indices once the loops close.
      pending_.push_back({v.get(), p, loop_ids_});
      out_->vars.emplace(v.get(), v);
    }
  }

  void Def(const ir::VarPtr& var, TileDef def) {
    if (var == nullptr || !ir::Is<ir::TileType>(var->type())) return;
    out_->defs[var.get()] = std::move(def);
    out_->vars.emplace(var.get(), var);
  }

 private:
  struct Pending {
    const ir::Var* var;
    int pos;
    std::vector<int> loop_ids;
  };
  TileLiveness* out_;
  int counter_ = 0;
  std::vector<int> loop_ids_;
  int next_loop_id_ = 0;
  absl::flat_hash_map<int, int> loop_region_;
  std::vector<Pending> pending_;
};

}  // namespace

TileLiveness AnalyzeTileLiveness(const ir::StmtPtr& body) {
  TileLiveness out;
  Walker walker(&out);
  walker.Stmt(body);
  walker.Finish();
  return out;
}

}  // namespace pto::passes
