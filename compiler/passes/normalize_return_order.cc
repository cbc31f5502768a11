#include "compiler/passes/normalize_return_order.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;
using ir::FunctionPtr;
using ir::StmtPtr;
using ir::VarPtr;

// Where a var of a function body gets its value.
struct Def {
  ExprPtr value;                          // an AssignStmt's value
  std::shared_ptr<const ir::ForStmt> loop;  // or return var `index` of a loop
  std::shared_ptr<const ir::WhileStmt> while_loop;
  std::shared_ptr<const ir::IfStmt> branch;  // or of an if
  size_t index = 0;
};

// The trailing YieldStmt of a body, or nullptr.
std::shared_ptr<const ir::YieldStmt> FinalYield(const StmtPtr& body) {
  if (auto y = ir::As<ir::YieldStmt>(body)) return y;
  if (auto seq = ir::As<ir::SeqStmts>(body); seq != nullptr && !seq->stmts().empty()) {
    return FinalYield(seq->stmts().back());
  }
  return nullptr;
}

class DefCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, Def> defs;
  std::vector<std::shared_ptr<const ir::ReturnStmt>> returns;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    defs[s->var().get()] = Def{.value = s->value()};
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    for (size_t i = 0; i < s->return_vars().size(); ++i) {
      defs[s->return_vars()[i].get()] = Def{.loop = s, .index = i};
    }
    ir::IRVisitor::VisitForStmt(s);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    for (size_t i = 0; i < s->return_vars().size(); ++i) {
      defs[s->return_vars()[i].get()] = Def{.while_loop = s, .index = i};
    }
    ir::IRVisitor::VisitWhileStmt(s);
  }
  void VisitIfStmt(const std::shared_ptr<const ir::IfStmt>& s) override {
    for (size_t i = 0; i < s->return_vars().size(); ++i) {
      defs[s->return_vars()[i].get()] = Def{.branch = s, .index = i};
    }
    ir::IRVisitor::VisitIfStmt(s);
  }
  void VisitReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    returns.push_back(s);
  }
};

// Return lineage: which parameter a function's returned value is, traced
// through aliases, in-place updates (pl.tile.store's target, ...), loop and
// branch carries and calls of other functions whose returns are parameters.
class Lineage {
 public:
  explicit Lineage(const ir::ProgramPtr& program) : program_(program) {}

  // Per return position of `fn`, the parameter index it writes back, or -1.
  const std::vector<int>& ReturnedParams(const FunctionPtr& fn) {
    auto it = memo_.find(fn.get());
    if (it != memo_.end()) return it->second;
    memo_[fn.get()] = {};  // a recursive call sees no lineage
    const FnInfo& info = Info(fn);
    std::vector<int> out;
    if (info.defs.returns.size() == 1) {
      for (const ExprPtr& v : info.defs.returns[0]->value()) out.push_back(ParamIndex(fn, v));
    }
    return memo_[fn.get()] = std::move(out);
  }

  // The parameter `e` is (by index), or -1.
  int ParamIndex(const FunctionPtr& fn, const ExprPtr& e) {
    const ir::Var* base = Base(fn, e, 0);
    for (size_t i = 0; i < fn->params().size(); ++i) {
      if (fn->params()[i].get() == base) return static_cast<int>(i);
    }
    return -1;
  }

  int ReturnCount(const FunctionPtr& fn) {
    const FnInfo& info = Info(fn);
    return info.defs.returns.size() == 1 ? static_cast<int>(info.defs.returns[0]->value().size())
                                         : -1;
  }

 private:
  struct FnInfo {
    DefCollector defs;
  };
  const FnInfo& Info(const FunctionPtr& fn) {
    auto it = info_.find(fn.get());
    if (it != info_.end()) return *it->second;
    auto info = std::make_unique<FnInfo>();
    if (fn->body() != nullptr) info->defs.VisitStmt(fn->body());
    return *(info_[fn.get()] = std::move(info));
  }

