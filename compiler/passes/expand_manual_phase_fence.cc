#include "compiler/passes/expand_manual_phase_fence.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::StmtPtr;
using ir::VarPtr;

constexpr ir::OpId kTaskDummy = ir::OpId::kPlSystemTaskDummy;

bool IsTaskIdArray(const ir::ExprPtr& e) {
  auto at = e == nullptr ? nullptr : ir::As<ir::ArrayType>(e->type());
  return at != nullptr && at->dtype() == ir::DataType::kTaskId;
}

bool IsSubmit(const ir::Call& call) {
  return ir::Is<ir::GlobalVar>(call.op()) &&
         ir::GetAttr<bool>(call.attrs(), ir::kAttrSubmit).value_or(false);
}

// The one whole Array[N, TASK_ID] a pl.submit waits for, if that is all of
// its deps (scalar, mixed and multi-array deps stay direct).
VarPtr SingleArrayDep(const ir::Call& call) {
  if (!IsSubmit(call)) return nullptr;
  auto deps = ir::GetAttr<std::vector<ir::ExprPtr>>(call.attrs(), ir::kAttrDeps);
  if (!deps.has_value() || deps->size() != 1 || !IsTaskIdArray((*deps)[0])) return nullptr;
  return ir::As<ir::Var>((*deps)[0]);
}

std::optional<int64_t> ConstTripCount(const ir::ForStmt& loop) {
  std::optional<int64_t> start = ir::GetConstInt(loop.start());
  std::optional<int64_t> stop = ir::GetConstInt(loop.stop());
  std::optional<int64_t> step = ir::GetConstInt(loop.step());
  if (!start || !stop || !step || *step == 0) return std::nullopt;
  const int64_t span = *stop - *start;
  if ((*step > 0 && span <= 0) || (*step < 0 && span >= 0)) return 0;
  return *step > 0 ? (span + *step - 1) / *step : (-span - *step - 1) / -*step;
}

// Unions of Array[TASK_ID] Vars that may hold the same ids: a loop iter_arg
// and the array it starts from (PyPTO's transitive iter-arg alias classes).
class ArrayAliases {
 public:
  void AddLoop(const ir::ForStmt& loop) {
    for (const ir::IterArgPtr& ia : loop.iter_args()) {
      auto init = ir::As<ir::Var>(ia->init_value());
      if (init != nullptr && IsTaskIdArray(ia) && IsTaskIdArray(init)) Union(ia.get(), init.get());
    }
  }
  // `v` and every Var that aliases it.
  std::set<const ir::Var*> ClassOf(const ir::Var* v) const {
    std::set<const ir::Var*> out;
    const ir::Var* root = Find(v);
    for (const auto& [member, parent] : parent_) {
      if (Find(member) == root) out.insert(member);
    }
    out.insert(v);
    return out;
  }

 private:
  const ir::Var* Find(const ir::Var* v) const {
    auto it = parent_.find(v);
    while (it != parent_.end() && it->second != v) {
      v = it->second;
      it = parent_.find(v);
    }
    return v;
  }
  void Union(const ir::Var* a, const ir::Var* b) {
    parent_.emplace(a, a);
    parent_.emplace(b, b);
    const ir::Var* ra = Find(a);
    const ir::Var* rb = Find(b);
    if (ra != rb) parent_[ra] = rb;
  }
  std::map<const ir::Var*, const ir::Var*> parent_;
};

// What a loop body does with task-id arrays: the whole-array consumers per
// array (in first-use order, counted per execution of the body) and the Vars
// that make an array unsafe to fence before the loop.
struct BodyIndex {
  struct Consumers {
    VarPtr array;
    int64_t count = 0;
    std::set<const ir::Call*> calls;
  };
  std::vector<const ir::Var*> order;
  std::map<const ir::Var*, Consumers> arrays;
  std::set<const ir::Var*> defined;  // defined in the body (assignments, loop/if results)
  std::set<const ir::Var*> updated;  // written by pl.array.update_element, with aliases

