#include "compiler/ir/print_names.h"

#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/print_text.h"
#include "compiler/support/strings.h"

namespace pto::ir::print_internal {
namespace {

// Chooses the printed name of every variable of one function so that the text
// re-parses to the same bindings: a value reuses its hint unless an earlier
// value printed under that name is still used while the new one is visible.
// Statement indices are assigned in print order by Walk(), which the printer
// mirrors exactly.
class NameAssigner {
 public:
  PrintedNames TakeNames() { return std::move(names_); }

  void Run(const FunctionPtr& f) {
    // Fast path: when no two values of the function would print under one name,
    // every value simply prints under its hint.
    if (!HasSharedNames(f)) return;
    // Pass 1: record use positions and block ends.
    counter_ = 0;
    collecting_ = true;
    for (const VarPtr& p : f->params()) all_hints_.insert(p->name_hint());
    WalkBlock(f->body(), nullptr);
    // Pass 2: assign names with the same indexing.
    counter_ = 0;
    collecting_ = false;
    scopes_.clear();
    scopes_.emplace_back();
    candidates_.clear();
    candidates_.emplace_back();
    int end = counter_limit_;
    for (const VarPtr& p : f->params()) Define(p, 0, end);
    WalkBlock(f->body(), nullptr);
  }

 private:
  using Scope = absl::flat_hash_map<std::string, const Var*>;

  // Walks only the definitions; records names for hints that are not plain.
  bool HasSharedNames(const FunctionPtr& f) {
    absl::flat_hash_map<std::string_view, const Var*> owner;
    std::vector<std::string> sanitized;  // storage for keys of non-plain hints
    sanitized.reserve(8);
    bool shared = false;
    auto def = [&](const Var* v) {
      std::string_view key = v->name_hint();
      if (!IsPlainName(key)) {
        if (!names_.contains(v)) names_[v] = SanitizeName(key);
        key = names_[v];
      }
      auto [it, inserted] = owner.emplace(key, v);
      if (!inserted && it->second != v) shared = true;
    };
    for (const VarPtr& p : f->params()) def(p.get());
    DefsIn(f->body(), def);
    if (shared) names_.clear();
    return shared;
  }

  template <typename F>
  static void DefsIn(const StmtPtr& s, F& def) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case NodeKind::kSeqStmts:
        for (const StmtPtr& c : static_cast<const SeqStmts&>(*s).stmts()) DefsIn(c, def);
        return;
      case NodeKind::kAssignStmt:
        def(static_cast<const AssignStmt&>(*s).var().get());
        return;
      case NodeKind::kIfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        DefsIn(i.then_body(), def);
        if (i.else_body()) DefsIn(*i.else_body(), def);
        for (const VarPtr& v : i.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        def(f.loop_var().get());
        for (const IterArgPtr& ia : f.iter_args()) def(ia.get());
        DefsIn(f.body(), def);
        for (const VarPtr& v : f.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kWhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        for (const IterArgPtr& ia : w.iter_args()) def(ia.get());
        DefsIn(w.body(), def);
        for (const VarPtr& v : w.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kCommDomainScopeStmt:
      case NodeKind::kRuntimeScopeStmt:
      case NodeKind::kExecScopeStmt:
        DefsIn(static_cast<const ScopeStmt&>(*s).body(), def);
        return;
      default:
        return;
    }
  }

  void WalkBlock(const StmtPtr& body, const Stmt* /*owner*/) {
    WalkStmt(body);
    if (collecting_) counter_limit_ = std::max(counter_limit_, counter_);
  }

  int Next() { return ++counter_; }

  void UseExpr(const ExprPtr& e, int at) {
    if (e == nullptr) return;
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
      case NodeKind::kMemRef: {
        const Var* v = static_cast<const Var*>(e.get());
        if (collecting_) uses_[v].push_back(at);
        return;
      }
      case NodeKind::kWindowBuffer: {
        auto wb = As<WindowBuffer>(e);
        if (wb->base() != nullptr) UseExpr(wb->base(), at);
        return;
      }
      case NodeKind::kBinaryExpr: {
        auto b = As<BinaryExpr>(e);
        UseExpr(b->lhs(), at);
        UseExpr(b->rhs(), at);
        return;
      }
      case NodeKind::kUnaryExpr:
        UseExpr(As<UnaryExpr>(e)->operand(), at);
        return;
      case NodeKind::kCall: {
        auto c = As<Call>(e);
        for (const ExprPtr& a : c->args()) UseExpr(a, at);
        for (const auto& [k, v] : c->kwargs()) UseAttr(v, at);
        for (const auto& [k, v] : c->attrs()) UseAttr(v, at);
        return;
      }
      case NodeKind::kMakeTuple:
        for (const ExprPtr& x : As<MakeTuple>(e)->elements()) UseExpr(x, at);
        return;
      case NodeKind::kTupleGetItem:
        UseExpr(As<TupleGetItem>(e)->tuple(), at);
        return;
      case NodeKind::kCast:
        UseExpr(As<Cast>(e)->value(), at);
        return;
      default:
        return;
    }
  }

