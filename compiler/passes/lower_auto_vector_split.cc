#include "compiler/passes/lower_auto_vector_split.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/cross_core.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

using ir::OpId;

// Whether a region holds a pl.aiv_shard / pl.aic_gather: the per-lane form.
class BoundaryFinder : public ir::IRVisitor {
 public:
  bool found = false;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    found |= ir::IsOp(call, OpId::kPlTileAivShard) || ir::IsOp(call, OpId::kPlTileAicGather);
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

ir::StmtPtr MakeSeq(std::vector<ir::StmtPtr> stmts) {
  return std::make_shared<ir::SeqStmts>(std::move(stmts));
}

// InferTileMemorySpace (17) moves a vector operator's cube operand to Vec;
// the shard is the crossing itself, so it takes the cube tile (PyPTO: the
// FULL Acc tile in, the lane's HALF Vec tile out) and the move goes.
class ShardOperands : public ir::IRMutator {
 public:
  // The cube tile each `v = pl.tile.move(cube, target_memory=Vec)` moves.
  absl::flat_hash_map<const ir::Var*, ir::ExprPtr> moved;

 protected:
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    if (ir::IsOp(call, OpId::kPlTileAivShard) && !call->args().empty()) {
      auto v = ir::As<ir::Var>(call->args()[0]);
      if (auto it = v != nullptr ? moved.find(v.get()) : moved.end(); it != moved.end()) {
        std::vector<ir::ExprPtr> args = call->args();
        args[0] = it->second;
        return std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(),
                                          call->attrs(), call->type(), call->span());
      }
    }
    return ir::IRMutator::MutateCall(call);
  }
};

// The gather lands the joined tile on the AIC, in Mat (PyPTO: the declared
// type of a boundary op names the consuming core's space); InferTileMemorySpace
// left it Vec, so its consumers' moves would cross the cores a second time.
class GatherToMat : public ir::IRMutator {
 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    auto t = ir::As<ir::TileType>(s->var()->type());
    if (!ir::IsOp(call, OpId::kPlTileAicGather) || t == nullptr ||
        t->Space() == ir::MemorySpace::kL1) {
      return ir::IRMutator::MutateAssignStmt(s);
    }
    auto mat = std::make_shared<ir::TileType>(t->shape(), t->dtype(), std::nullopt,
                                              t->valid_shape(), t->span(), ir::MemorySpace::kL1);
    auto var = std::make_shared<ir::Var>(s->var()->name_hint(), mat, s->var()->span());
    ir::ExprPtr value = ir::IRMutator::MutateExpr(call);
    auto c = ir::As<ir::Call>(value);
    SetVarReplacement(s->var(), var);
    return std::make_shared<ir::AssignStmt>(
        var,
        std::make_shared<ir::Call>(c->op(), c->args(), c->kwargs(), c->attrs(), mat, c->span()),
        s->span());
  }
};

class MoveCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, ir::ExprPtr> moved;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    if (ir::IsOp(call, OpId::kPlTileMove) && !call->args().empty() &&
        cross_core::TypeSide(call->args()[0]->type()) == cross_core::Side::kCube &&
        cross_core::TypeSide(s->var()->type()) == cross_core::Side::kVector) {
      moved[s->var().get()] = call->args()[0];
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// Drops the moves `moved` names that nothing reads any more.
ir::StmtPtr DropDeadMoves(const ir::StmtPtr& body, const ir::StmtPtr& s,
                          const absl::flat_hash_map<const ir::Var*, ir::ExprPtr>& moved) {
  auto seq = ir::As<ir::SeqStmts>(s);
  if (seq == nullptr) {
    if (auto f = ir::As<ir::ForStmt>(s)) {
      return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                           f->iter_args(), DropDeadMoves(body, f->body(), moved),
                                           f->return_vars(), f->for_kind(), f->attrs(),
                                           f->span());
    }
    return s;
  }
  std::vector<ir::StmtPtr> kept;
  for (const ir::StmtPtr& x : seq->stmts()) {
    auto a = ir::As<ir::AssignStmt>(x);
    if (a != nullptr && moved.contains(a->var().get())) {
      bool used = false;
      for (const ir::StmtPtr& y : ir::As<ir::SeqStmts>(body)->stmts()) {
        used |= y != x && cross_core::Uses(y, a->var().get());
      }
      if (!used) continue;
    }
    kept.push_back(DropDeadMoves(body, x, moved));
  }
  return MakeSeq(std::move(kept));
}

