#include "compiler/ir/builder.h"

#include <algorithm>

#include "compiler/ir/arena.h"
#include "compiler/support/diagnostics.h"

namespace pto::ir {

// ---- Vars, constants and types ----

VarPtr MakeVar(std::string name, TypePtr type, Span span) {
  return MakeNode<Var>(std::move(name), std::move(type), std::move(span));
}

ExprPtr ConstIndex(int64_t value, Span span) {
  return MakeNode<ConstInt>(value, DataType::kIndex, std::move(span));
}

ExprPtr MakeConstInt(int64_t value, DataType dtype, Span span) {
  return MakeNode<ConstInt>(value, dtype, std::move(span));
}

ExprPtr MakeConstFloat(double value, DataType dtype, Span span) {
  return MakeNode<ConstFloat>(value, dtype, std::move(span));
}

ExprPtr MakeConstBool(bool value, Span span) {
  return MakeNode<ConstBool>(value, std::move(span));
}

TypePtr ScalarOf(DataType dtype) { return ScalarType::Get(dtype); }

std::vector<ExprPtr> ShapeOf(const std::vector<int64_t>& dims) {
  std::vector<ExprPtr> shape;
  shape.reserve(dims.size());
  for (int64_t d : dims) shape.push_back(ConstIndex(d));
  return shape;
}

std::shared_ptr<const TensorType> TensorOf(const std::vector<int64_t>& shape, DataType dtype) {
  return MakeNode<TensorType>(ShapeOf(shape), dtype);
}

std::shared_ptr<const DistributedTensorType> DistTensorOf(
    const std::vector<int64_t>& shape, DataType dtype,
    std::optional<WindowBufferPtr> window_buffer) {
  return MakeNode<DistributedTensorType>(ShapeOf(shape), dtype, std::nullopt, std::nullopt,
                                                 std::move(window_buffer));
}

std::shared_ptr<const TileType> TileOf(const std::vector<int64_t>& shape, DataType dtype) {
  return MakeNode<TileType>(ShapeOf(shape), dtype);
}

TypePtr ReturnTypeOf(const std::vector<TypePtr>& types) {
  if (types.empty()) return UnknownType::Get();
  if (types.size() == 1) return types[0];
  return MakeNode<TupleType>(types);
}

// ---- Scalar arithmetic ----

std::optional<DataType> PromoteDataTypes(DataType a, DataType b) {
  if (a == b) return a;
  if (a == DataType::kTaskId || b == DataType::kTaskId) return std::nullopt;
  if (a == DataType::kBool) return b;
  if (b == DataType::kBool) return a;
  bool fa = IsFloat(a);
  bool fb = IsFloat(b);
  if (fa && fb) {
    if (DataTypeBits(a) == DataTypeBits(b)) return DataType::kFP32;
    return DataTypeBits(a) > DataTypeBits(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integers. INDEX is the type of untyped literals: `n + 1` keeps n's.
  if (a == DataType::kIndex) return b;
  if (b == DataType::kIndex) return a;
  if (DataTypeBits(a) != DataTypeBits(b)) return DataTypeBits(a) > DataTypeBits(b) ? a : b;
  return IsUnsignedInt(a) ? a : b;
}

namespace {

std::string_view BinaryOpSymbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kFloorMod:
      return "%";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kPow:
      return "**";
    case BinaryOp::kMin:
      return "pl.min";
    case BinaryOp::kMax:
      return "pl.max";
    case BinaryOp::kEq:
      return "==";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
    case BinaryOp::kBitAnd:
      return "&";
    case BinaryOp::kBitOr:
      return "|";
    case BinaryOp::kBitXor:
      return "^";
    case BinaryOp::kShl:
      return "<<";
    case BinaryOp::kShr:
      return ">>";
  }
  return "?";
}

std::optional<DataType> ScalarDType(const ExprPtr& e) {
  if (e == nullptr) return std::nullopt;
  if (auto s = As<ScalarType>(e->type())) return s->dtype();
  return std::nullopt;
}

bool IsIntOrBool(DataType t) { return IsIntegral(t) || t == DataType::kBool; }

}  // namespace

absl::StatusOr<ExprPtr> MakeBinary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span) {
  std::string_view sym = BinaryOpSymbol(op);
  std::optional<DataType> a = ScalarDType(lhs);
  std::optional<DataType> b = ScalarDType(rhs);
  if (!a.has_value() || !b.has_value()) {
    return UserErrorF(span, "operands of '", sym, "' must be scalars");
  }
  DataType result;
  if (IsLogical(op)) {
    result = DataType::kBool;
  } else {
    std::optional<DataType> common = PromoteDataTypes(*a, *b);
    if (!common.has_value()) {
      return UserErrorF(span, "operands of '", sym, "' have incompatible dtypes ", DataTypeName(*a),
                        " and ", DataTypeName(*b));
    }
    switch (op) {
      case BinaryOp::kEq:
      case BinaryOp::kNe:
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe:
        result = DataType::kBool;
        break;
      case BinaryOp::kBitAnd:
      case BinaryOp::kBitOr:
      case BinaryOp::kBitXor:
      case BinaryOp::kShl:
      case BinaryOp::kShr:
        if (!IsIntOrBool(*a) || !IsIntOrBool(*b)) {
          return UserErrorF(span, "operands of '", sym, "' must be integers, got ",
                            DataTypeName(*a), " and ", DataTypeName(*b));
        }
        result = (op == BinaryOp::kShl || op == BinaryOp::kShr) ? *a : *common;
        break;
      case BinaryOp::kDiv:
        result = IsFloat(*common) ? *common : DataType::kFP32;
        break;
      default:
        if (*common == DataType::kTaskId) {
          return UserErrorF(span, "operands of '", sym, "' must be numbers, got TASK_ID");
        }
        result = *common;
        break;
    }
  }
  return ExprPtr(MakeNode<BinaryExpr>(op, std::move(lhs), std::move(rhs),
                                              ScalarType::Get(result), std::move(span)));
}