  // The var `e` comes from: a parameter, an iter arg, or the first var whose
  // value is not a write-back of another (nullptr for a non-var).
  const ir::Var* Base(const FunctionPtr& fn, const ExprPtr& e, int depth) {
    if (depth > 256) return nullptr;
    if (auto item = ir::As<ir::TupleGetItem>(e)) return CallResult(fn, item->tuple(), item->index(), depth);
    auto var = ir::As<ir::Var>(e);
    if (var == nullptr) return nullptr;
    if (auto ia = ir::As<ir::IterArg>(e)) return ia.get();
    const FnInfo& info = Info(fn);
    auto it = info.defs.defs.find(var.get());
    if (it == info.defs.defs.end()) return var.get();
    const Def& d = it->second;
    if (d.value != nullptr) {
      if (ir::Is<ir::Var>(d.value) || ir::Is<ir::TupleGetItem>(d.value)) {
        return Base(fn, d.value, depth + 1);
      }
      auto call = ir::As<ir::Call>(d.value);
      if (call == nullptr) return var.get();
      if (ir::Is<ir::GlobalVar>(call->op())) {
        const ir::Var* r = CallResult(fn, d.value, 0, depth);
        return r != nullptr ? r : var.get();
      }
      const ops::OpDef* def = ops::DefOf(*call);
      std::optional<size_t> arg = def ? def->UpdatedArg(call->args().size()) : std::nullopt;
      return arg ? Base(fn, call->args()[*arg], depth + 1) : var.get();
    }
    // A carried value is its init value's when every path yields it back.
    if (d.loop != nullptr || d.while_loop != nullptr) {
      const auto& iter_args = d.loop ? d.loop->iter_args() : d.while_loop->iter_args();
      const StmtPtr& body = d.loop ? d.loop->body() : d.while_loop->body();
      auto yield = FinalYield(body);
      if (d.index >= iter_args.size() || yield == nullptr || d.index >= yield->value().size() ||
          Base(fn, yield->value()[d.index], depth + 1) != iter_args[d.index].get()) {
        return var.get();
      }
      return Base(fn, iter_args[d.index]->init_value(), depth + 1);
    }
    if (d.branch != nullptr && d.branch->else_body().has_value()) {
      auto then_y = FinalYield(d.branch->then_body());
      auto else_y = FinalYield(*d.branch->else_body());
      if (then_y == nullptr || else_y == nullptr || d.index >= then_y->value().size() ||
          d.index >= else_y->value().size()) {
        return var.get();
      }
      const ir::Var* a = Base(fn, then_y->value()[d.index], depth + 1);
      const ir::Var* b = Base(fn, else_y->value()[d.index], depth + 1);
      return a != nullptr && a == b ? a : var.get();
    }
    return var.get();
  }

  // Result `index` of the function call `e` is (directly or as a var bound to
  // it), traced into the caller's argument; nullptr when it is not a param.
  const ir::Var* CallResult(const FunctionPtr& fn, const ExprPtr& e, int index, int depth) {
    ExprPtr value = e;
    if (auto var = ir::As<ir::Var>(e)) {
      auto it = Info(fn).defs.defs.find(var.get());
      if (it == Info(fn).defs.defs.end() || it->second.value == nullptr) return nullptr;
      value = it->second.value;
    }
    auto call = ir::As<ir::Call>(value);
    auto gv = call ? ir::As<ir::GlobalVar>(call->op()) : nullptr;
    FunctionPtr callee = gv ? program_->GetFunction(gv->name()) : nullptr;
    if (callee == nullptr) return nullptr;
    const std::vector<int>& ret = ReturnedParams(callee);
    if (index < 0 || static_cast<size_t>(index) >= ret.size() || ret[index] < 0 ||
        static_cast<size_t>(ret[index]) >= call->args().size()) {
      return nullptr;
    }
    return Base(fn, call->args()[ret[index]], depth + 1);
  }

  ir::ProgramPtr program_;
  absl::flat_hash_map<const ir::Function*, std::vector<int>> memo_;
  absl::flat_hash_map<const ir::Function*, std::unique_ptr<FnInfo>> info_;
};

bool IsTensorLike(const ir::TypePtr& t) { return ir::As<ir::TensorType>(t) != nullptr; }

// Step A0: every returned tensor that writes back a parameter becomes that
// parameter.
class ReturnCanonicalizer : public ir::IRMutator {
 public:
  ReturnCanonicalizer(const FunctionPtr& fn, Lineage& lineage) : fn_(fn), lineage_(lineage) {}

