#include "compiler/passes/lower_l2_tensor_collectives.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "common/launch_width.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::CallPtr;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::ParamDirection;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

using ops::CollectiveDef;

// The public collective a call is (spec §2.4), with the operand its result
// aliases.
const CollectiveDef* FindManaged(const CallPtr& call) { return ops::FindCollective(call); }

// A collective this rail lowers (spec §3.4 for all_to_all_v, §5 for the
// indexed variant): its def's CHIP rail.
const CollectiveDef* FindRailOp(const ExprPtr& e) {
  const CollectiveDef* def = FindManaged(ir::As<ir::Call>(e));
  return def != nullptr && def->OnRail(ops::CollectiveRail::kChip) ? def : nullptr;
}

std::string Where(const Span& s) {
  return s.known() ? pto::StrCat(s.line, ":", s.col) : std::string("<unknown>");
}

// The last statement of a body when it is a yield.
std::shared_ptr<const ir::YieldStmt> LastYield(const StmtPtr& body) {
  if (auto y = ir::As<ir::YieldStmt>(body)) return y;
  if (auto seq = ir::As<ir::SeqStmts>(body); seq != nullptr && !seq->stmts().empty()) {
    return LastYield(seq->stmts().back());
  }
  return nullptr;
}

// Where every value of one function can come from: params, assignments,
// loop-carried values (init and yield), if/for/while results (a loop result
// also from its init, since a zero-trip loop returns it).
class Defs {
 public:
  explicit Defs(const FunctionPtr& f) {
    for (size_t i = 0; i < f->params().size(); ++i) params_[f->params()[i].get()] = i;
    Walk(f->body());
  }
  std::optional<size_t> ParamIndex(const ir::Var* v) const {
    auto it = params_.find(v);
    if (it == params_.end()) return std::nullopt;
    return it->second;
  }
  const std::vector<ExprPtr>* Sources(const ir::Var* v) const {
    auto it = sources_.find(v);
    return it == sources_.end() ? nullptr : &it->second;
  }
  const std::vector<std::shared_ptr<const ir::ReturnStmt>>& returns() const { return returns_; }

 private:
  void Walk(const StmtPtr& s) {
    if (s == nullptr) return;
    if (auto a = ir::As<ir::AssignStmt>(s)) {
      sources_[a->var().get()] = {a->value()};
    } else if (auto seq = ir::As<ir::SeqStmts>(s)) {
      for (const StmtPtr& c : seq->stmts()) Walk(c);
    } else if (auto r = ir::As<ir::ReturnStmt>(s)) {
      returns_.push_back(r);
    } else if (auto i = ir::As<ir::IfStmt>(s)) {
      Walk(i->then_body());
      if (i->else_body()) Walk(*i->else_body());
      std::shared_ptr<const ir::YieldStmt> ys[] = {
          LastYield(i->then_body()), i->else_body() ? LastYield(*i->else_body()) : nullptr};
      for (size_t k = 0; k < i->return_vars().size(); ++k) {
        std::vector<ExprPtr>& src = sources_[i->return_vars()[k].get()];
        for (const auto& y : ys) {
          if (y != nullptr && k < y->value().size()) src.push_back(y->value()[k]);
        }
      }
    } else if (auto f = ir::As<ir::ForStmt>(s)) {
      Loop(f->iter_args(), f->body(), f->return_vars());
    } else if (auto w = ir::As<ir::WhileStmt>(s)) {
      Loop(w->iter_args(), w->body(), w->return_vars());
    } else if (auto sc = ir::As<ir::ScopeStmt>(s)) {
      Walk(sc->body());
    }
  }

