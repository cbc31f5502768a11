// OptimizeOrchTensors pattern 5, static windows (opt-in, windowize=True): the
// rewrite. A kernel with a plan (optimize_orch_tensors_window_analysis.cc)
// gets a `<name>__windowed` clone whose windowed params are just their
// windows, accessed at window-relative offsets, and each orchestration call
// that can take it becomes
//
//   o_window = pl.tensor.slice(o, box, offsets)          # per Out window
//   x_window = pl.tensor.slice(x, box, offsets)          # per In window
//   r_window_next = self.k__windowed(..., x_window, ..., o_window)
//   r = pl.tensor.assemble(o, r_window_next, offsets)    # per Out window
//
// so the runtime's dependence tracking sees the windows. See
// docs/passes/OptimizeOrchTensors.md.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/optimize_orch_tensors_internal.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes::orch_tensors {
namespace {

std::shared_ptr<const ir::TensorType> BoxType(const std::vector<int64_t>& box,
                                              const ir::TypePtr& parent) {
  return ir::TensorOf(box, ir::As<ir::TensorType>(parent)->dtype());
}

// ---- The clone -------------------------------------------------------------

// Retypes the window params and every var that carries an Out window, and
// moves the recorded accesses to window-relative offsets.
class CloneRewriter : public ir::FlatteningMutator {
 public:
  CloneRewriter(const ir::FunctionPtr& f, const WindowPlan& plan) {
    auto param = [&](size_t p, const std::vector<int64_t>& box) {
      const ir::VarPtr& old = f->params()[p];
      auto n = std::make_shared<ir::Var>(old->name_hint(), BoxType(box, old->type()), old->span());
      SetVarReplacement(old, n);
      params[p] = n;
    };
    params = f->params();
    for (const OutWindow& w : plan.outs) {
      param(w.param, w.box);
      for (const ir::Var* c : w.carriers) retype_[c] = BoxType(w.box, f->params()[w.param]->type());
      for (const auto& [call, offsets] : w.accesses) offsets_[call] = offsets;
    }
    for (const InWindow& w : plan.ins) {
      param(w.param, w.box);
      for (const auto& [call, offsets] : w.accesses) offsets_[call] = offsets;
    }
  }
  std::vector<ir::VarPtr> params;

 protected:
  ir::VarPtr MutateVarDef(const ir::VarPtr& var) override {
    auto it = retype_.find(var.get());
    if (it == retype_.end()) return ir::IRMutator::MutateVarDef(var);
    if (ir::VarPtr done = LookupVarReplacement(var.get())) return done;
    ir::VarPtr n;
    if (auto ia = ir::As<ir::IterArg>(var)) {
      n = std::make_shared<ir::IterArg>(ia->name_hint(), it->second, MutateExpr(ia->init_value()),
                                        ia->span());
    } else {
      n = std::make_shared<ir::Var>(var->name_hint(), it->second, var->span());
    }
    SetVarReplacement(var, n);
    return n;
  }
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    auto it = offsets_.find(call.get());
    if (it == offsets_.end()) return ir::IRMutator::MutateCall(call);
    // Offsets are args[1] of load/store and args[2] of slice.
    const size_t at = ir::IsOp(call, ir::OpId::kPlTensorSlice) ? 2 : 1;
    std::vector<ir::ExprPtr> args;
    for (size_t i = 0; i < call->args().size(); ++i) {
      args.push_back(i == at ? MutateExpr(it->second) : MutateExpr(call->args()[i]));
    }
    // A store returns the tensor it writes, now the window.
    ir::TypePtr type = ir::IsOp(call, ir::OpId::kPlTileStore) ? args[2]->type() : call->type();
    return ir::MakeOpCall(call->op()->name(), std::move(args), type, call->kwargs(), call->attrs(),
                          call->span());
  }

 private:
  absl::flat_hash_map<const ir::Var*, ir::TypePtr> retype_;
  absl::flat_hash_map<const ir::Call*, ir::ExprPtr> offsets_;
};

