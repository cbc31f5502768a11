#include "compiler/passes/optimize_orch_tensors.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

std::vector<ir::StmtPtr> TopLevel(const ir::StmtPtr& body) {
  if (auto seq = ir::As<ir::SeqStmts>(body)) return seq->stmts();
  return body != nullptr ? std::vector<ir::StmtPtr>{body} : std::vector<ir::StmtPtr>{};
}

bool IsOpCall(const ir::ExprPtr& e, std::string_view op) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) && call->op()->name() == op;
}

// The kernel a call runs, or nullptr.
ir::FunctionPtr KernelOf(const ir::ProgramPtr& program, const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op())) return nullptr;
  ir::FunctionPtr f = program->GetFunction(call->op()->name());
  return f != nullptr && f->body() != nullptr && ir::IsInCoreType(f->func_type()) ? f : nullptr;
}

// Calls per callee name, and uses per var, over the whole program.
class UseCounter : public ir::IRVisitor {
 public:
  absl::flat_hash_map<std::string, int> calls;
  absl::flat_hash_map<const ir::Var*, int> uses;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (ir::Is<ir::GlobalVar>(call->op())) ++calls[call->op()->name()];
    ir::IRVisitor::VisitCall(call);
  }
  void VisitVar(const ir::VarPtr& var) override {
    ++uses[var.get()];
    ir::IRVisitor::VisitVar(var);
  }
  void VisitIterArg(const ir::IterArgPtr& var) override {
    ++uses[var.get()];
    ir::IRVisitor::VisitIterArg(var);
  }
};

// A kernel's single result that is its final store into an Out param.
struct FinalStore {
  size_t out = 0;                               // the Out param's index
  std::shared_ptr<const ir::AssignStmt> store;  // r = pl.tile.store(t, offsets, param)
};

std::optional<FinalStore> FindFinalStore(const ir::FunctionPtr& f) {
  std::vector<ir::StmtPtr> stmts = TopLevel(f->body());
  if (f->return_types().size() != 1 || stmts.empty()) return std::nullopt;
  auto ret = ir::As<ir::ReturnStmt>(stmts.back());
  if (ret == nullptr || ret->value().size() != 1) return std::nullopt;
  auto r = ir::As<ir::Var>(ret->value()[0]);
  // The store right before the return: every read of the kernel's inputs
  // happens before it (what merging an input into the output relies on).
  if (stmts.size() >= 2) {
    auto a = ir::As<ir::AssignStmt>(stmts[stmts.size() - 2]);
    if (a == nullptr || a->var() != r || !IsOpCall(a->value(), "pl.tile.store")) {
      return std::nullopt;
    }
    const auto& args = ir::As<ir::Call>(a->value())->args();
    if (args.size() < 3) return std::nullopt;
    for (size_t i = 0; i < f->params().size(); ++i) {
      if (args[2] == f->params()[i] && f->param_directions()[i] == ir::ParamDirection::kOut) {
        return FinalStore{i, a};
      }
    }
  }
  return std::nullopt;
}

bool SameTensorType(const ir::TypePtr& a, const ir::TypePtr& b) {
  auto x = ir::As<ir::TensorType>(a);
  auto y = ir::As<ir::TensorType>(b);
  if (x == nullptr || y == nullptr || x->dtype() != y->dtype() ||
      x->shape().size() != y->shape().size()) {
    return false;
  }
  for (size_t i = 0; i < x->shape().size(); ++i) {
    std::optional<int64_t> p = ir::GetConstInt(x->shape()[i]);
    if (!p || p != ir::GetConstInt(y->shape()[i])) return false;
  }
  return true;
}

ir::FunctionPtr Rebuilt(const ir::FunctionPtr& f, std::string name, std::vector<ir::VarPtr> params,
                        std::vector<ir::ParamDirection> dirs, std::vector<ir::TypePtr> returns,
                        ir::StmtPtr body) {
  absl::StatusOr<ir::FunctionPtr> out = ir::Function::Create(
      std::move(name), std::move(params), std::move(dirs), std::move(returns), std::move(body),
      f->func_type(), f->level(), f->role(), f->attrs(), f->requires_runtime_binding(), f->span());
  return out.ok() ? *out : nullptr;
}