  void Loop(const std::vector<ir::IterArgPtr>& iter_args, const StmtPtr& body,
            const std::vector<VarPtr>& return_vars) {
    Walk(body);
    std::shared_ptr<const ir::YieldStmt> y = LastYield(body);
    for (size_t k = 0; k < iter_args.size(); ++k) {
      std::vector<ExprPtr>& src = sources_[iter_args[k].get()];
      src.push_back(iter_args[k]->init_value());
      if (y != nullptr && k < y->value().size()) src.push_back(y->value()[k]);
      if (k < return_vars.size()) sources_[return_vars[k].get()] = {iter_args[k]};
    }
  }

  absl::flat_hash_map<const ir::Var*, size_t> params_;
  absl::flat_hash_map<const ir::Var*, std::vector<ExprPtr>> sources_;
  std::vector<std::shared_ptr<const ir::ReturnStmt>> returns_;
};

// The static contiguity proof of seed 000 (a whitelist walk), plus the
// resolution of a kernel result to the argument it returns.
class ContiguityTracer {
 public:
  explicit ContiguityTracer(const ir::ProgramPtr& program) : program_(program) {}

  const Defs& DefsOf(const FunctionPtr& f) {
    auto it = defs_.find(f.get());
    if (it == defs_.end()) it = defs_.emplace(f.get(), std::make_unique<Defs>(f)).first;
    return *it->second;
  }

  // Which parameter result `index` of `callee` names, if every return names
  // the same one (through in-place writes and loop-carried values).
  std::optional<size_t> ReturnedParam(const std::string& callee, size_t index, int depth) {
    FunctionPtr f = program_->GetFunction(callee);
    if (f == nullptr || depth > 8) return std::nullopt;
    const Defs& defs = DefsOf(f);
    std::optional<size_t> result;
    if (defs.returns().empty()) return std::nullopt;
    for (const auto& ret : defs.returns()) {
      ExprPtr e;
      if (ret->value().size() == f->return_types().size() && index < ret->value().size()) {
        e = ret->value()[index];
      } else if (ret->value().size() == 1) {
        if (auto t = ir::As<ir::MakeTuple>(ret->value()[0]); t && index < t->elements().size()) {
          e = t->elements()[index];
        }
      }
      if (e == nullptr) return std::nullopt;
      std::optional<size_t> p = Identity(defs, e, depth);
      if (!p || (result && *result != *p)) return std::nullopt;
      result = p;
    }
    return result;
  }