absl::StatusOr<ir::FunctionPtr> WindowedClone(const ir::FunctionPtr& f, const WindowPlan& plan) {
  CloneRewriter rewriter(f, plan);
  ir::StmtPtr body = rewriter.MutateStmt(f->body());
  std::vector<ir::TypePtr> returns = f->return_types();
  for (const OutWindow& w : plan.outs) returns[w.ret] = BoxType(w.box, f->params()[w.param]->type());
  return Rebuilt(f, plan.name, rewriter.params, f->param_directions(), std::move(returns), body);
}

// ---- Call sites ------------------------------------------------------------

// Per orchestration var: uses, and uses as `v = t[i]`.
class TupleUses : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, int> all, items;
  ir::VarSubstMap scalar_defs;  // linear offsets read through these

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (auto get = ir::As<ir::TupleGetItem>(s->value())) {
      if (auto t = ir::As<ir::Var>(get->tuple())) ++items[t.get()];
    }
    if (ir::Is<ir::ScalarType>(s->var()->type())) scalar_defs[s->var().get()] = s->value();
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitVar(const ir::VarPtr& var) override { ++all[var.get()]; }
  void VisitIterArg(const ir::IterArgPtr& var) override { ++all[var.get()]; }
};

// Vars defined in a loop (they may change from one trip to the next).
class LoopDefs : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> vars;

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    vars.insert(var.get());
    ir::IRVisitor::VisitVarDef(var);
  }
};

// An Out window at one call site.
struct Placed {
  const OutWindow* w;
  ir::VarPtr parent;
  ir::ExprPtr offsets;  // MakeTuple over the call's arguments
};

class WindowCallRewriter : public ir::FlatteningMutator {
 public:
  // With `allowed`, only those calls are rewritten; without, none is and
  // `eligible` collects the calls the local checks accept.
  WindowCallRewriter(const ir::ProgramPtr& program,
                     const absl::flat_hash_map<std::string, WindowPlan>& plans,
                     const ir::FunctionPtr& orch, const absl::flat_hash_set<const ir::Call*>* allowed)
      : program_(program), plans_(plans), allowed_(allowed) {
    uses_.VisitFunction(orch);
  }
  absl::flat_hash_map<std::string, int> rewritten;  // call sites rewritten per kernel
  absl::flat_hash_set<const ir::Call*> eligible;

