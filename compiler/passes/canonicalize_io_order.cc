#include "compiler/passes/canonicalize_io_order.h"

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/lower_pipeline_loops.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;
using ir::OpId;
using ir::StmtPtr;

ir::CallPtr OpCall(const ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

bool IsMemoryValue(const ir::TypePtr& t) {
  return ir::Is<ir::TileType>(t) || ir::As<ir::TensorType>(t) != nullptr;
}

// The buffer each tensor or tile var of a function is: through aliases,
// in-place updates (a store's result is its target) and views.
class Roots : public ir::IRVisitor {
 public:
  const ir::Var* Of(const ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    if (v == nullptr) return nullptr;
    auto it = root_.find(v.get());
    return it == root_.end() ? v.get() : it->second;
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ExprPtr src;
    if (ir::Is<ir::Var>(s->value())) {
      src = s->value();
    } else if (auto call = OpCall(s->value())) {
      if (const ops::OpDef* def = ops::DefOf(*call)) {
        std::optional<size_t> arg = def->UpdatedArg(call->args().size());
        if (!arg) arg = def->AliasedArg(call->args().size());
        if (arg) src = call->args()[*arg];
      }
    }
    if (const ir::Var* r = src ? Of(src) : nullptr) root_[s->var().get()] = r;
    ir::IRVisitor::VisitAssignStmt(s);
  }
  // A carried tensor is the buffer of its init value, in the loop and after.
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& f) override {
    Carry(f->iter_args(), f->return_vars());
    ir::IRVisitor::VisitForStmt(f);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& w) override {
    Carry(w->iter_args(), w->return_vars());
    ir::IRVisitor::VisitWhileStmt(w);
  }

 private:
  void Carry(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<ir::VarPtr>& rvs) {
    for (size_t i = 0; i < iter_args.size(); ++i) {
      const ir::Var* r = Of(iter_args[i]->init_value());
      if (r == nullptr) continue;
      root_[iter_args[i].get()] = r;
      if (i < rvs.size()) root_[rvs[i].get()] = r;
    }
  }
  absl::flat_hash_map<const ir::Var*, const ir::Var*> root_;
};

// Every var a statement reads.
class UseCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> uses;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitVar(const ir::VarPtr& v) override { uses.insert(v.get()); }
  void VisitVarDef(const ir::VarPtr&) override {}
};

// PyPTO's hardware-unit ladder: scalar arithmetic, loads, then compute and
// stores (a store after its copy's compute).
struct Node {
  int tier = 2;      // 0 scalar, 1 load, 2 compute / store
  int sub = 0;       // 1 for a store
  bool barrier = false;  // keeps its place: nothing moves across it
  int stage = 0;
  const ir::Var* def = nullptr;
  absl::flat_hash_set<const ir::Var*> uses, reads, writes;
};

bool IsLoad(const ir::Call& c) {
  if (ir::IsOp(c, OpId::kPlTileLoad) || ir::IsOp(c, OpId::kPlTileRead)) return true;
  auto target = ir::GetAttr<std::string>(c.kwargs(), "target_memory");
  return ir::IsOp(c, OpId::kPlTileExtract) && target && (*target == "Left" || *target == "Right");
}

bool IsStore(const ir::Call& c) {
  return ir::IsOp(c, OpId::kPlTileStore) || ir::IsOp(c, OpId::kPlTileWrite);
}

// The category of an operator call; false when the call is not one that may
// move (a system, communication or function call, or one writing an operand
// other than a store's target).
bool ClassifyCall(const ir::Call& call, const Roots& roots, Node* n) {
  const ops::OpDef* def = ops::DefOf(call);
  if (def == nullptr || def->traits.communicates || def->traits.unit == ops::ExecUnit::kNone) {
    return false;
  }
  const bool store = IsStore(call);
  for (size_t i = 0; i < call.args().size(); ++i) {
    if (!IsMemoryValue(call.args()[i]->type())) continue;
    const ir::Var* r = roots.Of(call.args()[i]);
    if (r == nullptr) continue;
    if (def->EffectOf(i) == ops::ArgEffect::kRead) {
      n->reads.insert(r);
    } else if (store) {
      n->writes.insert(r);
    } else {
      return false;
    }
  }
  if (IsLoad(call)) n->tier = 1;
  if (store) n->sub = 1;
  return true;
}

