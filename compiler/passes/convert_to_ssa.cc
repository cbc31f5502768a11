#include "compiler/passes/convert_to_ssa.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using VarSet = absl::flat_hash_set<const ir::Var*>;

// ---------------------------------------------------------------------------
// Analyses on the input (non-SSA) IR. Variable identity is the Var object: the
// parser gives every reassignment of a name the Var of its first definition.

class UseCollector : public ir::IRVisitor {
 public:
  explicit UseCollector(VarSet* out) : out_(out) {}
  void Attrs(const ir::AttrList& attrs) { VisitAttrs(attrs); }

 protected:
  void VisitVar(const ir::VarPtr& v) override {
    out_->insert(v.get());
    ir::IRVisitor::VisitVar(v);
  }
  void VisitIterArg(const ir::IterArgPtr& v) override {
    out_->insert(v.get());
    ir::IRVisitor::VisitIterArg(v);
  }

 private:
  VarSet* out_;
};

void AddUses(const ir::ExprPtr& e, VarSet* out) {
  if (e == nullptr) return;
  UseCollector c(out);
  c.VisitExpr(e);
}

void AddAttrUses(const ir::AttrList& attrs, VarSet* out) {
  UseCollector c(out);
  c.Attrs(attrs);
}

// The targets of the assignments in a statement, nested blocks included, in
// text order (the order of the iter args and phis this pass adds).
class AssignTargets : public ir::IRVisitor {
 public:
  std::vector<const ir::Var*> order;
  absl::flat_hash_map<const ir::Var*, ir::VarPtr> vars;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (vars.try_emplace(s->var().get(), s->var()).second) order.push_back(s->var().get());
  }
};

// Vars a statement always assigns (so a later read sees that value, not the
// one from before it). Branches and loop bodies may not run: they kill nothing.
void AddMustDefs(const ir::StmtPtr& s, VarSet* out) {
  if (auto a = ir::As<ir::AssignStmt>(s)) {
    out->insert(a->var().get());
  } else if (auto seq = ir::As<ir::SeqStmts>(s)) {
    for (const ir::StmtPtr& st : seq->stmts()) AddMustDefs(st, out);
  } else if (auto scope = ir::As<ir::ScopeStmt>(s)) {
    AddMustDefs(scope->body(), out);
  }
}

// Vars a statement may read before assigning them.
VarSet LiveIn(const ir::StmtPtr& s);

void AddLiveIn(const ir::StmtPtr& s, VarSet* out) {
  if (s == nullptr) return;
  if (auto a = ir::As<ir::AssignStmt>(s)) return AddUses(a->value(), out);
  if (auto e = ir::As<ir::EvalStmt>(s)) return AddUses(e->expr(), out);
  if (auto r = ir::As<ir::ReturnStmt>(s)) {
    for (const ir::ExprPtr& v : r->value()) AddUses(v, out);
    return;
  }
  if (auto y = ir::As<ir::YieldStmt>(s)) {
    for (const ir::ExprPtr& v : y->value()) AddUses(v, out);
    return;
  }
  if (auto seq = ir::As<ir::SeqStmts>(s)) {
    VarSet killed;
    for (const ir::StmtPtr& st : seq->stmts()) {
      for (const ir::Var* v : LiveIn(st)) {
        if (!killed.contains(v)) out->insert(v);
      }
      AddMustDefs(st, &killed);
    }
    return;
  }
  if (auto i = ir::As<ir::IfStmt>(s)) {
    AddUses(i->condition(), out);
    AddLiveIn(i->then_body(), out);
    if (i->else_body().has_value()) AddLiveIn(*i->else_body(), out);
    return;
  }
  if (auto f = ir::As<ir::ForStmt>(s)) {
    AddUses(f->start(), out);
    AddUses(f->stop(), out);
    AddUses(f->step(), out);
    for (const ir::IterArgPtr& ia : f->iter_args()) AddUses(ia->init_value(), out);
    AddAttrUses(f->attrs(), out);
    VarSet body = LiveIn(f->body());
    body.erase(f->loop_var().get());
    for (const ir::IterArgPtr& ia : f->iter_args()) body.erase(ia.get());
    out->insert(body.begin(), body.end());
    return;
  }
  if (auto w = ir::As<ir::WhileStmt>(s)) {
    for (const ir::IterArgPtr& ia : w->iter_args()) AddUses(ia->init_value(), out);
    VarSet body = LiveIn(w->body());
    AddUses(w->condition(), &body);
    for (const ir::IterArgPtr& ia : w->iter_args()) body.erase(ia.get());
    out->insert(body.begin(), body.end());
    return;
  }
  if (auto scope = ir::As<ir::ScopeStmt>(s)) {
    AddAttrUses(scope->attrs(), out);
    if (auto ex = ir::As<ir::ExecScopeStmt>(s)) AddUses(ex->core_num(), out);
    AddLiveIn(scope->body(), out);
  }
}