  void UseAttr(const AttrValue& v, int at) {
    if (auto* e = std::get_if<ExprPtr>(&v)) UseExpr(*e, at);
    if (auto* l = std::get_if<std::vector<ExprPtr>>(&v)) {
      for (const ExprPtr& e : *l) UseExpr(e, at);
    }
  }

  void UseType(const TypePtr& t, int at) {
    auto s = As<ShapedType>(t);
    if (s != nullptr) {
      for (const ExprPtr& d : s->shape()) UseExpr(d, at);
      if (auto tt = AsTensorTypeLike(t)) {
        if (tt->tensor_view()) {
          for (const ExprPtr& d : tt->tensor_view()->stride) UseExpr(d, at);
          for (const ExprPtr& d : tt->tensor_view()->valid_shape) UseExpr(d, at);
        }
      }
      if (auto tile = As<TileType>(t)) {
        for (const ExprPtr& d : tile->valid_shape()) UseExpr(d, at);
      }
      if (auto dt = As<DistributedTensorType>(t)) {
        if (dt->window_buffer() && *dt->window_buffer()) UseExpr(*dt->window_buffer(), at);
      }
      if (s->memref() && *s->memref()) UseExpr((*s->memref())->addr(), at);
    }
    if (auto tup = As<TupleType>(t)) {
      for (const TypePtr& x : tup->types()) UseType(x, at);
    }
  }

  // Defines `v` at index `at`, visible until `end` (the end of its block).
  // `assignment`: `v` is the target of an assignment, which the parser reads
  // as a reassignment when its name is bound in an enclosing block.
  void Define(const VarPtr& v, int at, int end, bool assignment = false) {
    if (collecting_) {
      all_hints_.insert(v->name_hint());
      return;
    }
    if (names_.contains(v.get())) {
      const std::string& name = names_[v.get()];
      if (assignment) NoteAssigned(v.get(), name);
      scopes_.back()[name] = v.get();
      return;
    }
    std::string name = SanitizeName(v->name_hint());
    bool must_rename = false;
    if (const Var* u = Lookup(name); u != nullptr && u != v.get()) {
      must_rename = UsedIn(u, at, end) || (assignment && !scopes_.back().contains(name));
    }
    // In an else branch the parser reads an assignment to a name the then
    // branch assigned as the same Var.
    if (assignment && PendingOther(name, v.get())) must_rename = true;
    // Window allocations are referred to by name: keep them distinct.
    if (Is<PtrType>(v->type()) && used_names_.contains(name)) must_rename = true;
    if (must_rename) name = FreshName(name);
    names_[v.get()] = name;
    used_names_.insert(name);
    if (assignment) NoteAssigned(v.get(), name);
    scopes_.back()[name] = v.get();
  }

  // The parser keeps a name first bound by an assignment inside a block bound
  // after the block (to the block's last value of it): mirrored here so that
  // the names chosen after the block read back the same.
  void NoteAssigned(const Var* v, const std::string& name) {
    assigned_.insert(v);
    if (Lookup(name) == nullptr) candidates_.back().push_back(name);
  }

  bool PendingOther(const std::string& name, const Var* v) const {
    for (const Escapes& p : pending_) {
      for (const auto& [n, u] : p) {
        if (n == name && u != v) return true;
      }
    }
    return false;
  }