Node Classify(const StmtPtr& s, const Roots& roots) {
  Node n;
  UseCollector uses;
  uses.VisitStmt(s);
  n.uses = std::move(uses.uses);
  ExprPtr value;
  if (auto a = ir::As<ir::AssignStmt>(s)) {
    n.def = a->var().get();
    value = a->value();
    if (OpCall(value) == nullptr && !ir::Is<ir::Call>(value)) {
      n.tier = ir::Is<ir::ScalarType>(a->var()->type()) ? 0 : 2;
      return n;
    }
  } else if (auto e = ir::As<ir::EvalStmt>(s)) {
    value = e->expr();
    auto call = OpCall(value);
    if (call == nullptr || !IsStore(*call)) n.barrier = true;
  } else {
    n.barrier = true;  // loops, branches, scopes, yields, returns
  }
  if (n.barrier) return n;
  auto call = OpCall(value);
  if (call == nullptr || !ClassifyCall(*call, roots, &n)) {
    n.barrier = true;
    return n;
  }
  if (n.tier == 2 && n.def != nullptr && ir::Is<ir::ScalarType>(n.def->type()) && !IsLoad(*call)) {
    n.tier = 0;
  }
  return n;
}

bool Conflicts(const Node& a, const Node& b) {
  for (const ir::Var* w : a.writes) {
    if (b.reads.contains(w) || b.writes.contains(w)) return true;
  }
  for (const ir::Var* w : b.writes) {
    if (a.reads.contains(w)) return true;
  }
  return false;
}

// A stable topological sort of `stmts` by (tier, stage, sub, position).
std::vector<StmtPtr> Schedule(const std::vector<StmtPtr>& stmts, const Roots& roots, int copies) {
  const size_t count = stmts.size();
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (const StmtPtr& s : stmts) nodes.push_back(Classify(s, roots));
  size_t body = count;
  if (body > 0 && ir::Is<ir::YieldStmt>(stmts.back())) --body;
  if (copies > 1 && body % copies == 0 && body > 0) {
    const size_t per = body / copies;
    for (size_t i = 0; i < body; ++i) nodes[i].stage = static_cast<int>(i / per);
  }
  std::vector<std::vector<size_t>> preds(count);
  for (size_t j = 0; j < count; ++j) {
    for (size_t i = 0; i < j; ++i) {
      const bool dep = nodes[i].barrier || nodes[j].barrier ||
                       (nodes[i].def != nullptr && nodes[j].uses.contains(nodes[i].def)) ||
                       Conflicts(nodes[i], nodes[j]);
      if (dep) preds[j].push_back(i);
    }
  }
  std::vector<bool> done(count, false);
  std::vector<StmtPtr> out;
  out.reserve(count);
  for (size_t step = 0; step < count; ++step) {
    std::optional<size_t> best;
    auto key = [&](size_t i) {
      return std::make_tuple(nodes[i].tier, nodes[i].stage, nodes[i].sub, i);
    };
    for (size_t i = 0; i < count; ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t p : preds[i]) ready &= done[p];
      if (ready && (!best || key(i) < key(*best))) best = i;
    }
    if (!best) return stmts;  // cannot happen: the edges go forward only
    done[*best] = true;
    out.push_back(stmts[*best]);
  }
  return out;
}

class Reorderer : public ir::IRMutator {
 public:
  explicit Reorderer(const Roots& roots) : roots_(roots) {}

 protected:
  StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& f) override {
    std::optional<int64_t> copies = ir::GetAttr<int64_t>(f->attrs(), kAttrPipelineCopies);
    if (!copies) return ir::IRMutator::MutateForStmt(f);
    ++depth_;
    copies_ = static_cast<int>(*copies);
    StmtPtr body = MutateStmt(f->body());
    copies_ = 0;
    --depth_;
    ir::AttrList attrs;
    for (const auto& kv : f->attrs()) {
      if (kv.first != kAttrPipelineCopies) attrs.push_back(kv);
    }
    return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                         f->iter_args(), body, f->return_vars(), f->for_kind(),
                                         std::move(attrs), f->span());
  }
  StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& s) override {
    const int copies = copies_;
    copies_ = 0;
    StmtPtr mutated = ir::IRMutator::MutateSeqStmts(s);
    auto seq = ir::As<ir::SeqStmts>(mutated);
    if (depth_ == 0 || seq == nullptr || seq->stmts().size() < 2) return mutated;
    std::vector<StmtPtr> order = Schedule(seq->stmts(), roots_, copies);
    if (order == seq->stmts()) return mutated;
    return std::make_shared<ir::SeqStmts>(std::move(order), seq->span());
  }

 private:
  const Roots& roots_;
  int depth_ = 0;
  int copies_ = 0;  // the copy count for the next sequence: the marked loop's body
};

absl::StatusOr<StmtPtr> Reorder(const ir::FunctionPtr& fn) {
  if (fn->body() == nullptr) return fn->body();
  Roots roots;
  roots.VisitStmt(fn->body());
  Reorderer r(roots);
  return r.MutateStmt(fn->body());
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> CanonicalizeIOOrderPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, Reorder);
}

std::unique_ptr<Pass> CreateCanonicalizeIOOrderPass() {
  return std::make_unique<CanonicalizeIOOrderPass>();
}

}  // namespace pto::passes
