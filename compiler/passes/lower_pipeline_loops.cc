#include "compiler/passes/lower_pipeline_loops.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// The body without its trailing yield, and the yielded values.
std::pair<std::vector<ir::StmtPtr>, std::vector<ir::ExprPtr>> SplitYield(const ir::StmtPtr& body) {
  std::vector<ir::StmtPtr> stmts;
  if (auto seq = ir::As<ir::SeqStmts>(body)) {
    stmts = seq->stmts();
  } else {
    stmts.push_back(body);
  }
  std::vector<ir::ExprPtr> yielded;
  if (!stmts.empty()) {
    if (auto y = ir::As<ir::YieldStmt>(stmts.back())) {
      yielded = y->value();
      stmts.pop_back();
    }
  }
  return {std::move(stmts), std::move(yielded)};
}

// Tags each pl.tile.load of one copy with its (loop, stage) in the call's
// `pipeline_membership` attr ("loop:stage", ';'-joined for nested
// pipelines), so MemoryReuse keeps the stages' load buffers apart.
class StageTagger : public ir::IRMutator {
 public:
  explicit StageTagger(std::string tag) : tag_(std::move(tag)) {}

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    if (!ir::IsOp(call, ir::OpId::kPlTileLoad)) return ir::IRMutator::MutateAssignStmt(s);
    std::string tag = tag_;
    if (auto old = ir::GetAttr<std::string>(call->attrs(), ir::kAttrPipelineMembership)) {
      tag = *old + ";" + tag_;
    }
    auto tagged = ir::MakeOpCall(call->op()->id(), call->args(), call->type(), call->kwargs(),
                                 ir::WithAttr(call->attrs(), ir::kAttrPipelineMembership, tag),
                                 call->span());
    return std::make_shared<ir::AssignStmt>(s->var(), tagged, s->span());
  }

 private:
  std::string tag_;
};

class Lowerer : public ir::IRMutator {
 public:
  absl::Status status;