// ---- Pattern 1: iter-arg reuse ------------------------------------------

struct Merge {
  size_t out = 0;  // the Out param, dropped
  size_t in = 0;   // the In param, now InOut
  const ir::Var* create = nullptr;
};

class ReuseFinder : public ir::IRVisitor {
 public:
  ReuseFinder(const ir::ProgramPtr& program, const UseCounter& counts)
      : program_(program), counts_(counts) {}
  absl::flat_hash_map<std::string, Merge> merges;

 protected:
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    ir::IRVisitor::VisitForStmt(s);
    Loop(s->iter_args(), s->body());
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    ir::IRVisitor::VisitWhileStmt(s);
    Loop(s->iter_args(), s->body());
  }

 private:
  void Loop(const std::vector<ir::IterArgPtr>& iter_args, const ir::StmtPtr& body) {
    std::vector<ir::StmtPtr> stmts = TopLevel(body);
    if (iter_args.empty() || stmts.empty()) return;
    auto yield = ir::As<ir::YieldStmt>(stmts.back());
    if (yield == nullptr) return;
    absl::flat_hash_set<const ir::Var*> creates;
    for (const ir::StmtPtr& s : stmts) {
      auto a = ir::As<ir::AssignStmt>(s);
      if (a == nullptr) continue;
      if (IsOpCall(a->value(), "pl.tensor.create")) {
        creates.insert(a->var().get());
        continue;
      }
      ir::FunctionPtr f = KernelOf(program_, a->value());
      // One call site: the merged param changes what every call passes.
      if (f == nullptr || merges.contains(f->name()) || counts_.calls.at(f->name()) != 1) continue;
      std::optional<FinalStore> fs = FindFinalStore(f);
      const auto& args = ir::As<ir::Call>(a->value())->args();
      if (!fs || fs->out >= args.size()) continue;
      auto out_arg = ir::As<ir::Var>(args[fs->out]);
      if (out_arg == nullptr || !creates.contains(out_arg.get())) continue;
      for (size_t y = 0; y < yield->value().size() && y < iter_args.size(); ++y) {
        if (yield->value()[y] != a->var()) continue;
        for (size_t i = 0; i < args.size(); ++i) {
          if (args[i] != iter_args[y] || f->param_directions()[i] != ir::ParamDirection::kIn ||
              !SameTensorType(f->params()[i]->type(), f->params()[fs->out]->type())) {
            continue;
          }
          merges[f->name()] = Merge{fs->out, i, out_arg.get()};
          break;
        }
      }
    }
  }

  const ir::ProgramPtr& program_;
  const UseCounter& counts_;
};

ir::FunctionPtr MergeParams(const ir::FunctionPtr& f, const Merge& m) {
  std::vector<ir::VarPtr> params;
  std::vector<ir::ParamDirection> dirs;
  for (size_t i = 0; i < f->params().size(); ++i) {
    if (i == m.out) continue;
    params.push_back(f->params()[i]);
    dirs.push_back(i == m.in ? ir::ParamDirection::kInOut : f->param_directions()[i]);
  }
  ir::VarSubstMap subst = {{f->params()[m.out].get(), f->params()[m.in]}};
  return Rebuilt(f, f->name(), std::move(params), std::move(dirs), f->return_types(),
                 ir::Substitute(f->body(), subst));
}