// Vector compute outside every region of a kernel that opens one (PyPTO's
// AivSplitValid check (e)): both AIV lanes would run it in full. Loads and
// stores are the compiler's to place (allowed, as in PyPTO).
class OutsideVectorFinder : public ir::IRVisitor {
 public:
  const ir::Call* found = nullptr;

  void VisitStmt(const ir::StmtPtr& s) override {
    auto e = ir::As<ir::ExecScopeStmt>(s);
    if (e != nullptr && e->GetScopeKind() == ir::ScopeKind::kSplitAiv) return;
    ir::IRVisitor::VisitStmt(s);
  }

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (found == nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
        !ir::IsOp(call, OpId::kPlTileLoad) && !ir::IsOp(call, OpId::kPlTileStore) &&
        !ir::IsOp(call, OpId::kPlTileMove)) {
      const ops::OpDef* def = ops::OpRegistry::Global().Find(*call);
      if (def != nullptr && def->traits.unit == ops::ExecUnit::kVector) found = call.get();
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// A full-width move between the cores left in a split_aiv kernel: both lanes
// would pop it, and only lane 0's slot is filled (a dual-dispatched AIC hands
// lane 1 an empty one), so it is rejected rather than run wrong.
class FullCrossingFinder : public ir::IRVisitor {
 public:
  const ir::AssignStmt* found = nullptr;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    if (found == nullptr && ir::IsOp(call, OpId::kPlTileMove) && !call->args().empty()) {
      const uint8_t from = cross_core::TypeSide(call->args()[0]->type());
      const uint8_t to = cross_core::TypeSide(s->var()->type());
      if (from != 0 && to != 0 && from != to) found = s.get();
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// Splices the regions of one function body; `mode` is the regions' split.
class RegionLowerer {
 public:
  explicit RegionLowerer(std::string func) : func_(std::move(func)) {}
  std::optional<int64_t> mode;

  absl::StatusOr<ir::StmtPtr> Lower(const ir::StmtPtr& s) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      std::vector<ir::StmtPtr> out;
      for (const ir::StmtPtr& x : seq->stmts()) {
        ASSIGN_OR_RETURN(ir::StmtPtr y, Lower(x));
        // A spliced region's statements join the enclosing sequence.
        if (auto inner = ir::As<ir::SeqStmts>(y); inner != nullptr && IsRegion(x)) {
          for (const ir::StmtPtr& z : inner->stmts()) out.push_back(z);
        } else {
          out.push_back(std::move(y));
        }
      }
      return MakeSeq(std::move(out));
    }
    if (auto f = ir::As<ir::ForStmt>(s)) {
      ASSIGN_OR_RETURN(ir::StmtPtr body, Lower(f->body()));
      return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                           f->iter_args(), std::move(body), f->return_vars(),
                                           f->for_kind(), f->attrs(), f->span());
    }
    if (auto i = ir::As<ir::IfStmt>(s)) {
      ASSIGN_OR_RETURN(ir::StmtPtr then_body, Lower(i->then_body()));
      std::optional<ir::StmtPtr> else_body;
      if (i->else_body()) {
        ASSIGN_OR_RETURN(else_body, Lower(*i->else_body()));
      }
      return std::make_shared<ir::IfStmt>(i->condition(), std::move(then_body),
                                          std::move(else_body), i->return_vars(), i->span());
    }
    if (!IsRegion(s)) return s;
    auto region = ir::As<ir::ExecScopeStmt>(s);
    const int64_t m = ir::GetAttr<int64_t>(region->attrs(), "mode").value_or(0);
    if (m != 1 && m != 2) {
      return UserErrorF(s->span(), "LowerAutoVectorSplit: a `pl.split_aiv` region with "
                        "mode=pl.SplitMode.NONE (both AIV lanes running the full body) is not "
                        "supported yet; use UP_DOWN or LEFT_RIGHT with pl.aiv_shard / "
                        "pl.aic_gather");
    }
    // Regions of several modes: each crossing carries its own split; the
    // kernel's `split` is the first region's (PyPTO's multi-mode regions).
    if (!mode) mode = m;
    BoundaryFinder finder;
    finder.VisitStmt(region->body());
    if (!finder.found) {
      return UserErrorF(s->span(), "LowerAutoVectorSplit: this `pl.split_aiv` region has no "
                        "pl.aiv_shard / pl.aic_gather; the compiler halving a full-width vector "
                        "body is not supported yet (write the per-lane form: pl.aiv_shard the "
                        "cube tile, compute on the half, pl.aic_gather it back)");
    }
    // The per-lane form: the body already computes one lane's half.
    return Lower(region->body());
  }

 private:
  static bool IsRegion(const ir::StmtPtr& s) {
    auto e = ir::As<ir::ExecScopeStmt>(s);
    return e != nullptr && e->GetScopeKind() == ir::ScopeKind::kSplitAiv;
  }
  std::string func_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> LowerAutoVectorSplitPass::Run(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& [gv, fn] : program->functions()) {
    if (fn->body() == nullptr) {
      functions.push_back(fn);
      continue;
    }
    RegionLowerer lower(fn->name());
    ASSIGN_OR_RETURN(ir::StmtPtr body, lower.Lower(fn->body()));
    if (!lower.mode) {
      functions.push_back(fn);
      continue;
    }
    MoveCollector moves;
    moves.VisitStmt(body);
    ShardOperands shard;
    shard.moved = moves.moved;
    body = shard.MutateStmt(body);
    GatherToMat gather;
    body = gather.MutateStmt(body);
    if (ir::Is<ir::SeqStmts>(body)) body = DropDeadMoves(body, body, moves.moved);
    FullCrossingFinder crossing;
    crossing.VisitStmt(body);
    if (crossing.found != nullptr) {
      return UserErrorF(crossing.found->span(), "LowerAutoVectorSplit: '",
                        crossing.found->var()->name_hint(), "' crosses the cores at full width "
                        "in the `pl.split_aiv` kernel '", fn->name(), "'; cross with "
                        "pl.aiv_shard (to the lanes' halves) or pl.aic_gather (back to the AIC)");
    }
    OutsideVectorFinder outside;
    outside.VisitStmt(fn->body());
    if (outside.found != nullptr) {
      return UserErrorF(outside.found->span(), "LowerAutoVectorSplit: ",
                        outside.found->op()->name(), " is vector work outside every "
                        "`pl.split_aiv` region of '", fn->name(), "', which both AIV lanes would "
                        "run in full; compute it inside the region, on the lane's half");
    }
    if (fn->func_type() != ir::FunctionType::kInCore) {
      return UserErrorF(fn->span(), "LowerAutoVectorSplit: '", fn->name(), "' holds a "
                        "`pl.split_aiv` region outside a `pl.at(level=pl.Level.CORE_GROUP)` "
                        "kernel");
    }
    ir::AttrList attrs = ir::WithAttr(fn->attrs(), "split", *lower.mode);
    attrs = ir::WithAttr(std::move(attrs), "split_aiv", true);
    ASSIGN_OR_RETURN(ir::FunctionPtr f,
                     ir::Function::Create(fn->name(), fn->params(), fn->param_directions(),
                                          fn->return_types(), std::move(body), fn->func_type(),
                                          fn->level(), fn->role(), std::move(attrs),
                                          fn->requires_runtime_binding(), fn->span()));
    functions.push_back(std::move(f));
    changed = true;
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateLowerAutoVectorSplitPass() {
  return std::make_unique<LowerAutoVectorSplitPass>();
}

}  // namespace pto::passes