 protected:
  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    ++in_while_;
    ir::StmtPtr out = ir::FlatteningMutator::MutateWhileStmt(s);
    --in_while_;
    return out;
  }
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    bool sequential = s->for_kind() != ir::ForKind::kParallel;
    if (sequential) loops_.push_back(s);
    ir::StmtPtr out = ir::FlatteningMutator::MutateForStmt(s);
    if (sequential) loops_.pop_back();
    return out;
  }
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    ir::StmtPtr base = ir::IRMutator::MutateAssignStmt(stmt);
    auto a = ir::As<ir::AssignStmt>(base);
    if (a == nullptr) return base;
    if (auto get = ir::As<ir::TupleGetItem>(a->value())) return Unpack(a, get);
    auto call = ir::As<ir::Call>(a->value());
    if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op())) return base;
    auto it = plans_.find(call->op()->name());
    if (it == plans_.end() || in_while_ > 0) return base;  // a while's trips: not provable
    const WindowPlan& plan = it->second;
    ir::FunctionPtr f = program_->GetFunction(call->op()->name());
    const bool tuple = ir::Is<ir::TupleType>(a->var()->type());
    if (tuple && uses_.all[a->var().get()] != uses_.items[a->var().get()]) return base;
    ir::VarSubstMap subst;
    for (size_t i = 0; i < f->params().size() && i < call->args().size(); ++i) {
      subst[f->params()[i].get()] = call->args()[i];
    }
    const Span& span = call->span();
    auto at = [&](const std::vector<ir::ExprPtr>& base_offsets) {
      std::vector<ir::ExprPtr> e;
      for (const ir::ExprPtr& o : base_offsets) e.push_back(ir::Substitute(o, subst));
      return std::make_shared<ir::MakeTuple>(std::move(e), span);
    };
    std::vector<Placed> placed;
    absl::flat_hash_set<const ir::Var*> parents;
    for (const OutWindow& w : plan.outs) {
      auto parent = ir::As<ir::Var>(call->args()[w.param]);
      // Two windows into one parent would need chained assembles: keep it.
      if (parent == nullptr || !parents.insert(parent.get()).second) return base;
      placed.push_back(Placed{&w, parent, at(w.base)});
      if (!Disjoint(placed.back())) return base;
    }
    for (const InWindow& w : plan.ins) {
      if (!ir::Is<ir::Var>(call->args()[w.param]) ||
          !ir::Is<ir::TensorType>(call->args()[w.param]->type())) {
        return base;
      }
    }
    const ir::Call* original = ir::As<ir::Call>(stmt->value()).get();
    eligible.insert(original);
    if (allowed_ == nullptr || !allowed_->contains(original)) return base;
    std::vector<ir::StmtPtr> out;
    std::vector<ir::ExprPtr> args = call->args();
    auto slice = [&](const ir::ExprPtr& parent, const std::vector<int64_t>& box,
                     const ir::ExprPtr& offsets, std::string name) {
      auto type = BoxType(box, parent->type());
      auto v = std::make_shared<ir::Var>(std::move(name), type, span);
      std::vector<ir::ExprPtr> dims;
      for (int64_t d : box) dims.push_back(ir::ConstIndex(d, span));
      out.push_back(std::make_shared<ir::AssignStmt>(
          v,
          ir::MakeOpCall(ir::OpId::kPlTensorSlice,
                         {parent, std::make_shared<ir::MakeTuple>(dims, span), offsets}, type, {},
                         {}, span),
          stmt->span()));
      return v;
    };
    for (const InWindow& w : plan.ins) {
      args[w.param] = slice(args[w.param], w.box, at(w.base),
                            pto::StrCat(f->params()[w.param]->name_hint(), "_window"));
    }
    const std::string& res = a->var()->name_hint();
    for (const Placed& p : placed) {
      std::string name = tuple ? pto::StrCat(p.parent->name_hint(), "_window")
                               : pto::StrCat(res, "_window");
      args[p.w->param] = slice(p.parent, p.w->box, p.offsets, std::move(name));
    }
    std::vector<ir::TypePtr> returns = f->return_types();
    for (const OutWindow& w : plan.outs) returns[w.ret] = BoxType(w.box, returns[w.ret]);
    ir::TypePtr type = ir::ReturnTypeOf(returns);
    ir::CallPtr windowed = ir::MakeGlobalCall(plan.name, std::move(args), type, call->attrs(), span);
    ++rewritten[f->name()];
    if (tuple) {
      // `t = k(...)` then `y = t[i]`: the items are assembled where unpacked.
      auto next = std::make_shared<ir::Var>(res, type, a->var()->span());
      out.push_back(std::make_shared<ir::AssignStmt>(next, windowed, stmt->span()));
      Tuple& t = tuples_[a->var().get()];
      t.next = next;
      t.placed = std::move(placed);
      return ir::SeqStmts::Flatten(out, stmt->span());
    }
    const Placed* p = placed.empty() ? nullptr : &placed[0];
    if (p == nullptr) {  // input windows only: the result is the kernel's own
      out.push_back(std::make_shared<ir::AssignStmt>(a->var(), windowed, stmt->span()));
      return ir::SeqStmts::Flatten(out, stmt->span());
    }
    auto next = std::make_shared<ir::Var>(pto::StrCat(res, "_window_next"), type, span);
    out.push_back(std::make_shared<ir::AssignStmt>(next, windowed, stmt->span()));
    out.push_back(Assemble(a->var(), *p, next, stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

 private:
  struct Tuple {
    ir::VarPtr next;
    std::vector<Placed> placed;
  };

  ir::StmtPtr Assemble(const ir::VarPtr& var, const Placed& p, const ir::ExprPtr& window,
                       const Span& span) {
    return std::make_shared<ir::AssignStmt>(
        var,
        ir::MakeOpCall(ir::OpId::kPlTensorAssemble, {p.parent, window, p.offsets}, var->type(), {},
                       {}, span),
        span);
  }

  // `y = t[i]` of a rewritten call: the windowed item, assembled into its
  // parent when item i is a window.
  ir::StmtPtr Unpack(const std::shared_ptr<const ir::AssignStmt>& a,
                     const std::shared_ptr<const ir::TupleGetItem>& get) {
    auto t = ir::As<ir::Var>(get->tuple());
    auto it = t != nullptr ? tuples_.find(t.get()) : tuples_.end();
    if (it == tuples_.end()) return a;
    const Tuple& tup = it->second;
    auto item_type = ir::As<ir::TupleType>(tup.next->type())->types()[get->index()];
    auto item = std::make_shared<ir::TupleGetItem>(tup.next, get->index(), item_type, get->span());
    for (const Placed& p : tup.placed) {
      if (p.w->ret != static_cast<size_t>(get->index())) continue;
      auto next = std::make_shared<ir::Var>(pto::StrCat(a->var()->name_hint(), "_window_next"),
                                            item_type, a->span());
      return ir::SeqStmts::Flatten(
          {std::make_shared<ir::AssignStmt>(next, item, a->span()),
           Assemble(a->var(), p, next, a->span())},
          a->span());
    }
    return std::make_shared<ir::AssignStmt>(a->var(), item, a->span());
  }

  // Windows written from trip to trip of the enclosing sequential loops must
  // not overlap: one such loop whose var moves some dim by at least the box
  // (and nothing else that changes between trips in the offsets).
  bool Disjoint(const Placed& p) {
    std::vector<std::shared_ptr<const ir::ForStmt>> moving;
    for (const auto& loop : loops_) {
      std::optional<int64_t> start = ir::GetConstInt(loop->start());
      std::optional<int64_t> stop = ir::GetConstInt(loop->stop());
      std::optional<int64_t> step = ir::GetConstInt(loop->step());
      bool one_trip = start && stop && step && *step > 0 && *stop - *start <= *step;
      if (!one_trip) moving.push_back(loop);
    }
    if (moving.empty()) return true;
    if (moving.size() > 1) return false;
    const ir::ForStmt& loop = *moving[0];
    std::optional<int64_t> step = ir::GetConstInt(loop.step());
    if (!step) return false;
    LoopDefs inside;
    inside.VisitStmt(loop.body());
    for (const ir::IterArgPtr& ia : loop.iter_args()) inside.vars.insert(ia.get());
    const ir::Var* iv = loop.loop_var().get();
    bool apart = false;
    const auto& offsets = ir::As<ir::MakeTuple>(p.offsets)->elements();
    for (size_t d = 0; d < offsets.size(); ++d) {
      std::optional<Linear> l = ParseLinear(offsets[d], uses_.scalar_defs);
      if (!l) return false;
      for (const auto& [var, c] : l->terms) {
        if (var.get() != iv && inside.vars.contains(var.get())) return false;
      }
      __int128 moved = static_cast<__int128>(l->Coeff(iv)) * *step;
      apart = apart || moved >= p.w->box[d] || -moved >= p.w->box[d];
    }
    return apart;
  }

  const ir::ProgramPtr& program_;
  const absl::flat_hash_map<std::string, WindowPlan>& plans_;
  const absl::flat_hash_set<const ir::Call*>* allowed_;
  TupleUses uses_;
  std::vector<std::shared_ptr<const ir::ForStmt>> loops_;
  int in_while_ = 0;
  absl::flat_hash_map<const ir::Var*, Tuple> tuples_;
};

// ---- Sibling writers ---------------------------------------------------------

// The param a kernel's return value `i` is the written form of: a returned
// param, a chain of stores into it, or a loop result carried from it.
std::optional<size_t> WrittenParam(const ir::FunctionPtr& f, size_t i) {
  std::vector<ir::StmtPtr> stmts = TopLevel(f->body());
  auto ret = stmts.empty() ? nullptr : ir::As<ir::ReturnStmt>(stmts.back());
  if (ret == nullptr || i >= ret->value().size()) return std::nullopt;
  ir::ExprPtr v = ret->value()[i];
  for (int hops = 0; hops < 64 && v != nullptr; ++hops) {
    for (size_t p = 0; p < f->params().size(); ++p) {
      if (v == f->params()[p]) return p;
    }
    ir::ExprPtr next;
    for (const ir::StmtPtr& s : stmts) {
      auto a = ir::As<ir::AssignStmt>(s);
      if (a != nullptr && a->var() == v && ir::IsOp(a->value(), ir::OpId::kPlTileStore)) {
        next = ir::As<ir::Call>(a->value())->args()[2];
      }
      auto loop = ir::As<ir::ForStmt>(s);
      for (size_t j = 0; loop != nullptr && j < loop->return_vars().size(); ++j) {
        if (loop->return_vars()[j] == v && j < loop->iter_args().size()) {
          next = loop->iter_args()[j]->init_value();
        }
      }
    }
    v = next;
  }
  return std::nullopt;
}

// Every call of a program function that writes a tensor (an Out or InOut
// param), with the tensor it writes traced back through loop carries, call
// results and assembles to the buffer it started as.
class Writers : public ir::IRVisitor {
 public:
  explicit Writers(const ir::ProgramPtr& program) : program_(program) {}
  struct Write {
    const ir::Call* call;
    size_t param;
    const ir::Var* root;
  };
  std::vector<Write> writes;
  const ir::Var* Root(const ir::ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    if (v == nullptr) return nullptr;
    auto it = root_.find(v.get());
    return it == root_.end() ? v.get() : it->second;
  }

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ir::IRVisitor::VisitAssignStmt(s);
    const ir::Var* var = s->var().get();
    if (auto get = ir::As<ir::TupleGetItem>(s->value())) {
      auto t = ir::As<ir::Var>(get->tuple());
      auto it = t != nullptr ? tuple_calls_.find(t.get()) : tuple_calls_.end();
      if (it != tuple_calls_.end()) Alias(var, it->second, get->index());
      return;
    }
    auto call = ir::As<ir::Call>(s->value());
    if (call == nullptr) return;
    if (ir::IsOp(call, ir::OpId::kPlTensorAssemble) && !call->args().empty()) {
      if (const ir::Var* r = Root(call->args()[0])) root_[var] = r;
    } else if (ir::Is<ir::TupleType>(s->var()->type())) {
      tuple_calls_[var] = call;
    } else {
      Alias(var, call, 0);
    }
  }
  void VisitCall(const ir::CallPtr& call) override {
    ir::IRVisitor::VisitCall(call);
    ir::FunctionPtr f = ir::Is<ir::GlobalVar>(call->op())
                            ? program_->GetFunction(call->op()->name())
                            : nullptr;
    for (size_t p = 0; f != nullptr && p < f->params().size() && p < call->args().size(); ++p) {
      ir::ParamDirection d = f->param_directions()[p];
      const ir::Var* r = Root(call->args()[p]);
      if ((d == ir::ParamDirection::kOut || d == ir::ParamDirection::kInOut) && r != nullptr) {
        writes.push_back(Write{call.get(), p, r});
      }
    }
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    Carry(s->iter_args());
    ir::IRVisitor::VisitForStmt(s);
    Results(s->iter_args(), s->return_vars());
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    Carry(s->iter_args());
    ir::IRVisitor::VisitWhileStmt(s);
    Results(s->iter_args(), s->return_vars());
  }

 private:
  void Alias(const ir::Var* var, const ir::CallPtr& call, int index) {
    ir::FunctionPtr f = ir::Is<ir::GlobalVar>(call->op())
                            ? program_->GetFunction(call->op()->name())
                            : nullptr;
    if (f == nullptr || f->body() == nullptr) return;
    std::optional<size_t> p = WrittenParam(f, static_cast<size_t>(index));
    if (p && *p < call->args().size()) {
      if (const ir::Var* r = Root(call->args()[*p])) root_[var] = r;
    }
  }
  void Carry(const std::vector<ir::IterArgPtr>& iter_args) {
    for (const ir::IterArgPtr& ia : iter_args) {
      if (const ir::Var* r = Root(ia->init_value())) root_[ia.get()] = r;
    }
  }
  void Results(const std::vector<ir::IterArgPtr>& iter_args,
               const std::vector<ir::VarPtr>& results) {
    for (size_t i = 0; i < results.size() && i < iter_args.size(); ++i) {
      root_[results[i].get()] = Root(iter_args[i]);
    }
  }

  const ir::ProgramPtr& program_;
  absl::flat_hash_map<const ir::Var*, const ir::Var*> root_;
  absl::flat_hash_map<const ir::Var*, ir::CallPtr> tuple_calls_;
};

