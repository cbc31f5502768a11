#include "compiler/passes/scope_outliner.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/call_effects.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// Uses (in first-use order, with counts) and definitions of the plain
// variables of a subtree, types included. Window buffers and memrefs are
// allocation handles, not values a scope captures.
class VarUses : public ir::IRVisitor {
 public:
  std::vector<ir::VarPtr> order;
  absl::flat_hash_map<const ir::Var*, int> count;
  absl::flat_hash_set<const ir::Var*> defs;
  const ir::Stmt* bad_stmt = nullptr;  // a return or yield that cannot leave a scope

  void Use(const ir::VarPtr& v) {
    if (count[v.get()]++ == 0) order.push_back(v);
  }

 protected:
  void VisitVar(const ir::VarPtr& v) override { Use(v); }
  void VisitIterArg(const ir::IterArgPtr& v) override { Use(v); }
  void VisitMemRef(const ir::MemRefPtr&) override {}
  void VisitWindowBuffer(const ir::WindowBufferPtr&) override {}
  void VisitVarDef(const ir::VarPtr& v) override {
    defs.insert(v.get());
    ir::IRVisitor::VisitVarDef(v);
  }
  void VisitReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    if (bad_stmt == nullptr) bad_stmt = s.get();
    ir::IRVisitor::VisitReturnStmt(s);
  }
};

// Counts uses over a whole function body (the uses after a scope are the
// total minus those inside it: the IR is in SSA form).
VarUses CountUses(const ir::StmtPtr& body) {
  VarUses u;
  u.VisitStmt(body);
  return u;
}

// The direction a parameter earns from what the outlined body does with it:
// In, Out when the body only writes it (an operator's destination or a
// callee's Out slot), InOut when it is written and also read.
class DirectionInference : public ir::IRVisitor {
 public:
  DirectionInference(const ir::Program* program, const std::vector<ir::VarPtr>& params)
      : roots_(program), program_(program) {
    for (const ir::VarPtr& p : params) index_[p.get()] = 0;
  }
  ir::ParamDirection DirectionOf(const ir::Var* param) const {
    bool w = written_.contains(param), r = read_.contains(param);
    return !w ? ir::ParamDirection::kIn : r ? ir::ParamDirection::kInOut : ir::ParamDirection::kOut;
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitCall(const ir::CallPtr& call) override {
    ir::IRVisitor::VisitCall(call);
    ir::FunctionPtr callee = CalleeOf(*program_, *call);
    const ops::OpDef* def =
        callee == nullptr ? ops::OpRegistry::Global().Find(call->op()->name()) : nullptr;
    for (size_t i = 0; i < call->args().size(); ++i) {
      if (!IsTensorLikeValue(call->args()[i])) continue;
      const ir::Var* root = roots_.RootOf(call->args()[i]);
      if (root == nullptr || !index_.contains(root)) continue;
      bool reads = true, writes = false;
      if (callee != nullptr && i < callee->param_directions().size()) {
        ir::ParamDirection d = callee->param_directions()[i];
        writes = d != ir::ParamDirection::kIn;
        reads = d != ir::ParamDirection::kOut;
      } else if (def != nullptr) {
        ops::ArgEffect e = def->EffectOf(i);
        writes = e != ops::ArgEffect::kRead;
        reads = e != ops::ArgEffect::kWrite;
      }
      if (writes) written_.insert(root);
      if (reads) read_.insert(root);
    }
  }
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ir::IRVisitor::VisitAssignStmt(s);
    roots_.Define(s);
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    roots_.Define(s);
    ir::IRVisitor::VisitForStmt(s);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    roots_.Define(s);
    ir::IRVisitor::VisitWhileStmt(s);
  }

 private:
  BufferRoots roots_;
  const ir::Program* program_;
  absl::flat_hash_map<const ir::Var*, int> index_;
  absl::flat_hash_set<const ir::Var*> written_, read_;
};

class Outliner;