// Call sites of merged kernels drop the Out argument (an arg_directions
// attr follows: the In argument becomes InOut); the creates they passed go.
class ReuseCallRewriter : public ir::IRMutator {
 public:
  ReuseCallRewriter(const absl::flat_hash_map<std::string, Merge>& merges,
                    const UseCounter& counts)
      : merges_(merges) {
    for (const auto& [name, m] : merges) {
      if (counts.uses.contains(m.create) && counts.uses.at(m.create) == 1) dead_.insert(m.create);
    }
  }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    if (dead_.contains(stmt->var().get())) return nullptr;
    return ir::IRMutator::MutateAssignStmt(stmt);
  }
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    ir::ExprPtr base = ir::IRMutator::MutateCall(call);
    auto it = ir::Is<ir::GlobalVar>(call->op()) ? merges_.find(call->op()->name()) : merges_.end();
    if (it == merges_.end()) return base;
    const Merge& m = it->second;
    auto c = ir::As<ir::Call>(base);
    std::vector<ir::ExprPtr> args;
    for (size_t i = 0; i < c->args().size(); ++i) {
      if (i != m.out) args.push_back(c->args()[i]);
    }
    ir::AttrList attrs = c->attrs();
    std::vector<ir::ArgDirection> dirs = c->GetArgDirections();
    if (dirs.size() == c->args().size()) {
      dirs[m.in] = ir::ArgDirection::kInOut;
      dirs.erase(dirs.begin() + static_cast<std::ptrdiff_t>(m.out));
      attrs = ir::WithAttr(attrs, std::string(ir::kAttrArgDirections), dirs);
    }
    return std::make_shared<ir::Call>(c->op(), std::move(args), c->kwargs(), std::move(attrs),
                                      c->type(), c->span());
  }

 private:
  const absl::flat_hash_map<std::string, Merge>& merges_;
  absl::flat_hash_set<const ir::Var*> dead_;
};

// ---- Pattern 5: static output windows (windowize=True) -------------------

struct Window {
  FinalStore fs;
  std::vector<ir::ExprPtr> box;  // tensor rank, constant
  std::string name;              // of the clone
};

class VarCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> vars;

 protected:
  void VisitVar(const ir::VarPtr& var) override { vars.insert(var.get()); }
  void VisitIterArg(const ir::IterArgPtr& var) override { vars.insert(var.get()); }
};

std::optional<Window> FindWindow(const ir::FunctionPtr& f, const UseCounter& counts) {
  if (!ir::GetAttr<bool>(f->attrs(), "windowize").value_or(false)) return std::nullopt;
  std::optional<FinalStore> fs = FindFinalStore(f);
  if (!fs || counts.uses.at(f->params()[fs->out].get()) != 1) return std::nullopt;
  auto call = ir::As<ir::Call>(fs->store->value());
  auto tile = ir::As<ir::TileType>(call->args()[0]->type());
  auto tensor = ir::As<ir::TensorType>(f->params()[fs->out]->type());
  auto offsets = ir::As<ir::MakeTuple>(call->args()[1]);
  if (tile == nullptr || tensor == nullptr || offsets == nullptr || call->args().size() != 3 ||
      tile->shape().size() > tensor->shape().size()) {
    return std::nullopt;
  }
  // The offsets may name only the kernel's scalar params: the call site
  // substitutes its arguments for them.
  VarCollector used;
  used.VisitExpr(offsets);
  absl::flat_hash_set<const ir::Var*> scalars;
  for (const ir::VarPtr& p : f->params()) {
    if (ir::Is<ir::ScalarType>(p->type())) scalars.insert(p.get());
  }
  for (const ir::Var* v : used.vars) {
    if (!scalars.contains(v)) return std::nullopt;
  }
  Window w{*fs, std::vector<ir::ExprPtr>(tensor->shape().size() - tile->shape().size(),
                                         ir::ConstIndex(1)),
           f->name() + "__windowed"};
  for (const ir::ExprPtr& d : tile->shape()) w.box.push_back(d);
  bool whole = true;
  for (size_t i = 0; i < w.box.size(); ++i) {
    std::optional<int64_t> b = ir::GetConstInt(w.box[i]);
    if (!b) return std::nullopt;
    whole = whole && b == ir::GetConstInt(tensor->shape()[i]) &&
            ir::GetConstInt(offsets->elements()[i]) == 0;
  }
  if (whole) return std::nullopt;  // no narrower dependency to expose
  return w;
}

