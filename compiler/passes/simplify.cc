#include "compiler/passes/simplify.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace pto::passes {
namespace {

using ir::BinaryOp;
using ir::DataType;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::VarPtr;

// A scalar constant: booleans take part in arithmetic as 0/1, like Python's.
struct Value {
  enum Kind { kInt, kFloat, kBool } kind;
  int64_t i = 0;
  double f = 0;

  bool IsFloat() const { return kind == kFloat; }
  double AsDouble() const { return kind == kFloat ? f : static_cast<double>(i); }
  bool Truthy() const { return kind == kFloat ? f != 0 : i != 0; }
};

std::optional<Value> ValueOf(const ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return Value{Value::kInt, c->value(), 0};
  if (auto c = ir::As<ir::ConstFloat>(e)) return Value{Value::kFloat, 0, c->value()};
  if (auto c = ir::As<ir::ConstBool>(e)) return Value{Value::kBool, c->value() ? 1 : 0, 0};
  return std::nullopt;
}

std::optional<DataType> ScalarDType(const ir::TypePtr& t) {
  if (auto s = ir::As<ir::ScalarType>(t)) return s->dtype();
  return std::nullopt;
}

// Whether integer `v` is a value of `dt` (no wrap-around: Python integers
// do not overflow, so a result the dtype cannot hold is left unfolded).
bool Fits(int64_t v, DataType dt) {
  if (dt == DataType::kIndex || dt == DataType::kInt64) return true;
  if (dt == DataType::kUInt64) return v >= 0;
  int bits = ir::DataTypeBits(dt);
  if (ir::IsSignedInt(dt)) {
    int64_t hi = (int64_t{1} << (bits - 1)) - 1;
    return v >= -hi - 1 && v <= hi;
  }
  if (ir::IsUnsignedInt(dt)) return v >= 0 && v <= (int64_t{1} << bits) - 1;
  return false;
}

// The constant node of `dt` holding `v`, or nullptr when it cannot.
ExprPtr MakeConst(const Value& v, DataType dt, const Span& span) {
  if (dt == DataType::kBool) return std::make_shared<ir::ConstBool>(v.Truthy(), span);
  if (ir::IsFloat(dt)) {
    double d = v.AsDouble();
    if (!std::isfinite(d)) return nullptr;
    return std::make_shared<ir::ConstFloat>(d, dt, span);
  }
  if (dt == DataType::kTaskId || v.IsFloat() || !Fits(v.i, dt)) return nullptr;
  return std::make_shared<ir::ConstInt>(v.i, dt, span);
}

// Python's float floor division and modulo (Objects/floatobject.c).
void FloatDivMod(double vx, double wx, double* floordiv, double* mod) {
  double m = std::fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m != 0) {
    if ((wx < 0) != (m < 0)) {
      m += wx;
      div -= 1.0;
    }
  } else {
    m = std::copysign(0.0, wx);
  }
  double fd;
  if (div != 0) {
    fd = std::floor(div);
    if (div - fd > 0.5) fd += 1.0;
  } else {
    fd = std::copysign(0.0, vx / wx);
  }
  *floordiv = fd;
  *mod = m;
}

std::optional<Value> FoldFloat(BinaryOp op, double a, double b) {
  auto F = [](double d) { return Value{Value::kFloat, 0, d}; };
  switch (op) {
    case BinaryOp::kAdd: return F(a + b);
    case BinaryOp::kSub: return F(a - b);
    case BinaryOp::kMul: return F(a * b);
    case BinaryOp::kDiv:
      if (b == 0) return std::nullopt;
      return F(a / b);
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      if (b == 0) return std::nullopt;
      double fd, m;
      FloatDivMod(a, b, &fd, &m);
      return F(op == BinaryOp::kFloorDiv ? fd : m);
    }
    case BinaryOp::kPow:
      // 0.0 ** negative raises; a negative base with a fractional exponent
      // gives a complex number in Python.
      if (a == 0 && b < 0) return std::nullopt;
      if (a < 0 && b != std::floor(b)) return std::nullopt;
      return F(std::pow(a, b));
    case BinaryOp::kMin: return F(b < a ? b : a);
    case BinaryOp::kMax: return F(b > a ? b : a);
    default: return std::nullopt;
  }
}