// Replaces the matching scopes of one function body by calls.
class ScopeRewriter : public ir::FlatteningMutator {
 public:
  ScopeRewriter(Outliner* outliner, const ir::FunctionPtr& parent, const VarUses& uses)
      : outliner_(outliner), parent_(parent), uses_(uses) {}
  absl::Status status;
  int outlined = 0;

 protected:
  ir::StmtPtr MutateExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override;

 private:
  Outliner* outliner_;
  ir::FunctionPtr parent_;
  const VarUses& uses_;
};

class Outliner {
 public:
  Outliner(const ir::ProgramPtr& program, const OutlineSpec& spec) : program_(program), spec_(spec) {
    for (const auto& [gv, f] : program->functions()) taken_.insert(f->name());
  }

  // Rewrites `f` and appends it, and every function outlined from it, to out_.
  absl::Status Process(const ir::FunctionPtr& f) {
    if (!spec_.eligible(*f) || f->body() == nullptr) {
      out_.push_back(f);
      return absl::OkStatus();
    }
    VarUses uses = CountUses(f->body());
    ScopeRewriter rewriter(this, f, uses);
    ir::StmtPtr body = rewriter.MutateStmt(f->body());
    RETURN_IF_ERROR(rewriter.status);
    if (body == f->body()) {
      out_.push_back(f);
      return absl::OkStatus();
    }
    changed_ = true;
    ir::FunctionType type = f->func_type();
    if (spec_.promote_parent && type == ir::FunctionType::kOpaque && rewriter.outlined > 0) {
      type = ir::FunctionType::kOrchestration;
    }
    if (type == f->func_type()) {
      out_.push_back(f->WithBody(body));
    } else {
      ASSIGN_OR_RETURN(ir::FunctionPtr g,
                       ir::Function::Create(f->name(), f->params(), f->param_directions(),
                                            f->return_types(), body, type, f->level(), f->role(),
                                            f->attrs(), f->requires_runtime_binding(), f->span()));
      out_.push_back(g);
    }
    // Outlined functions may hold nested scopes of the same kind.
    while (!pending_.empty()) {
      ir::FunctionPtr g = pending_.front();
      pending_.erase(pending_.begin());
      RETURN_IF_ERROR(Process(g));
    }
    return absl::OkStatus();
  }