  // A located user error when `operand` (role `role` of `call`, read in
  // function `f`) is not provably contiguous row-major.
  // With `need_window`, also every root must be a window: a DistributedTensor
  // parameter or a pld.tensor.window (peers read the operand remotely).
  absl::Status Check(const FunctionPtr& f, const CallPtr& call, const ExprPtr& operand,
                     std::string_view role, bool need_window = false) {
    const Defs& defs = DefsOf(f);
    auto not_window = [&](const ExprPtr& at, const std::string& what) {
      return UserErrorF(call->span(), call->op()->name(), " ", role,
                        " must live in a communication window: the builtin kernel pulls every "
                        "peer's ",
                        role, " through the window (spec §4.6), but it comes from ", what,
                        " (at ", Where(at->span()),
                        "); pass a pld.DistributedTensor parameter that the HOST orchestrator "
                        "binds to a pld.window, as examples/all_to_all_v_chip.pto does");
    };
    std::vector<ExprPtr> work = {operand};
    absl::flat_hash_set<const ir::Expr*> seen;
    auto reject = [&](const ExprPtr& at, const std::string& why) {
      return UserErrorF(call->span(), call->op()->name(), " ", role,
                        " is not provably contiguous: ", why, " (at ", Where(at->span()),
                        "); the CHIP/L2 rail accepts only values traced to a parameter, a window "
                        "or pl.tensor.create through reshape, view, set_validshape, assemble, "
                        "collective and kernel results and leading-dimension slices");
    };
    while (!work.empty()) {
      ExprPtr e = work.back();
      work.pop_back();
      if (!seen.insert(e.get()).second) continue;
      if (std::string bad = BadLayout(e->type()); !bad.empty()) return reject(e, bad);
      if (auto v = ir::As<ir::Var>(e)) {
        if (std::optional<size_t> p = defs.ParamIndex(v.get())) {  // root
          if (need_window && !ir::Is<ir::DistributedTensorType>(v->type())) {
            // A plain parameter is a window only if every caller passes one.
            for (const CallPtr& site : CallSites(f->name())) {
              if (*p < site->args().size() &&
                  !ir::Is<ir::DistributedTensorType>(site->args()[*p]->type())) {
                return not_window(site->args()[*p],
                                  pto::StrCat("parameter '", v->name_hint(),
                                              "', to which a caller passes a value that is not "
                                              "a window"));
              }
            }
          }
          continue;
        }
        const std::vector<ExprPtr>* src = defs.Sources(v.get());
        if (src == nullptr) {
          return reject(e, pto::StrCat("'", v->name_hint(), "' has no traceable definition"));
        }
        work.insert(work.end(), src->begin(), src->end());
      } else if (auto c = ir::As<ir::Call>(e)) {
        if (ir::Is<ir::GlobalVar>(c->op())) {
          std::optional<size_t> p = ReturnedParam(c->op()->name(), 0, 0);
          if (!p || *p >= c->args().size() || ir::Is<ir::TupleType>(c->type())) {
            return reject(e, pto::StrCat("the result of self.", c->op()->name(),
                                         " does not name one of its parameters"));
          }
          work.push_back(c->args()[*p]);
        } else if (ir::IsOp(c, ir::OpId::kPldTensorWindow)) {
          continue;  // root
        } else if (ir::IsOp(c, ir::OpId::kPlTensorCreate)) {
          if (need_window) return not_window(e, "pl.tensor.create (device-local memory)");
          continue;  // root
        } else if (ir::IsOp(c, ir::OpId::kPlTensorReshape) ||
                   ir::IsOp(c, ir::OpId::kPlTensorView) ||
                   ir::IsOp(c, ir::OpId::kPlTensorSetValidshape) ||
                   ir::IsOp(c, ir::OpId::kPlTensorAssemble)) {
          work.push_back(c->args()[0]);
        } else if (const ops::CollectiveDef* m = FindManaged(c);
                   m != nullptr && m->alias_arg < c->args().size()) {
          work.push_back(c->args()[m->alias_arg]);
        } else if (ir::IsOp(c, ir::OpId::kPlTensorSlice)) {
          if (!LeadingDimSlice(c)) {
            return reject(e,
                          "a pl.tensor.slice that narrows more than the leading dimension of "
                          "a static-shape tensor");
          }
          work.push_back(c->args()[0]);
        } else {
          return reject(e, pto::StrCat("it comes from ", c->op()->name()));
        }
      } else if (auto g = ir::As<ir::TupleGetItem>(e)) {
        CallPtr c = TupleCall(defs, g->tuple());
        std::optional<size_t> p;
        if (c != nullptr) p = ReturnedParam(c->op()->name(), g->index(), 0);
        if (!p || *p >= c->args().size()) {
          return reject(e,
                        "a tuple element that is not a kernel result naming one of its "
                        "parameters");
        }
        work.push_back(c->args()[*p]);
      } else {
        return reject(e, "not a tensor value");
      }
    }
    return absl::OkStatus();
  }

 private:
  // Every call of function `name` in the program.
  std::vector<CallPtr> CallSites(const std::string& name) const {
    class Finder : public ir::IRVisitor {
     public:
      explicit Finder(const std::string& name) : name_(name) {}
      std::vector<CallPtr> sites;

     protected:
      void VisitCall(const CallPtr& c) override {
        if (ir::Is<ir::GlobalVar>(c->op()) && c->op()->name() == name_) sites.push_back(c);
        ir::IRVisitor::VisitCall(c);
      }
      void VisitType(const TypePtr&) override {}

     private:
      const std::string& name_;
    };
    Finder finder(name);
    for (const auto& [gv, fn] : program_->functions()) finder.VisitStmt(fn->body());
    return finder.sites;
  }

