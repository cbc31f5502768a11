#include "compiler/passes/fuse_create_assemble_to_slice.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/arena.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/call_effects.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

std::shared_ptr<const ir::YieldStmt> TrailingYield(const ir::StmtPtr& body) {
  if (auto seq = ir::As<ir::SeqStmts>(body)) {
    return seq->stmts().empty() ? nullptr : TrailingYield(seq->stmts().back());
  }
  return ir::As<ir::YieldStmt>(body);
}

// Buffer identity of every tensor var of one Orchestration body (PyPTO's
// BufferRootCollector with its skip policy): params, creates and slices are
// roots; aliases, assembles (the target's root, not the source's), kernel
// results (the Out/InOut argument they return), tuple elements, loop iter
// args and results and branch results inherit one. A var that may hold more
// than one buffer (a loop that may not run, two branches) has no root, so
// nothing is fused through it.
class BufferRootCollector {
 public:
  explicit BufferRootCollector(const ir::Program& program) : program_(program) {}

  void Run(const ir::Function& fn) {
    for (const ir::VarPtr& p : fn.params()) Record(p.get(), {p.get()}, false);
    Visit(fn.body());
  }

  // The one root of `e`, or nullptr (none, or ambiguous).
  const ir::Var* RootOf(const ir::ExprPtr& e) const {
    Info info = InfoOf(e);
    return info.ambiguous || info.roots.size() != 1 ? nullptr : info.roots[0];
  }

 private:
  struct Info {
    std::vector<const ir::Var*> roots;
    bool ambiguous = false;
  };

  Info InfoOf(const ir::ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    if (v == nullptr) return {};
    auto it = info_.find(v.get());
    return it == info_.end() ? Info{} : it->second;
  }

  void Record(const ir::Var* v, std::vector<const ir::Var*> roots, bool unresolved) {
    std::vector<const ir::Var*> unique;
    for (const ir::Var* r : roots) {
      if (r != nullptr && std::find(unique.begin(), unique.end(), r) == unique.end()) {
        unique.push_back(r);
      }
    }
    if (unique.empty()) return;
    info_[v] = Info{unique, unresolved || unique.size() > 1};
  }

  static Info Union(Info a, const Info& b) {
    for (const ir::Var* r : b.roots) {
      if (std::find(a.roots.begin(), a.roots.end(), r) == a.roots.end()) a.roots.push_back(r);
    }
    a.ambiguous |= b.ambiguous;
    return a;
  }

