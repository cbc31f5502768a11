#include "compiler/passes/legalize_spmd_launches.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/type.h"
#include "compiler/passes/call_effects.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {

namespace {

using LowerBounds = absl::flat_hash_map<const ir::Var*, int64_t>;

// A constant lower bound of a scalar expression under `facts`, if one follows.
std::optional<int64_t> LowerBound(const ir::ExprPtr& e, const LowerBounds& facts) {
  if (std::optional<int64_t> c = ir::GetConstInt(e)) return c;
  if (auto v = ir::As<ir::Var>(e)) {
    auto it = facts.find(v.get());
    if (it == facts.end()) return std::nullopt;
    return it->second;
  }
  if (auto c = ir::As<ir::Cast>(e)) return LowerBound(c->value(), facts);
  auto b = ir::As<ir::BinaryExpr>(e);
  if (b == nullptr) return std::nullopt;
  std::optional<int64_t> l = LowerBound(b->lhs(), facts);
  std::optional<int64_t> r = LowerBound(b->rhs(), facts);
  switch (b->op()) {
    case ir::BinaryOp::kAdd:
      if (l && r) return *l + *r;
      break;
    case ir::BinaryOp::kMul:
      if (l && r && *l >= 0 && *r >= 0) return *l * *r;
      break;
    case ir::BinaryOp::kMax:
      if (l && r) return std::max(*l, *r);
      if (l) return l;
      return r;
    case ir::BinaryOp::kMin:
      if (l && r) return std::min(*l, *r);
      break;
    default:
      break;
  }
  return std::nullopt;
}

// What `cond` (or its negation) says about a var: `v > c`, `v >= c`, `c < v`,
// `c <= v`, conjunctions (then branch) and the negated forms (else branch).
void AddConditionFacts(const ir::ExprPtr& cond, bool holds, LowerBounds* facts) {
  if (auto u = ir::As<ir::UnaryExpr>(cond); u && u->op() == ir::UnaryOp::kNot) {
    AddConditionFacts(u->operand(), !holds, facts);
    return;
  }
  auto b = ir::As<ir::BinaryExpr>(cond);
  if (b == nullptr) return;
  if (b->op() == ir::BinaryOp::kAnd && holds) {
    AddConditionFacts(b->lhs(), true, facts);
    AddConditionFacts(b->rhs(), true, facts);
    return;
  }
  auto record = [&](const ir::ExprPtr& var, int64_t bound) {
    auto v = ir::As<ir::Var>(var);
    if (v == nullptr) return;
    auto [it, inserted] = facts->emplace(v.get(), bound);
    if (!inserted) it->second = std::max(it->second, bound);
  };
  std::optional<int64_t> rc = ir::GetConstInt(b->rhs());
  std::optional<int64_t> lc = ir::GetConstInt(b->lhs());
  ir::BinaryOp op = b->op();
  if (!holds) {
    // not (v < c) == v >= c, not (v <= c) == v > c, ...
    switch (op) {
      case ir::BinaryOp::kLt:
        op = ir::BinaryOp::kGe;
        break;
      case ir::BinaryOp::kLe:
        op = ir::BinaryOp::kGt;
        break;
      case ir::BinaryOp::kGt:
        op = ir::BinaryOp::kLe;
        break;
      case ir::BinaryOp::kGe:
        op = ir::BinaryOp::kLt;
        break;
      default:
        return;
    }
  }
  if (rc && op == ir::BinaryOp::kGt) record(b->lhs(), *rc + 1);
  if (rc && op == ir::BinaryOp::kGe) record(b->lhs(), *rc);
  if (lc && op == ir::BinaryOp::kLt) record(b->rhs(), *lc + 1);
  if (lc && op == ir::BinaryOp::kLe) record(b->rhs(), *lc);
}

class LaunchLegalizer : public ir::IRMutator {
 public:
  explicit LaunchLegalizer(const ir::Program* program) : program_(program) {}
  absl::Status status() const { return status_; }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (std::optional<int64_t> lb = LowerBound(s->value(), facts_)) {
      facts_[s->var().get()] = *lb;
    }
    if (ir::CallPtr c = Launch(s->value())) return Guard(c, s->var(), s, s->span());
    return s;
  }
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    if (ir::CallPtr c = Launch(s->expr())) return Guard(c, nullptr, s, s->span());
    return s;
  }
  // A guarded return is two statements: keep sequences flat.
  ir::StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& s) override {
    ir::StmtPtr out = ir::IRMutator::MutateSeqStmts(s);
    if (out == s) return out;
    auto seq = ir::As<ir::SeqStmts>(out);
    return seq != nullptr ? ir::SeqStmts::Flatten(seq->stmts(), seq->span()) : out;
  }
  ir::StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    if (s->value().size() != 1) return s;
    ir::CallPtr c = Launch(s->value()[0]);
    if (c == nullptr) return s;
    // Lifted so the guarded launch can bind its result.
    auto ret = std::make_shared<const ir::Var>("ret", c->type(), s->span());
    ir::StmtPtr guarded = Guard(c, ret, nullptr, s->span());
    if (guarded == nullptr) return s;
    return ir::SeqStmts::Flatten(
        {guarded, std::make_shared<const ir::ReturnStmt>(std::vector<ir::ExprPtr>{ret},
                                                         s->leading_comments(), s->span())},
        s->span());
  }
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    std::optional<int64_t> step = ir::GetConstInt(s->step());
    if (std::optional<int64_t> lb = LowerBound(s->start(), facts_); lb && step && *step > 0) {
      facts_[s->loop_var().get()] = *lb;
    }
    return IRMutator::MutateForStmt(s);
  }
  ir::StmtPtr MutateIfStmt(const std::shared_ptr<const ir::IfStmt>& s) override {
    LowerBounds saved = facts_;
    AddConditionFacts(s->condition(), true, &facts_);
    ir::StmtPtr then_body = MutateStmt(s->then_body());
    facts_ = saved;
    std::optional<ir::StmtPtr> else_body = s->else_body();
    if (else_body) {
      AddConditionFacts(s->condition(), false, &facts_);
      else_body = MutateStmt(*else_body);
      facts_ = saved;
    }
    if (then_body == s->then_body() && else_body == s->else_body()) return s;
    return std::make_shared<const ir::IfStmt>(s->condition(), then_body, else_body,
                                              s->return_vars(), s->span());
  }

 private:
  // A kernel call with a launch width that is not provably >= 1.
  ir::CallPtr Launch(const ir::ExprPtr& e) {
    auto c = ir::As<ir::Call>(e);
    if (c == nullptr || CalleeOf(*program_, *c) == nullptr) return nullptr;
    std::optional<ir::ExprPtr> width = ir::GetAttr<ir::ExprPtr>(c->attrs(), ir::kAttrCoreNum);
    if (!width || *width == nullptr) return nullptr;
    std::optional<int64_t> lb = LowerBound(*width, facts_);
    if (lb && *lb >= 1) return nullptr;
    return c;
  }

  // `if core_num > 0: result = launch else: task_dummy; result = outputs`.
  // Returns nullptr (and sets the status) on error.
  ir::StmtPtr Guard(const ir::CallPtr& c, const ir::VarPtr& result, const ir::StmtPtr& original,
                    const Span& span) {
    if (!status_.ok()) return original;
    ir::FunctionPtr callee = CalleeOf(*program_, *c);
    std::vector<std::string> missing;
    for (size_t i = c->args().size(); i < callee->params().size(); ++i) {
      ir::ParamDirection d = callee->param_directions()[i];
      if (d != ir::ParamDirection::kIn && ir::AsTensorTypeLike(callee->params()[i]->type())) {
        missing.push_back(pto::StrCat("'", callee->params()[i]->name_hint(), "'"));
      }
    }
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      status_ =
          UserErrorF(c->span(), "SPMD launch of '", callee->name(),
                     "' does not pass its output parameter", missing.size() > 1 ? "s " : " ", list,
                     "; every Tensor Out/InOut parameter of a possibly-empty launch "
                     "needs a caller-provided argument, which the empty launch returns");
      return original;
    }
    // The empty path returns what the kernel would have returned: the caller's
    // arguments for the returned parameters.
    std::vector<ir::ExprPtr> outputs;
    size_t n = ir::As<ir::TupleType>(c->type()) != nullptr ? callee->return_types().size()
                                                           : callee->return_types().size() > 0;
    for (size_t i = 0; i < n; ++i) {
      std::optional<int> k = ReturnedParamIndex(*callee, static_cast<int>(i), program_);
      if (!k || *k >= static_cast<int>(c->args().size())) {
        status_ =
            InternalErrorF(c->span(), "LegalizeSpmdLaunches: result ", i, " of '", callee->name(),
                           "' is not one of its parameters (ReturnParamsExplicit)");
        return original;
      }
      outputs.push_back(c->args()[*k]);
    }
    ir::ExprPtr width = *ir::GetAttr<ir::ExprPtr>(c->attrs(), ir::kAttrCoreNum);
    auto width_type = ir::As<ir::ScalarType>(width->type());
    ir::DataType dt = width_type != nullptr ? width_type->dtype() : ir::DataType::kIndex;
    auto cond = std::make_shared<const ir::BinaryExpr>(
        ir::BinaryOp::kGt, width, std::make_shared<const ir::ConstInt>(0, dt, span),
        ir::ScalarType::Get(ir::DataType::kBool), span);
    // The dummy task carries the launch's dependencies, so the tasks after it
    // are ordered as they would be after the launch.
    ir::AttrList dummy_attrs = {{"dummy_task", true}};
    for (const char* key : {"manual_dep_edges", "compiler_manual_dep_edges"}) {
      if (auto deps = ir::GetAttr<std::vector<ir::ExprPtr>>(c->attrs(), key)) {
        dummy_attrs.emplace_back("manual_dep_edges", *deps);
        break;
      }
    }
    const ops::OpDef* dummy_def = ops::OpRegistry::Global().Find(kTaskDummyOp);
    ir::StmtPtr dummy = std::make_shared<const ir::EvalStmt>(
        std::make_shared<const ir::Call>(dummy_def->op, std::vector<ir::ExprPtr>{}, ir::AttrList{},
                                         dummy_attrs,
                                         ir::ScalarType::Get(ir::DataType::kTaskId), span),
        std::vector<std::string>{}, span);
    if (result == nullptr) {
      return std::make_shared<const ir::IfStmt>(
          cond, std::make_shared<const ir::EvalStmt>(c, std::vector<std::string>{}, span), dummy,
          std::vector<ir::VarPtr>{}, span);
    }
    auto inner = std::make_shared<const ir::Var>(result->name_hint(), result->type(), span);
    ir::ExprPtr empty_value =
        ir::As<ir::TupleType>(c->type()) != nullptr
            ? ir::ExprPtr(std::make_shared<const ir::MakeTuple>(outputs, span))
            : outputs.at(0);
    ir::StmtPtr then_body = std::make_shared<const ir::SeqStmts>(
        std::vector<ir::StmtPtr>{
            std::make_shared<const ir::AssignStmt>(inner, c, span),
            std::make_shared<const ir::YieldStmt>(std::vector<ir::ExprPtr>{inner}, span)},
        span);
    ir::StmtPtr else_body = std::make_shared<const ir::SeqStmts>(
        std::vector<ir::StmtPtr>{dummy, std::make_shared<const ir::YieldStmt>(
                                            std::vector<ir::ExprPtr>{empty_value}, span)},
        span);
    return std::make_shared<const ir::IfStmt>(cond, then_body, else_body,
                                              std::vector<ir::VarPtr>{result}, span);
  }

  const ir::Program* program_;
  LowerBounds facts_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> LegalizeSpmdLaunchesPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [&](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
        LaunchLegalizer m(program.get());
        ir::StmtPtr body = m.MutateStmt(f->body());
        RETURN_IF_ERROR(m.status());
        return body;
      });
}

std::unique_ptr<Pass> CreateLegalizeSpmdLaunchesPass() {
  return std::make_unique<LegalizeSpmdLaunchesPass>();
}

}  // namespace pto::passes