 protected:
  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    std::vector<ExprPtr> values = s->value();
    bool changed = false;
    for (ExprPtr& v : values) {
      if (!IsTensorLike(v->type())) continue;
      int p = lineage_.ParamIndex(fn_, v);
      if (p < 0 || fn_->params()[p] == v) continue;
      v = fn_->params()[p];
      changed = true;
    }
    if (!changed) return s;
    return std::make_shared<ir::ReturnStmt>(std::move(values), s->leading_comments(), s->span());
  }

 private:
  const FunctionPtr& fn_;
  Lineage& lineage_;
};

// Step A's permutation of an InCore kernel: permutation[old] = new, so that
// return k writes back the k-th Out / InOut parameter; empty when already in
// order or when the mapping is not a bijection.
std::vector<int> ReturnPermutation(const FunctionPtr& fn, Lineage& lineage) {
  std::vector<int> ret_to_param = lineage.ReturnedParams(fn);
  std::vector<int> out_indices;
  for (size_t i = 0; i < fn->param_directions().size(); ++i) {
    if (fn->param_directions()[i] != ir::ParamDirection::kIn) out_indices.push_back(static_cast<int>(i));
  }
  if (ret_to_param.size() < 2 || out_indices.empty() || out_indices.size() > ret_to_param.size()) {
    return {};
  }
  std::vector<int> perm(ret_to_param.size());
  std::vector<bool> seen(perm.size(), false);
  bool moved = false;
  for (size_t i = 0; i < perm.size(); ++i) {
    perm[i] = static_cast<int>(i);
    for (size_t k = 0; k < out_indices.size(); ++k) {
      if (out_indices[k] == ret_to_param[i]) perm[i] = static_cast<int>(k);
    }
    if (seen[perm[i]]) return {};
    seen[perm[i]] = true;
    moved |= perm[i] != static_cast<int>(i);
  }
  return moved ? perm : std::vector<int>{};
}

// Whether every call of `callee` in the program binds its tuple result to a
// var read only through `v[k]` (so remapping k keeps every reader's value).
class CallSiteCheck : public ir::IRVisitor {
 public:
  explicit CallSiteCheck(const std::string& callee) : callee_(callee) {}
  bool ok = true;
  absl::flat_hash_set<const ir::Var*> results;
  absl::flat_hash_set<const ir::Var*> indexed;  // results read as v[k]

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (IsCallOfCallee(s->value())) {
      auto call = ir::As<ir::Call>(s->value());
      results.insert(s->var().get());
      for (const ExprPtr& a : call->args()) VisitExpr(a);
      return;
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitExpr(const ExprPtr& e) override {
    if (auto item = ir::As<ir::TupleGetItem>(e)) {
      if (auto v = ir::As<ir::Var>(item->tuple()); v != nullptr && results.contains(v.get())) return;
    }
    if (auto v = ir::As<ir::Var>(e); v != nullptr && results.contains(v.get())) ok = false;
    if (IsCallOfCallee(e)) ok = false;  // not bound to a var of its own
    ir::IRVisitor::VisitExpr(e);
  }

 private:
  bool IsCallOfCallee(const ExprPtr& e) const {
    auto call = ir::As<ir::Call>(e);
    auto gv = call ? ir::As<ir::GlobalVar>(call->op()) : nullptr;
    return gv != nullptr && gv->name() == callee_;
  }
  const std::string& callee_;
};

// Step B: the callers' v[k] of a reordered kernel's result become v[perm[k]],
// and the result vars take the permuted tuple type.
class TupleIndexRemapper : public ir::IRMutator {
 public:
  explicit TupleIndexRemapper(const std::map<std::string, std::vector<int>>& perms,
                              const std::map<std::string, ir::TypePtr>& types)
      : perms_(perms), types_(types) {}

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    auto gv = call ? ir::As<ir::GlobalVar>(call->op()) : nullptr;
    auto it = gv ? perms_.find(gv->name()) : perms_.end();
    if (it == perms_.end()) return ir::IRMutator::MutateAssignStmt(s);
    bool changed = false;
    std::vector<ExprPtr> args = MutateExprs(call->args(), &changed);
    const ir::TypePtr& type = types_.at(gv->name());
    auto new_call = std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(),
                                               call->attrs(), type, call->span());
    auto var = std::make_shared<ir::Var>(s->var()->name_hint(), type, s->var()->span());
    SetVarReplacement(s->var(), var);
    perm_of_[var.get()] = &it->second;
    return std::make_shared<ir::AssignStmt>(var, new_call, s->span());
  }
  ExprPtr MutateTupleGetItem(const std::shared_ptr<const ir::TupleGetItem>& e) override {
    ExprPtr tuple = MutateExpr(e->tuple());
    auto it = perm_of_.find(tuple.get());
    if (it == perm_of_.end()) return ir::IRMutator::MutateTupleGetItem(e);
    const std::vector<int>& perm = *it->second;
    int index = e->index() >= 0 && static_cast<size_t>(e->index()) < perm.size()
                    ? perm[e->index()]
                    : e->index();
    return std::make_shared<ir::TupleGetItem>(tuple, index, e->type(), e->span());
  }

 private:
  const std::map<std::string, std::vector<int>>& perms_;
  const std::map<std::string, ir::TypePtr>& types_;
  absl::flat_hash_map<const ir::Expr*, const std::vector<int>*> perm_of_;
};

