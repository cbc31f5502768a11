#include "compiler/passes/infer_tile_memory_space.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::MemorySpace;
using ir::OpId;
using Space = std::optional<MemorySpace>;

ir::CallPtr OpCallOf(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

// The `target_memory` kwarg (PyPTO's name or ours).
Space KwargSpace(const ir::Call& call) {
  std::optional<std::string> s = ir::GetAttr<std::string>(call.kwargs(), "target_memory");
  return s ? ir::MemorySpaceFromName(*s) : std::nullopt;
}

ops::ExecUnit UnitOf(const ir::Call& call) {
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call);
  return def == nullptr ? ops::ExecUnit::kNone : def->traits.unit;
}

// The space each operand of `call` must be in (PyPTO's set_input_memory);
// nullopt: any. A cube operator reads Left / Right (the accumulator Acc, the
// bias Bias); a vector operator reads Vec tiles.
std::vector<Space> InputSpaces(const ir::Call& call) {
  const size_t n = call.args().size();
  const MemorySpace kL = MemorySpace::kL0A, kR = MemorySpace::kL0B, kC = MemorySpace::kL0C;
  if (ir::IsOp(call, OpId::kPlTileMatmul) || ir::IsOp(call, OpId::kPlTileBatchMatmul) ||
      ir::IsOp(call, OpId::kPlTileGemv)) {
    return {kL, kR};
  }
  if (ir::IsOp(call, OpId::kPlTileMatmulAcc) || ir::IsOp(call, OpId::kPlTileBatchMatmulAcc) ||
      ir::IsOp(call, OpId::kPlTileGemvAcc)) {
    return {kC, kL, kR};
  }
  if (ir::IsOp(call, OpId::kPlTileMatmulBias) || ir::IsOp(call, OpId::kPlTileGemvBias)) {
    return {kL, kR, MemorySpace::kBias};
  }
  // The microscaling forms: lhs / rhs only (their scale spaces are A5's).
  if (ir::IsOp(call, OpId::kPlTileMatmulMx) || ir::IsOp(call, OpId::kPlTileMatmulMxBias)) {
    return {kL, std::nullopt, kR};
  }
  if (ir::IsOp(call, OpId::kPlTileMatmulMxAcc)) return {kC, kL, std::nullopt, kR};
  // TSTORE reads Vec or Acc (FIXPIPE) tiles; any other space goes through Vec.
  if (ir::IsOp(call, OpId::kPlTileStore)) return {std::nullopt};
  // TEXTRACT reads its source where it is (Mat for a Left / Right window).
  if (ir::IsOp(call, OpId::kPlTileExtract)) return std::vector<Space>(n, std::nullopt);
  if (UnitOf(call) == ops::ExecUnit::kVector) {
    std::vector<Space> out;
    for (const ir::ExprPtr& a : call.args()) {
      out.push_back(ir::Is<ir::TileType>(a->type()) ? Space(MemorySpace::kUB) : std::nullopt);
    }
    return out;
  }
  return std::vector<Space>(n, std::nullopt);
}

// A consumer's requirement for operand `i`, when it has one the operand's
// space does not meet. A store of a Left / Right / Mat / Bias tile goes
// through Vec (PyPTO's {Vec, Acc}).
Space Needed(const ir::Call& call, size_t i, Space have) {
  if (ir::IsOp(call, OpId::kPlTileStore)) {
    if (i != 0 || !have || *have == MemorySpace::kUB || *have == MemorySpace::kL0C) {
      return std::nullopt;
    }
    return MemorySpace::kUB;
  }
  std::vector<Space> want = InputSpaces(call);
  if (i >= want.size() || !want[i] || want[i] == have) return std::nullopt;
  return want[i];
}

// Phases 0 and 1: the space of every tile var of one function.
class Analyzer {
 public:
  absl::Status Run(const ir::StmtPtr& body) {
    Demands(body);
    // A loop's carried tile takes the space its body yields (an Acc
    // accumulator created as a Vec tile); a second round sees the change.
    for (int round = 0; round < 4; ++round) {
      changed_ = false;
      RETURN_IF_ERROR(Stmt(body));
      if (!changed_) break;
    }
    return absl::OkStatus();
  }
  const absl::flat_hash_map<const ir::Var*, MemorySpace>& spaces() const { return spaces_; }

