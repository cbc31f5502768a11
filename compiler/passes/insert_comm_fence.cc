#include "compiler/passes/insert_comm_fence.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/call_effects.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {

namespace {

ir::OpId OpIdOf(const ir::CallPtr& c) {
  return c == nullptr || c->op() == nullptr ? ir::OpId::kUnknown : c->op()->id();
}

ir::CallPtr LeafCall(const ir::StmtPtr& s) {
  if (auto a = ir::As<ir::AssignStmt>(s)) return ir::As<ir::Call>(a->value());
  if (auto e = ir::As<ir::EvalStmt>(s)) return ir::As<ir::Call>(e->expr());
  return nullptr;
}

bool IsWaitOp(ir::OpId n) { return n == ir::OpId::kPldSystemWait; }
bool IsRemoteWrite(ir::OpId n) {
  return n == ir::OpId::kPldTileRemoteStore || n == ir::OpId::kPldTensorRemoteStore ||
         n == ir::OpId::kPldTilePut || n == ir::OpId::kPldTensorPut;
}
bool IsAsyncDrain(ir::OpId n) {
  return n == ir::OpId::kPldTileWaitAsyncEvent || n == ir::OpId::kPldSystemWaitAsyncEvent;
}

// The window a local publishing write writes, or nullptr (plain tensors are
// not published).
ir::VarPtr LocalPublishTarget(const ir::CallPtr& c) {
  const ir::OpId n = OpIdOf(c);
  int index = -1;
  if (n == ir::OpId::kPlTileStore) index = 2;
  if (n == ir::OpId::kPlTensorWrite || n == ir::OpId::kPldTileGet || n == ir::OpId::kPldTensorGet) {
    index = 0;
  }
  if (index < 0 || index >= static_cast<int>(c->args().size())) return nullptr;
  auto v = ir::As<ir::Var>(c->args()[index]);
  if (v == nullptr || ir::As<ir::DistributedTensorType>(v->type()) == nullptr) return nullptr;
  return v;
}

enum class Purity { kNotPure, kPureNoWait, kPureWithWait };

class ReadFinder : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitType(const ir::TypePtr&) override {}

 protected:
  void VisitCall(const ir::CallPtr& c) override {
    if (ir::IsOp(c, ir::OpId::kPlTensorRead)) found = true;
    IRVisitor::VisitCall(c);
  }
};

bool HasTensorRead(const ir::ExprPtr& e) {
  ReadFinder f;
  f.VisitExpr(e);
  return f.found;
}