  // Non-empty reason when a value's own type is not compact row-major ND.
  static std::string BadLayout(const TypePtr& type) {
    auto t = ir::AsTensorTypeLike(type);
    if (t == nullptr || !t->tensor_view()) return "";
    const ir::TensorView& v = *t->tensor_view();
    if (v.layout != ir::TensorLayout::kND) {
      return pto::StrCat("a value with layout ", ir::TensorLayoutName(v.layout));
    }
    if (v.stride.empty()) return "";
    if (v.stride.size() != t->shape().size()) return "a value with an explicit non-compact stride";
    int64_t expect = 1;
    for (size_t k = t->shape().size(); k-- > 0;) {
      std::optional<int64_t> s = ir::GetConstInt(v.stride[k]);
      if (!s || *s != expect) return "a value with an explicit non-compact stride";
      if (k == 0) break;
      std::optional<int64_t> d = ir::GetConstInt(t->shape()[k]);
      if (!d) return "a value with an explicit stride over a dynamic shape";
      expect *= *d;
    }
    return "";
  }

  // pl.tensor.slice(src, shape, offsets) keeping every dim but the first of a
  // static-shape source, with literal offsets.
  static bool LeadingDimSlice(const CallPtr& c) {
    if (c->args().size() != 3) return false;
    auto src = ir::AsTensorTypeLike(c->args()[0]->type());
    auto shape = ir::As<ir::MakeTuple>(c->args()[1]);
    auto offs = ir::As<ir::MakeTuple>(c->args()[2]);
    if (src == nullptr || shape == nullptr || offs == nullptr || src->shape().empty()) {
      return false;
    }
    size_t rank = src->shape().size();
    if (shape->elements().size() != rank || offs->elements().size() != rank) return false;
    for (size_t k = 0; k < rank; ++k) {
      std::optional<int64_t> d = ir::GetConstInt(src->shape()[k]);
      if (!d) return false;
      if (k == 0) continue;
      if (ir::GetConstInt(offs->elements()[k]) != std::optional<int64_t>(0) ||
          ir::GetConstInt(shape->elements()[k]) != d) {
        return false;
      }
    }
    return true;
  }

  // The kernel call a tuple value comes from (directly or through one var).
  static CallPtr TupleCall(const Defs& defs, const ExprPtr& tuple) {
    ExprPtr e = tuple;
    if (auto v = ir::As<ir::Var>(e)) {
      const std::vector<ExprPtr>* src = defs.Sources(v.get());
      if (src == nullptr || src->size() != 1) return nullptr;
      e = (*src)[0];
    }
    auto c = ir::As<ir::Call>(e);
    if (c == nullptr || !ir::Is<ir::GlobalVar>(c->op())) return nullptr;
    return c;
  }