 private:
  // Phase 0: what the consumers of each tile var need.
  void Demands(const ir::StmtPtr& stmt) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) Demands(s);
    } else if (auto f = ir::As<ir::ForStmt>(stmt)) {
      Demands(f->body());
    } else if (auto w = ir::As<ir::WhileStmt>(stmt)) {
      Demands(w->body());
    } else if (auto i = ir::As<ir::IfStmt>(stmt)) {
      Demands(i->then_body());
      if (i->else_body()) Demands(*i->else_body());
    } else if (auto call = OpCallOf(ValueOf(stmt))) {
      std::vector<Space> want = InputSpaces(*call);
      for (size_t k = 0; k < want.size() && k < call->args().size(); ++k) {
        auto v = ir::As<ir::Var>(call->args()[k]);
        if (v != nullptr && want[k] && !demand_.contains(v.get())) demand_[v.get()] = *want[k];
      }
    }
  }

  static ir::ExprPtr ValueOf(const ir::StmtPtr& s) {
    if (auto a = ir::As<ir::AssignStmt>(s)) return a->value();
    if (auto e = ir::As<ir::EvalStmt>(s)) return e->expr();
    return nullptr;
  }

  Space Of(const ir::ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    if (v == nullptr) return std::nullopt;
    auto it = spaces_.find(v.get());
    if (it != spaces_.end()) return it->second;
    auto t = ir::As<ir::TileType>(v->type());
    return t != nullptr ? t->memory_space() : std::nullopt;
  }

  void Set(const ir::Var* v, MemorySpace s) {
    auto [it, fresh] = spaces_.emplace(v, s);
    if (!fresh && it->second != s) {
      it->second = s;
      changed_ = true;
    }
  }

  // Phase 1: the space `call` produces.
  absl::StatusOr<MemorySpace> Produced(const ir::VarPtr& var, const ir::Call& call) {
    Space kw = KwargSpace(call);
    if (ir::IsOp(call, OpId::kPlTileLoad) || ir::IsOp(call, OpId::kPlTileCreate)) {
      if (auto forced = forced_.find(var.get()); forced != forced_.end()) return forced->second;
      if (ir::IsOp(call, OpId::kPlTileLoad) && kw && *kw != MemorySpace::kUB &&
          *kw != MemorySpace::kL1) {
        return UserErrorF(call.span(), "InferTileMemorySpace: pl.tile.load reads GM into Vec or "
                          "Mat only (pto-isa TLOAD), not ", ir::MemorySpacePyptoName(*kw),
                          "; load into Mat and pl.move it");
      }
      if (kw) return *kw;
      // No kwarg: the consumer's demand when a GM load can meet it.
      auto d = demand_.find(var.get());
      if (d != demand_.end() && (d->second == MemorySpace::kUB || d->second == MemorySpace::kL1)) {
        return d->second;
      }
      return MemorySpace::kUB;
    }
    if (ir::IsOp(call, OpId::kPlTileMove) || ir::IsOp(call, OpId::kPlTileExtract)) {
      if (!kw) {
        return UserErrorF(call.span(), "InferTileMemorySpace: ", call.op()->name(),
                          " needs target_memory");
      }
      return *kw;
    }
    // A popped slot lands where the consumer reads it: the AIC's in Mat (on
    // a2a3 through GM into L1, PyPTO's a2a3 table), the AIV's in Vec.
    if (ir::IsOp(call, OpId::kPlSystemTpopFromAiv)) return MemorySpace::kL1;
    if (ir::IsOp(call, OpId::kPlSystemTpopFromAic)) return MemorySpace::kUB;
    if (UnitOf(call) == ops::ExecUnit::kCube) return MemorySpace::kL0C;
    if (UnitOf(call) == ops::ExecUnit::kVector) return MemorySpace::kUB;
    for (const ir::ExprPtr& a : call.args()) {
      if (ir::Is<ir::TileType>(a->type())) {
        if (Space s = Of(a)) return *s;
      }
    }
    return MemorySpace::kUB;
  }

  absl::Status Carried(const std::vector<ir::IterArgPtr>& iter_args,
                       const std::vector<ir::VarPtr>& return_vars, const ir::StmtPtr& body) {
    for (const ir::IterArgPtr& ia : iter_args) {
      if (!ir::Is<ir::TileType>(ia->type()) || spaces_.contains(ia.get())) continue;
      Space init = Of(ia->init_value());
      Set(ia.get(), init.value_or(MemorySpace::kUB));
    }
    RETURN_IF_ERROR(Stmt(body));
    auto yield = TrailingYield(body);
    for (size_t i = 0; yield != nullptr && i < yield->value().size(); ++i) {
      Space s = Of(yield->value()[i]);
      if (!s) continue;
      if (i < return_vars.size() && return_vars[i] != nullptr) Set(return_vars[i].get(), *s);
      if (i < iter_args.size() && ir::Is<ir::TileType>(iter_args[i]->type())) {
        Set(iter_args[i].get(), *s);
        // The init's producer (a tile.create) takes it too.
        if (auto init = ir::As<ir::Var>(iter_args[i]->init_value())) {
          auto [it, fresh] = forced_.emplace(init.get(), *s);
          if (fresh || it->second != *s) changed_ = true;
          it->second = *s;
          Set(init.get(), *s);
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Stmt(const ir::StmtPtr& stmt) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) RETURN_IF_ERROR(Stmt(s));
    } else if (auto a = ir::As<ir::AssignStmt>(stmt)) {
      if (!ir::Is<ir::TileType>(a->var()->type())) return absl::OkStatus();
      if (auto call = OpCallOf(a->value())) {
        ASSIGN_OR_RETURN(MemorySpace s, Produced(a->var(), *call));
        Set(a->var().get(), s);
      } else {
        Set(a->var().get(), Of(a->value()).value_or(MemorySpace::kUB));  // an alias `y = x`
      }
    } else if (auto f = ir::As<ir::ForStmt>(stmt)) {
      return Carried(f->iter_args(), f->return_vars(), f->body());
    } else if (auto w = ir::As<ir::WhileStmt>(stmt)) {
      return Carried(w->iter_args(), w->return_vars(), w->body());
    } else if (auto i = ir::As<ir::IfStmt>(stmt)) {
      RETURN_IF_ERROR(Stmt(i->then_body()));
      if (i->else_body()) RETURN_IF_ERROR(Stmt(*i->else_body()));
      auto y1 = TrailingYield(i->then_body());
      auto y2 = i->else_body() ? TrailingYield(*i->else_body()) : nullptr;
      for (size_t k = 0; k < i->return_vars().size(); ++k) {
        const ir::VarPtr& rv = i->return_vars()[k];
        if (rv == nullptr || !ir::Is<ir::TileType>(rv->type())) continue;
        Space s = y1 != nullptr && k < y1->value().size() ? Of(y1->value()[k]) : std::nullopt;
        if (!s && y2 != nullptr && k < y2->value().size()) s = Of(y2->value()[k]);
        Set(rv.get(), s.value_or(MemorySpace::kUB));
      }
    } else if (auto s = ir::As<ir::ScopeStmt>(stmt)) {
      return Stmt(s->body());
    }
    return absl::OkStatus();
  }

  absl::flat_hash_map<const ir::Var*, MemorySpace> spaces_;
  absl::flat_hash_map<const ir::Var*, MemorySpace> demand_;
  absl::flat_hash_map<const ir::Var*, MemorySpace> forced_;
  bool changed_ = false;
};