// The eligible calls that stay so once a buffer written whole by some other
// call (one not windowed, or a param of a windowed call that is not a window)
// keeps its windowed writers whole too: a whole writer beside window writers
// could hide regions the windows leave unwritten (PyPTO's sibling rule).
absl::flat_hash_set<const ir::Call*> Allowed(
    const ir::ProgramPtr& program, const absl::flat_hash_map<std::string, WindowPlan>& plans,
    const ir::FunctionPtr& orch, absl::flat_hash_set<const ir::Call*> eligible) {
  Writers writers(program);
  writers.VisitFunction(orch);
  auto windowed = [&](const Writers::Write& w) {
    if (!eligible.contains(w.call)) return false;
    const WindowPlan& plan = plans.at(w.call->op()->name());
    for (const OutWindow& o : plan.outs) {
      if (o.param == w.param) return true;
    }
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    absl::flat_hash_set<const ir::Var*> whole;
    for (const Writers::Write& w : writers.writes) {
      if (!windowed(w)) whole.insert(w.root);
    }
    for (const Writers::Write& w : writers.writes) {
      if (windowed(w) && whole.contains(w.root)) {
        eligible.erase(w.call);
        changed = true;
      }
    }
  }
  return eligible;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> ExternalizeWindows(const ir::ProgramPtr& program) {
  UseCounter counts = CountUses(program);
  absl::flat_hash_map<std::string, WindowPlan> plans;
  for (const auto& [gv, f] : program->functions()) {
    if (program->GetFunction(f->name() + "__windowed") != nullptr) continue;
    if (std::optional<WindowPlan> plan = PlanWindows(f)) plans[f->name()] = std::move(*plan);
  }
  if (plans.empty()) return program;
  absl::flat_hash_map<std::string, int> rewritten;
  std::vector<ir::FunctionPtr> funcs;
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) {
      WindowCallRewriter dry_run(program, plans, f, nullptr);
      dry_run.MutateStmt(f->body());
      absl::flat_hash_set<const ir::Call*> allowed =
          Allowed(program, plans, f, std::move(dry_run.eligible));
      WindowCallRewriter rewriter(program, plans, f, &allowed);
      funcs.push_back(f->WithBody(rewriter.MutateStmt(f->body())));
      for (const auto& [name, n] : rewriter.rewritten) rewritten[name] += n;
    } else {
      funcs.push_back(f);
    }
  }
  if (rewritten.empty()) return program;
  // A kernel whose every call now goes to its clone is dropped; one still
  // called elsewhere stays beside it.
  std::vector<ir::FunctionPtr> out;
  for (const ir::FunctionPtr& f : funcs) {
    auto it = rewritten.find(f->name());
    if (it == rewritten.end()) {
      out.push_back(f);
      continue;
    }
    ASSIGN_OR_RETURN(ir::FunctionPtr clone, WindowedClone(f, plans.at(f->name())));
    out.push_back(clone);
    if (it->second != counts.calls.at(f->name())) out.push_back(f);
  }
  return Rebuild(program, std::move(out));
}

}  // namespace pto::passes::orch_tensors