// Phase A over one InCore body.
class PhaseA {
 public:
  ir::StmtPtr Rewrite(const ir::StmtPtr& s) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      std::vector<ir::StmtPtr> out = RewriteSeq(seq->stmts());
      if (Same(out, seq->stmts())) return s;
      return std::make_shared<const ir::SeqStmts>(std::move(out), seq->span());
    }
    if (auto i = ir::As<ir::IfStmt>(s)) {
      ir::StmtPtr then_body = RewriteBody(i->then_body());
      std::optional<ir::StmtPtr> else_body = i->else_body();
      if (else_body) else_body = RewriteBody(*else_body);
      if (then_body == i->then_body() && else_body == i->else_body()) return s;
      return std::make_shared<const ir::IfStmt>(i->condition(), then_body, else_body,
                                                i->return_vars(), i->span());
    }
    if (IsWaitClass(s)) return s;  // a pure wait-loop is marked after, not inside
    if (auto f = ir::As<ir::ForStmt>(s)) {
      ir::StmtPtr body = RewriteBody(f->body());
      if (body == f->body()) return s;
      return std::make_shared<const ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                                 f->iter_args(), body, f->return_vars(),
                                                 f->for_kind(), f->attrs(), f->span());
    }
    if (auto w = ir::As<ir::WhileStmt>(s)) {
      ir::StmtPtr body = RewriteBody(w->body());
      if (body == w->body()) return s;
      return std::make_shared<const ir::WhileStmt>(w->condition(), w->iter_args(), body,
                                                   w->return_vars(), w->span());
    }
    if (auto r = ir::As<ir::RuntimeScopeStmt>(s)) {
      ir::StmtPtr body = RewriteBody(r->body());
      if (body == r->body()) return s;
      return std::make_shared<const ir::RuntimeScopeStmt>(r->name_hint(), r->manual(), body,
                                                          r->attrs(), r->span());
    }
    return s;
  }

 private:
  static bool Same(const std::vector<ir::StmtPtr>& a, const std::vector<ir::StmtPtr>& b) {
    return a == b;
  }

  // A bare statement that needs markers becomes a SeqStmts.
  ir::StmtPtr RewriteBody(const ir::StmtPtr& body) {
    if (ir::As<ir::SeqStmts>(body) != nullptr) return Rewrite(body);
    std::vector<ir::StmtPtr> out = RewriteSeq({body});
    if (out.size() == 1) return out[0];
    return std::make_shared<const ir::SeqStmts>(std::move(out), body->span());
  }

  Purity PurityOf(const ir::StmtPtr& s) {
    auto it = purity_.find(s.get());
    if (it != purity_.end()) return it->second;
    Purity p = ComputePurity(s);
    purity_[s.get()] = p;
    return p;
  }
  static Purity Combine(Purity a, Purity b) {
    if (a == Purity::kNotPure || b == Purity::kNotPure) return Purity::kNotPure;
    return a == Purity::kPureWithWait || b == Purity::kPureWithWait ? Purity::kPureWithWait
                                                                    : Purity::kPureNoWait;
  }
  Purity ComputePurity(const ir::StmtPtr& s) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      Purity p = Purity::kPureNoWait;
      for (const ir::StmtPtr& c : seq->stmts()) p = Combine(p, PurityOf(c));
      return p;
    }
    if (ir::As<ir::YieldStmt>(s) != nullptr) return Purity::kPureNoWait;
    if (auto i = ir::As<ir::IfStmt>(s)) {
      if (HasTensorRead(i->condition())) return Purity::kNotPure;
      Purity p = PurityOf(i->then_body());
      return i->else_body() ? Combine(p, PurityOf(*i->else_body())) : p;
    }
    if (auto f = ir::As<ir::ForStmt>(s)) {
      if (HasTensorRead(f->start()) || HasTensorRead(f->stop()) || HasTensorRead(f->step())) {
        return Purity::kNotPure;
      }
      return PurityOf(f->body());
    }
    if (auto w = ir::As<ir::WhileStmt>(s)) {
      if (HasTensorRead(w->condition())) return Purity::kNotPure;
      return PurityOf(w->body());
    }
    if (auto e = ir::As<ir::EvalStmt>(s)) {
      if (IsWaitOp(OpIdOf(ir::As<ir::Call>(e->expr())))) return Purity::kPureWithWait;
    }
    return Purity::kNotPure;
  }

  // A wait, or a loop whose only effects are waits (at least one).
  bool IsWaitClass(const ir::StmtPtr& s) {
    if (IsWaitOp(OpIdOf(LeafCall(s)))) return true;
    if (ir::As<ir::ForStmt>(s) == nullptr && ir::As<ir::WhileStmt>(s) == nullptr) return false;
    return PurityOf(s) == Purity::kPureWithWait;
  }

  static ir::StmtPtr Marker(ir::OpId op, std::vector<ir::ExprPtr> args, const Span& span) {
    const ops::OpDef* def = ops::OpRegistry::Global().Find(op);
    return std::make_shared<const ir::EvalStmt>(
        std::make_shared<const ir::Call>(def->op, std::move(args), ir::AttrList{}, ir::AttrList{},
                                         ir::UnknownType::Get(), span),
        std::vector<std::string>{}, span);
  }
  // Whether `s` is the marker `m` (same operator, same target if any).
  static bool SameMarker(const ir::StmtPtr& s, const ir::StmtPtr& m) {
    ir::CallPtr a = LeafCall(s), b = LeafCall(m);
    if (a == nullptr || b == nullptr || OpIdOf(a) != OpIdOf(b)) return false;
    if (a->args().size() != b->args().size()) return false;
    return a->args().empty() || a->args()[0] == b->args()[0];
  }

  // The markers statement `s` needs after it; `next` is the statement after it
  // (for wait runs), or nullptr.
  std::vector<ir::StmtPtr> MarkersFor(const ir::StmtPtr& s, const ir::StmtPtr& next) {
    const Span& span = s->span();
    if (IsWaitClass(s)) {
      if (next != nullptr && IsWaitClass(next)) return {};  // one invalidate after the run
      return {Marker(kCacheInvalidOp, {}, span)};
    }
    ir::CallPtr c = LeafCall(s);
    if (c == nullptr) return {};
    const ir::OpId n = OpIdOf(c);
    if (ir::VarPtr t = LocalPublishTarget(c)) {
      auto tt = ir::AsTensorTypeLike(t->type());
      std::vector<ir::ExprPtr> zeros;
      for (size_t i = 0; i < tt->shape().size(); ++i) {
        zeros.push_back(std::make_shared<const ir::ConstInt>(0, ir::DataType::kIndex, span));
      }
      return {Marker(kCacheInvalidOp,
                     {t, std::make_shared<const ir::MakeTuple>(tt->shape(), span),
                      std::make_shared<const ir::MakeTuple>(zeros, span)},
                     span),
              Marker(kFenceOp, {}, span)};
    }
    // The peer-region invalidate of a remote write is emitted by the op's
    // codegen (the peer offset is not expressible in the IR).
    if (IsRemoteWrite(n) || IsAsyncDrain(n)) return {Marker(kFenceOp, {}, span)};
    if (c->op()->kind() == ir::NodeKind::kGlobalVar) {
      return {Marker(kCacheInvalidOp, {}, span), Marker(kFenceOp, {}, span)};
    }
    return {};
  }

  std::vector<ir::StmtPtr> RewriteSeq(const std::vector<ir::StmtPtr>& stmts) {
    std::vector<ir::StmtPtr> out;
    for (size_t i = 0; i < stmts.size(); ++i) {
      out.push_back(Rewrite(stmts[i]));
      ir::StmtPtr next = i + 1 < stmts.size() ? stmts[i + 1] : nullptr;
      std::vector<ir::StmtPtr> markers = MarkersFor(stmts[i], next);
      bool present = !markers.empty();
      for (size_t k = 0; present && k < markers.size(); ++k) {
        present = i + 1 + k < stmts.size() && SameMarker(stmts[i + 1 + k], markers[k]);
      }
      if (present) continue;
      for (ir::StmtPtr& m : markers) out.push_back(std::move(m));
    }
    return out;
  }

  absl::flat_hash_map<const ir::Stmt*, Purity> purity_;
};