ir::TypePtr WithSpace(const ir::TileType& t, MemorySpace s) {
  return std::make_shared<ir::TileType>(t.shape(), t.dtype(), t.memref(), t.valid_shape(),
                                        t.span(), s);
}

// Phases 2 and 3: every tile var retyped with its space, a pl.tile.move
// before each consumer whose operand is in the wrong space (one per operand
// and space in a statement sequence), and a load's / create's target_memory
// set to the space chosen.
class Rewriter : public ir::FlatteningMutator {
 public:
  explicit Rewriter(const absl::flat_hash_map<const ir::Var*, MemorySpace>& spaces)
      : spaces_(spaces) {}

 protected:
  ir::VarPtr MutateVarDef(const ir::VarPtr& var) override {
    auto it = spaces_.find(var.get());
    auto tile = ir::As<ir::TileType>(var->type());
    if (it == spaces_.end() || tile == nullptr) return RemapVar(var);
    if (ir::VarPtr done = LookupVarReplacement(var.get())) return done;
    ir::VarPtr out = RetypedVarDef(var, WithSpace(*tile, it->second),
                                   [&](const ir::ExprPtr& e) { return MutateExpr(e); });
    SetVarReplacement(var, out);
    return out;
  }

  ir::StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& stmt) override {
    moves_.emplace_back();
    ir::StmtPtr out = ir::FlatteningMutator::MutateSeqStmts(stmt);
    moves_.pop_back();
    return out;
  }

  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    auto call = OpCallOf(stmt->value());
    if (call == nullptr) return ir::IRMutator::MutateAssignStmt(stmt);
    std::vector<ir::StmtPtr> pre;
    ir::CallPtr moved = Rewrite(call, stmt->var(), &pre);
    ir::VarPtr var = MutateVarDef(stmt->var());
    // The call's type follows its var's (the space chosen).
    moved = ir::MakeOpCall(moved->op()->name(), moved->args(), var->type(), moved->kwargs(),
                           moved->attrs(), moved->span());
    pre.push_back(std::make_shared<ir::AssignStmt>(var, moved, stmt->span()));
    return ir::SeqStmts::Flatten(pre, stmt->span());
  }

  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    auto call = OpCallOf(stmt->expr());
    if (call == nullptr) return ir::IRMutator::MutateEvalStmt(stmt);
    std::vector<ir::StmtPtr> pre;
    ir::CallPtr moved = Rewrite(call, nullptr, &pre);
    pre.push_back(std::make_shared<ir::EvalStmt>(moved, stmt->leading_comments(), stmt->span()));
    return ir::SeqStmts::Flatten(pre, stmt->span());
  }

 private:
  Space SpaceOf(const ir::ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    if (v == nullptr) return std::nullopt;
    auto it = spaces_.find(v.get());
    return it == spaces_.end() ? std::nullopt : Space(it->second);
  }

  // `call` with its operands mutated, moved where needed (the moves appended
  // to `pre`), and a load's / create's target_memory set.
  ir::CallPtr Rewrite(const ir::CallPtr& call, const ir::VarPtr& var,
                      std::vector<ir::StmtPtr>* pre) {
    std::vector<ir::ExprPtr> args;
    for (size_t i = 0; i < call->args().size(); ++i) {
      const ir::ExprPtr& a = call->args()[i];
      ir::ExprPtr m = MutateExpr(a);
      Space want = Needed(*call, i, SpaceOf(a));
      auto tile = ir::As<ir::TileType>(m->type());
      if (want && tile != nullptr && ir::Is<ir::Var>(a)) {
        m = Move(m, *tile, *want, call->span(), pre);
      }
      args.push_back(m);
    }
    ir::AttrList kwargs = call->kwargs();
    if (var != nullptr &&
        (ir::IsOp(call, OpId::kPlTileLoad) || ir::IsOp(call, OpId::kPlTileCreate))) {
      // Absent means Vec (the signature's default): only another space is written.
      Space s = SpaceOf(var);
      if (s && (*s != MemorySpace::kUB || KwargSpace(*call))) {
        kwargs = ir::WithAttr(std::move(kwargs), "target_memory",
                              std::string(ir::MemorySpacePyptoName(*s)));
      }
    }
    return ir::MakeOpCall(call->op()->name(), std::move(args), call->type(), std::move(kwargs),
                          call->attrs(), call->span());
  }

  ir::ExprPtr Move(const ir::ExprPtr& src, const ir::TileType& tile, MemorySpace to,
                   const Span& span, std::vector<ir::StmtPtr>* pre) {
    auto key = std::make_pair(src.get(), to);
    for (auto it = moves_.rbegin(); it != moves_.rend(); ++it) {
      if (auto hit = it->find(key); hit != it->end()) return hit->second;
    }
    auto src_var = ir::As<ir::Var>(src);
    ir::TypePtr type = WithSpace(tile, to);
    auto out = std::make_shared<ir::Var>(
        pto::StrCat(src_var->name_hint(), "_", ir::MemorySpacePyptoName(to)), type, span);
    auto call = ir::MakeOpCall(
        ir::OpId::kPlTileMove, {src}, type,
        {{"target_memory", std::string(ir::MemorySpacePyptoName(to))}}, {}, span);
    pre->push_back(std::make_shared<ir::AssignStmt>(out, call, span));
    if (moves_.empty()) moves_.emplace_back();
    moves_.back()[key] = out;
    return out;
  }

  const absl::flat_hash_map<const ir::Var*, MemorySpace>& spaces_;
  std::vector<std::map<std::pair<const ir::Expr*, MemorySpace>, ir::VarPtr>> moves_;
};