absl::StatusOr<ExprPtr> MakeUnary(UnaryOp op, ExprPtr operand, Span span) {
  std::optional<DataType> t = ScalarDType(operand);
  if (!t.has_value()) return UserError(span, "operand of a unary operator must be a scalar");
  DataType result = *t;
  if (op == UnaryOp::kNot) {
    result = DataType::kBool;
  } else if (op == UnaryOp::kBitNot && !IsIntOrBool(*t)) {
    return UserErrorF(span, "operand of '~' must be an integer, got ", DataTypeName(*t));
  } else if (*t == DataType::kTaskId) {
    return UserError(span, "operand of a unary operator must be a number, got TASK_ID");
  }
  return ExprPtr(MakeNode<UnaryExpr>(op, std::move(operand), ScalarType::Get(result),
                                             std::move(span)));
}

// ---- Calls ----

CallPtr MakeOpCall(std::string op_name, std::vector<ExprPtr> args, TypePtr type, AttrList kwargs,
                   AttrList attrs, Span span) {
  return MakeNode<Call>(MakeNode<Op>(std::move(op_name), span), std::move(args),
                                std::move(kwargs), std::move(attrs), std::move(type),
                                std::move(span));
}

CallPtr MakeOpCall(OpId id, std::vector<ExprPtr> args, TypePtr type, AttrList kwargs,
                   AttrList attrs, Span span) {
  return MakeOpCall(std::string(OpIdName(id)), std::move(args), std::move(type), std::move(kwargs),
                    std::move(attrs), std::move(span));
}

CallPtr MakeGlobalCall(std::string func_name, std::vector<ExprPtr> args, TypePtr type,
                       AttrList attrs, Span span) {
  return MakeNode<Call>(MakeNode<GlobalVar>(std::move(func_name), span),
                                std::move(args), AttrList{}, std::move(attrs), std::move(type),
                                std::move(span));
}

CallPtr MakeFunctionCall(const FunctionPtr& callee, std::vector<ExprPtr> args, AttrList attrs,
                         Span span) {
  return MakeGlobalCall(callee->name(), std::move(args), ReturnTypeOf(callee->return_types()),
                        std::move(attrs), std::move(span));
}

// ---- FunctionBuilder ----

FunctionBuilder::FunctionBuilder(std::string name, FunctionType func_type, Span span)
    : name_(std::move(name)), func_type_(func_type), span_(std::move(span)) {
  blocks_.emplace_back();
}