bool IsPublish(const ir::Program& program, const ir::CallPtr& c) {
  if (IsManagedCollectiveOp(c->op()->name()) || ops::TraitsOf(*c).host_dispatch) return true;
  ir::FunctionPtr f = CalleeOf(program, *c);
  return f != nullptr && ir::HasAttr(f->attrs(), "builtin_template_dir");
}

// Phase B: the InCore callees dispatched after a managed collective.
class OrchPostCollectiveScanner {
 public:
  OrchPostCollectiveScanner(const ir::Program* program, absl::flat_hash_set<std::string>* consumers)
      : program_(program), consumers_(consumers) {}

  // Scans `s` with `*seen` = "a publish precedes"; returns whether `s` itself
  // contains a publish.
  bool ScanStmt(const ir::StmtPtr& s, bool* seen) {
    if (auto seq = ir::As<ir::SeqStmts>(s)) {
      bool found = false;
      for (const ir::StmtPtr& c : seq->stmts()) found |= ScanStmt(c, seen);
      return found;
    }
    if (auto i = ir::As<ir::IfStmt>(s)) {
      bool seen_then = *seen, seen_else = *seen;
      bool found = ScanStmt(i->then_body(), &seen_then);
      if (i->else_body()) found |= ScanStmt(*i->else_body(), &seen_else);
      *seen = seen_then || seen_else;
      return found;
    }
    if (auto f = ir::As<ir::ForStmt>(s)) {
      return ScanLoop(f->body(), f->for_kind() != ir::ForKind::kParallel, seen);
    }
    if (auto w = ir::As<ir::WhileStmt>(s)) return ScanLoop(w->body(), true, seen);
    if (auto sc = ir::As<ir::ScopeStmt>(s)) return ScanStmt(sc->body(), seen);
    bool found = false;
    std::vector<ir::CallPtr> calls;
    if (auto r = ir::As<ir::ReturnStmt>(s)) {
      for (const ir::ExprPtr& v : r->value()) {
        if (auto c = ir::As<ir::Call>(v)) calls.push_back(c);
      }
    } else if (ir::CallPtr c = LeafCall(s)) {
      calls.push_back(c);
    }
    for (const ir::CallPtr& c : calls) {
      if (IsPublish(*program_, c)) {
        *seen = true;
        found = true;
      } else if (*seen) {
        if (ir::FunctionPtr f = CalleeOf(*program_, *c)) {
          for (const std::string& k : InCoreTargets(f)) consumers_->insert(k);
        }
      }
    }
    return found;
  }

 private:
  // A loop body that publishes runs again after its own publish: a consumer
  // earlier in the body reads the previous iteration's collective. Parallel
  // iterations are not ordered after each other, so they are not rescanned.
  bool ScanLoop(const ir::StmtPtr& body, bool sequential, bool* seen) {
    bool found = ScanStmt(body, seen);
    if (found && sequential) {
      bool again = true;
      ScanStmt(body, &again);
    }
    return found;
  }