absl::StatusOr<ir::StmtPtr> Infer(const ir::FunctionPtr& fn) {
  if (!HoldsTiles(fn)) return fn->body();
  for (const ir::VarPtr& p : fn->params()) {
    if (ir::Is<ir::TileType>(p->type())) {
      return UserErrorF(p->span(), "InferTileMemorySpace: parameter '", p->name_hint(),
                        "' of InCore function '", fn->name(),
                        "' is a tile; an InCore function takes tensors (load them in the body)");
    }
  }
  Analyzer analyzer;
  RETURN_IF_ERROR(analyzer.Run(fn->body()));
  return Rewriter(analyzer.spaces()).MutateStmt(fn->body());
}

// The first pl.tile.move across the cores of a body.
class CrossCoreMove : public ir::IRVisitor {
 public:
  const ir::Call* found = nullptr;
  MemorySpace from = MemorySpace::kUB, to = MemorySpace::kUB;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (found == nullptr && ir::IsOp(call, OpId::kPlTileMove) && !call->args().empty()) {
      auto src = ir::As<ir::TileType>(call->args()[0]->type());
      auto dst = ir::As<ir::TileType>(call->type());
      Space a = src ? src->Space() : std::nullopt;
      Space b = dst ? dst->Space() : std::nullopt;
      if (a && b && ir::IsCubeSpace(*a) != ir::IsCubeSpace(*b)) {
        found = call.get();
        from = *a;
        to = *b;
      }
    }
    ir::IRVisitor::VisitCall(call);
  }
};