  ir::StmtPtr MutateStmt(const ir::StmtPtr& stmt) override {
    // A lowered loop is a sequence: splice it into the enclosing one.
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      std::vector<ir::StmtPtr> stmts;
      for (const ir::StmtPtr& s : seq->stmts()) stmts.push_back(MutateStmt(s));
      return ir::SeqStmts::Flatten(stmts, seq->span());
    }
    auto f = ir::As<ir::ForStmt>(stmt);
    if (f == nullptr || f->for_kind() != ir::ForKind::kPipeline) {
      return ir::IRMutator::MutateStmt(stmt);
    }
    // Inner pipelines first: each copy of this body carries their lowering.
    auto inner = ir::As<ir::ForStmt>(ir::IRMutator::MutateStmt(stmt));
    absl::StatusOr<ir::StmtPtr> out = Lower(inner);
    if (!out.ok()) {
      if (status.ok()) status = out.status();
      return stmt;
    }
    return *out;
  }

 private:
  // Copy `k` of the body for iteration value `iv`, reading `carried`; its
  // statements go to `out`, its yield is returned.
  std::vector<ir::ExprPtr> Copy(const ir::ForStmt& f, const ir::ExprPtr& iv,
                                const std::vector<ir::ExprPtr>& carried, const std::string& suffix,
                                std::vector<ir::StmtPtr>* out, std::optional<int64_t> stage = {}) {
    ir::VarSubstMap subst;
    subst[f.loop_var().get()] = iv;
    for (size_t i = 0; i < f.iter_args().size() && i < carried.size(); ++i) {
      subst[f.iter_args()[i].get()] = carried[i];
    }
    ir::StmtPtr body = CloneWithFreshVars(f.body(), subst, suffix);
    if (stage) body = StageTagger(pto::StrCat(loop_id_, ":", *stage)).MutateStmt(body);
    auto [stmts, yielded] = SplitYield(body);
    for (ir::StmtPtr& s : stmts) out->push_back(std::move(s));
    return yielded;
  }

  int64_t loop_id_ = 0;  // the lowered main loops of the function, in order

  absl::StatusOr<ir::StmtPtr> Lower(const std::shared_ptr<const ir::ForStmt>& f) {
    std::optional<int64_t> stages = ir::GetAttr<int64_t>(f->attrs(), ir::kAttrPipelineStages);
    ir::AttrList attrs;
    for (const auto& [k, v] : f->attrs()) {
      if (k != ir::kAttrPipelineStages) attrs.emplace_back(k, v);
    }
    const int64_t F = stages.value_or(1);
    std::optional<int64_t> start = ir::GetConstInt(f->start());
    std::optional<int64_t> stop = ir::GetConstInt(f->stop());
    std::optional<int64_t> step = ir::GetConstInt(f->step());
    if (F <= 1) {
      // Nothing to multi-buffer: a plain loop.
      return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                           f->iter_args(), f->body(), f->return_vars(),
                                           ir::ForKind::kSequential, attrs, f->span());
    }
    if (!start || !stop || !step || *step <= 0) {
      return UserErrorF(f->span(), "LowerPipelineLoops: this pl.pipeline loop needs constant "
                        "bounds and a positive constant step here (a runtime trip count's "
                        "remainder dispatch is not lowered yet); write pl.range");
    }
    const int64_t trips = *stop > *start ? (*stop - *start + *step - 1) / *step : 0;
    const int64_t main_trips = trips / F;
    const int64_t main_end = *start + main_trips * F * *step;
    const Span& span = f->span();
    std::vector<ir::StmtPtr> out;
    std::vector<ir::ExprPtr> carried;
    for (const ir::IterArgPtr& ia : f->iter_args()) carried.push_back(ia->init_value());
    const bool tail = trips % F != 0;
    if (main_trips > 0) {
      auto iv = std::make_shared<ir::Var>(f->loop_var()->name_hint(), f->loop_var()->type(),
                                          f->loop_var()->span());
      std::vector<ir::IterArgPtr> iter_args;
      std::vector<ir::ExprPtr> cur;
      for (const ir::IterArgPtr& ia : f->iter_args()) {
        auto fresh = std::make_shared<ir::IterArg>(ia->name_hint(), ia->type(), ia->init_value(),
                                                   ia->span());
        iter_args.push_back(fresh);
        cur.push_back(fresh);
      }
      std::vector<ir::StmtPtr> body;
      for (int64_t k = 0; k < F; ++k) {
        ir::ExprPtr at = k == 0 ? ir::ExprPtr(iv)
                                : *ir::MakeBinary(ir::BinaryOp::kAdd, iv,
                                                  ir::ConstIndex(k * *step, span), span);
        cur = Copy(*f, at, cur, pto::StrCat("_s", k), &body, k);
      }
      ++loop_id_;
      if (!cur.empty()) body.push_back(std::make_shared<ir::YieldStmt>(cur, span));
      std::vector<ir::VarPtr> rvs;
      for (size_t i = 0; i < f->return_vars().size(); ++i) {
        const ir::VarPtr& rv = f->return_vars()[i];
        rvs.push_back(tail ? std::make_shared<ir::Var>(rv->name_hint() + "_main", rv->type(),
                                                       rv->span())
                           : rv);
      }
      carried.assign(rvs.begin(), rvs.end());
      ir::AttrList marked = attrs;
      marked.emplace_back(kAttrPipelineCopies, F);
      out.push_back(std::make_shared<ir::ForStmt>(
          iv, ir::ConstIndex(*start, span), ir::ConstIndex(main_end, span),
          ir::ConstIndex(F * *step, span), std::move(iter_args),
          std::make_shared<ir::SeqStmts>(std::move(body), span), std::move(rvs),
          ir::ForKind::kSequential, std::move(marked), span));
    }
    if (tail || main_trips == 0) {
      // The remainder: a copy per iteration left, at its constant index.
      for (int64_t j = 0; main_end + j * *step < *stop; ++j) {
        carried = Copy(*f, ir::ConstIndex(main_end + j * *step, span), carried,
                       pto::StrCat("_t", j), &out);
      }
      for (size_t i = 0; i < f->return_vars().size() && i < carried.size(); ++i) {
        out.push_back(std::make_shared<ir::AssignStmt>(f->return_vars()[i], carried[i], span));
      }
    }
    return ir::SeqStmts::Flatten(out, span);
  }
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> LowerPipelineLoopsPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& fn) -> absl::StatusOr<ir::StmtPtr> {
    if (fn->body() == nullptr) return fn->body();
    Lowerer l;
    ir::StmtPtr body = l.MutateStmt(fn->body());
    RETURN_IF_ERROR(l.status);
    return body;
  });
}

std::unique_ptr<Pass> CreateLowerPipelineLoopsPass() {
  return std::make_unique<LowerPipelineLoopsPass>();
}

}  // namespace pto::passes