std::optional<Value> FoldInt(BinaryOp op, int64_t a, int64_t b) {
  auto I = [](int64_t v) { return Value{Value::kInt, v, 0}; };
  int64_t r;
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return I(r);
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return I(r);
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return I(r);
    case BinaryOp::kFloorDiv: {
      if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return I(q);
    }
    case BinaryOp::kFloorMod: {
      if (b == 0) return std::nullopt;
      if (b == -1) return I(0);
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return I(m);
    }
    case BinaryOp::kPow: {
      if (b < 0) return std::nullopt;  // a float in Python
      int64_t result = 1, base = a;
      for (int64_t e = b; e > 0; e >>= 1) {
        if (e & 1) {
          if (__builtin_mul_overflow(result, base, &result)) return std::nullopt;
        }
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) return std::nullopt;
      }
      return I(result);
    }
    case BinaryOp::kMin: return I(b < a ? b : a);
    case BinaryOp::kMax: return I(b > a ? b : a);
    case BinaryOp::kBitAnd: return I(a & b);
    case BinaryOp::kBitOr: return I(a | b);
    case BinaryOp::kBitXor: return I(a ^ b);
    case BinaryOp::kShl:
      if (b < 0) return std::nullopt;  // ValueError in Python
      if (a == 0) return I(0);
      if (b >= 63) return std::nullopt;
      r = static_cast<int64_t>(static_cast<uint64_t>(a) << b);
      if ((r >> b) != a) return std::nullopt;
      return I(r);
    case BinaryOp::kShr:
      if (b < 0) return std::nullopt;
      if (b >= 63) return I(a < 0 ? -1 : 0);
      return I(a >> b);
    default: return std::nullopt;
  }
}

ExprPtr FoldBinary(const std::shared_ptr<const ir::BinaryExpr>& e) {
  std::optional<Value> a = ValueOf(e->lhs()), b = ValueOf(e->rhs());
  std::optional<DataType> rd = ScalarDType(e->type());
  if (!a || !b || !rd) return nullptr;
  BinaryOp op = e->op();
  Value out;
  if (ir::IsComparison(op)) {
    bool r;
    if (!a->IsFloat() && !b->IsFloat()) {
      int64_t x = a->i, y = b->i;
      r = op == BinaryOp::kEq ? x == y : op == BinaryOp::kNe ? x != y : op == BinaryOp::kLt ? x < y
          : op == BinaryOp::kLe ? x <= y : op == BinaryOp::kGt ? x > y : x >= y;
    } else {
      double x = a->AsDouble(), y = b->AsDouble();
      r = op == BinaryOp::kEq ? x == y : op == BinaryOp::kNe ? x != y : op == BinaryOp::kLt ? x < y
          : op == BinaryOp::kLe ? x <= y : op == BinaryOp::kGt ? x > y : x >= y;
    }
    out = Value{Value::kBool, r ? 1 : 0, 0};
  } else if (ir::IsLogical(op)) {
    bool r = op == BinaryOp::kAnd ? (a->Truthy() && b->Truthy()) : (a->Truthy() || b->Truthy());
    out = Value{Value::kBool, r ? 1 : 0, 0};
  } else if (a->IsFloat() || b->IsFloat() || op == BinaryOp::kDiv || ir::IsFloat(*rd)) {
    std::optional<Value> r = FoldFloat(op, a->AsDouble(), b->AsDouble());
    if (!r) return nullptr;
    out = *r;
  } else {
    std::optional<Value> r = FoldInt(op, a->i, b->i);
    if (!r) return nullptr;
    out = *r;
  }
  return MakeConst(out, *rd, e->span());
}

