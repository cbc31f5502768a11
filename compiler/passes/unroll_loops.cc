#include "compiler/passes/unroll_loops.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// A break/continue of the loop being unrolled (not of a loop nested in it).
class OwnJumpFinder : public ir::IRVisitor {
 public:
  const ir::Stmt* found = nullptr;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>&) override {}
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>&) override {}
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    if (found == nullptr) found = s.get();
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    if (found == nullptr) found = s.get();
  }
};

// How often each Var occurs (definitions and uses) in a statement.
class RefCounter : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, int64_t> count;

 protected:
  void VisitVarDef(const ir::VarPtr& v) override {
    if (v != nullptr) ++count[v.get()];
    ir::IRVisitor::VisitVarDef(v);
  }
  void VisitVar(const ir::VarPtr& v) override {
    ++count[v.get()];
    ir::IRVisitor::VisitVar(v);
  }
  void VisitIterArg(const ir::IterArgPtr& v) override {
    ++count[v.get()];
    ir::IRVisitor::VisitIterArg(v);
  }
};

class Unroller : public ir::FlatteningMutator {
 public:
  explicit Unroller(const ir::FunctionPtr& f) {
    RefCounter all;
    all.VisitFunction(f);
    total_ = std::move(all.count);
  }
  absl::Status status;

 protected:
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    absl::flat_hash_set<const ir::Var*> keep;
    if (stmt->for_kind() == ir::ForKind::kUnroll) {
      // Vars the body shares with the rest of the function (reassigned
      // before ConvertToSSA) keep their identity in every copy.
      RefCounter body;
      body.VisitStmt(stmt->body());
      for (const auto& [v, n] : body.count) {
        auto it = total_.find(v);
        if (it != total_.end() && it->second > n) keep.insert(v);
      }
    }
    // Inner loops first, so a nested pl.unroll is expanded in every copy.
    ir::StmtPtr inner = ir::IRMutator::MutateForStmt(stmt);
    auto loop = ir::As<ir::ForStmt>(inner);
    if (loop == nullptr || loop->for_kind() != ir::ForKind::kUnroll || !status.ok()) return inner;
    return Unroll(loop, keep);
  }

 private:
  ir::StmtPtr Fail(const Span& span, std::string message) {
    if (status.ok()) status = UserError(span, pto::StrCat("UnrollLoops: ", message));
    return nullptr;
  }

  ir::StmtPtr Unroll(const std::shared_ptr<const ir::ForStmt>& loop,
                     const absl::flat_hash_set<const ir::Var*>& keep) {
    std::optional<int64_t> start = ir::GetConstInt(loop->start());
    std::optional<int64_t> stop = ir::GetConstInt(loop->stop());
    std::optional<int64_t> step = ir::GetConstInt(loop->step());
    if (!start || !stop || !step) {
      const ir::ExprPtr& bad = !start ? loop->start() : !stop ? loop->stop() : loop->step();
      return Fail(bad->span().known() ? bad->span() : loop->span(),
                  pto::StrCat("pl.unroll needs integer constants for start, stop and step; the ",
                              !start ? "start" : !stop ? "stop" : "step",
                              " here is not a compile-time constant (use pl.range for a loop "
                              "bounded at run time)"));
    }
    if (*step == 0) return Fail(loop->span(), "pl.unroll with step 0 never ends");
    int64_t trips = 0;
    if (*step > 0 && *stop > *start) trips = (*stop - *start + *step - 1) / *step;
    if (*step < 0 && *stop < *start) trips = (*start - *stop - *step - 1) / -*step;
    if (trips > kMaxUnrollTrips) {
      return Fail(loop->span(), pto::StrCat("pl.unroll of ", trips, " iterations is more than ",
                                            kMaxUnrollTrips, " copies; use pl.range"));
    }
    OwnJumpFinder jumps;
    jumps.VisitStmt(loop->body());
    if (jumps.found != nullptr) {
      return Fail(jumps.found->span(),
                  "'break' / 'continue' in a pl.unroll body cannot be unrolled (every copy "
                  "runs); use pl.range");
    }
    ir::DataType dtype = ir::DataType::kIndex;
    if (auto st = ir::As<ir::ScalarType>(loop->loop_var()->type())) dtype = st->dtype();

    std::vector<ir::ExprPtr> carried;
    for (const ir::IterArgPtr& ia : loop->iter_args()) carried.push_back(ia->init_value());
    std::vector<ir::StmtPtr> out;
    for (int64_t k = 0; k < trips; ++k) {
      int64_t value = *start + k * *step;
      ir::VarSubstMap subst;
      subst[loop->loop_var().get()] =
          std::make_shared<ir::ConstInt>(value, dtype, loop->loop_var()->span());
      for (size_t j = 0; j < loop->iter_args().size(); ++j) {
        subst[loop->iter_args()[j].get()] = carried[j];
      }
      ir::StmtPtr copy =
          CloneWithFreshVars(loop->body(), subst, pto::StrCat("_unroll", k), &keep);
      auto seq = ir::As<ir::SeqStmts>(copy);
      std::vector<ir::StmtPtr> stmts = seq != nullptr ? seq->stmts() : std::vector<ir::StmtPtr>{copy};
      if (!stmts.empty()) {
        if (auto yield = ir::As<ir::YieldStmt>(stmts.back())) {
          if (yield->value().size() == carried.size()) carried = yield->value();
          stmts.pop_back();
        }
      }
      out.insert(out.end(), stmts.begin(), stmts.end());
    }
    for (size_t j = 0; j < loop->return_vars().size() && j < carried.size(); ++j) {
      out.push_back(std::make_shared<ir::AssignStmt>(loop->return_vars()[j], carried[j],
                                                     loop->span()));
    }
    return ir::SeqStmts::Flatten(out, loop->span());
  }
  absl::flat_hash_map<const ir::Var*, int64_t> total_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> UnrollLoopsPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    Unroller unroller(f);
    ir::StmtPtr body = unroller.MutateStmt(f->body());
    if (!unroller.status.ok()) return unroller.status;
    return body;
  });
}

std::unique_ptr<Pass> CreateUnrollLoopsPass() { return std::make_unique<UnrollLoopsPass>(); }

}  // namespace pto::passes