  // The call (and result assignments) that replace scope `s` of `parent`.
  absl::StatusOr<ir::StmtPtr> Outline(const ir::FunctionPtr& parent, const VarUses& parent_uses,
                                      const std::shared_ptr<const ir::ExecScopeStmt>& s, int n) {
    // `with ... as tid` and `deps=[...]`: PyPTO's outliner makes the call a
    // Submit (docs/en/dev/language/02-manual_dependencies.md); here the
    // pl.submit form, a call marked `submit` whose last result is the task id.
    std::optional<std::vector<ir::ExprPtr>> deps =
        ir::GetAttr<std::vector<ir::ExprPtr>>(s->attrs(), ir::kAttrDeps);
    ir::VarPtr tid_var = ir::ScopeTaskIdVar(*s);
    const bool submit = tid_var != nullptr || deps.has_value();
    const ir::StmtPtr scope_body = spec_.body ? spec_.body(*s) : s->body();
    VarUses inside;
    inside.VisitStmt(scope_body);
    if (inside.bad_stmt != nullptr) {
      return UserError(inside.bad_stmt->span(),
                       pto::StrCat(spec_.pass, ": a return inside a `with` scope cannot leave the "
                                   "outlined function; return after the scope"));
    }
    // Live-in: used inside, defined before the scope.
    std::vector<ir::VarPtr> inputs;
    for (const ir::VarPtr& v : inside.order) {
      if (!inside.defs.contains(v.get())) inputs.push_back(v);
    }
    // Live-out: defined inside, used after it.
    std::vector<ir::VarPtr> outputs;
    CollectOutputs(scope_body, inside, parent_uses, &outputs);

    std::string name = NameFor(parent, *s, n);
    // Parameters are fresh Vars (an IterArg of the caller is a plain value
    // of the callee); the body and results are copied with fresh locals.
    std::vector<ir::VarPtr> params;
    ir::VarSubstMap subst;
    for (const ir::VarPtr& v : inputs) {
      ir::TypePtr type = ir::Substitute(v->type(), subst);
      auto p = std::make_shared<ir::Var>(v->name_hint(), type, v->span());
      subst[v.get()] = p;
      params.push_back(p);
    }
    std::vector<ir::ExprPtr> result_values(outputs.begin(), outputs.end());
    std::vector<ir::StmtPtr> stmts = {scope_body,
                                      std::make_shared<ir::ReturnStmt>(result_values,
                                                                       std::vector<std::string>{},
                                                                       s->span())};
    ir::StmtPtr body = CloneWithFreshVars(ir::SeqStmts::Flatten(stmts, s->span()), subst, "");
    auto seq = ir::As<ir::SeqStmts>(body);
    auto ret = ir::As<ir::ReturnStmt>(seq != nullptr ? seq->stmts().back() : body);
    std::vector<ir::TypePtr> return_types;
    for (const ir::ExprPtr& e : ret->value()) return_types.push_back(e->type());

    DirectionInference dirs(program_.get(), params);
    dirs.VisitStmt(body);
    std::vector<ir::ParamDirection> directions;
    for (const ir::VarPtr& p : params) directions.push_back(dirs.DirectionOf(p.get()));

    ASSIGN_OR_RETURN(ir::FunctionPtr g,
                     ir::Function::Create(name, params, directions, return_types, body,
                                          spec_.func_type(*s), spec_.level(*s), spec_.role(*s),
                                          spec_.func_attrs ? spec_.func_attrs(*s) : ir::AttrList{},
                                          false, s->span()));
    pending_.push_back(g);

    ir::AttrList attrs = spec_.call_attrs ? spec_.call_attrs(*s) : ir::AttrList{};
    std::vector<ir::ExprPtr> args(inputs.begin(), inputs.end());
    std::vector<ir::TypePtr> caller_types;
    for (const ir::VarPtr& v : outputs) caller_types.push_back(v->type());
    if (submit) {
      attrs.insert(attrs.begin(), {ir::kAttrSubmit, true});
      if (deps) attrs.emplace_back(ir::kAttrDeps, *deps);
      caller_types.push_back(ir::ScalarType::Get(ir::DataType::kTaskId));
      if (tid_var == nullptr) {
        tid_var = std::make_shared<ir::Var>(name + "_tid", caller_types.back(), s->span());
      }
    }
    ir::CallPtr call = ir::MakeGlobalCall(
        name, args,
        submit ? ir::TypePtr(std::make_shared<ir::TupleType>(caller_types))
               : ir::ReturnTypeOf(caller_types),
        attrs, s->span());
    std::vector<ir::StmtPtr> site;
    if (submit) {
      auto tuple = std::make_shared<ir::Var>(name + "_out", call->type(), s->span());
      site.push_back(std::make_shared<ir::AssignStmt>(tuple, call, s->span()));
      outputs.push_back(tid_var);
      for (size_t k = 0; k < outputs.size(); ++k) {
        site.push_back(std::make_shared<ir::AssignStmt>(
            outputs[k],
            std::make_shared<ir::TupleGetItem>(tuple, static_cast<int>(k), outputs[k]->type(),
                                               s->span()),
            s->span()));
      }
    } else if (outputs.empty()) {
      site.push_back(std::make_shared<ir::EvalStmt>(call, std::vector<std::string>{}, s->span()));
    } else if (outputs.size() == 1) {
      site.push_back(std::make_shared<ir::AssignStmt>(outputs[0], call, s->span()));
    } else {
      auto tuple = std::make_shared<ir::Var>(name + "_out", call->type(), s->span());
      site.push_back(std::make_shared<ir::AssignStmt>(tuple, call, s->span()));
      for (size_t k = 0; k < outputs.size(); ++k) {
        site.push_back(std::make_shared<ir::AssignStmt>(
            outputs[k],
            std::make_shared<ir::TupleGetItem>(tuple, static_cast<int>(k), outputs[k]->type(),
                                               s->span()),
            s->span()));
      }
    }
    return ir::SeqStmts::Flatten(site, s->span());
  }