  void Visit(const ir::StmtPtr& stmt) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) Visit(s);
    } else if (auto assign = ir::As<ir::AssignStmt>(stmt)) {
      Assign(*assign);
    } else if (auto loop = ir::As<ir::ForStmt>(stmt)) {
      std::vector<Info> init = LoopInit(loop->iter_args());
      Visit(loop->body());
      LoopReturn(loop->body(), loop->return_vars(), init, TripCountIsPositive(*loop));
    } else if (auto loop = ir::As<ir::WhileStmt>(stmt)) {
      std::vector<Info> init = LoopInit(loop->iter_args());
      Visit(loop->body());
      // The condition may be false at once: the init buffer stays possible.
      LoopReturn(loop->body(), loop->return_vars(), init, /*guaranteed=*/false);
    } else if (auto branch = ir::As<ir::IfStmt>(stmt)) {
      Visit(branch->then_body());
      if (branch->else_body().has_value()) Visit(*branch->else_body());
      auto then_yield = TrailingYield(branch->then_body());
      auto else_yield = branch->else_body() ? TrailingYield(*branch->else_body()) : nullptr;
      if (then_yield == nullptr || else_yield == nullptr) return;
      for (size_t i = 0; i < branch->return_vars().size() && i < then_yield->value().size() &&
                         i < else_yield->value().size();
           ++i) {
        Info a = InfoOf(then_yield->value()[i]);
        Info b = InfoOf(else_yield->value()[i]);
        const bool unresolved = a.roots.empty() || b.roots.empty();
        Info u = Union(a, b);
        Record(branch->return_vars()[i].get(), u.roots, unresolved || u.ambiguous);
      }
    } else if (auto scope = ir::As<ir::ScopeStmt>(stmt)) {
      Visit(scope->body());
    }
  }

  static bool TripCountIsPositive(const ir::ForStmt& loop) {
    std::optional<int64_t> start = ir::GetConstInt(loop.start());
    std::optional<int64_t> stop = ir::GetConstInt(loop.stop());
    std::optional<int64_t> step = ir::GetConstInt(loop.step());
    if (!start || !stop || !step || *step == 0) return false;
    return *step > 0 ? *start < *stop : *start > *stop;
  }

  std::vector<Info> LoopInit(const std::vector<ir::IterArgPtr>& iter_args) {
    std::vector<Info> init;
    for (const ir::IterArgPtr& ia : iter_args) {
      init.push_back(InfoOf(ia->init_value()));
      Record(ia.get(), init.back().roots, init.back().ambiguous);
    }
    return init;
  }

  // After the body: a result is the yielded buffer, or also the init one
  // when the loop may not run at all.
  void LoopReturn(const ir::StmtPtr& body, const std::vector<ir::VarPtr>& return_vars,
                  const std::vector<Info>& init, bool guaranteed) {
    auto yield = TrailingYield(body);
    if (yield == nullptr) return;
    for (size_t i = 0; i < return_vars.size() && i < yield->value().size(); ++i) {
      Info info = InfoOf(yield->value()[i]);
      bool unresolved = info.roots.empty() || info.ambiguous;
      if (!guaranteed && i < init.size()) {
        unresolved |= init[i].roots.empty();
        info = Union(info, init[i]);
      }
      Record(return_vars[i].get(), info.roots, unresolved || info.ambiguous);
    }
  }

  struct OutputRoot {
    Info info;
    ir::TypePtr type;
  };

  // The roots of a kernel call's Out/InOut arguments, in parameter order.
  std::vector<OutputRoot> OutputRoots(const ir::Call& call, const ir::Function& callee) const {
    std::vector<OutputRoot> out;
    const std::vector<ir::ParamDirection>& dirs = callee.param_directions();
    for (size_t i = 0; i < dirs.size() && i < call.args().size(); ++i) {
      if (dirs[i] == ir::ParamDirection::kIn) continue;
      out.push_back({InfoOf(call.args()[i]), call.args()[i]->type()});
    }
    return out;
  }

  static bool SameShapeAndDtype(const ir::TypePtr& a, const ir::TypePtr& b) {
    auto ta = ir::AsTensorTypeLike(a);
    auto tb = ir::AsTensorTypeLike(b);
    if (ta == nullptr || tb == nullptr || ta->dtype() != tb->dtype() ||
        ta->shape().size() != tb->shape().size()) {
      return false;
    }
    for (size_t k = 0; k < ta->shape().size(); ++k) {
      std::optional<int64_t> x = ir::GetConstInt(ta->shape()[k]);
      std::optional<int64_t> y = ir::GetConstInt(tb->shape()[k]);
      if (!x || !y || *x != *y) return false;
    }
    return true;
  }

  // The buffer a single-result call returns: its only Out/InOut argument,
  // else the one of the result's shape and dtype; none when two differ.
  static Info SelectReturnRoot(const std::vector<OutputRoot>& outs, const ir::TypePtr& type) {
    if (outs.empty()) return {};
    if (outs.size() == 1) return outs[0].info;
    const OutputRoot* match = nullptr;
    for (const OutputRoot& o : outs) {
      if (o.info.roots.empty() || !SameShapeAndDtype(o.type, type)) continue;
      if (match != nullptr &&
          (match->info.roots != o.info.roots || match->info.ambiguous != o.info.ambiguous)) {
        return {};
      }
      match = &o;
    }
    return match == nullptr ? Info{} : match->info;
  }

  void Assign(const ir::AssignStmt& assign) {
    const ir::ExprPtr& value = assign.value();
    const ir::Var* var = assign.var().get();
    if (ir::IsOp(value, ir::OpId::kPlTensorCreate) || ir::IsOp(value, ir::OpId::kPlTensorSlice)) {
      Record(var, {var}, false);
    } else if (ir::IsOp(value, ir::OpId::kPlTensorAssemble)) {
      auto call = ir::As<ir::Call>(value);
      if (call->args().size() == 3) {
        Info target = InfoOf(call->args()[0]);
        Record(var, target.roots, target.ambiguous);
      }
    } else if (auto call = ir::As<ir::Call>(value);
               call != nullptr && ir::Is<ir::GlobalVar>(call->op())) {
      ir::FunctionPtr callee = CalleeOf(program_, *call);
      if (callee == nullptr) return;
      std::vector<OutputRoot> outs = OutputRoots(*call, *callee);
      if (ir::Is<ir::TupleType>(call->type())) {
        std::vector<Info>& elems = tuple_roots_[var];
        elems.clear();
        for (const OutputRoot& o : outs) elems.push_back(o.info);
      } else {
        Info info = SelectReturnRoot(outs, call->type());
        Record(var, info.roots, info.ambiguous);
      }
    } else if (auto item = ir::As<ir::TupleGetItem>(value)) {
      auto tuple = ir::As<ir::Var>(item->tuple());
      auto it = tuple == nullptr ? tuple_roots_.end() : tuple_roots_.find(tuple.get());
      if (it != tuple_roots_.end() && item->index() >= 0 &&
          item->index() < static_cast<int>(it->second.size())) {
        const Info& info = it->second[item->index()];
        Record(var, info.roots, info.ambiguous);
      }
    } else if (ir::Is<ir::Var>(value)) {
      Info info = InfoOf(value);
      Record(var, info.roots, info.ambiguous);
    }
  }

  const ir::Program& program_;
  absl::flat_hash_map<const ir::Var*, Info> info_;
  absl::flat_hash_map<const ir::Var*, std::vector<Info>> tuple_roots_;
};