// The clone: the Out param is the window, stored at offset 0.
ir::FunctionPtr WindowedClone(const ir::FunctionPtr& f, const Window& w) {
  const ir::VarPtr& param = f->params()[w.fs.out];
  auto type =
      std::make_shared<ir::TensorType>(w.box, ir::As<ir::TensorType>(param->type())->dtype());
  auto window = std::make_shared<ir::Var>(param->name_hint(), type, param->span());
  std::vector<ir::VarPtr> params = f->params();
  params[w.fs.out] = window;
  auto call = ir::As<ir::Call>(w.fs.store->value());
  const ir::VarPtr& old = w.fs.store->var();
  auto result = std::make_shared<ir::Var>(old->name_hint(), type, old->span());
  std::vector<ir::StmtPtr> stmts;
  for (const ir::StmtPtr& s : TopLevel(f->body())) {
    if (s != w.fs.store) {
      stmts.push_back(s);
      continue;
    }
    std::vector<ir::ExprPtr> zeros(w.box.size(), ir::ConstIndex(0));
    stmts.push_back(std::make_shared<ir::AssignStmt>(
        result,
        ir::MakeOpCall("pl.tile.store",
                       {call->args()[0], std::make_shared<ir::MakeTuple>(zeros, call->span()),
                        window},
                       type, call->kwargs(), call->attrs(), call->span()),
        s->span()));
  }
  // The return names the windowed store's result.
  ir::VarSubstMap subst = {{old.get(), result}};
  ir::StmtPtr body = ir::Substitute(ir::SeqStmts::Flatten(stmts, f->body()->span()), subst);
  return Rebuilt(f, w.name, std::move(params), f->param_directions(), {type}, body);
}

// `res = self.k(args)` becomes slice + windowed call + assemble.
class WindowCallRewriter : public ir::FlatteningMutator {
 public:
  WindowCallRewriter(const ir::ProgramPtr& program,
                     const absl::flat_hash_map<std::string, Window>& windows)
      : program_(program), windows_(windows) {}
  absl::flat_hash_map<std::string, int> rewritten;  // call sites rewritten per kernel

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    ir::StmtPtr base = ir::IRMutator::MutateAssignStmt(stmt);
    auto a = ir::As<ir::AssignStmt>(base);
    auto call = a != nullptr ? ir::As<ir::Call>(a->value()) : nullptr;
    if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op())) return base;
    auto it = windows_.find(call->op()->name());
    if (it == windows_.end()) return base;
    const Window& w = it->second;
    ir::FunctionPtr f = program_->GetFunction(call->op()->name());
    const ir::ExprPtr& parent = call->args()[w.fs.out];
    auto parent_type = ir::As<ir::TensorType>(parent->type());
    if (!ir::Is<ir::Var>(parent) || parent_type == nullptr) return base;
    ir::VarSubstMap subst;
    for (size_t i = 0; i < f->params().size() && i < call->args().size(); ++i) {
      subst[f->params()[i].get()] = call->args()[i];
    }
    const Span& span = call->span();
    ir::ExprPtr offsets = ir::Substitute(ir::As<ir::Call>(w.fs.store->value())->args()[1], subst);
    auto window_type = std::make_shared<ir::TensorType>(w.box, parent_type->dtype());
    auto slice = std::make_shared<ir::Var>(pto::StrCat(a->var()->name_hint(), "_window"),
                                           window_type, span);
    auto next = std::make_shared<ir::Var>(pto::StrCat(a->var()->name_hint(), "_window_next"),
                                          window_type, span);
    std::vector<ir::ExprPtr> args = call->args();
    args[w.fs.out] = slice;
    std::vector<ir::StmtPtr> out = {
        std::make_shared<ir::AssignStmt>(
            slice,
            ir::MakeOpCall("pl.tensor.slice",
                           {parent, std::make_shared<ir::MakeTuple>(w.box, span), offsets},
                           window_type, {}, {}, span),
            stmt->span()),
        std::make_shared<ir::AssignStmt>(
            next, ir::MakeGlobalCall(w.name, std::move(args), window_type, call->attrs(), span),
            stmt->span()),
        std::make_shared<ir::AssignStmt>(
            a->var(),
            ir::MakeOpCall("pl.tensor.assemble", {parent, next, offsets}, a->var()->type(), {},
                           {}, span),
            stmt->span())};
    ++rewritten[f->name()];
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

 private:
  const ir::ProgramPtr& program_;
  const absl::flat_hash_map<std::string, Window>& windows_;
};

