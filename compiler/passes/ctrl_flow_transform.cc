#include "compiler/passes/ctrl_flow_transform.h"

#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// The break/continue statements of a loop body (not of loops nested in it,
// which are transformed first), and whether one sits inside a `with` block.
class JumpFinder : public ir::IRVisitor {
 public:
  const ir::Stmt* first_break = nullptr;
  const ir::Stmt* first_continue = nullptr;
  const ir::Stmt* in_scope = nullptr;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>&) override {}
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>&) override {}
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    if (first_break == nullptr) first_break = s.get();
    if (scope_depth_ > 0 && in_scope == nullptr) in_scope = s.get();
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    if (first_continue == nullptr) first_continue = s.get();
    if (scope_depth_ > 0 && in_scope == nullptr) in_scope = s.get();
  }
  void VisitCommDomainScopeStmt(const std::shared_ptr<const ir::CommDomainScopeStmt>& s) override {
    ++scope_depth_;
    ir::IRVisitor::VisitCommDomainScopeStmt(s);
    --scope_depth_;
  }
  void VisitRuntimeScopeStmt(const std::shared_ptr<const ir::RuntimeScopeStmt>& s) override {
    ++scope_depth_;
    ir::IRVisitor::VisitRuntimeScopeStmt(s);
    --scope_depth_;
  }
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override {
    ++scope_depth_;
    ir::IRVisitor::VisitExecScopeStmt(s);
    --scope_depth_;
  }

 private:
  int scope_depth_ = 0;
};

bool HasJump(const ir::StmtPtr& s) {
  JumpFinder f;
  f.VisitStmt(s);
  return f.first_break != nullptr || f.first_continue != nullptr;
}

std::vector<ir::StmtPtr> StmtsOf(const ir::StmtPtr& s) {
  if (s == nullptr) return {};
  ir::StmtPtr flat = ir::SeqStmts::Flatten({s}, s->span());
  if (auto seq = ir::As<ir::SeqStmts>(flat)) return seq->stmts();
  return {flat};
}

ir::ExprPtr True(const Span& span) { return std::make_shared<ir::ConstBool>(true, span); }
ir::ExprPtr False(const Span& span) { return std::make_shared<ir::ConstBool>(false, span); }

class Transformer : public ir::IRMutator {
 public:
  absl::Status status;