// Where a create's buffer goes: the target and offsets of its one assemble.
struct FuseInfo {
  ir::VarPtr target;
  std::shared_ptr<const ir::MakeTuple> offsets;
};

// Vars an expression reads.
class VarUses : public ir::IRVisitor {
 public:
  std::vector<const ir::Var*> vars;

 protected:
  void VisitVar(const ir::VarPtr& var) override { vars.push_back(var.get()); }
  void VisitIterArg(const ir::IterArgPtr& var) override { vars.push_back(var.get()); }
};

// The creates assembled exactly once (PyPTO's AssemblePatternCollector).
// Two conditions of ours on top: the assemble's target and offsets are
// defined before the create, where its slice goes (a create outside the
// loop that assembles it at the loop's index keeps its copy), and the
// assemble is under no `if` branch the create is not under (a conditional
// assemble must not become an unconditional write of the target).
class AssemblePatternCollector {
 public:
  explicit AssemblePatternCollector(const BufferRootCollector& roots) : roots_(roots) {}

  void Run(const ir::Function& fn) {
    for (const ir::VarPtr& p : fn.params()) Define(p.get());
    Visit(fn.body());
    for (const ir::Var* r : non_fusible_) fusible_.erase(r);
  }

  const absl::flat_hash_map<const ir::Var*, FuseInfo>& fusible() const { return fusible_; }

 private:
  void Define(const ir::Var* v) { defined_at_.emplace(v, next_++); }