  absl::StatusOr<ir::ProgramPtr> Finish() {
    if (!changed_) return program_;
    return ir::Program::Create(std::move(out_), program_->name(), program_->span());
  }

  const OutlineSpec& spec() const { return spec_; }

 private:
  // Definitions at the top level of the scope body (and of the `with` blocks
  // in it, which do not open a scope) that the rest of the function uses.
  void CollectOutputs(const ir::StmtPtr& body, const VarUses& inside, const VarUses& parent,
                      std::vector<ir::VarPtr>* outputs) {
    std::vector<ir::StmtPtr> stmts;
    if (auto seq = ir::As<ir::SeqStmts>(body)) {
      stmts = seq->stmts();
    } else {
      stmts = {body};
    }
    auto used_after = [&](const ir::VarPtr& v) {
      auto total = parent.count.find(v.get());
      auto in = inside.count.find(v.get());
      int t = total == parent.count.end() ? 0 : total->second;
      int i = in == inside.count.end() ? 0 : in->second;
      return t > i;
    };
    for (const ir::StmtPtr& st : stmts) {
      std::vector<ir::VarPtr> defined;
      if (auto a = ir::As<ir::AssignStmt>(st)) defined.push_back(a->var());
      if (auto f = ir::As<ir::ForStmt>(st)) defined = f->return_vars();
      if (auto w = ir::As<ir::WhileStmt>(st)) defined = w->return_vars();
      if (auto i = ir::As<ir::IfStmt>(st)) defined = i->return_vars();
      if (auto sc = ir::As<ir::ScopeStmt>(st)) {
        CollectOutputs(sc->body(), inside, parent, outputs);
        continue;
      }
      for (const ir::VarPtr& v : defined) {
        if (used_after(v)) outputs->push_back(v);
      }
    }
  }

  std::string NameFor(const ir::FunctionPtr& parent, const ir::ExecScopeStmt& s, int n) {
    std::string base = s.name_hint().empty() ? spec_.default_name(parent->name(), s, n)
                                             : s.name_hint();
    std::string name = base;
    // A hint another function already took is namespaced under this one.
    if (taken_.contains(name) && !s.name_hint().empty() && !own_[parent->name()].contains(name)) {
      name = parent->name() + "_" + base;
    }
    for (int k = 0; taken_.contains(name); ++k) name = pto::StrCat(base, "_", k);
    taken_.insert(name);
    own_[parent->name()].insert(name);
    return name;
  }

  ir::ProgramPtr program_;
  const OutlineSpec& spec_;
  std::vector<ir::FunctionPtr> out_;
  std::vector<ir::FunctionPtr> pending_;
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> own_;
  bool changed_ = false;
};

ir::StmtPtr ScopeRewriter::MutateExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) {
  if (!status.ok()) return s;
  if (!outliner_->spec().matches(*s)) return ir::IRMutator::MutateExecScopeStmt(s);
  absl::StatusOr<ir::StmtPtr> site = outliner_->Outline(parent_, uses_, s, outlined);
  if (!site.ok()) {
    status = site.status();
    return s;
  }
  ++outlined;
  return *site;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> OutlineScopes(const ir::ProgramPtr& program,
                                             const OutlineSpec& spec) {
  Outliner outliner(program, spec);
  for (const auto& [gv, f] : program->functions()) RETURN_IF_ERROR(outliner.Process(f));
  return outliner.Finish();
}

std::string LevelSuffix(ir::Level level) {
  switch (level) {
    case ir::Level::kAIV: return "aiv";
    case ir::Level::kAIC: return "aic";
    case ir::Level::kCoreGroup: return "core_group";
    case ir::Level::kChipDie: return "chip_die";
    case ir::Level::kChip: return "chip";
    case ir::Level::kHost: return "host";
    case ir::Level::kCluster0: return "cluster0";
    case ir::Level::kCluster1: return "cluster1";
    case ir::Level::kCluster2: return "cluster2";
    case ir::Level::kGlobal: return "global";
    case ir::Level::kUndefined: break;
  }
  return "undefined";
}

}  // namespace pto::passes