 protected:
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    ir::StmtPtr inner = ir::IRMutator::MutateForStmt(stmt);  // inner loops first
    auto loop = ir::As<ir::ForStmt>(inner);
    if (loop == nullptr || !status.ok()) return inner;
    JumpFinder jumps;
    jumps.VisitStmt(loop->body());
    if (jumps.first_break == nullptr && jumps.first_continue == nullptr) return inner;
    if (!CheckLoop(jumps, loop->iter_args().empty(), "for")) return inner;
    if (jumps.first_break == nullptr) {
      return std::make_shared<ir::ForStmt>(loop->loop_var(), loop->start(), loop->stop(),
                                           loop->step(), loop->iter_args(),
                                           Body(loop->body(), nullptr), loop->return_vars(),
                                           loop->for_kind(), loop->attrs(), loop->span());
    }
    return ForWithBreak(loop, *jumps.first_break);
  }

  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    ir::StmtPtr inner = ir::IRMutator::MutateWhileStmt(stmt);
    auto loop = ir::As<ir::WhileStmt>(inner);
    if (loop == nullptr || !status.ok()) return inner;
    JumpFinder jumps;
    jumps.VisitStmt(loop->body());
    if (jumps.first_break == nullptr && jumps.first_continue == nullptr) return inner;
    if (!CheckLoop(jumps, loop->iter_args().empty(), "while")) return inner;
    const Span& span = loop->span();
    if (jumps.first_break == nullptr) {
      return std::make_shared<ir::WhileStmt>(loop->condition(), loop->iter_args(),
                                             Body(loop->body(), nullptr), loop->return_vars(),
                                             span);
    }
    ir::VarPtr brk = Flag("__break", span);
    ir::ExprPtr cond = And(loop->condition(), Not(brk, span), span);
    if (cond == nullptr) return inner;
    std::vector<ir::StmtPtr> out;
    out.push_back(std::make_shared<ir::AssignStmt>(brk, False(span), span));
    out.push_back(std::make_shared<ir::WhileStmt>(cond, loop->iter_args(),
                                                  Body(loop->body(), brk), loop->return_vars(),
                                                  span));
    return std::make_shared<ir::SeqStmts>(std::move(out), span);
  }

  ir::StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& stmt) override {
    ir::StmtPtr out = ir::IRMutator::MutateSeqStmts(stmt);
    if (out == stmt) return out;
    auto seq = ir::As<ir::SeqStmts>(out);
    return seq != nullptr ? ir::SeqStmts::Flatten(seq->stmts(), seq->span()) : out;
  }

 private:
  void Fail(const Span& span, std::string message) {
    if (status.ok()) status = UserError(span, pto::StrCat("CtrlFlowTransform: ", message));
  }

  bool CheckLoop(const JumpFinder& jumps, bool no_iter_args, std::string_view loop) {
    const ir::Stmt* jump = jumps.first_break != nullptr ? jumps.first_break : jumps.first_continue;
    const char* word = jumps.first_break != nullptr ? "break" : "continue";
    if (jumps.in_scope != nullptr) {
      Fail(jumps.in_scope->span(),
           pto::StrCat("'", jumps.in_scope->kind() == ir::NodeKind::kBreakStmt ? "break" : "continue",
                       "' inside a `with` block cannot leave the block; move it out of the "
                       "`with` block"));
      return false;
    }
    if (!no_iter_args) {
      Fail(jump->span(),
           pto::StrCat("'", word, "' in a ", loop, " loop with init_values is not supported "
                       "(the yield at the end of the body would be skipped); carry the values "
                       "by reassignment instead (`acc = acc + x`), which ConvertToSSA turns "
                       "into iter args"));
      return false;
    }
    return true;
  }

  ir::VarPtr Flag(std::string_view base, const Span& span) {
    return std::make_shared<ir::Var>(pto::StrCat(base, "_", counter_++),
                                     ir::ScalarType::Get(ir::DataType::kBool), span);
  }

  ir::ExprPtr Not(const ir::ExprPtr& e, const Span& span) {
    absl::StatusOr<ir::ExprPtr> r = ir::MakeUnary(ir::UnaryOp::kNot, e, span);
    if (!r.ok()) {
      if (status.ok()) status = r.status();
      return nullptr;
    }
    return *r;
  }
  ir::ExprPtr Binary(ir::BinaryOp op, const ir::ExprPtr& a, const ir::ExprPtr& b,
                     const Span& span) {
    if (a == nullptr || b == nullptr) return nullptr;
    absl::StatusOr<ir::ExprPtr> r = ir::MakeBinary(op, a, b, span);
    if (!r.ok()) {
      if (status.ok()) status = r.status();
      return nullptr;
    }
    return *r;
  }
  ir::ExprPtr And(const ir::ExprPtr& a, const ir::ExprPtr& b, const Span& span) {
    return Binary(ir::BinaryOp::kAnd, a, b, span);
  }

  // The loop body without jumps: a `continue` flag reset at the start of each
  // iteration when the body has a continue; `brk` (may be null) set by break.
  ir::StmtPtr Body(const ir::StmtPtr& body, const ir::VarPtr& brk) {
    JumpFinder jumps;
    jumps.VisitStmt(body);
    const Span& span = body->span();
    ir::VarPtr cont;
    std::vector<ir::StmtPtr> out;
    if (jumps.first_continue != nullptr) {
      cont = Flag("__continue", span);
      out.push_back(std::make_shared<ir::AssignStmt>(cont, False(span), span));
    }
    std::vector<ir::StmtPtr> rest = Rewrite(StmtsOf(body), brk, cont);
    out.insert(out.end(), rest.begin(), rest.end());
    return std::make_shared<ir::SeqStmts>(std::move(out), span);
  }

  // A statement list without jumps: a jump sets its flag and ends the list;
  // after a statement that may jump, the rest runs only if no flag is set.
  std::vector<ir::StmtPtr> Rewrite(const std::vector<ir::StmtPtr>& stmts, const ir::VarPtr& brk,
                                   const ir::VarPtr& cont) {
    std::vector<ir::StmtPtr> out;
    for (size_t i = 0; i < stmts.size(); ++i) {
      const ir::StmtPtr& s = stmts[i];
      if (ir::Is<ir::BreakStmt>(s) || ir::Is<ir::ContinueStmt>(s)) {
        const ir::VarPtr& flag = ir::Is<ir::BreakStmt>(s) ? brk : cont;
        out.push_back(std::make_shared<ir::AssignStmt>(flag, True(s->span()), s->span()));
        return out;  // the rest of the list never runs
      }
      auto branch = ir::As<ir::IfStmt>(s);
      if (branch == nullptr || !HasJump(s)) {
        out.push_back(s);
        continue;
      }
      if (!branch->return_vars().empty()) {
        JumpFinder jumps;
        jumps.VisitStmt(s);
        const ir::Stmt* j = jumps.first_break != nullptr ? jumps.first_break : jumps.first_continue;
        Fail(j->span(), pto::StrCat("'", j->kind() == ir::NodeKind::kBreakStmt ? "break" : "continue",
                                    "' in an if whose branches yield results (`x = "
                                    "pl.yield_(...)`) is not supported; assign the value in "
                                    "the branches instead (`x = ...`)"));
        return out;
      }
      std::optional<ir::StmtPtr> else_body;
      if (branch->else_body().has_value()) {
        else_body = std::make_shared<ir::SeqStmts>(Rewrite(StmtsOf(*branch->else_body()), brk, cont),
                                                   (*branch->else_body())->span());
      }
      out.push_back(std::make_shared<ir::IfStmt>(
          branch->condition(),
          std::make_shared<ir::SeqStmts>(Rewrite(StmtsOf(branch->then_body()), brk, cont),
                                         branch->then_body()->span()),
          std::move(else_body), branch->return_vars(), branch->span()));
      if (i + 1 == stmts.size()) return out;
      std::vector<ir::StmtPtr> rest(stmts.begin() + i + 1, stmts.end());
      ir::ExprPtr guard;
      JumpFinder jumps;
      jumps.VisitStmt(s);
      if (jumps.first_break != nullptr) guard = Not(brk, s->span());
      if (jumps.first_continue != nullptr) {
        ir::ExprPtr nc = Not(cont, s->span());
        guard = guard == nullptr ? nc : And(guard, nc, s->span());
      }
      if (guard == nullptr) return out;
      out.push_back(std::make_shared<ir::IfStmt>(
          guard, std::make_shared<ir::SeqStmts>(Rewrite(rest, brk, cont), s->span()),
          std::nullopt, std::vector<ir::VarPtr>{}, s->span()));
      return out;
    }
    return out;
  }

  // for i in range(start, stop, step) with a break becomes
  //   i = start; __break = False
  //   while i < stop and not __break:   (i > stop for a negative step)
  //       <body without jumps>; i = i + step
  ir::StmtPtr ForWithBreak(const std::shared_ptr<const ir::ForStmt>& loop,
                           const ir::Stmt& first_break) {
    const Span& span = loop->span();
    if (loop->for_kind() == ir::ForKind::kParallel) {
      Fail(first_break.span(), "'break' in a pl.parallel loop (its iterations have no order); "
                               "use pl.range");
      return loop;
    }
    std::optional<int64_t> step = ir::GetConstInt(loop->step());
    if (!step.has_value() || *step == 0) {
      Fail(first_break.span(), "'break' in a for loop needs a nonzero constant step (the loop "
                               "becomes a while loop that compares the index with the stop "
                               "value)");
      return loop;
    }
    auto index = std::make_shared<ir::Var>(loop->loop_var()->name_hint(), loop->loop_var()->type(),
                                           loop->loop_var()->span());
    ir::VarSubstMap subst;
    subst[loop->loop_var().get()] = index;
    ir::StmtPtr body = ir::Substitute(loop->body(), subst);
    ir::VarPtr brk = Flag("__break", span);
    ir::ExprPtr in_range =
        Binary(*step > 0 ? ir::BinaryOp::kLt : ir::BinaryOp::kGt, index, loop->stop(), span);
    ir::ExprPtr cond = And(in_range, Not(brk, span), span);
    ir::ExprPtr next = Binary(ir::BinaryOp::kAdd, index, loop->step(), span);
    if (cond == nullptr || next == nullptr) return loop;
    std::vector<ir::StmtPtr> stmts = StmtsOf(Body(body, brk));
    stmts.push_back(std::make_shared<ir::AssignStmt>(index, next, span));
    std::vector<ir::StmtPtr> out;
    out.push_back(std::make_shared<ir::AssignStmt>(index, loop->start(), span));
    out.push_back(std::make_shared<ir::AssignStmt>(brk, False(span), span));
    out.push_back(std::make_shared<ir::WhileStmt>(
        cond, std::vector<ir::IterArgPtr>{}, std::make_shared<ir::SeqStmts>(std::move(stmts), span),
        std::vector<ir::VarPtr>{}, span));
    return std::make_shared<ir::SeqStmts>(std::move(out), span);
  }

  int counter_ = 0;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> CtrlFlowTransformPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    Transformer t;
    ir::StmtPtr body = t.MutateStmt(f->body());
    if (!t.status.ok()) return t.status;
    return body;
  });
}

std::unique_ptr<Pass> CreateCtrlFlowTransformPass() {
  return std::make_unique<CtrlFlowTransformPass>();
}

}  // namespace pto::passes