  using Escapes = std::vector<std::pair<std::string, const Var*>>;

  // Binds names escaped from a block in the current scope, where they may
  // escape further.
  void BindEscapes(const Escapes& escapes) {
    for (const auto& [name, v] : escapes) {
      if (Lookup(name) == nullptr) candidates_.back().push_back(name);
      scopes_.back()[name] = v;
    }
  }

  const Var* Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }

  bool UsedIn(const Var* u, int after, int until) const {
    auto it = uses_.find(u);
    if (it == uses_.end()) return false;
    const std::vector<int>& pos = it->second;  // ascending: recorded in order
    auto lb = std::upper_bound(pos.begin(), pos.end(), after);
    return lb != pos.end() && *lb <= until;
  }

  std::string FreshName(const std::string& base) {
    for (int i = 1;; ++i) {
      std::string candidate = pto::StrCat(base, "_", i);
      if (!all_hints_.contains(candidate) && !used_names_.contains(candidate)) return candidate;
    }
  }

  int BlockEnd(const StmtPtr& body) const {
    auto it = block_end_.find(body.get());
    return it == block_end_.end() ? counter_limit_ : it->second;
  }

  // The end of the innermost enclosing block (for definitions in it).
  int CurrentEnd() const { return block_stack_.empty() ? counter_limit_ : block_stack_.back(); }

  void WalkStmt(const StmtPtr& s) {
    if (s == nullptr) return;
    if (auto seq = As<SeqStmts>(s)) {
      for (const StmtPtr& c : seq->stmts()) WalkStmt(c);
      return;
    }
    int at = Next();
    switch (s->kind()) {
      case NodeKind::kAssignStmt: {
        auto a = As<AssignStmt>(s);
        UseExpr(a->value(), at);
        UseType(a->var()->type(), at);
        Define(a->var(), at, CurrentEnd(), /*assignment=*/true);
        return;
      }
      case NodeKind::kEvalStmt:
        UseExpr(As<EvalStmt>(s)->expr(), at);
        return;
      case NodeKind::kReturnStmt:
        for (const ExprPtr& e : As<ReturnStmt>(s)->value()) UseExpr(e, at);
        return;
      case NodeKind::kYieldStmt: {
        for (const ExprPtr& e : As<YieldStmt>(s)->value()) UseExpr(e, at);
        if (!yield_targets_.empty() && yield_targets_.back() != nullptr) {
          // Results become visible after the owning statement, in the outer block.
          int outer_end = block_stack_.size() >= 2 ? block_stack_[block_stack_.size() - 2]
                                                   : counter_limit_;
          for (const VarPtr& rv : *yield_targets_.back()) {
            if (collecting_) {
              Define(rv, at, outer_end);
            } else if (!names_.contains(rv.get())) {
              pending_results_.push_back({rv, at, outer_end});
            }
          }
        }
        return;
      }
      case NodeKind::kIfStmt: {
        auto i = As<IfStmt>(s);
        UseExpr(i->condition(), at);
        yield_targets_.push_back(&i->return_vars());
        Escapes then_escapes = EnterBlock(i->then_body());
        Escapes else_escapes;
        if (i->else_body()) {
          pending_.push_back(then_escapes);
          else_escapes = EnterBlock(*i->else_body());
          pending_.pop_back();
        }
        yield_targets_.pop_back();
        if (!collecting_) {
          BindEscapes(then_escapes);
          BindEscapes(else_escapes);
        }
        FlushResults();
        return;
      }
      case NodeKind::kForStmt: {
        auto f = As<ForStmt>(s);
        UseExpr(f->start(), at);
        UseExpr(f->stop(), at);
        UseExpr(f->step(), at);
        for (const IterArgPtr& ia : f->iter_args()) UseExpr(ia->init_value(), at);
        for (const auto& [k, v] : f->attrs()) UseAttr(v, at);
        yield_targets_.push_back(&f->return_vars());
        Escapes escapes = EnterBlock(f->body(), [&](int end) {
          Define(f->loop_var(), at, end);
          for (const IterArgPtr& ia : f->iter_args()) Define(ia, at, end);
        });
        yield_targets_.pop_back();
        if (!collecting_) BindEscapes(escapes);
        FlushResults();
        return;
      }
      case NodeKind::kWhileStmt: {
        auto w = As<WhileStmt>(s);
        for (const IterArgPtr& ia : w->iter_args()) UseExpr(ia->init_value(), at);
        yield_targets_.push_back(&w->return_vars());
        Escapes escapes;
        if (w->iter_args().empty()) {
          UseExpr(w->condition(), at);
          escapes = EnterBlock(w->body());
        } else {
          escapes = EnterBlock(w->body(), [&](int end) {
            for (const IterArgPtr& ia : w->iter_args()) Define(ia, at, end);
            // `pl.cond(...)` is the first line of the body.
            UseExpr(w->condition(), Next());
          });
        }
        yield_targets_.pop_back();
        if (!collecting_) BindEscapes(escapes);
        FlushResults();
        return;
      }
      case NodeKind::kCommDomainScopeStmt:
      case NodeKind::kRuntimeScopeStmt:
      case NodeKind::kExecScopeStmt: {
        auto sc = std::static_pointer_cast<const ScopeStmt>(s);
        for (const auto& [k, v] : sc->attrs()) UseAttr(v, at);
        if (auto es = As<ExecScopeStmt>(s); es != nullptr && es->core_num() != nullptr) {
          UseExpr(es->core_num(), at);
        }
        if (auto cd = As<CommDomainScopeStmt>(s)) {
          for (const WindowBufferPtr& wb : cd->slots()) {
            if (wb != nullptr) UseExpr(wb, at);
          }
        }
        // `with` blocks do not open a scope.
        WalkStmt(sc->body());
        return;
      }
      default:
        return;
    }
  }