VarSet LiveIn(const ir::StmtPtr& s) {
  VarSet out;
  AddLiveIn(s, &out);
  return out;
}

// A break/continue of this loop (not of a loop nested in it).
class OwnJumpFinder : public ir::IRVisitor {
 public:
  const ir::Stmt* found = nullptr;
  bool is_break = false;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>&) override {}
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>&) override {}
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    if (found == nullptr) {
      found = s.get();
      is_break = true;
    }
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    if (found == nullptr) found = s.get();
  }
};

// Uses rewritten to the current versions, in expressions, types and attrs.
class Renamer : public ir::IRMutator {
 public:
  explicit Renamer(const ir::VarSubstMap& map) : map_(map) {}
  std::optional<ir::AttrList> Attrs(const ir::AttrList& attrs) { return MutateAttrs(attrs); }

 protected:
  ir::ExprPtr MutateVar(const ir::VarPtr& var) override {
    auto it = map_.find(var.get());
    if (it != map_.end()) return it->second;
    return ir::IRMutator::MutateVar(var);
  }

 private:
  const ir::VarSubstMap& map_;
};

// The statements of a body, and its trailing yield taken off.
std::vector<ir::StmtPtr> BodyStmts(const ir::StmtPtr& body, std::shared_ptr<const ir::YieldStmt>* yield) {
  std::vector<ir::StmtPtr> stmts;
  ir::StmtPtr flat = ir::SeqStmts::Flatten({body}, body->span());
  if (auto seq = ir::As<ir::SeqStmts>(flat)) {
    stmts = seq->stmts();
  } else {
    stmts.push_back(flat);
  }
  *yield = nullptr;
  if (!stmts.empty()) {
    if (auto y = ir::As<ir::YieldStmt>(stmts.back())) {
      *yield = y;
      stmts.pop_back();
    }
  }
  return stmts;
}

// `body` ending with a yield of `head` (the values it already yields, when
// they are kept) followed by `extra`.
ir::StmtPtr WithYield(const ir::StmtPtr& body, bool keep_head, const std::vector<ir::ExprPtr>& extra,
                      const Span& span) {
  std::shared_ptr<const ir::YieldStmt> old;
  std::vector<ir::StmtPtr> stmts = BodyStmts(body, &old);
  std::vector<ir::ExprPtr> values;
  if (old != nullptr && keep_head) values = old->value();
  values.insert(values.end(), extra.begin(), extra.end());
  stmts.push_back(std::make_shared<ir::YieldStmt>(std::move(values), old != nullptr ? old->span() : span));
  return std::make_shared<ir::SeqStmts>(std::move(stmts), body->span());
}

// ---------------------------------------------------------------------------
// The conversion of one function body. `cur_` maps a Var to its current
// version where that is not the Var itself; the first definition of a Var
// keeps the Var (an SSA input comes back unchanged).

class Converter {
 public:
  absl::Status status;