absl::StatusOr<ir::ProgramPtr> Rebuild(const ir::ProgramPtr& program,
                                       std::vector<ir::FunctionPtr> funcs) {
  return ir::Program::Create(std::move(funcs), program->name(), program->span());
}

absl::StatusOr<ir::ProgramPtr> ReuseIterArgs(const ir::ProgramPtr& program) {
  UseCounter counts;
  for (const auto& [gv, f] : program->functions()) counts.VisitFunction(f);
  ReuseFinder finder(program, counts);
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) finder.VisitStmt(f->body());
  }
  if (finder.merges.empty()) return program;
  std::vector<ir::FunctionPtr> funcs;
  for (const auto& [gv, f] : program->functions()) {
    if (auto it = finder.merges.find(f->name()); it != finder.merges.end()) {
      ir::FunctionPtr merged = MergeParams(f, it->second);
      if (merged == nullptr) return program;
      funcs.push_back(merged);
    } else if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) {
      ReuseCallRewriter rewriter(finder.merges, counts);
      funcs.push_back(f->WithBody(rewriter.MutateStmt(f->body())));
    } else {
      funcs.push_back(f);
    }
  }
  return Rebuild(program, std::move(funcs));
}

absl::StatusOr<ir::ProgramPtr> ExternalizeWindows(const ir::ProgramPtr& program) {
  UseCounter counts;
  for (const auto& [gv, f] : program->functions()) counts.VisitFunction(f);
  absl::flat_hash_map<std::string, Window> windows;
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() == nullptr || !ir::IsInCoreType(f->func_type())) continue;
    if (program->GetFunction(f->name() + "__windowed") != nullptr) continue;
    if (std::optional<Window> w = FindWindow(f, counts)) windows[f->name()] = *w;
  }
  if (windows.empty()) return program;
  WindowCallRewriter rewriter(program, windows);
  std::vector<ir::FunctionPtr> funcs;
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) {
      funcs.push_back(f->WithBody(rewriter.MutateStmt(f->body())));
    } else {
      funcs.push_back(f);
    }
  }
  if (rewriter.rewritten.empty()) return program;
  // A kernel whose every call now goes to its clone is dropped; one still
  // called elsewhere stays beside it.
  std::vector<ir::FunctionPtr> out;
  for (const ir::FunctionPtr& f : funcs) {
    auto it = rewriter.rewritten.find(f->name());
    if (it == rewriter.rewritten.end()) {
      out.push_back(f);
      continue;
    }
    ir::FunctionPtr clone = WindowedClone(f, windows.at(f->name()));
    if (clone == nullptr) return program;
    out.push_back(clone);
    if (it->second != counts.calls.at(f->name())) out.push_back(f);
  }
  return Rebuild(program, std::move(out));
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> OptimizeOrchTensorsPass::Run(const ir::ProgramPtr& program) {
  ASSIGN_OR_RETURN(ir::ProgramPtr reused, ReuseIterArgs(program));
  return ExternalizeWindows(reused);
}

std::unique_ptr<Pass> CreateOptimizeOrchTensorsPass() {
  return std::make_unique<OptimizeOrchTensorsPass>();
}

}  // namespace pto::passes