ExprPtr FoldUnary(const std::shared_ptr<const ir::UnaryExpr>& e) {
  std::optional<Value> a = ValueOf(e->operand());
  std::optional<DataType> rd = ScalarDType(e->type());
  if (!a || !rd) return nullptr;
  Value out = *a;
  switch (e->op()) {
    case ir::UnaryOp::kNeg:
      if (a->IsFloat()) {
        out.f = -a->f;
      } else {
        if (a->i == std::numeric_limits<int64_t>::min()) return nullptr;
        out = Value{Value::kInt, -a->i, 0};
      }
      break;
    case ir::UnaryOp::kAbs:
      if (a->IsFloat()) {
        out.f = std::fabs(a->f);
      } else {
        if (a->i == std::numeric_limits<int64_t>::min()) return nullptr;
        out = Value{Value::kInt, a->i < 0 ? -a->i : a->i, 0};
      }
      break;
    case ir::UnaryOp::kNot:
      out = Value{Value::kBool, a->Truthy() ? 0 : 1, 0};
      break;
    case ir::UnaryOp::kBitNot:
      if (a->IsFloat()) return nullptr;
      out = Value{Value::kInt, ~a->i, 0};
      break;
  }
  return MakeConst(out, *rd, e->span());
}

ExprPtr FoldCast(const std::shared_ptr<const ir::Cast>& e) {
  std::optional<Value> a = ValueOf(e->value());
  if (!a) return nullptr;
  DataType dt = e->dtype();
  if (a->IsFloat() && ir::IsIntegral(dt)) {
    // int(x) truncates toward zero; inf and nan do not convert.
    if (!std::isfinite(a->f) || std::fabs(a->f) >= 9.2e18) return nullptr;
    return MakeConst(Value{Value::kInt, static_cast<int64_t>(std::trunc(a->f)), 0}, dt,
                     e->span());
  }
  return MakeConst(*a, dt, e->span());
}

bool IsIntConst(const ExprPtr& e, int64_t v) {
  auto c = ir::As<ir::ConstInt>(e);
  return c != nullptr && c->value() == v;
}

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x // 1 on integers: x itself, when x
// already has the result's dtype; (x + y) - x, (y + x) - x: y; x - x: 0.
ExprPtr FoldIdentity(const std::shared_ptr<const ir::BinaryExpr>& e) {
  std::optional<DataType> rd = ScalarDType(e->type());
  if (!rd || !ir::IsIntegral(*rd)) return nullptr;
  auto same = [&](const ExprPtr& x) -> ExprPtr {
    std::optional<DataType> xd = ScalarDType(x->type());
    return xd && *xd == *rd ? x : nullptr;
  };
  switch (e->op()) {
    case BinaryOp::kAdd:
      if (IsIntConst(e->rhs(), 0)) return same(e->lhs());
      if (IsIntConst(e->lhs(), 0)) return same(e->rhs());
      return nullptr;
    case BinaryOp::kSub: {
      if (IsIntConst(e->rhs(), 0)) return same(e->lhs());
      // (x + y) - x and (y + x) - x: y, for the same var x (a slice's
      // extent `k0 + 128 - k0` is 128); x - x: 0.
      auto x = ir::As<ir::Var>(e->rhs());
      if (x == nullptr) return nullptr;
      if (e->lhs() == e->rhs()) return std::make_shared<ir::ConstInt>(0, *rd, e->span());
      auto sum = ir::As<ir::BinaryExpr>(e->lhs());
      if (sum == nullptr || sum->op() != BinaryOp::kAdd) return nullptr;
      if (sum->lhs() == e->rhs()) return same(sum->rhs());
      if (sum->rhs() == e->rhs()) return same(sum->lhs());
      return nullptr;
    }
    case BinaryOp::kMul:
      if (IsIntConst(e->rhs(), 1)) return same(e->lhs());
      if (IsIntConst(e->lhs(), 1)) return same(e->rhs());
      return nullptr;
    case BinaryOp::kFloorDiv:
      return IsIntConst(e->rhs(), 1) ? same(e->lhs()) : nullptr;
    default:
      return nullptr;
  }
}