  explicit Converter(const ir::FunctionPtr& f) : func_(f) {
    for (const ir::VarPtr& p : f->params()) Available(p);
  }

  ir::StmtPtr Convert(const ir::StmtPtr& s, const VarSet& live_out) {
    if (s == nullptr || !status.ok()) return s;
    if (auto a = ir::As<ir::AssignStmt>(s)) return ConvertAssign(a);
    if (auto seq = ir::As<ir::SeqStmts>(s)) return ConvertSeq(seq, live_out);
    if (auto i = ir::As<ir::IfStmt>(s)) return ConvertIf(i, live_out);
    if (auto f = ir::As<ir::ForStmt>(s)) return ConvertFor(f, live_out);
    if (auto w = ir::As<ir::WhileStmt>(s)) return ConvertWhile(w, live_out);
    if (auto e = ir::As<ir::EvalStmt>(s)) {
      ir::ExprPtr x = Sub(e->expr());
      if (x == e->expr()) return s;
      return std::make_shared<ir::EvalStmt>(std::move(x), e->leading_comments(), e->span());
    }
    if (auto r = ir::As<ir::ReturnStmt>(s)) {
      bool changed = false;
      std::vector<ir::ExprPtr> v = SubAll(r->value(), &changed);
      if (!changed) return s;
      return std::make_shared<ir::ReturnStmt>(std::move(v), r->leading_comments(), r->span());
    }
    if (auto y = ir::As<ir::YieldStmt>(s)) {
      bool changed = false;
      std::vector<ir::ExprPtr> v = SubAll(y->value(), &changed);
      if (!changed) return s;
      return std::make_shared<ir::YieldStmt>(std::move(v), y->span());
    }
    if (auto scope = ir::As<ir::ScopeStmt>(s)) return ConvertScope(scope, live_out);
    return s;  // break, continue
  }

 private:
  ir::ExprPtr Current(const ir::Var* v, const ir::VarPtr& self) const {
    auto it = cur_.find(v);
    return it != cur_.end() ? it->second : self;
  }
  static ir::ExprPtr CurrentIn(const ir::VarSubstMap& m, const ir::Var* v, const ir::VarPtr& self) {
    auto it = m.find(v);
    return it != m.end() ? it->second : self;
  }
  ir::ExprPtr Sub(const ir::ExprPtr& e) {
    if (e == nullptr || cur_.empty()) return e;
    Renamer r(cur_);
    return r.MutateExpr(e);
  }
  ir::TypePtr SubType(const ir::TypePtr& t) {
    if (t == nullptr || cur_.empty()) return t;
    Renamer r(cur_);
    return r.MutateType(t);
  }
  std::optional<ir::AttrList> SubAttrs(const ir::AttrList& attrs) {
    if (cur_.empty()) return std::nullopt;
    Renamer r(cur_);
    return r.Attrs(attrs);
  }
  std::vector<ir::ExprPtr> SubAll(const std::vector<ir::ExprPtr>& in, bool* changed) {
    std::vector<ir::ExprPtr> out;
    out.reserve(in.size());
    for (const ir::ExprPtr& e : in) {
      out.push_back(Sub(e));
      if (out.back() != e) *changed = true;
    }
    return out;
  }
  // A first definition keeps its Var (rebuilt only when its type names a
  // reassigned Var).
  ir::VarPtr DefineFirst(const ir::VarPtr& v) {
    Available(v);
    ir::TypePtr t = SubType(v->type());
    ir::VarPtr nv;
    if (auto ia = ir::As<ir::IterArg>(v)) {
      ir::ExprPtr init = Sub(ia->init_value());
      if (t == v->type() && init == ia->init_value()) return v;
      nv = std::make_shared<ir::IterArg>(v->name_hint(), t, std::move(init), v->span());
    } else {
      if (t == v->type()) return v;
      nv = std::make_shared<ir::Var>(v->name_hint(), t, v->span());
    }
    cur_[v.get()] = nv;
    return nv;
  }