  void Visit(const ir::StmtPtr& stmt) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) Visit(s);
    } else if (auto assign = ir::As<ir::AssignStmt>(stmt)) {
      Assign(*assign);
      Define(assign->var().get());
    } else if (auto loop = ir::As<ir::ForStmt>(stmt)) {
      Define(loop->loop_var().get());
      for (const ir::IterArgPtr& ia : loop->iter_args()) Define(ia.get());
      Visit(loop->body());
      for (const ir::VarPtr& rv : loop->return_vars()) Define(rv.get());
    } else if (auto loop = ir::As<ir::WhileStmt>(stmt)) {
      for (const ir::IterArgPtr& ia : loop->iter_args()) Define(ia.get());
      Visit(loop->body());
      for (const ir::VarPtr& rv : loop->return_vars()) Define(rv.get());
    } else if (auto branch = ir::As<ir::IfStmt>(stmt)) {
      branches_.push_back(branch->then_body().get());
      Visit(branch->then_body());
      branches_.back() = branch->else_body() ? branch->else_body()->get() : nullptr;
      if (branch->else_body().has_value()) Visit(*branch->else_body());
      branches_.pop_back();
      for (const ir::VarPtr& rv : branch->return_vars()) Define(rv.get());
    } else if (auto scope = ir::As<ir::ScopeStmt>(stmt)) {
      Visit(scope->body());
    }
  }

  // Whether the assemble runs whenever the create does: it is under no
  // branch the create is not under.
  bool SameBranches(const std::vector<const ir::Stmt*>& create) const {
    return branches_.size() <= create.size() &&
           std::equal(branches_.begin(), branches_.end(), create.begin());
  }

  void Assign(const ir::AssignStmt& assign) {
    const ir::ExprPtr& value = assign.value();
    if (auto tuple = ir::As<ir::MakeTuple>(value)) {
      tuples_[assign.var().get()] = tuple;
      return;
    }
    if (auto v = ir::As<ir::Var>(value)) {
      if (auto it = tuples_.find(v.get()); it != tuples_.end()) {
        tuples_[assign.var().get()] = it->second;
      }
      return;
    }
    if (ir::IsOp(value, ir::OpId::kPlTensorCreate)) {
      if (roots_.RootOf(assign.var()) == assign.var().get()) {
        create_at_[assign.var().get()] = {next_, branches_};
      }
      return;
    }
    if (!ir::IsOp(value, ir::OpId::kPlTensorAssemble)) return;
    auto call = ir::As<ir::Call>(value);
    if (call->args().size() != 3) return;
    const ir::Var* source = roots_.RootOf(call->args()[1]);
    auto create = source == nullptr ? create_at_.end() : create_at_.find(source);
    if (create == create_at_.end()) return;
    auto target = ir::As<ir::Var>(call->args()[0]);
    std::shared_ptr<const ir::MakeTuple> offsets = TupleOf(call->args()[2]);
    const CreateSite& site = create->second;
    if (target == nullptr || offsets == nullptr || IsAtomic(*call) ||
        !DefinedBefore(call->args()[0], site.at) ||
        !DefinedBefore(offsets, site.at) || !SameBranches(site.branches) ||
        !fusible_.emplace(source, FuseInfo{target, offsets}).second) {
      non_fusible_.insert(source);
    }
  }

  // An atomic assemble (`atomic=pld.AtomicType.Add`) combines into the
  // target; a slice would overwrite it instead, so PyPTO never fuses one.
  static bool IsAtomic(const ir::Call& call) {
    const ir::AttrValue* v = ir::FindAttr(call.kwargs(), "atomic");
    if (v == nullptr) return false;
    if (const auto* i = std::get_if<int64_t>(v)) return *i != 0;
    if (const auto* e = std::get_if<ir::ExprPtr>(v)) {
      std::optional<int64_t> c = ir::GetConstInt(*e);
      return !c.has_value() || *c != 0;
    }
    return true;
  }

  std::shared_ptr<const ir::MakeTuple> TupleOf(const ir::ExprPtr& e) const {
    if (auto tuple = ir::As<ir::MakeTuple>(e)) return tuple;
    auto v = ir::As<ir::Var>(e);
    auto it = v == nullptr ? tuples_.end() : tuples_.find(v.get());
    return it == tuples_.end() ? nullptr : it->second;
  }

  // Whether every var `e` reads was defined before definition number `at`.
  bool DefinedBefore(const ir::ExprPtr& e, int at) const {
    VarUses uses;
    uses.VisitExpr(e);
    for (const ir::Var* v : uses.vars) {
      auto it = defined_at_.find(v);
      if (it == defined_at_.end() || it->second >= at) return false;
    }
    return true;
  }

  const BufferRootCollector& roots_;
  absl::flat_hash_map<const ir::Var*, int> defined_at_;
  int next_ = 0;
  // Where a create is: its definition number and the if branches around it.
  struct CreateSite {
    int at = 0;
    std::vector<const ir::Stmt*> branches;
  };
  absl::flat_hash_map<const ir::Var*, CreateSite> create_at_;
  std::vector<const ir::Stmt*> branches_;  // the branch bodies around the statement visited
  absl::flat_hash_map<const ir::Var*, std::shared_ptr<const ir::MakeTuple>> tuples_;
  absl::flat_hash_map<const ir::Var*, FuseInfo> fusible_;
  absl::flat_hash_set<const ir::Var*> non_fusible_;
};