  // Returns the names that outlive the block (NoteAssigned).
  template <typename F>
  Escapes EnterBlock(const StmtPtr& body, F&& on_enter) {
    int end = collecting_ ? 0 : BlockEnd(body);
    block_stack_.push_back(end);
    if (!collecting_) {
      scopes_.emplace_back();
      candidates_.emplace_back();
    }
    on_enter(end);
    WalkStmt(body);
    Escapes escapes;
    if (collecting_) {
      block_end_[body.get()] = counter_;
      counter_limit_ = std::max(counter_limit_, counter_);
    } else {
      for (const std::string& name : candidates_.back()) {
        const Var* v = scopes_.back()[name];
        if (assigned_.contains(v)) escapes.emplace_back(name, v);
      }
      scopes_.pop_back();
      candidates_.pop_back();
    }
    block_stack_.pop_back();
    return escapes;
  }
  Escapes EnterBlock(const StmtPtr& body) {
    return EnterBlock(body, [](int) {});
  }

  // Results of an if/for/while are named once the statement is done, in the
  // enclosing scope.
  void FlushResults() {
    if (collecting_) return;
    std::vector<PendingResult> pending;
    pending.swap(pending_results_);
    for (const PendingResult& p : pending) {
      if (!names_.contains(p.var.get())) Define(p.var, p.at, p.end);
    }
  }

  struct PendingResult {
    VarPtr var;
    int at;
    int end;
  };

  bool collecting_ = true;
  int counter_ = 0;
  int counter_limit_ = 0;
  absl::flat_hash_map<const Var*, std::vector<int>> uses_;
  absl::flat_hash_map<const Stmt*, int> block_end_;
  absl::flat_hash_set<std::string> all_hints_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<const Var*, std::string> names_;
  std::vector<Scope> scopes_;
  std::vector<std::vector<std::string>> candidates_;  // per scope: NoteAssigned
  absl::flat_hash_set<const Var*> assigned_;
  std::vector<Escapes> pending_;  // then-branch escapes while in an else branch
  std::vector<int> block_stack_;
  std::vector<const std::vector<VarPtr>*> yield_targets_;
  std::vector<PendingResult> pending_results_;
};

}  // namespace

PrintedNames AssignPrintedNames(const FunctionPtr& f) {
  NameAssigner assigner;
  assigner.Run(f);
  return assigner.TakeNames();
}

}  // namespace pto::ir::print_internal