  ir::StmtPtr ConvertAssign(const std::shared_ptr<const ir::AssignStmt>& a) {
    ir::ExprPtr value = Sub(a->value());
    const ir::VarPtr& v = a->var();
    ir::VarPtr target;
    if (!defined_.contains(v.get())) {
      target = DefineFirst(v);
    } else {
      // A reassignment: a new version, typed by its value where that agrees
      // (a tile's new value may have another valid shape).
      ir::TypePtr t = value != nullptr && ir::TypesAgree(v->type(), value->type())
                          ? value->type()
                          : SubType(v->type());
      target = std::make_shared<ir::Var>(v->name_hint(), std::move(t), a->span());
      cur_[v.get()] = target;
      avail_.insert(v.get());
    }
    if (target == v && value == a->value()) return a;
    return std::make_shared<ir::AssignStmt>(std::move(target), std::move(value), a->span());
  }

  ir::StmtPtr ConvertSeq(const std::shared_ptr<const ir::SeqStmts>& seq, const VarSet& live_out) {
    const std::vector<ir::StmtPtr>& stmts = seq->stmts();
    size_t n = stmts.size();
    // need[j]: what stmts[j..] (and the code after the sequence) may read
    // before assigning it.
    std::vector<VarSet> need(n + 1);
    need[n] = live_out;
    for (size_t j = n; j > 0; --j) {
      VarSet killed;
      AddMustDefs(stmts[j - 1], &killed);
      need[j - 1] = LiveIn(stmts[j - 1]);
      for (const ir::Var* v : need[j]) {
        if (!killed.contains(v)) need[j - 1].insert(v);
      }
    }
    bool changed = false;
    std::vector<ir::StmtPtr> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      out.push_back(Convert(stmts[i], need[i + 1]));
      if (out.back() != stmts[i]) changed = true;
    }
    if (!changed) return seq;
    return std::make_shared<ir::SeqStmts>(std::move(out), seq->span());
  }

  // What a loop carries: the Vars available before it that its body assigns
  // and that are read later (`read`), and the Vars first assigned in the body
  // and read after the loop (`live_out`: the escaping ones PyPTO promotes), in
  // the order the body first assigns them.
  std::vector<ir::VarPtr> Carried(const ir::StmtPtr& body, const VarSet& read,
                                  const VarSet& live_out, VarSet* escaping) const {
    AssignTargets targets;
    targets.VisitStmt(body);
    std::vector<ir::VarPtr> out;
    for (const ir::Var* v : targets.order) {
      if (avail_.contains(v) ? read.contains(v) : live_out.contains(v)) {
        out.push_back(targets.vars.at(v));
        if (!avail_.contains(v)) escaping->insert(v);
      }
    }
    return out;
  }

  // The value an escaping Var starts from, for a loop that runs zero times (as
  // PyPTO chooses it): an Out or InOut parameter of its type, else the first
  // value of its type defined before the loop and visible there.
  ir::ExprPtr EscapingInit(const ir::TypePtr& type, const VarSet& before) const {
    const std::string want = ir::PrintType(type);
    auto matches = [&](const ir::VarPtr& v) {
      return before.contains(v.get()) && ir::PrintType(Current(v.get(), v)->type()) == want;
    };
    const auto& params = func_->params();
    const auto& dirs = func_->param_directions();
    for (size_t i = 0; i < params.size() && i < dirs.size(); ++i) {
      if (dirs[i] != ir::ParamDirection::kIn && matches(params[i])) {
        return Current(params[i].get(), params[i]);
      }
    }
    for (const ir::VarPtr& v : order_) {
      if (matches(v)) return Current(v.get(), v);
    }
    return nullptr;
  }

  ir::StmtPtr ConvertIf(const std::shared_ptr<const ir::IfStmt>& s, const VarSet& live_out) {
    ir::ExprPtr cond = Sub(s->condition());
    AssignTargets targets;
    targets.VisitStmt(s->then_body());
    if (s->else_body().has_value()) targets.VisitStmt(*s->else_body());
    const ir::VarSubstMap before = cur_;
    const VarSet avail_before = avail_;
    ir::StmtPtr then_body = Convert(s->then_body(), live_out);
    const ir::VarSubstMap then_cur = cur_;
    const VarSet then_avail = std::move(avail_);
    cur_ = before;
    avail_ = avail_before;
    std::optional<ir::StmtPtr> else_body;
    if (s->else_body().has_value()) else_body = Convert(*s->else_body(), live_out);
    if (!status.ok()) return s;
    const ir::VarSubstMap else_cur = cur_;
    const VarSet else_avail = std::move(avail_);
    cur_ = before;
    avail_ = avail_before;
    // A phi for each Var assigned in the if and read after it: available
    // before the if, or (PyPTO's rule for a new Var) assigned on both paths.
    std::vector<ir::VarPtr> phis;
    for (const ir::Var* v : targets.order) {
      if (!live_out.contains(v)) continue;
      bool in_then = then_avail.contains(v), in_else = else_avail.contains(v);
      if (avail_before.contains(v) || (in_then && in_else)) {
        phis.push_back(targets.vars.at(v));
        continue;
      }
      status = UserError(
          s->span(),
          pto::StrCat("ConvertToSSA: '", v->name_hint(), "' is read after this if, which assigns "
                      "it only in its ", in_then ? "then" : "else", " branch, and it has no "
                      "value before the if; assign it in both branches, or before the if"));
      return s;
    }

    std::vector<ir::VarPtr> return_vars;
    for (const ir::VarPtr& rv : s->return_vars()) return_vars.push_back(DefineFirst(rv));
    if (!phis.empty()) {
      std::vector<ir::ExprPtr> then_vals, else_vals;
      for (const ir::VarPtr& v : phis) {
        ir::ExprPtr tv = CurrentIn(then_cur, v.get(), v);
        then_vals.push_back(tv);
        else_vals.push_back(CurrentIn(else_cur, v.get(), v));
        auto phi = std::make_shared<ir::Var>(v->name_hint(), tv->type(), s->span());
        return_vars.push_back(phi);
        cur_[v.get()] = phi;
        Available(v);
      }
      // Values yielded by an if without results carry nothing: replaced.
      bool keep = !s->return_vars().empty();
      then_body = WithYield(then_body, keep, then_vals, s->span());
      if (else_body.has_value()) {
        else_body = WithYield(*else_body, keep, else_vals, s->span());
      } else {
        else_body = std::make_shared<ir::SeqStmts>(
            std::vector<ir::StmtPtr>{std::make_shared<ir::YieldStmt>(else_vals, s->span())},
            s->span());
      }
    }
    bool same_rvs = return_vars == s->return_vars();
    if (cond == s->condition() && then_body == s->then_body() && else_body == s->else_body() &&
        same_rvs) {
      return s;
    }
    return std::make_shared<ir::IfStmt>(std::move(cond), std::move(then_body), std::move(else_body),
                                        std::move(return_vars), s->span());
  }

  // What a loop's conversion hands back: the new iter args, body and return
  // vars.
  struct LoopParts {
    std::vector<ir::IterArgPtr> iter_args;
    ir::StmtPtr body;
    std::vector<ir::VarPtr> return_vars;
    ir::ExprPtr condition;  // while loops
    bool changed = false;
  };

  // Shared by for and while: `read` is what the body may read before
  // assigning (and the condition), `live_out` what is read after the loop.
  LoopParts ConvertLoop(const ir::Stmt& loop, const std::vector<ir::IterArgPtr>& iter_args,
                        const ir::StmtPtr& body, const std::vector<ir::VarPtr>& return_vars,
                        const ir::ExprPtr& condition, const VarSet& read, const VarSet& live_out,
                        const VarSet& avail_outer) {
    LoopParts p;
    VarSet wanted = read;
    wanted.insert(live_out.begin(), live_out.end());
    VarSet escaping;
    std::vector<ir::VarPtr> carried = Carried(body, wanted, live_out, &escaping);
    if (!carried.empty()) {
      OwnJumpFinder jumps;
      jumps.VisitStmt(body);
      if (jumps.found != nullptr) {
        status = UserError(jumps.found->span(),
                           pto::StrCat("ConvertToSSA: '", carried[0]->name_hint(),
                                       "' is reassigned in a loop that has '",
                                       jumps.is_break ? "break" : "continue",
                                       "'; run CtrlFlowTransform (03) before ConvertToSSA"));
        return p;
      }
    }
    // Existing iter args: their init values are read before the loop.
    for (const ir::IterArgPtr& ia : iter_args) {
      ir::VarPtr nv = DefineFirst(ia);
      p.iter_args.push_back(ir::As<ir::IterArg>(nv));
      if (nv != ia) p.changed = true;
    }
    std::vector<ir::VarPtr> new_rvs;
    for (const ir::VarPtr& v : carried) {
      ir::ExprPtr init;
      if (!escaping.contains(v.get())) {
        init = Current(v.get(), v);
      } else if (init = EscapingInit(SubType(v->type()), avail_outer); init == nullptr) {
        status = UserError(
            loop.span(),
            pto::StrCat("ConvertToSSA: '", v->name_hint(), "' is first assigned in this loop's "
                        "body and read after the loop, but no value of its type (",
                        ir::PrintType(v->type()), ") is defined before the loop to carry in (the "
                        "loop may run zero times); assign '", v->name_hint(),
                        "' before the loop"));
        return p;
      }
      auto ia = std::make_shared<ir::IterArg>(v->name_hint(), init->type(), init, loop.span());
      p.iter_args.push_back(ia);
      new_rvs.push_back(std::make_shared<ir::Var>(v->name_hint(), init->type(), loop.span()));
    }
    const ir::VarSubstMap before = cur_;
    for (size_t k = 0; k < carried.size(); ++k) {
      cur_[carried[k].get()] = p.iter_args[iter_args.size() + k];
      // The body's assignment of an escaping Var is now a new version.
      Available(carried[k]);
    }
    if (condition != nullptr) p.condition = Sub(condition);
    VarSet body_out = read;
    body_out.insert(live_out.begin(), live_out.end());
    p.body = Convert(body, body_out);
    if (!status.ok()) return p;
    if (!carried.empty()) {
      std::vector<ir::ExprPtr> yields;
      for (const ir::VarPtr& v : carried) yields.push_back(Current(v.get(), v));
      p.body = WithYield(p.body, true, yields, loop.span());
    }
    cur_ = before;
    // What the body defined is not visible after it; what it carries is.
    avail_ = avail_outer;
    for (const ir::VarPtr& v : carried) avail_.insert(v.get());
    for (const ir::VarPtr& rv : return_vars) p.return_vars.push_back(DefineFirst(rv));
    if (!carried.empty() && return_vars.empty()) {
      // The loop gets results: one per iter arg, the existing ones included.
      for (const ir::IterArgPtr& ia : iter_args) {
        p.return_vars.push_back(std::make_shared<ir::Var>(ia->name_hint(), ia->type(), loop.span()));
      }
    }
    for (size_t k = 0; k < carried.size(); ++k) {
      p.return_vars.push_back(new_rvs[k]);
      cur_[carried[k].get()] = new_rvs[k];
    }
    p.changed = p.changed || !carried.empty() || p.body != body || p.return_vars != return_vars ||
                p.condition != condition;
    return p;
  }

  ir::StmtPtr ConvertFor(const std::shared_ptr<const ir::ForStmt>& s, const VarSet& live_out) {
    ir::ExprPtr start = Sub(s->start()), stop = Sub(s->stop()), step = Sub(s->step());
    std::optional<ir::AttrList> attrs = SubAttrs(s->attrs());
    const VarSet avail_outer = avail_;
    ir::VarPtr loop_var = DefineFirst(s->loop_var());
    VarSet read = LiveIn(s->body());
    LoopParts p = ConvertLoop(*s, s->iter_args(), s->body(), s->return_vars(), nullptr, read,
                              live_out, avail_outer);
    if (!status.ok()) return s;
    if (!p.changed && start == s->start() && stop == s->stop() && step == s->step() &&
        !attrs.has_value() && loop_var == s->loop_var()) {
      return s;
    }
    return std::make_shared<ir::ForStmt>(std::move(loop_var), std::move(start), std::move(stop),
                                         std::move(step), std::move(p.iter_args),
                                         std::move(p.body), std::move(p.return_vars),
                                         s->for_kind(), attrs.value_or(s->attrs()), s->span());
  }

  ir::StmtPtr ConvertWhile(const std::shared_ptr<const ir::WhileStmt>& s, const VarSet& live_out) {
    VarSet read = LiveIn(s->body());
    AddUses(s->condition(), &read);
    const VarSet avail_outer = avail_;
    LoopParts p = ConvertLoop(*s, s->iter_args(), s->body(), s->return_vars(), s->condition(),
                              read, live_out, avail_outer);
    if (!status.ok()) return s;
    if (!p.changed) return s;
    return std::make_shared<ir::WhileStmt>(std::move(p.condition), std::move(p.iter_args),
                                           std::move(p.body), std::move(p.return_vars),
                                           s->span());
  }

  // Scope bodies are not blocks: what they assign is seen after them.
  ir::StmtPtr ConvertScope(const std::shared_ptr<const ir::ScopeStmt>& s, const VarSet& live_out) {
    std::optional<ir::AttrList> attrs = SubAttrs(s->attrs());
    ir::StmtPtr body = Convert(s->body(), live_out);
    if (auto ex = ir::As<ir::ExecScopeStmt>(s)) {
      ir::ExprPtr core_num = Sub(ex->core_num());
      if (body == s->body() && !attrs.has_value() && core_num == ex->core_num()) return s;
      return std::make_shared<ir::ExecScopeStmt>(ex->GetScopeKind(), ex->name_hint(), ex->level(),
                                                 ex->role(), std::move(core_num),
                                                 ex->sync_start(), std::move(body),
                                                 attrs.value_or(s->attrs()), s->span());
    }
    if (body == s->body() && !attrs.has_value()) return s;
    if (auto rt = ir::As<ir::RuntimeScopeStmt>(s)) {
      return std::make_shared<ir::RuntimeScopeStmt>(rt->name_hint(), rt->manual(), std::move(body),
                                                    attrs.value_or(s->attrs()), s->span());
    }
    auto cd = ir::As<ir::CommDomainScopeStmt>(s);
    return std::make_shared<ir::CommDomainScopeStmt>(cd->name_hint(), cd->devices(), cd->slots(),
                                                     std::move(body), attrs.value_or(s->attrs()),
                                                     s->span());
  }

  // `v` is defined (a later assignment is a new version) and visible here.
  void Available(const ir::VarPtr& v) {
    if (defined_.insert(v.get()).second) order_.push_back(v);
    avail_.insert(v.get());
  }

  const ir::FunctionPtr& func_;
  // Every Var defined so far (in order_, in definition order), and those
  // visible at this point: blocks end their own definitions, except the ones
  // carried out of a loop or merged by a phi.
  VarSet defined_;
  std::vector<ir::VarPtr> order_;
  VarSet avail_;
  ir::VarSubstMap cur_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> ConvertToSSAPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    Converter c(f);
    ir::StmtPtr body = c.Convert(f->body(), VarSet());
    if (!c.status.ok()) return c.status;
    return body;
  });
}

std::unique_ptr<Pass> CreateConvertToSSAPass() { return std::make_unique<ConvertToSSAPass>(); }

}  // namespace pto::passes