// The first tile without a space, or operand outside its required space.
class SpaceChecker : public ir::IRVisitor {
 public:
  const ir::Node* found = nullptr;
  std::string what;

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    auto t = var != nullptr ? ir::As<ir::TileType>(var->type()) : nullptr;
    if (found == nullptr && t != nullptr && !t->Space()) {
      found = var.get();
      what = pto::StrCat("tile '", var->name_hint(), "' has no memory space");
    }
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (found == nullptr && !ir::Is<ir::GlobalVar>(call->op())) {
      std::vector<Space> want = InputSpaces(*call);
      for (size_t i = 0; i < want.size() && i < call->args().size() && found == nullptr; ++i) {
        auto t = ir::As<ir::TileType>(call->args()[i]->type());
        if (!want[i] || t == nullptr || t->Space() == want[i]) continue;
        found = call.get();
        what = pto::StrCat("operand ", i, " of ", call->op()->name(), " is in ",
                           t->Space() ? ir::MemorySpacePyptoName(*t->Space()) : "no space",
                           ", not ", ir::MemorySpacePyptoName(*want[i]));
      }
    }
    ir::IRVisitor::VisitCall(call);
  }
};

}  // namespace

absl::Status VerifyTileMemoryInferred(const ir::ProgramPtr& program) {
  for (const auto& [gv, fn] : program->functions()) {
    if (!HoldsTiles(fn)) continue;
    SpaceChecker checker;
    checker.VisitStmt(fn->body());
    if (checker.found != nullptr) {
      return InternalErrorF(checker.found->span(), "TileMemoryInferred: in '", fn->name(), "', ",
                            checker.what, " (run InferTileMemorySpace)");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNoMixedKernel(const ir::ProgramPtr& program) {
  for (const auto& [gv, fn] : program->functions()) {
    if (!HoldsTiles(fn)) continue;
    CrossCoreMove finder;
    finder.VisitStmt(fn->body());
    if (finder.found == nullptr) continue;
    return UserErrorF(finder.found->span(), "'", fn->name(),
                      "' is a mixed AIC + AIV kernel: this pl.tile.move takes a tile from ",
                      ir::MemorySpacePyptoName(finder.from), " to ",
                      ir::MemorySpacePyptoName(finder.to),
                      ", across the cores; it is split by pass 21 ExpandMixedKernel, which "
                      "this pass list does not run; add it or run the default pipeline");
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::ProgramPtr> InferTileMemorySpacePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, Infer);
}

std::unique_ptr<Pass> CreateInferTileMemorySpacePass() {
  return std::make_unique<InferTileMemorySpacePass>();
}

}  // namespace pto::passes