  // The InCore kernels a call of `f` runs: f itself, or those inside a
  // Group/Spmd wrapper or a dispatched chip orchestration (memoised).
  const std::vector<std::string>& InCoreTargets(const ir::FunctionPtr& f) {
    auto it = targets_.find(f->name());
    if (it != targets_.end()) return it->second;
    std::vector<std::string>& out = targets_[f->name()];
    if (ir::IsInCoreType(f->func_type())) {
      out.push_back(f->name());
    } else if (ir::IsWrapperType(f->func_type()) || ir::IsOrchestrationLike(f->func_type())) {
      // A wrapper runs its kernels; a chip pipeline dispatched after a HOST
      // collective runs all of its kernels after it too.
      std::vector<ir::FunctionPtr> inner;
      class Collect : public ir::IRVisitor {
       public:
        Collect(const ir::Program* p, std::vector<ir::FunctionPtr>* o) : p_(p), o_(o) {}
        void VisitType(const ir::TypePtr&) override {}

       protected:
        void VisitCall(const ir::CallPtr& c) override {
          if (ir::FunctionPtr g = CalleeOf(*p_, *c)) o_->push_back(g);
          IRVisitor::VisitCall(c);
        }

       private:
        const ir::Program* p_;
        std::vector<ir::FunctionPtr>* o_;
      } collect(program_, &inner);
      collect.VisitStmt(f->body());
      std::vector<std::string> names;
      for (const ir::FunctionPtr& g : inner) {
        if (g->name() == f->name()) continue;
        for (const std::string& k : InCoreTargets(g)) names.push_back(k);
      }
      targets_[f->name()] = names;
      return targets_[f->name()];
    }
    return out;
  }

  const ir::Program* program_;
  absl::flat_hash_set<std::string>* consumers_;
  absl::flat_hash_map<std::string, std::vector<std::string>> targets_;
};

// The body with a whole-GM invalidate first (unless it already starts so).
ir::StmtPtr WithEntryInvalidate(const ir::StmtPtr& body) {
  std::vector<ir::StmtPtr> stmts;
  if (auto seq = ir::As<ir::SeqStmts>(body)) {
    stmts = seq->stmts();
  } else {
    stmts = {body};
  }
  if (!stmts.empty()) {
    ir::CallPtr c = LeafCall(stmts[0]);
    if (ir::IsOp(c, kCacheInvalidOp) && c->args().empty()) return body;
  }
  const ops::OpDef* def = ops::OpRegistry::Global().Find(kCacheInvalidOp);
  stmts.insert(stmts.begin(), std::make_shared<const ir::EvalStmt>(
                                  std::make_shared<const ir::Call>(
                                      def->op, std::vector<ir::ExprPtr>{}, ir::AttrList{},
                                      ir::AttrList{}, ir::UnknownType::Get(), body->span()),
                                  std::vector<std::string>{}, body->span()));
  return std::make_shared<const ir::SeqStmts>(std::move(stmts), body->span());
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> InsertCommFencePass::Run(const ir::ProgramPtr& program) {
  absl::flat_hash_set<std::string> consumers;
  OrchPostCollectiveScanner scanner(program.get(), &consumers);
  for (const auto& [gv, f] : program->functions()) {
    if (ir::IsOrchestrationLike(f->func_type()) || f->role() == ir::Role::kOrchestrator) {
      bool seen = false;
      scanner.ScanStmt(f->body(), &seen);
    }
  }
  std::vector<ir::FunctionPtr> funcs;
  bool changed = false;
  for (const auto& [gv, f] : program->functions()) {
    ir::StmtPtr body = f->body();
    if (ir::IsInCoreType(f->func_type())) {
      PhaseA phase_a;
      body = phase_a.Rewrite(body);
      // A template-rendered builtin kernel has no compiled body to mark.
      if (consumers.contains(f->name()) && !ir::HasAttr(f->attrs(), "builtin_template_dir")) {
        body = WithEntryInvalidate(body);
      }
    }
    changed |= body != f->body();
    funcs.push_back(body == f->body() ? f : f->WithBody(body));
  }
  if (!changed) return program;
  return ir::Program::Create(funcs, program->name(), program->span());
}

std::unique_ptr<Pass> CreateInsertCommFencePass() {
  return std::make_unique<InsertCommFencePass>();
}

}  // namespace pto::passes