  // The parameter a value of `defs`'s function is, through in-place writes
  // (tile.store, tensor.write, assemble, collectives), kernel results and
  // loop-carried values; nullopt unless all paths agree.
  std::optional<size_t> Identity(const Defs& defs, const ExprPtr& start, int depth) {
    std::vector<ExprPtr> work = {start};
    absl::flat_hash_set<const ir::Expr*> seen;
    std::optional<size_t> result;
    while (!work.empty()) {
      ExprPtr e = work.back();
      work.pop_back();
      if (!seen.insert(e.get()).second) continue;
      if (auto v = ir::As<ir::Var>(e)) {
        if (std::optional<size_t> p = defs.ParamIndex(v.get())) {
          if (result && *result != *p) return std::nullopt;
          result = p;
          continue;
        }
        const std::vector<ExprPtr>* src = defs.Sources(v.get());
        if (src == nullptr) return std::nullopt;
        work.insert(work.end(), src->begin(), src->end());
      } else if (auto c = ir::As<ir::Call>(e)) {
        std::optional<size_t> a;
        if (ir::Is<ir::GlobalVar>(c->op())) {
          a = ReturnedParam(c->op()->name(), 0, depth + 1);
        } else if (ir::IsOp(c, ir::OpId::kPlTileStore)) {
          a = 2;
        } else if (ir::IsOp(c, ir::OpId::kPlTensorWrite) ||
                   ir::IsOp(c, ir::OpId::kPlTensorAssemble)) {
          a = 0;
        } else if (const ops::CollectiveDef* m = FindManaged(c)) {
          a = m->alias_arg;
        }
        if (!a || *a >= c->args().size()) return std::nullopt;
        work.push_back(c->args()[*a]);
      } else if (auto g = ir::As<ir::TupleGetItem>(e)) {
        CallPtr c = TupleCall(defs, g->tuple());
        if (c == nullptr) return std::nullopt;
        std::optional<size_t> a = ReturnedParam(c->op()->name(), g->index(), depth + 1);
        if (!a || *a >= c->args().size()) return std::nullopt;
        work.push_back(c->args()[*a]);
      } else {
        return std::nullopt;
      }
    }
    return result;
  }

  ir::ProgramPtr program_;
  absl::flat_hash_map<const ir::Function*, std::unique_ptr<Defs>> defs_;
};

// The synthesized kernels of one run, keyed by name (one per variant).
struct Kernels {
  std::map<std::string, FunctionPtr> by_name;
  std::map<std::string, ir::GlobalVarPtr> gvars;
};

// Rewrites the collectives of one CHIP orchestration body.
class Lowerer : public ir::IRMutator {
 public:
  Lowerer(FunctionPtr func, ContiguityTracer* tracer, Kernels* kernels,
          const LowerL2TensorCollectivesOptions* options)
      : func_(std::move(func)), tracer_(tracer), kernels_(kernels), options_(options) {}
  const absl::Status& status() const { return status_; }