// Folds bottom-up everywhere the mutator reaches (statements, loop bounds,
// args, attrs, shapes and views in types) and replaces uses of scalar vars
// bound to constants.
class Folder : public ir::IRMutator {
 protected:
  ExprPtr MutateVar(const VarPtr& var) override {
    auto it = consts_.find(var.get());
    if (it != consts_.end()) return it->second;
    return IRMutator::MutateVar(var);
  }
  ExprPtr MutateBinaryExpr(const std::shared_ptr<const ir::BinaryExpr>& expr) override {
    ExprPtr e = IRMutator::MutateBinaryExpr(expr);
    auto b = ir::As<ir::BinaryExpr>(e);
    if (b == nullptr) return e;
    if (ExprPtr c = FoldBinary(b)) return c;
    if (ExprPtr x = FoldIdentity(b)) return x;
    return e;
  }
  ExprPtr MutateUnaryExpr(const std::shared_ptr<const ir::UnaryExpr>& expr) override {
    ExprPtr e = IRMutator::MutateUnaryExpr(expr);
    auto u = ir::As<ir::UnaryExpr>(e);
    if (u == nullptr) return e;
    ExprPtr c = FoldUnary(u);
    return c ? c : e;
  }
  ExprPtr MutateCast(const std::shared_ptr<const ir::Cast>& expr) override {
    ExprPtr e = IRMutator::MutateCast(expr);
    auto c = ir::As<ir::Cast>(e);
    if (c == nullptr) return e;
    ExprPtr f = FoldCast(c);
    return f ? f : e;
  }
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    StmtPtr out = IRMutator::MutateAssignStmt(stmt);
    auto a = ir::As<ir::AssignStmt>(out);
    std::optional<DataType> dt = a ? ScalarDType(a->var()->type()) : std::nullopt;
    if (dt && *dt != DataType::kTaskId) {
      // SSA: the var holds this value wherever it is visible.
      if (std::optional<Value> v = ValueOf(a->value())) {
        ExprPtr c = a->value();
        bool same_dtype =
            (ir::Is<ir::ConstInt>(c) && ir::As<ir::ConstInt>(c)->dtype() == *dt) ||
            (ir::Is<ir::ConstFloat>(c) && ir::As<ir::ConstFloat>(c)->dtype() == *dt) ||
            (ir::Is<ir::ConstBool>(c) && *dt == DataType::kBool);
        if (!same_dtype) c = MakeConst(*v, *dt, a->value()->span());
        if (c != nullptr) consts_[stmt->var().get()] = c;
      }
    }
    return out;
  }

 private:
  absl::flat_hash_map<const ir::Var*, ExprPtr> consts_;
};

// Counts uses of plain Vars (types, attrs and loop bounds included).
class UseCounter : public ir::IRVisitor {
 public:
  UseCounter(absl::flat_hash_map<const ir::Var*, int>* counts, int delta)
      : counts_(counts), delta_(delta) {}
  bool saw_call = false;

 protected:
  void VisitVar(const VarPtr& var) override {
    (*counts_)[var.get()] += delta_;
    IRVisitor::VisitVar(var);
  }
  void VisitCall(const ir::CallPtr& call) override {
    saw_call = true;
    IRVisitor::VisitCall(call);
  }

 private:
  absl::flat_hash_map<const ir::Var*, int>* counts_;
  int delta_;
};

bool HasCall(const ExprPtr& e) {
  absl::flat_hash_map<const ir::Var*, int> scratch;
  UseCounter c(&scratch, 0);
  c.VisitExpr(e);
  return c.saw_call;
}

// Conservative dead-scalar elimination: in reverse text order (every use of a
// var follows its definition), drop `x = value` when x is a scalar no one
// uses and the value calls nothing; the value's own uses are released so
// chains of dead scalars go in one walk.
class DeadScalarEliminator {
 public:
  explicit DeadScalarEliminator(const ir::FunctionPtr& func) {
    UseCounter c(&counts_, 1);
    c.VisitFunction(func);
  }

