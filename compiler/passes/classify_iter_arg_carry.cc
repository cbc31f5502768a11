#include "compiler/passes/classify_iter_arg_carry.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::StmtPtr;
using ir::VarPtr;

std::string RebindKey(size_t i) { return pto::StrCat("iter_arg_rebind_", i); }
std::string ArraySizeKey(size_t i) { return pto::StrCat("iter_arg_array_size_", i); }

bool IsTaskId(const VarPtr& v) {
  auto s = ir::As<ir::ScalarType>(v->type());
  return s != nullptr && s->dtype() == ir::DataType::kTaskId;
}

bool Writes(ir::ArgDirection d) {
  return d == ir::ArgDirection::kOutputExisting || d == ir::ArgDirection::kInOut ||
         d == ir::ArgDirection::kOutput;
}

std::optional<std::vector<ir::ArgDirection>> Directions(const ir::Call& call) {
  auto dirs = ir::GetAttr<std::vector<ir::ArgDirection>>(call.attrs(), ir::kAttrArgDirections);
  if (!dirs.has_value()) {
    dirs = ir::GetAttr<std::vector<ir::ArgDirection>>(call.kwargs(), ir::kAttrArgDirections);
  }
  if (dirs.has_value() && dirs->size() != call.args().size()) return std::nullopt;
  return dirs;
}

// The index of the parameter a kernel returns as its (single) result, found
// by following its final return back through plain copies and in-place
// writes; nullopt when it returns something else or several values.
std::optional<size_t> ReturnedParam(const ir::Function& callee) {
  StmtPtr last = callee.body();
  while (auto seq = ir::As<ir::SeqStmts>(last)) {
    if (seq->stmts().empty()) return std::nullopt;
    last = seq->stmts().back();
  }
  auto ret = ir::As<ir::ReturnStmt>(last);
  if (ret == nullptr || ret->value().size() != 1) return std::nullopt;
  std::map<const ir::Var*, ir::ExprPtr> source;
  struct Collector : ir::IRMutator {
    std::map<const ir::Var*, ir::ExprPtr>* source;
    StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
      if (ir::Is<ir::Var>(s->value())) {
        (*source)[s->var().get()] = s->value();
      } else if (auto call = ir::As<ir::Call>(s->value())) {
        const ops::OpDef* def = ops::DefOf(*call);
        std::optional<size_t> arg =
            def == nullptr ? std::nullopt : def->UpdatedArg(call->args().size());
        if (arg) {
          (*source)[s->var().get()] = call->args()[*arg];
        }
      }
      return s;
    }
    StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
      for (size_t i = 0; i < s->return_vars().size() && i < s->iter_args().size(); ++i) {
        (*source)[s->return_vars()[i].get()] = s->iter_args()[i]->init_value();
      }
      return ir::IRMutator::MutateForStmt(s);
    }
  } collector;
  collector.source = &source;
  collector.MutateStmt(callee.body());
  ir::ExprPtr r = ret->value()[0];
  std::set<const ir::Var*> seen;
  for (auto it = source.find(ir::As<ir::Var>(r).get());
       it != source.end() && seen.insert(it->first).second;
       it = source.find(ir::As<ir::Var>(r).get())) {
    r = it->second;
  }
  for (size_t p = 0; p < callee.params().size(); ++p) {
    if (callee.params()[p].get() == r.get()) return p;
  }
  return std::nullopt;
}

// Which buffer each Var of a loop body names: an edge from a Var to the Var
// it is another name for (PyPTO's four alias rules). SSA gives every Var one
// definition, so the edges form a forest.
class AliasForest {
 public:
  AliasForest(const ir::Program& program, const ir::ForStmt& loop) : program_(program) {
    for (const auto& ia : loop.iter_args()) roots_.insert(ia.get());
    Collect(loop.body());
  }

  // The Var at the end of `v`'s chain.
  const ir::Var* Root(const ir::Var* v) const {
    std::set<const ir::Var*> seen;
    while (seen.insert(v).second) {
      auto it = source_.find(v);
      if (it == source_.end()) break;
      v = it->second;
    }
    return v;
  }

 private:
  void Edge(const ir::Var* from, const ir::ExprPtr& to) {
    auto var = ir::As<ir::Var>(to);
    if (var == nullptr || from == var.get() || roots_.count(from) > 0) return;
    source_.emplace(from, var.get());
  }