FunctionBuilder& FunctionBuilder::SetLevel(Level level) {
  level_ = level;
  return *this;
}

FunctionBuilder& FunctionBuilder::SetRole(Role role) {
  role_ = role;
  return *this;
}

FunctionBuilder& FunctionBuilder::SetAttr(std::string key, AttrValue value) {
  attrs_ = WithAttr(std::move(attrs_), std::move(key), std::move(value));
  return *this;
}

FunctionBuilder& FunctionBuilder::SetRequiresRuntimeBinding(bool value) {
  requires_runtime_binding_ = value;
  return *this;
}

FunctionBuilder& FunctionBuilder::SetReturnTypes(std::vector<TypePtr> types) {
  return_types_ = std::move(types);
  return *this;
}

void FunctionBuilder::RecordError(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

VarPtr FunctionBuilder::Param(std::string name, TypePtr type, ParamDirection direction, Span span) {
  VarPtr v = MakeVar(std::move(name), std::move(type), std::move(span));
  params_.push_back(v);
  directions_.push_back(direction);
  return v;
}

VarPtr FunctionBuilder::Let(std::string name, ExprPtr value, Span span) {
  TypePtr type = value != nullptr ? value->type() : UnknownType::Get();
  return Let(std::move(name), std::move(type), std::move(value), std::move(span));
}

VarPtr FunctionBuilder::Let(std::string name, TypePtr type, ExprPtr value, Span span) {
  VarPtr v = MakeVar(name, std::move(type), span);
  if (value == nullptr) {
    // Typically a failed Binary(); its error is already recorded.
    RecordError(InternalErrorF(span, "no value for '", name, "'"));
    return v;
  }
  Emit(MakeNode<AssignStmt>(v, std::move(value), std::move(span)));
  return v;
}

void FunctionBuilder::Eval(ExprPtr expr, Span span) {
  Emit(MakeNode<EvalStmt>(std::move(expr), std::vector<std::string>{}, std::move(span)));
}

void FunctionBuilder::Return(std::vector<ExprPtr> values, Span span) {
  if (!return_types_.has_value()) {
    std::vector<TypePtr> types;
    for (const ExprPtr& v : values) types.push_back(v != nullptr ? v->type() : nullptr);
    return_types_ = std::move(types);
  }
  Emit(
      MakeNode<ReturnStmt>(std::move(values), std::vector<std::string>{}, std::move(span)));
}

void FunctionBuilder::Yield(std::vector<ExprPtr> values, Span span) {
  Emit(MakeNode<YieldStmt>(std::move(values), std::move(span)));
}

void FunctionBuilder::Emit(StmtPtr stmt) { blocks_.back().push_back(std::move(stmt)); }

ExprPtr FunctionBuilder::Binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span) {
  absl::StatusOr<ExprPtr> e = MakeBinary(op, std::move(lhs), std::move(rhs), std::move(span));
  if (!e.ok()) {
    RecordError(e.status());
    return nullptr;
  }
  return *std::move(e);
}

ExprPtr FunctionBuilder::Unary(UnaryOp op, ExprPtr operand, Span span) {
  absl::StatusOr<ExprPtr> e = MakeUnary(op, std::move(operand), std::move(span));
  if (!e.ok()) {
    RecordError(e.status());
    return nullptr;
  }
  return *std::move(e);
}

StmtPtr FunctionBuilder::PopBlock(const Span& span) {
  std::vector<StmtPtr> stmts = std::move(blocks_.back());
  blocks_.pop_back();
  return MakeNode<SeqStmts>(std::move(stmts), span);
}