// Rewrites each fusible create into a slice of its target, drops its
// assemble (the assemble's result is the target from then on), and strips
// the loop iter args that are left passing a value through.
class FuseCreateAssembleMutator : public ir::IRMutator {
 public:
  FuseCreateAssembleMutator(const absl::flat_hash_map<const ir::Var*, FuseInfo>& fusible,
                            const BufferRootCollector& roots)
      : fusible_(fusible), roots_(roots) {}

  absl::Status status() const { return status_; }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    const ir::ExprPtr& value = stmt->value();
    if (ir::IsOp(value, ir::OpId::kPlTensorCreate)) {
      auto it = fusible_.find(roots_.RootOf(stmt->var()));
      if (it != fusible_.end()) return CreateToSlice(stmt, it->second);
    } else if (ir::IsOp(value, ir::OpId::kPlTensorAssemble)) {
      auto call = ir::As<ir::Call>(value);
      const ir::Var* source = call->args().size() == 3 ? roots_.RootOf(call->args()[1]) : nullptr;
      if (source != nullptr && fusible_.contains(source)) {
        auto target = ir::As<ir::Var>(MutateExpr(call->args()[0]));
        if (target != nullptr) {
          SetVarReplacement(stmt->var(), target);
          return nullptr;  // deleted from its sequence
        }
      }
    }
    return IRMutator::MutateAssignStmt(stmt);
  }

  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    ir::StmtPtr mutated = IRMutator::MutateForStmt(stmt);
    auto loop = ir::As<ir::ForStmt>(mutated);
    if (loop == nullptr) return mutated;
    std::vector<ir::IterArgPtr> iter_args;
    std::vector<ir::VarPtr> return_vars;
    ir::StmtPtr body = loop->body();
    if (!StripPassThrough(loop->iter_args(), loop->return_vars(), &body, &iter_args,
                          &return_vars)) {
      return loop;
    }
    return ir::MakeNode<ir::ForStmt>(loop->loop_var(), loop->start(), loop->stop(), loop->step(),
                                     std::move(iter_args), std::move(body),
                                     std::move(return_vars), loop->for_kind(), loop->attrs(),
                                     loop->span());
  }

  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    ir::StmtPtr mutated = IRMutator::MutateWhileStmt(stmt);
    auto loop = ir::As<ir::WhileStmt>(mutated);
    if (loop == nullptr) return mutated;
    std::vector<ir::IterArgPtr> iter_args;
    std::vector<ir::VarPtr> return_vars;
    ir::StmtPtr body = loop->body();
    if (!StripPassThrough(loop->iter_args(), loop->return_vars(), &body, &iter_args,
                          &return_vars)) {
      return loop;
    }
    // The condition may read a stripped iter arg: it is its init value too.
    ir::ExprPtr condition = ir::Substitute(loop->condition(), stripped_);
    return ir::MakeNode<ir::WhileStmt>(std::move(condition), std::move(iter_args),
                                       std::move(body), std::move(return_vars), loop->span());
  }

 private:
  // `target[offsets]` of the create's shape, padded with leading 1s to the
  // target's rank; a padded slice is a new var of the padded type.
  ir::StmtPtr CreateToSlice(const std::shared_ptr<const ir::AssignStmt>& stmt,
                            const FuseInfo& info) {
    const ir::AssignStmt& assign = *stmt;
    auto type = ir::AsTensorTypeLike(assign.value()->type());
    if (type == nullptr) return IRMutator::MutateAssignStmt(stmt);
    const size_t rank = type->shape().size();
    const size_t target_rank = info.offsets->elements().size();
    std::vector<ir::ExprPtr> shape;
    for (size_t k = rank; k < target_rank; ++k) {
      shape.push_back(ir::MakeNode<ir::ConstInt>(1, ir::DataType::kIndex, assign.span()));
    }
    for (const ir::ExprPtr& d : type->shape()) shape.push_back(d);
    ir::ExprPtr target = MutateExpr(info.target);
    ir::ExprPtr offsets = MutateExpr(info.offsets);
    absl::StatusOr<ir::CallPtr> slice = ops::OpRegistry::Global().MakeCall(
        ir::OpId::kPlTensorSlice,
        {target, ir::MakeNode<ir::MakeTuple>(std::move(shape), assign.span()), offsets}, {}, {},
        assign.span());
    if (!slice.ok()) {
      if (status_.ok()) status_ = slice.status();
      return IRMutator::MutateAssignStmt(stmt);
    }
    ir::VarPtr var = assign.var();
    if (target_rank > rank) {
      var = ir::MakeNode<ir::Var>(var->name_hint(), (*slice)->type(), var->span());
      SetVarReplacement(assign.var(), var);
    }
    return ir::MakeNode<ir::AssignStmt>(var, *slice, assign.span());
  }

  // Drops each iter arg the trailing yield passes through unchanged: its
  // result and its uses in the body become its init value. False when none.
  bool StripPassThrough(const std::vector<ir::IterArgPtr>& iter_args,
                        const std::vector<ir::VarPtr>& return_vars, ir::StmtPtr* body,
                        std::vector<ir::IterArgPtr>* kept_args,
                        std::vector<ir::VarPtr>* kept_returns) {
    auto yield = TrailingYield(*body);
    if (yield == nullptr || yield->value().size() != iter_args.size() ||
        return_vars.size() != iter_args.size()) {
      return false;
    }
    std::vector<ir::ExprPtr> kept_values;
    stripped_.clear();
    for (size_t i = 0; i < iter_args.size(); ++i) {
      auto init = ir::As<ir::Var>(iter_args[i]->init_value());
      if (yield->value()[i].get() == iter_args[i].get() && init != nullptr) {
        stripped_[iter_args[i].get()] = init;
        SetVarReplacement(return_vars[i], init);
        continue;
      }
      kept_args->push_back(iter_args[i]);
      kept_returns->push_back(return_vars[i]);
      kept_values.push_back(yield->value()[i]);
    }
    if (stripped_.empty()) return false;
    *body = ReplaceTrailingYield(*body, kept_values, yield->span());
    *body = ir::Substitute(*body, stripped_);
    return true;
  }

  static ir::StmtPtr ReplaceTrailingYield(const ir::StmtPtr& body,
                                          const std::vector<ir::ExprPtr>& values,
                                          const Span& span) {
    ir::StmtPtr yield = values.empty() ? nullptr : ir::MakeNode<ir::YieldStmt>(values, span);
    if (ir::Is<ir::YieldStmt>(body)) {
      return yield != nullptr ? yield : ir::MakeNode<ir::SeqStmts>(std::vector<ir::StmtPtr>{}, span);
    }
    auto seq = ir::As<ir::SeqStmts>(body);
    if (seq == nullptr || seq->stmts().empty()) return body;
    std::vector<ir::StmtPtr> stmts = seq->stmts();
    stmts.back() = ReplaceTrailingYield(stmts.back(), values, span);
    if (auto inner = ir::As<ir::SeqStmts>(stmts.back()); inner != nullptr && inner->stmts().empty()) {
      stmts.pop_back();
    }
    return ir::MakeNode<ir::SeqStmts>(std::move(stmts), seq->span());
  }

  const absl::flat_hash_map<const ir::Var*, FuseInfo>& fusible_;
  const BufferRootCollector& roots_;
  ir::VarSubstMap stripped_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> FuseCreateAssembleToSlicePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [&](const ir::FunctionPtr& fn) -> absl::StatusOr<ir::StmtPtr> {
        if (fn->func_type() != ir::FunctionType::kOrchestration) return fn->body();
        BufferRootCollector roots(*program);
        roots.Run(*fn);
        AssemblePatternCollector patterns(roots);
        patterns.Run(*fn);
        if (patterns.fusible().empty()) return fn->body();
        FuseCreateAssembleMutator mutator(patterns.fusible(), roots);
        ir::StmtPtr body = mutator.MutateStmt(fn->body());
        RETURN_IF_ERROR(mutator.status());
        return body;
      });
}

std::unique_ptr<Pass> CreateFuseCreateAssembleToSlicePass() {
  return std::make_unique<FuseCreateAssembleToSlicePass>();
}

}  // namespace pto::passes