  // nullptr when the statement is removed.
  StmtPtr Run(const StmtPtr& s) {
    switch (s->kind()) {
      case ir::NodeKind::kSeqStmts: {
        auto seq = ir::As<ir::SeqStmts>(s);
        std::vector<StmtPtr> kept;
        bool changed = false;
        for (auto it = seq->stmts().rbegin(); it != seq->stmts().rend(); ++it) {
          StmtPtr n = Run(*it);
          changed |= n != *it;
          if (n != nullptr) kept.push_back(std::move(n));
        }
        if (!changed) return s;
        std::reverse(kept.begin(), kept.end());
        return std::make_shared<ir::SeqStmts>(std::move(kept), seq->span());
      }
      case ir::NodeKind::kAssignStmt: {
        auto a = ir::As<ir::AssignStmt>(s);
        std::optional<DataType> dt = ScalarDType(a->var()->type());
        if (!dt || *dt == DataType::kTaskId || !ir::Is<ir::Var>(a->var()) ||
            a->var()->kind() != ir::NodeKind::kVar) {
          return s;
        }
        auto it = counts_.find(a->var().get());
        if (it != counts_.end() && it->second > 0) return s;
        if (HasCall(a->value())) return s;
        UseCounter release(&counts_, -1);
        release.VisitExpr(a->value());
        return nullptr;
      }
      case ir::NodeKind::kIfStmt: {
        auto i = ir::As<ir::IfStmt>(s);
        std::optional<StmtPtr> else_body = i->else_body();
        if (else_body) else_body = Body(*else_body);
        StmtPtr then_body = Body(i->then_body());
        if (then_body == i->then_body() && else_body == i->else_body()) return s;
        return std::make_shared<ir::IfStmt>(i->condition(), then_body, else_body,
                                            i->return_vars(), i->span());
      }
      case ir::NodeKind::kForStmt: {
        auto f = ir::As<ir::ForStmt>(s);
        StmtPtr body = Body(f->body());
        if (body == f->body()) return s;
        return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                             f->iter_args(), body, f->return_vars(),
                                             f->for_kind(), f->attrs(), f->span());
      }
      case ir::NodeKind::kWhileStmt: {
        auto w = ir::As<ir::WhileStmt>(s);
        StmtPtr body = Body(w->body());
        if (body == w->body()) return s;
        return std::make_shared<ir::WhileStmt>(w->condition(), w->iter_args(), body,
                                               w->return_vars(), w->span());
      }
      case ir::NodeKind::kCommDomainScopeStmt: {
        auto c = ir::As<ir::CommDomainScopeStmt>(s);
        StmtPtr body = Body(c->body());
        if (body == c->body()) return s;
        return std::make_shared<ir::CommDomainScopeStmt>(c->name_hint(), c->devices(),
                                                         c->slots(), body, c->attrs(), c->span());
      }
      case ir::NodeKind::kRuntimeScopeStmt: {
        auto r = ir::As<ir::RuntimeScopeStmt>(s);
        StmtPtr body = Body(r->body());
        if (body == r->body()) return s;
        return std::make_shared<ir::RuntimeScopeStmt>(r->name_hint(), r->manual(), body,
                                                      r->attrs(), r->span());
      }
      default:
        return s;
    }
  }

  // A body never disappears: an emptied one is an empty sequence.
  StmtPtr Body(const StmtPtr& body) {
    StmtPtr n = Run(body);
    if (n == nullptr) return std::make_shared<ir::SeqStmts>(std::vector<StmtPtr>{}, body->span());
    return n;
  }

 private:
  absl::flat_hash_map<const ir::Var*, int> counts_;
};

ir::FunctionPtr SimplifyFunction(const ir::FunctionPtr& func) {
  Folder folder;
  ir::FunctionPtr f = folder.MutateFunction(func);
  if (f->body() == nullptr) return f;
  DeadScalarEliminator dce(f);
  StmtPtr body = dce.Body(f->body());
  if (body == f->body()) return f;
  return f->WithBody(body);
}

}  // namespace

ExprPtr FoldConstantExpr(const ExprPtr& expr) {
  if (auto b = ir::As<ir::BinaryExpr>(expr)) return FoldBinary(b);
  if (auto u = ir::As<ir::UnaryExpr>(expr)) return FoldUnary(u);
  if (auto c = ir::As<ir::Cast>(expr)) return FoldCast(c);
  return nullptr;
}

absl::StatusOr<ir::ProgramPtr> SimplifyPass::Run(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> out;
  bool changed = false;
  for (const auto& [gv, func] : program->functions()) {
    ir::FunctionPtr f = SimplifyFunction(func);
    changed |= f != func;
    out.push_back(std::move(f));
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(out), program->name(), program->span());
}

std::unique_ptr<Pass> CreateSimplifyPass() { return std::make_unique<SimplifyPass>(); }

}  // namespace pto::passes