std::vector<VarPtr> FunctionBuilder::For(std::string loop_var, ExprPtr start, ExprPtr stop,
                                         ExprPtr step, std::vector<IterArgInit> iter_args,
                                         const LoopBody& body, ForKind kind, Span span) {
  VarPtr lv = MakeVar(std::move(loop_var), ScalarOf(DataType::kIndex), span);
  std::vector<IterArgPtr> ias;
  ias.reserve(iter_args.size());
  for (IterArgInit& ia : iter_args) {
    TypePtr type = ia.init != nullptr ? ia.init->type() : UnknownType::Get();
    ias.push_back(
        MakeNode<IterArg>(std::move(ia.name), std::move(type), std::move(ia.init), span));
  }
  blocks_.emplace_back();
  std::vector<ExprPtr> yields = body ? body(lv, ias) : std::vector<ExprPtr>{};
  if (yields.size() != ias.size()) {
    RecordError(UserErrorF(span, "loop body yields ", yields.size(), " values for ", ias.size(),
                           " iter args"));
  }
  if (!yields.empty() || !ias.empty()) Yield(std::move(yields), span);
  StmtPtr loop_body = PopBlock(span);
  std::vector<VarPtr> return_vars;
  return_vars.reserve(ias.size());
  for (const IterArgPtr& ia : ias) {
    return_vars.push_back(MakeVar(ia->name_hint() + "_out", ia->type(), span));
  }
  Emit(MakeNode<ForStmt>(std::move(lv), std::move(start), std::move(stop), std::move(step),
                                 std::move(ias), std::move(loop_body), return_vars, kind,
                                 AttrList{}, span));
  return return_vars;
}

void FunctionBuilder::ForRange(std::string loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
                               const std::function<void(const VarPtr&)>& body, ForKind kind,
                               Span span) {
  For(
      std::move(loop_var), std::move(start), std::move(stop), std::move(step), {},
      [&](const VarPtr& i, const std::vector<IterArgPtr>&) {
        if (body) body(i);
        return std::vector<ExprPtr>{};
      },
      kind, std::move(span));
}

std::vector<VarPtr> FunctionBuilder::If(ExprPtr cond, const BranchBody& then_body,
                                        const BranchBody& else_body,
                                        std::vector<std::string> return_names, Span span) {
  size_t n = return_names.size();
  auto branch = [&](const BranchBody& fill, std::vector<ExprPtr>* yielded) {
    blocks_.emplace_back();
    *yielded = fill ? fill() : std::vector<ExprPtr>{};
    if (yielded->size() != n) {
      RecordError(UserErrorF(span, "if branch yields ", yielded->size(), " values but ", n,
                             " are expected"));
    }
    if (!yielded->empty() || n > 0) Yield(*yielded, span);
    return PopBlock(span);
  };
  std::vector<ExprPtr> then_values;
  StmtPtr then_stmt = branch(then_body, &then_values);
  std::optional<StmtPtr> else_stmt;
  if (else_body) {
    std::vector<ExprPtr> else_values;
    else_stmt = branch(else_body, &else_values);
  }
  std::vector<VarPtr> return_vars;
  return_vars.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TypePtr type = i < then_values.size() && then_values[i] != nullptr ? then_values[i]->type()
                                                                       : UnknownType::Get();
    return_vars.push_back(MakeVar(std::move(return_names[i]), std::move(type), span));
  }
  Emit(MakeNode<IfStmt>(std::move(cond), std::move(then_stmt), std::move(else_stmt),
                                return_vars, span));
  return return_vars;
}

absl::StatusOr<FunctionPtr> FunctionBuilder::Build() {
  if (!status_.ok()) return status_;
  if (blocks_.size() != 1) {
    return InternalErrorF(span_, "function '", name_, "' has an unfinished nested body");
  }
  StmtPtr body = MakeNode<SeqStmts>(blocks_[0], span_);
  return Function::Create(name_, params_, directions_,
                          return_types_.value_or(std::vector<TypePtr>{}), std::move(body),
                          func_type_, level_, role_, attrs_, requires_runtime_binding_, span_);
}

// ---- ProgramBuilder ----

ProgramBuilder::ProgramBuilder(std::string name, Span span)
    : name_(std::move(name)), span_(std::move(span)) {}

ProgramBuilder& ProgramBuilder::Add(FunctionPtr func) {
  functions_.push_back(std::move(func));
  return *this;
}

ProgramBuilder& ProgramBuilder::Add(absl::StatusOr<FunctionPtr> func) {
  if (!func.ok()) {
    if (status_.ok()) status_ = func.status();
    return *this;
  }
  return Add(*std::move(func));
}

absl::StatusOr<ProgramPtr> ProgramBuilder::Build() {
  if (!status_.ok()) return status_;
  return Program::Create(functions_, name_, span_);
}

}  // namespace pto::ir
