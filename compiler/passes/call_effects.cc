#include "compiler/passes/call_effects.h"

#include <string>
#include <utility>

#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/collective_def.h"
#include "compiler/ops/op_registry.h"

namespace pto::passes {

bool IsManagedCollectiveOp(std::string_view n) { return ops::FindCollective(n) != nullptr; }

ir::FunctionPtr CalleeOf(const ir::Program& program, const ir::Call& call) {
  if (call.op() == nullptr || call.op()->kind() != ir::NodeKind::kGlobalVar) return nullptr;
  return program.GetFunction(call.op()->name());
}

namespace {

// Defines the roots of every statement of a body, in program order.
class RootsWalker : public ir::IRVisitor {
 public:
  explicit RootsWalker(BufferRoots* roots) : roots_(roots) {}
  void VisitType(const ir::TypePtr&) override {}

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    roots_->Define(s);
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    roots_->Define(s);
    VisitStmt(s->body());
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    roots_->Define(s);
    VisitStmt(s->body());
  }
  void VisitExpr(const ir::ExprPtr&) override {}

 private:
  BufferRoots* roots_;
};

}  // namespace

std::optional<int> ReturnedParamIndex(const ir::Function& callee, int index,
                                      const ir::Program* program) {
  // The ReturnStmt closing the body (top level, last statement).
  ir::StmtPtr last = callee.body();
  while (auto seq = ir::As<ir::SeqStmts>(last)) {
    if (seq->stmts().empty()) return std::nullopt;
    last = seq->stmts().back();
  }
  auto ret = ir::As<ir::ReturnStmt>(last);
  if (ret == nullptr || index < 0 || index >= static_cast<int>(ret->value().size())) {
    return std::nullopt;
  }
  const ir::ExprPtr& v = ret->value()[index];
  for (size_t i = 0; i < callee.params().size(); ++i) {
    if (v.get() == callee.params()[i].get()) return static_cast<int>(i);
  }
  BufferRoots roots(program);
  RootsWalker walker(&roots);
  walker.VisitStmt(callee.body());
  const ir::Var* root = roots.RootOf(v);
  for (size_t i = 0; i < callee.params().size(); ++i) {
    if (root == callee.params()[i].get()) return static_cast<int>(i);
  }
  return std::nullopt;
}

bool IsTensorLikeValue(const ir::ExprPtr& e) {
  return e != nullptr && ir::AsTensorTypeLike(e->type()) != nullptr;
}

ir::CallPtr StmtCall(const ir::StmtPtr& stmt) {
  if (auto a = ir::As<ir::AssignStmt>(stmt)) return ir::As<ir::Call>(a->value());
  if (auto e = ir::As<ir::EvalStmt>(stmt)) return ir::As<ir::Call>(e->expr());
  if (auto r = ir::As<ir::ReturnStmt>(stmt)) {
    if (r->value().size() == 1) return ir::As<ir::Call>(r->value()[0]);
  }
  return nullptr;
}

const ir::Var* BufferRoots::RootOf(const ir::ExprPtr& e) const {
  auto v = ir::As<ir::Var>(e);
  if (v == nullptr) return nullptr;
  auto it = root_.find(v.get());
  return it == root_.end() ? v.get() : it->second;
}

void BufferRoots::Alias(const ir::Var* v, const ir::ExprPtr& source) {
  if (const ir::Var* r = RootOf(source)) root_[v] = r;
}

void BufferRoots::Define(const ir::StmtPtr& stmt) {
  if (auto a = ir::As<ir::AssignStmt>(stmt)) {
    const ir::ExprPtr& value = a->value();
    const ir::Var* var = a->var().get();
    if (ir::As<ir::Var>(value) != nullptr) {
      Alias(var, value);
    } else if (auto g = ir::As<ir::TupleGetItem>(value)) {
      // An element of a kernel call's result tuple is the argument it returns.
      auto tv = ir::As<ir::Var>(g->tuple());
      auto it = tv == nullptr ? tuple_calls_.end() : tuple_calls_.find(tv.get());
      if (it != tuple_calls_.end()) {
        if (ir::FunctionPtr f = program_ ? CalleeOf(*program_, *it->second) : nullptr) {
          std::optional<int> k = ReturnedParamIndex(*f, g->index(), program_);
          if (k && *k < static_cast<int>(it->second->args().size())) {
            Alias(var, it->second->args()[*k]);
          }
        }
      }
    } else if (auto c = ir::As<ir::Call>(value)) {
      if (ir::FunctionPtr f = program_ ? CalleeOf(*program_, *c) : nullptr) {
        if (ir::As<ir::TupleType>(c->type()) != nullptr) {
          tuple_calls_[var] = c;
        } else if (std::optional<int> k = ReturnedParamIndex(*f, 0, program_);
                   k && *k < static_cast<int>(c->args().size())) {
          Alias(var, c->args()[*k]);
        }
      } else if (const ops::OpDef* def = ops::DefOf(*c)) {
        // A view (OpTraits::view) shares its source's buffer.
        if (def->traits.IsView() && !c->args().empty()) {
          Alias(var, c->args()[0]);
        } else if (IsTensorLikeValue(value)) {
          // The result rebinds the first argument the operator writes into.
          for (size_t i = 0; i < c->args().size(); ++i) {
            if (def->EffectOf(i) != ops::ArgEffect::kRead && IsTensorLikeValue(c->args()[i])) {
              Alias(var, c->args()[i]);
              break;
            }
          }
        }
      }
    }
  } else if (auto f = ir::As<ir::ForStmt>(stmt)) {
    for (size_t i = 0; i < f->iter_args().size(); ++i) {
      Alias(f->iter_args()[i].get(), f->iter_args()[i]->init_value());
      if (i < f->return_vars().size()) Alias(f->return_vars()[i].get(), f->iter_args()[i]);
    }
  } else if (auto w = ir::As<ir::WhileStmt>(stmt)) {
    for (size_t i = 0; i < w->iter_args().size(); ++i) {
      Alias(w->iter_args()[i].get(), w->iter_args()[i]->init_value());
      if (i < w->return_vars().size()) Alias(w->return_vars()[i].get(), w->iter_args()[i]);
    }
  }
}

}  // namespace pto::passes