  void Collect(const StmtPtr& s) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      for (const StmtPtr& x : seq->stmts()) Collect(x);
    } else if (auto scope = ir::As<ir::ScopeStmt>(s)) {
      Collect(scope->body());
    } else if (auto loop = ir::As<ir::ForStmt>(s)) {
      for (size_t k = 0; k < loop->iter_args().size() && k < loop->return_vars().size(); ++k) {
        Edge(loop->return_vars()[k].get(), loop->iter_args()[k]->init_value());
      }
      Collect(loop->body());
    } else if (auto branch = ir::As<ir::IfStmt>(s)) {
      Collect(branch->then_body());
      if (branch->else_body().has_value()) Collect(*branch->else_body());
    } else if (auto assign = ir::As<ir::AssignStmt>(s)) {
      Assign(*assign);
    }
  }

  void Assign(const ir::AssignStmt& assign) {
    const ir::Var* var = assign.var().get();
    if (auto item = ir::As<ir::TupleGetItem>(assign.value())) {
      // ret[i] names the i-th written argument of the call that made ret.
      auto tuple = ir::As<ir::Var>(item->tuple());
      auto it = tuple == nullptr ? calls_.end() : calls_.find(tuple.get());
      if (it == calls_.end()) return;
      auto dirs = Directions(*it->second);
      if (!dirs.has_value()) return;
      int64_t seen = 0;
      for (size_t a = 0; a < dirs->size(); ++a) {
        if (!Writes((*dirs)[a])) continue;
        if (seen++ == item->index()) {
          Edge(var, it->second->args()[a]);
          return;
        }
      }
      return;
    }
    auto call = ir::As<ir::Call>(assign.value());
    if (call == nullptr) return;
    calls_[var] = call;
    if (ir::IsOp(call, ir::OpId::kPlTensorAssemble) && !call->args().empty()) {
      Edge(var, call->args()[0]);
      return;
    }
    if (!ir::Is<ir::GlobalVar>(call->op())) return;
    auto dirs = Directions(*call);
    ir::FunctionPtr callee = program_.GetFunction(call->op()->name());
    if (!dirs.has_value() || callee == nullptr) return;
    const std::optional<size_t> returned = ReturnedParam(*callee);
    for (size_t a = 0; a < dirs->size(); ++a) {
      if ((*dirs)[a] != ir::ArgDirection::kOutputExisting &&
          (*dirs)[a] != ir::ArgDirection::kInOut) {
        continue;
      }
      if (returned.has_value() && a != *returned) continue;
      Edge(var, call->args()[a]);
      return;
    }
  }

  const ir::Program& program_;
  std::set<const ir::Var*> roots_;
  std::map<const ir::Var*, const ir::Var*> source_;
  std::map<const ir::Var*, ir::CallPtr> calls_;
};

std::shared_ptr<const ir::YieldStmt> TrailingYield(const StmtPtr& body) {
  StmtPtr last = body;
  while (true) {
    if (auto seq = ir::As<ir::SeqStmts>(last); seq != nullptr && !seq->stmts().empty()) {
      last = seq->stmts().back();
    } else if (auto scope = ir::As<ir::RuntimeScopeStmt>(last); scope != nullptr &&
                                                               !scope->manual()) {
      last = scope->body();
    } else {
      break;
    }
  }
  return ir::As<ir::YieldStmt>(last);
}

std::optional<int64_t> ConstTripCount(const ir::ForStmt& loop) {
  auto start = ir::As<ir::ConstInt>(loop.start());
  auto stop = ir::As<ir::ConstInt>(loop.stop());
  auto step = ir::As<ir::ConstInt>(loop.step());
  if (start == nullptr || stop == nullptr || step == nullptr || step->value() == 0) {
    return std::nullopt;
  }
  const int64_t span = stop->value() - start->value();
  const int64_t s = step->value();
  if ((s > 0 && span <= 0) || (s < 0 && span >= 0)) return 0;
  return s > 0 ? (span + s - 1) / s : (-span + -s - 1) / -s;
}

// The inner loop whose return var `v` is, if any.
std::shared_ptr<const ir::ForStmt> LoopReturning(const StmtPtr& s, const ir::Var* v) {
  if (auto seq = ir::As<ir::SeqStmts>(s)) {
    for (const StmtPtr& x : seq->stmts()) {
      if (auto f = LoopReturning(x, v)) return f;
    }
  } else if (auto scope = ir::As<ir::ScopeStmt>(s)) {
    return LoopReturning(scope->body(), v);
  } else if (auto loop = ir::As<ir::ForStmt>(s)) {
    for (const VarPtr& rv : loop->return_vars()) {
      if (rv.get() == v) return loop;
    }
    return LoopReturning(loop->body(), v);
  } else if (auto branch = ir::As<ir::IfStmt>(s)) {
    if (auto f = LoopReturning(branch->then_body(), v)) return f;
    if (branch->else_body().has_value()) return LoopReturning(*branch->else_body(), v);
  }
  return nullptr;
}

