#include "compiler/passes/inline_functions.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using InlineMap = absl::flat_hash_map<std::string, ir::FunctionPtr>;

// The Inline function a call targets, or nullptr.
ir::FunctionPtr InlineCallee(const ir::ExprPtr& e, const InlineMap& inlines) {
  ir::CallPtr call = ir::As<ir::Call>(e);
  if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op())) return nullptr;
  auto it = inlines.find(call->op()->name());
  return it == inlines.end() ? nullptr : it->second;
}

// Names of the Inline functions a body calls, in order of first call.
class InlineCallCollector : public ir::IRVisitor {
 public:
  explicit InlineCallCollector(const InlineMap& inlines) : inlines_(inlines) {}
  std::vector<std::pair<std::string, Span>> calls;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitCall(const ir::CallPtr& call) override {
    if (ir::FunctionPtr f = InlineCallee(call, inlines_)) calls.emplace_back(f->name(), call->span());
    ir::IRVisitor::VisitCall(call);
  }

 private:
  const InlineMap& inlines_;
};

// A cycle of Inline functions calling each other cannot be expanded.
absl::Status CheckAcyclic(const InlineMap& inlines, const std::vector<std::string>& order) {
  absl::flat_hash_map<std::string, int> state;  // 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::function<absl::Status(const std::string&)> visit = [&](const std::string& name) {
    state[name] = 1;
    stack.push_back(name);
    InlineCallCollector collector(inlines);
    collector.VisitStmt(inlines.at(name)->body());
    for (const auto& [callee, span] : collector.calls) {
      if (state[callee] == 1) {
        std::vector<std::string> cycle(std::find(stack.begin(), stack.end(), callee), stack.end());
        cycle.push_back(callee);
        return UserError(span, pto::StrCat("InlineFunctions: Inline functions call each other in "
                                           "a cycle (", absl::StrJoin(cycle, " -> "),
                                           "); an Inline function cannot be recursive"));
      }
      if (state[callee] == 0) RETURN_IF_ERROR(visit(callee));
    }
    stack.pop_back();
    state[name] = 2;
    return absl::OkStatus();
  };
  for (const std::string& name : order) {
    if (state[name] == 0) RETURN_IF_ERROR(visit(name));
  }
  return absl::OkStatus();
}

// The statements of an Inline body before its final return, and the returned
// values. A return anywhere else cannot be spliced.
absl::Status SplitBody(const ir::FunctionPtr& f, std::vector<ir::StmtPtr>* stmts,
                       std::vector<ir::ExprPtr>* values) {
  std::vector<ir::StmtPtr> all;
  if (auto seq = ir::As<ir::SeqStmts>(f->body())) {
    all = seq->stmts();
  } else {
    all = {f->body()};
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (auto ret = ir::As<ir::ReturnStmt>(all[i])) {
      if (i + 1 != all.size()) {
        return UserError(ret->span(), pto::StrCat("InlineFunctions: Inline function '", f->name(),
                                                  "' returns before the end of its body; an "
                                                  "Inline body must end with its only return"));
      }
      *values = ret->value();
      return absl::OkStatus();
    }
    stmts->push_back(all[i]);
  }
  return absl::OkStatus();
}

// Finds a return nested in the control flow of an Inline body.
class NestedReturnFinder : public ir::IRVisitor {
 public:
  const ir::ReturnStmt* found = nullptr;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    if (found == nullptr) found = s.get();
  }
};

class Inliner : public ir::FlatteningMutator {
 public:
  explicit Inliner(const InlineMap& inlines) : inlines_(inlines) {}
  absl::Status status;