 protected:
  StmtPtr MutateStmt(const StmtPtr& stmt) override {
    if (!status_.ok()) return stmt;
    return IRMutator::MutateStmt(stmt);
  }

  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    const CollectiveDef* r = FindRailOp(stmt->value());
    if (r == nullptr) return IRMutator::MutateAssignStmt(stmt);
    ExprPtr call = LowerOrKeep(*r, ir::As<ir::Call>(stmt->value()));
    if (call == stmt->value()) return stmt;
    // A fresh var of the kernel's result type under the original name.
    auto var =
        std::make_shared<ir::Var>(stmt->var()->name_hint(), call->type(), stmt->var()->span());
    SetVarReplacement(stmt->var(), var);
    return std::make_shared<ir::AssignStmt>(var, call, stmt->span());
  }

  StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    const CollectiveDef* r = FindRailOp(stmt->expr());
    if (r == nullptr) return IRMutator::MutateEvalStmt(stmt);
    ExprPtr call = LowerOrKeep(*r, ir::As<ir::Call>(stmt->expr()));
    if (call == stmt->expr()) return stmt;
    return std::make_shared<ir::EvalStmt>(call, stmt->leading_comments(), stmt->span());
  }

  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& stmt) override {
    bool changed = false;
    std::vector<ExprPtr> values;
    for (const ExprPtr& v : stmt->value()) {
      const CollectiveDef* r = FindRailOp(v);
      ExprPtr out = r != nullptr ? LowerOrKeep(*r, ir::As<ir::Call>(v)) : MutateExpr(v);
      changed |= out != v;
      values.push_back(out);
    }
    if (!changed) return stmt;
    return std::make_shared<ir::ReturnStmt>(std::move(values), stmt->leading_comments(),
                                            stmt->span());
  }

 private:
  ExprPtr LowerOrKeep(const CollectiveDef& r, const CallPtr& call) {
    absl::StatusOr<ExprPtr> out = Lower(r, call);
    if (!out.ok()) {
      status_ = out.status();
      return call;
    }
    return *out;
  }

  absl::StatusOr<ExprPtr> Lower(const CollectiveDef& r, const CallPtr& call) {
    const size_t n = r.operands.size();
    const std::vector<ExprPtr>& args = call->args();
    if (args.size() != n) {
      return InternalErrorF(call->span(), r.op, " expects ", n,
                            " tensor operands (core_num is a kwarg), got ", args.size(),
                            " arguments");
    }
    // spec §5: the indexed variant runs only on the A5 URMA PER_PEER queues.
    if (r.urma_only && !options_->platform.empty() && !options_->urma) {
      return UserErrorF(call->span(), r.op, " needs the A5 URMA PER_PEER queues, which platform '",
                        options_->platform, "' does not have; compile for --platform=",
                        absl::StrJoin(options_->urma_platforms, "|"));
    }
    ASSIGN_OR_RETURN(int64_t l, CoreNum(r, call));
    auto target = ir::As<ir::DistributedTensorType>(args[r.alias_arg]->type());
    if (target == nullptr) {
      return InternalErrorF(call->span(), r.op,
                            " target must be a DistributedTensor (its deducer guarantees it)");
    }
    RETURN_IF_ERROR(ops::CheckCollectiveDType(ops::CollectiveRail::kChip, r, target->dtype(),
                                              r.op, call->span()));
    ASSIGN_OR_RETURN(int64_t blocks, LaunchWidth(r, call, l));
    for (size_t i = 0; i < n; ++i) {
      RETURN_IF_ERROR(tracer_->Check(func_, call, args[i], r.operands[i].role,
                                     /*need_window=*/r.operands[i].peers_read));
    }
    // The emitted call sees the body's var replacements.
    bool changed = false;
    std::vector<ExprPtr> operands =
        MutateExprs(std::vector<ExprPtr>(args.begin(), args.begin() + n), &changed);
    ASSIGN_OR_RETURN(ir::GlobalVarPtr gv, Kernel(r, target->dtype(), operands, call->span()));
    ir::AttrList attrs;
    if (blocks > 1) {
      // The block-aware barrier needs every admitted block resident at once.
      attrs.emplace_back(ir::kAttrCoreNum, ExprPtr(std::make_shared<ir::ConstInt>(blocks)));
      attrs.emplace_back(ir::kAttrSyncStart, true);
    }
    TypePtr type = operands[r.alias_arg]->type();
    return ExprPtr(std::make_shared<ir::Call>(gv, std::move(operands), ir::AttrList{},
                                              std::move(attrs), type, call->span()));
  }

  // The requested block limit L (its deducer checked the range): a
  // compile-time int on this rail.
  absl::StatusOr<int64_t> CoreNum(const CollectiveDef& r, const CallPtr& call) {
    std::optional<int64_t> l = ops::CollectiveCoreNum(r, *call).value;
    if (!l) {
      // host_orchestration.cc passes a runtime core_num to the HOST entry,
      // which range-checks it when it runs.
      return UserErrorF(call->span(), r.op,
                        " core_num must be a compile-time constant on the CHIP/L2 rail: a "
                        "runtime core_num is not supported yet (it would need a runtime "
                        "signal-stride check that orchestration code cannot fail)",
                        r.OnRail(ops::CollectiveRail::kHost)
                            ? "; call the collective from a HOST orchestrator, whose dispatch "
                              "passes a runtime core_num to the builtin entry"
                            : "");
    }
    return *l;
  }

  // B under the def's launch-width rule; a rule that gives each admitted
  // block a signal lane needs an [NR, S] signal with S >= B (the launched B,
  // not L).
  absl::StatusOr<int64_t> LaunchWidth(const CollectiveDef& r, const CallPtr& call, int64_t l) {
    auto sig = ir::AsTensorTypeLike(call->args()[r.signal_arg]->type());
    std::optional<int64_t> p, s;
    if (sig != nullptr && sig->shape().size() == 2) {
      p = ir::GetConstInt(sig->shape()[0]);
      s = ir::GetConstInt(sig->shape()[1]);
    }
    if (!p) {
      return InternalErrorF(call->span(), r.op,
                            " signal must be a rank-2 [NR, S] with a constant NR (its deducer "
                            "guarantees it)");
    }
    absl::StatusOr<int64_t> b = LaunchedBlocks(r.launch_width, *p, l);
    if (!b.ok()) return InternalErrorF(call->span(), r.op, " ", b.status().message());
    if (!NeedsLanePerBlock(r.launch_width)) return *b;
    if (!s) {
      return UserErrorF(call->span(), r.op,
                        " signal dim 1 (lane stride S) must be a "
                        "compile-time constant on the CHIP/L2 rail");
    }
    if (*s < *b) {
      return UserErrorF(call->span(), r.op, " signal lane stride S (", *s,
                        ") is smaller than the admitted block count B = CalAllToAllVBlocks(P=", *p,
                        ", core_num=", l, ") = ", *b,
                        "; the block-aware barrier needs one signal lane per block");
    }
    return *b;
  }

  // The shared kernel of `r`'s dtype variant, synthesized at its first use.
  absl::StatusOr<ir::GlobalVarPtr> Kernel(const CollectiveDef& r, ir::DataType dtype,
                                          const std::vector<ExprPtr>& operands, const Span& span) {
    // The allowlist check above admits exactly these two dtypes.
    const bool fp32 = dtype == ir::DataType::kFP32;
    std::string name = r.ChipKernelName(fp32 ? "fp32" : "int8");
    if (auto it = kernels_->gvars.find(name); it != kernels_->gvars.end()) return it->second;
    // Canonical types: the split plain/distributed is fixed per operand (its
    // kind), so MaterializeDistTensorCtx always appends the same CommCtx tail.
    std::vector<VarPtr> params;
    std::vector<ParamDirection> directions;
    for (size_t i = 0; i < operands.size(); ++i) {
      const ops::CollectiveOperand& o = r.operands[i];
      TypePtr t = operands[i]->type();
      if (o.kind != ops::CollectiveOperandKind::kWindow) {
        auto tt = ir::AsTensorTypeLike(t);
        t = std::make_shared<ir::TensorType>(tt->shape(), tt->dtype());
      }
      params.push_back(std::make_shared<ir::Var>(std::string(o.role), t, span));
      directions.push_back(o.use == ops::OperandUse::kRead ? ParamDirection::kIn
                                                           : ParamDirection::kInOut);
    }
    // `return target`: keeps ReturnParamsExplicit and lets
    // MaterializeDistTensorCtx map the result back to its parameter.
    StmtPtr body = std::make_shared<ir::ReturnStmt>(std::vector<ExprPtr>{params[r.alias_arg]},
                                                    std::vector<std::string>{}, span);
    ir::AttrList attrs = {
        {"builtin_template_dir", r.ChipTemplateDir()},
        {"builtin_template_vars", std::string(fp32 ? "dtype_cpp=float" : "dtype_cpp=int8_t")},
        {"require_contiguous_operands", true},
    };
    std::vector<TypePtr> returns = {params[r.alias_arg]->type()};
    ASSIGN_OR_RETURN(
        FunctionPtr f,
        ir::Function::Create(name, params, directions, returns, body, ir::FunctionType::kAIV,
                             std::nullopt, std::nullopt, std::move(attrs), false, span));
    auto gv = std::make_shared<ir::GlobalVar>(name, span);
    kernels_->by_name[name] = f;
    kernels_->gvars[name] = gv;
    return ir::GlobalVarPtr(gv);
  }

  FunctionPtr func_;
  ContiguityTracer* tracer_;
  Kernels* kernels_;
  const LowerL2TensorCollectivesOptions* options_;
  absl::Status status_;
};