  void AddConsumers(const Consumers& c, int64_t multiplier) {
    const ir::Var* key = c.array.get();
    auto [it, fresh] = arrays.emplace(key, Consumers{c.array, 0, {}});
    if (fresh) order.push_back(key);
    it->second.count += c.count * multiplier;
    it->second.calls.insert(c.calls.begin(), c.calls.end());
  }
};

class Indexer : public ir::IRVisitor {
 public:
  // `nested_consumers`: whether the consumers of loops nested in the body
  // count toward it (a sequential body; a parallel one leaves them to the
  // nested loop's own decision).
  Indexer(ArrayAliases* aliases, std::map<const ir::ForStmt*, BodyIndex>* cache,
          bool nested_consumers)
      : aliases_(aliases), cache_(cache), nested_consumers_(nested_consumers) {}
  BodyIndex index;

  static const BodyIndex& Of(const ir::ForStmt& loop, ArrayAliases* aliases,
                             std::map<const ir::ForStmt*, BodyIndex>* cache) {
    auto it = cache->find(&loop);
    if (it != cache->end()) return it->second;
    Indexer indexer(aliases, cache, loop.for_kind() == ir::ForKind::kSequential);
    indexer.VisitStmt(loop.body());
    return cache->emplace(&loop, std::move(indexer.index)).first->second;
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitVarDef(const VarPtr& var) override {
    if (var != nullptr) index.defined.insert(var.get());
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (VarPtr array = SingleArrayDep(*call)) {
      index.AddConsumers({array, 1, {call.get()}}, 1);
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    if (call != nullptr && ir::IsOp(call, ir::OpId::kPlArrayUpdateElement) &&
        !call->args().empty()) {
      if (auto base = ir::As<ir::Var>(call->args()[0])) {
        for (const ir::Var* v : aliases_->ClassOf(base.get())) index.updated.insert(v);
      }
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  // A nested loop is summarised once per decision (cached) and merged.
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& loop) override {
    for (const VarPtr& v : loop->return_vars()) index.defined.insert(v.get());
    for (const ir::IterArgPtr& ia : loop->iter_args()) index.defined.insert(ia.get());
    aliases_->AddLoop(*loop);
    const BodyIndex& nested = Of(*loop, aliases_, cache_);
    index.defined.insert(nested.defined.begin(), nested.defined.end());
    index.updated.insert(nested.updated.begin(), nested.updated.end());
    if (!nested_consumers_) return;
    std::optional<int64_t> trips = ConstTripCount(*loop);
    if (!trips.has_value() || *trips <= 0) return;
    for (const ir::Var* key : nested.order) index.AddConsumers(nested.arrays.at(key), *trips);
  }

 private:
  ArrayAliases* aliases_;
  std::map<const ir::ForStmt*, BodyIndex>* cache_;
  bool nested_consumers_;
};

// PyPTO's profitability rule: N producers x M consumers direct edges against
// N + M through the fence, at least one edge saved.
bool Profitable(int64_t producers, int64_t consumers) {
  return producers > 0 && consumers > 0 && producers * consumers - (producers + consumers) >= 1;
}

// Rebuilds the chosen consumers with deps=[barrier].
class ConsumerRewriter : public ir::IRMutator {
 public:
  explicit ConsumerRewriter(const std::map<const ir::Call*, VarPtr>& barrier_of)
      : barrier_of_(barrier_of) {}

 protected:
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    auto it = barrier_of_.find(call.get());
    if (it == barrier_of_.end()) return ir::IRMutator::MutateCall(call);
    return std::make_shared<ir::Call>(
        call->op(), call->args(), call->kwargs(),
        ir::WithAttr(call->attrs(), ir::kAttrDeps, std::vector<ir::ExprPtr>{it->second}),
        call->type(), call->span());
  }

 private:
  const std::map<const ir::Call*, VarPtr>& barrier_of_;
};

class PhaseFencer : public ir::FlatteningMutator {
 protected:
  StmtPtr MutateRuntimeScopeStmt(const std::shared_ptr<const ir::RuntimeScopeStmt>& s) override {
    const bool saved = in_manual_;
    in_manual_ = s->manual();
    StmtPtr out = ir::FlatteningMutator::MutateRuntimeScopeStmt(s);
    in_manual_ = saved;
    return out;
  }

  StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& loop) override {
    std::vector<StmtPtr> barriers;
    std::map<const ir::Call*, VarPtr> barrier_of;
    if (in_manual_) Decide(*loop, &barriers, &barrier_of);
    std::shared_ptr<const ir::ForStmt> current = loop;
    if (!barrier_of.empty()) {
      ConsumerRewriter rewriter(barrier_of);
      current = std::make_shared<ir::ForStmt>(
          loop->loop_var(), loop->start(), loop->stop(), loop->step(), loop->iter_args(),
          rewriter.MutateStmt(loop->body()), loop->return_vars(), loop->for_kind(),
          loop->attrs(), loop->span());
    }
    StmtPtr out = ir::FlatteningMutator::MutateForStmt(current);  // nested loops
    if (barriers.empty()) return out;
    barriers.push_back(std::move(out));
    return std::make_shared<ir::SeqStmts>(std::move(barriers), loop->span());
  }

 private:
  void Decide(const ir::ForStmt& loop, std::vector<StmtPtr>* barriers,
              std::map<const ir::Call*, VarPtr>* barrier_of) {
    const std::optional<int64_t> trips = ConstTripCount(loop);
    if (loop.for_kind() == ir::ForKind::kParallel && (!trips.has_value() || *trips <= 0)) return;
    if (trips.has_value() && *trips <= 0) return;  // a loop known to run zero times
    aliases_.AddLoop(loop);
    // Per decision: the tree is rebuilt as the pass goes, so node addresses
    // are not stable keys across decisions.
    std::map<const ir::ForStmt*, BodyIndex> cache;
    const BodyIndex& body = Indexer::Of(loop, &aliases_, &cache);
    std::set<const ir::Var*> iter_args;
    for (const ir::IterArgPtr& ia : loop.iter_args()) iter_args.insert(ia.get());
    for (const ir::Var* key : body.order) {
      const BodyIndex::Consumers& c = body.arrays.at(key);
      if (iter_args.count(key) > 0 || body.defined.count(key) > 0 || body.updated.count(key) > 0) {
        continue;  // the array may change while the loop runs
      }
      auto at = ir::As<ir::ArrayType>(c.array->type());
      const int64_t producers = at->ConstExtent().value_or(0);
      const int64_t consumers = c.count * (trips.has_value() ? *trips : 1);
      if (!Profitable(producers, consumers)) continue;
      auto barrier = std::make_shared<ir::Var>(
          pto::StrCat("phase_fence_barrier_", next_barrier_++, "_tid"),
          ir::ScalarType::Get(ir::DataType::kTaskId), loop.span());
      const ops::OpDef* dummy = ops::OpRegistry::Global().Find(kTaskDummy);
      ir::AttrList kwargs = {{ir::kAttrDeps, std::vector<ir::ExprPtr>{c.array}}};
      barriers->push_back(std::make_shared<ir::AssignStmt>(
          barrier,
          std::make_shared<ir::Call>(dummy->op, std::vector<ir::ExprPtr>{}, std::move(kwargs),
                                     ir::AttrList{}, barrier->type(), loop.span()),
          loop.span()));
      for (const ir::Call* call : c.calls) (*barrier_of)[call] = barrier;
    }
  }

  bool in_manual_ = false;
  int next_barrier_ = 0;
  ArrayAliases aliases_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> ExpandManualPhaseFencePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& func) -> absl::StatusOr<StmtPtr> {
    if (func->func_type() != ir::FunctionType::kOrchestration) return func->body();
    PhaseFencer fencer;
    return fencer.MutateStmt(func->body());
  });
}

std::unique_ptr<Pass> CreateExpandManualPhaseFencePass() {
  return std::make_unique<ExpandManualPhaseFencePass>();
}

}  // namespace pto::passes