  // The body of `f` with every Inline call spliced (Inline callees first).
  absl::StatusOr<ir::StmtPtr> Expand(const ir::StmtPtr& body) {
    ir::StmtPtr out = MutateStmt(body);
    RETURN_IF_ERROR(status);
    return out;
  }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    if (ir::FunctionPtr f = InlineCallee(stmt->value(), inlines_)) {
      return Splice(f, ir::As<ir::Call>(stmt->value()), stmt->var(), stmt->span());
    }
    return ir::IRMutator::MutateAssignStmt(stmt);
  }
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    if (ir::FunctionPtr f = InlineCallee(stmt->expr(), inlines_)) {
      return Splice(f, ir::As<ir::Call>(stmt->expr()), nullptr, stmt->span());
    }
    return ir::IRMutator::MutateEvalStmt(stmt);
  }
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    if (ir::FunctionPtr f = InlineCallee(call, inlines_); f != nullptr && status.ok()) {
      status = UserError(call->span(),
                         pto::StrCat("InlineFunctions: the call of Inline function '", f->name(),
                                     "' is nested in an expression; assign its result to a "
                                     "variable first (x = self.", f->name(), "(...))"));
    }
    return ir::IRMutator::MutateCall(call);
  }

 private:
  ir::StmtPtr Splice(const ir::FunctionPtr& f, const ir::CallPtr& call, const ir::VarPtr& lhs,
                     const Span& span) {
    if (!status.ok()) return nullptr;
    if (!call->attrs().empty()) {
      status = UserError(call->span(), pto::StrCat("InlineFunctions: the call of Inline function '",
                                                   f->name(), "' has call attributes ('",
                                                   call->attrs()[0].first,
                                                   "'); an Inline call is spliced, not launched"));
      return nullptr;
    }
    // The arguments may hold Inline calls too (nested: reported).
    std::vector<ir::ExprPtr> args;
    for (const ir::ExprPtr& a : call->args()) args.push_back(MutateExpr(a));
    if (!status.ok()) return nullptr;
    absl::StatusOr<ir::StmtPtr> callee_body = ExpandedBody(f);
    if (!callee_body.ok()) {
      status = callee_body.status();
      return nullptr;
    }
    ir::VarSubstMap params;
    for (size_t i = 0; i < f->params().size() && i < args.size(); ++i) {
      params[f->params()[i].get()] = args[i];
    }
    std::string suffix = pto::StrCat("_inline", counter_++);
    ir::StmtPtr copy = CloneWithFreshVars(*callee_body, params, suffix);
    std::vector<ir::StmtPtr> stmts;
    std::vector<ir::ExprPtr> values;
    auto seq = ir::As<ir::SeqStmts>(copy);
    std::vector<ir::StmtPtr> all = seq != nullptr ? seq->stmts() : std::vector<ir::StmtPtr>{copy};
    for (const ir::StmtPtr& s : all) {
      if (auto ret = ir::As<ir::ReturnStmt>(s)) {
        values = ret->value();
      } else {
        stmts.push_back(s);
      }
    }
    if (lhs != nullptr && !values.empty()) {
      ir::ExprPtr value = values.size() == 1 ? values[0] : std::make_shared<ir::MakeTuple>(values, span);
      stmts.push_back(std::make_shared<ir::AssignStmt>(lhs, value, span));
    }
    return ir::SeqStmts::Flatten(stmts, span);
  }

  // The body of Inline function `f` with its own Inline calls expanded.
  absl::StatusOr<ir::StmtPtr> ExpandedBody(const ir::FunctionPtr& f) {
    auto it = expanded_.find(f->name());
    if (it != expanded_.end()) return it->second;
    std::vector<ir::StmtPtr> stmts;
    std::vector<ir::ExprPtr> values;
    RETURN_IF_ERROR(SplitBody(f, &stmts, &values));
    for (const ir::StmtPtr& s : stmts) {
      NestedReturnFinder finder;
      finder.VisitStmt(s);
      if (finder.found != nullptr) {
        return UserError(finder.found->span(),
                         pto::StrCat("InlineFunctions: Inline function '", f->name(),
                                     "' returns inside a branch or loop; an Inline body must end "
                                     "with its only return"));
      }
    }
    Inliner inner(inlines_);
    ASSIGN_OR_RETURN(ir::StmtPtr body, inner.Expand(f->body()));
    expanded_[f->name()] = body;
    return body;
  }

  const InlineMap& inlines_;
  absl::flat_hash_map<std::string, ir::StmtPtr> expanded_;
  int counter_ = 0;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> InlineFunctionsPass::Run(const ir::ProgramPtr& program) {
  InlineMap inlines;
  std::vector<std::string> order;
  for (const auto& [gv, f] : program->functions()) {
    if (f->func_type() == ir::FunctionType::kInline) {
      inlines[f->name()] = f;
      order.push_back(f->name());
    }
  }
  if (inlines.empty()) return program;
  RETURN_IF_ERROR(CheckAcyclic(inlines, order));
  Inliner inliner(inlines);
  std::vector<ir::FunctionPtr> kept;
  for (const auto& [gv, f] : program->functions()) {
    if (f->func_type() == ir::FunctionType::kInline) continue;
    ASSIGN_OR_RETURN(ir::StmtPtr body, inliner.Expand(f->body()));
    kept.push_back(body == f->body() ? f : f->WithBody(body));
  }
  return ir::Program::Create(std::move(kept), program->name(), program->span());
}

std::unique_ptr<Pass> CreateInlineFunctionsPass() { return std::make_unique<InlineFunctionsPass>(); }

}  // namespace pto::passes