// The first managed collective call (or the first one off the InCore rail)
// in a body.
class FindCollective : public ir::IRVisitor {
 public:
  explicit FindCollective(bool off_incore = false) : off_incore_(off_incore) {}
  CallPtr found;

 protected:
  void VisitCall(const CallPtr& call) override {
    const CollectiveDef* def = FindManaged(call);
    if (found == nullptr && def != nullptr &&
        (!off_incore_ || !def->OnRail(ops::CollectiveRail::kInCore))) {
      found = call;
    }
    IRVisitor::VisitCall(call);
  }
  void VisitType(const TypePtr&) override {}

 private:
  bool off_incore_;
};

bool IsL2RailBody(const ir::Function& f) {
  return ir::IsOrchestrationLike(f.func_type()) && f.level() == ir::Level::kChip;
}

// spec §3.4 step 5: role Orchestrator and level absent or not HOST.
bool OwnsResidualCheck(const ir::Function& f) {
  return f.role() == ir::Role::kOrchestrator &&
         (!f.level().has_value() || *f.level() != ir::Level::kHost);
}

class LowerL2TensorCollectivesPass : public Pass {
 public:
  explicit LowerL2TensorCollectivesPass(LowerL2TensorCollectivesOptions options)
      : options_(std::move(options)) {}
  std::string_view name() const override { return "LowerL2TensorCollectives"; }

  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override {
    ContiguityTracer tracer(program);
    Kernels kernels;
    std::vector<FunctionPtr> functions;
    bool changed = false;
    for (const auto& [gv, func] : program->functions()) {
      FunctionPtr out = func;
      if (IsL2RailBody(*func)) {
        Lowerer lowerer(func, &tracer, &kernels, &options_);
        out = lowerer.MutateFunction(func);
        RETURN_IF_ERROR(lowerer.status());
      }
      changed |= out != func;
      functions.push_back(out);
    }
    for (const auto& [name, kernel] : kernels.by_name) {
      if (FunctionPtr existing = program->GetFunction(name)) {
        return UserErrorF(existing->span(), "synthesized builtin kernel name '", name,
                          "' collides with an existing function");
      }
      functions.push_back(kernel);
    }
    for (const FunctionPtr& f : functions) RETURN_IF_ERROR(CheckResidual(*f));
    if (!changed && kernels.by_name.empty()) return program;
    return ir::Program::Create(std::move(functions), program->name(), program->span());
  }