absl::StatusOr<FunctionPtr> Rebuild(const FunctionPtr& fn, StmtPtr body,
                                    std::vector<ir::TypePtr> return_types) {
  return ir::Function::Create(fn->name(), fn->params(), fn->param_directions(),
                              std::move(return_types), std::move(body), fn->func_type(),
                              fn->level(), fn->role(), fn->attrs(),
                              fn->requires_runtime_binding(), fn->span());
}

// Permutes the values of `fn`'s one ReturnStmt.
class ReturnPermuter : public ir::IRMutator {
 public:
  explicit ReturnPermuter(const std::vector<int>& perm) : perm_(perm) {}

 protected:
  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    std::vector<ExprPtr> values(s->value().size());
    for (size_t i = 0; i < perm_.size(); ++i) values[perm_[i]] = s->value()[i];
    return std::make_shared<ir::ReturnStmt>(std::move(values), s->leading_comments(), s->span());
  }

 private:
  const std::vector<int>& perm_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> NormalizeReturnOrderPass::Run(const ir::ProgramPtr& program) {
  Lineage lineage(program);
  std::vector<FunctionPtr> functions;
  std::map<std::string, std::vector<int>> perms;
  std::map<std::string, ir::TypePtr> tuple_types;
  bool changed = false;
  for (const auto& [gv, fn] : program->functions()) {
    FunctionPtr out = fn;
    const bool kernel = ir::IsInCoreType(fn->func_type());
    if ((kernel || ir::IsWrapperType(fn->func_type())) && fn->body() != nullptr) {
      ReturnCanonicalizer canon(fn, lineage);
      StmtPtr body = canon.MutateStmt(fn->body());
      std::vector<ir::TypePtr> types = fn->return_types();
      std::vector<int> perm;
      if (fn->func_type() == ir::FunctionType::kInCore) perm = ReturnPermutation(fn, lineage);
      if (!perm.empty()) {
        CallSiteCheck check(fn->name());
        for (const auto& [g, f] : program->functions()) {
          if (f->body() != nullptr) check.VisitStmt(f->body());
        }
        if (!check.ok || types.size() != perm.size()) perm.clear();
      }
      if (!perm.empty()) {
        ReturnPermuter permuter(perm);
        body = permuter.MutateStmt(body);
        for (size_t i = 0; i < perm.size(); ++i) types[perm[i]] = fn->return_types()[i];
        tuple_types[fn->name()] = std::make_shared<ir::TupleType>(types);
        perms[fn->name()] = perm;
      }
      if (body != fn->body() || !perm.empty()) {
        ASSIGN_OR_RETURN(out, Rebuild(fn, std::move(body), std::move(types)));
        changed = true;
      }
    }
    functions.push_back(std::move(out));
  }
  if (!changed) return program;
  if (!perms.empty()) {
    TupleIndexRemapper remap(perms, tuple_types);
    for (FunctionPtr& fn : functions) {
      if (fn->body() == nullptr || fn->func_type() == ir::FunctionType::kInCore) continue;
      StmtPtr body = remap.MutateStmt(fn->body());
      if (body != fn->body()) fn = fn->WithBody(std::move(body));
    }
  }
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateNormalizeReturnOrderPass() {
  return std::make_unique<NormalizeReturnOrderPass>();
}

}  // namespace pto::passes