// The fence-array extent of TASK_ID carry `i`: a parallel loop's constant
// trip count; a sequential loop's is that of the inner loop it threads the
// carry through.
int64_t ArraySize(const ir::ForStmt& loop, size_t i) {
  if (i >= loop.iter_args().size() || !IsTaskId(loop.iter_args()[i])) return 0;
  if (loop.for_kind() == ir::ForKind::kParallel) return ConstTripCount(loop).value_or(0);
  if (loop.for_kind() != ir::ForKind::kSequential) return 0;
  auto yield = TrailingYield(loop.body());
  if (yield == nullptr || i >= yield->value().size()) return 0;
  auto v = ir::As<ir::Var>(yield->value()[i]);
  if (v == nullptr) return 0;
  auto inner = LoopReturning(loop.body(), v.get());
  if (inner == nullptr) return 0;
  for (size_t j = 0; j < inner->return_vars().size(); ++j) {
    if (inner->return_vars()[j].get() == v.get()) return ArraySize(*inner, j);
  }
  return 0;
}

class Classifier : public ir::IRMutator {
 public:
  explicit Classifier(const ir::Program& program) : program_(program) {}
  absl::Status status() const { return status_; }

 protected:
  StmtPtr MutateRuntimeScopeStmt(const std::shared_ptr<const ir::RuntimeScopeStmt>& s) override {
    if (s->manual()) ++manual_depth_;
    StmtPtr out = ir::IRMutator::MutateRuntimeScopeStmt(s);
    if (s->manual()) --manual_depth_;
    return out;
  }

  StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    StmtPtr base = ir::IRMutator::MutateForStmt(s);
    auto loop = ir::As<ir::ForStmt>(base);
    if (loop == nullptr || loop->iter_args().empty() || !status_.ok()) return base;
    const size_t n = loop->iter_args().size();
    std::vector<bool> rebind(n, false);
    std::vector<int64_t> extent(n, 0);
    if (auto yield = TrailingYield(loop->body())) {
      if (yield->value().size() != n) {
        status_ = InternalErrorF(loop->span(), "loop yields ", yield->value().size(),
                                 " values for ", n, " iter_args");
        return base;
      }
      AliasForest aliases(program_, *loop);
      for (size_t i = 0; i < n; ++i) {
        auto v = ir::As<ir::Var>(yield->value()[i]);
        rebind[i] = v == nullptr || aliases.Root(v.get()) != loop->iter_args()[i].get();
        // Each submit hands back a new task id: never the same value.
        if (IsTaskId(loop->iter_args()[i])) rebind[i] = true;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (manual_depth_ > 0 && rebind[i]) extent[i] = ArraySize(*loop, i);
      if (manual_depth_ > 0 && loop->for_kind() == ir::ForKind::kParallel && rebind[i] &&
          IsTaskId(loop->iter_args()[i]) && extent[i] <= 0) {
        status_ = UserErrorF(
            loop->span(),
            "manual_scope: a pl.parallel loop that carries a task dependency (deps=[...]) "
            "must have a trip count known at compile time: the runtime fence is an array of "
            "one task id per iteration; give the loop constant bounds (e.g. pl.parallel(4))");
        return base;
      }
    }
    ir::AttrList attrs = loop->attrs();
    for (size_t i = 0; i < n; ++i) {
      attrs = ir::WithAttr(std::move(attrs), RebindKey(i), static_cast<bool>(rebind[i]));
      if (extent[i] > 0) attrs = ir::WithAttr(std::move(attrs), ArraySizeKey(i), extent[i]);
    }
    if (attrs == loop->attrs()) return base;
    return std::make_shared<ir::ForStmt>(loop->loop_var(), loop->start(), loop->stop(),
                                         loop->step(), loop->iter_args(), loop->body(),
                                         loop->return_vars(), loop->for_kind(), std::move(attrs),
                                         loop->span());
  }

 private:
  const ir::Program& program_;
  int manual_depth_ = 0;
  absl::Status status_;
};

}  // namespace

std::optional<bool> IterArgIsRebind(const ir::ForStmt& loop, size_t i) {
  return ir::GetAttr<bool>(loop.attrs(), RebindKey(i));
}

int64_t IterArgArraySize(const ir::ForStmt& loop, size_t i) {
  return ir::GetAttr<int64_t>(loop.attrs(), ArraySizeKey(i)).value_or(0);
}

absl::StatusOr<ir::ProgramPtr> ClassifyIterArgCarryPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [&program](const ir::FunctionPtr& func) -> absl::StatusOr<StmtPtr> {
        if (func->func_type() != ir::FunctionType::kOrchestration) return func->body();
        Classifier classifier(*program);
        StmtPtr body = classifier.MutateStmt(func->body());
        RETURN_IF_ERROR(classifier.status());
        return body;
      });
}

std::unique_ptr<Pass> CreateClassifyIterArgCarryPass() {
  return std::make_unique<ClassifyIterArgCarryPass>();
}

}  // namespace pto::passes