 private:
  LowerL2TensorCollectivesOptions options_;

  static absl::Status CheckResidual(const ir::Function& f) {
    if (ir::IsInCoreType(f.func_type())) {
      // InCore collectives belong to LowerCompositeOps, except one off the
      // InCore rail (the indexed variant, spec §5: CHIP only).
      FindCollective find(/*off_incore=*/true);
      find.VisitStmt(f.body());
      if (find.found != nullptr) {
        return UserErrorF(find.found->span(), find.found->op()->name(),
                          " is not supported in an InCore function ('", f.name(),
                          "'); call it from a CHIP orchestration (managed L2 rail)");
      }
      return absl::OkStatus();
    }
    if (!OwnsResidualCheck(f)) return absl::OkStatus();
    FindCollective find;
    find.VisitStmt(f.body());
    if (find.found == nullptr) return absl::OkStatus();
    return UserErrorF(find.found->span(), find.found->op()->name(), " in function '", f.name(),
                      "' was not lowered. The managed CHIP/L2 rail currently supports only "
                      "pld.tensor.all_to_all_v and pld.tensor.indexed_all_to_all_v, written as "
                      "an assignment, expression statement or return value of a CHIP "
                      "orchestration body; write any other collective in a HOST orchestrator "
                      "(builtin dispatch rail) or an InCore function (composite rail)");
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLowerL2TensorCollectivesPass(LowerL2TensorCollectivesOptions options) {
  return std::make_unique<LowerL2TensorCollectivesPass>(std::move(options));
}

}  // namespace pto::passes
