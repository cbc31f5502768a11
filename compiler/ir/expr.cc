#include "compiler/ir/expr.h"

namespace pto::ir {

MemRef::MemRef(std::string name_hint, MemorySpace space, ExprPtr addr, int64_t size, int64_t id,
               Span span)
    : Var(NodeKind::kMemRef, std::move(name_hint), MemRefType::Get(), std::move(span)),
      memory_space_(space),
      addr_(std::move(addr)),
      size_(size),
      id_(id) {}

WindowBuffer::WindowBuffer(VarPtr base, ExprPtr size, bool load_from_host, bool store_to_host,
                           Span span)
    : Var(NodeKind::kWindowBuffer, base != nullptr ? base->name_hint() : std::string(),
          WindowBufferType::Get(), std::move(span)),
      base_(std::move(base)),
      size_(std::move(size)),
      load_from_host_(load_from_host),
      store_to_host_(store_to_host) {}

Op::Op(NodeKind kind, std::string name, Span span)
    : Expr(kind, UnknownType::Get(), std::move(span)), name_(std::move(name)) {}

ConstInt::ConstInt(int64_t value, DataType dtype, Span span)
    : Expr(NodeKind::kConstInt, ScalarType::Get(dtype), std::move(span)), value_(value) {}
DataType ConstInt::dtype() const { return static_cast<const ScalarType&>(*type()).dtype(); }

ConstFloat::ConstFloat(double value, DataType dtype, Span span)
    : Expr(NodeKind::kConstFloat, ScalarType::Get(dtype), std::move(span)), value_(value) {}
DataType ConstFloat::dtype() const { return static_cast<const ScalarType&>(*type()).dtype(); }

ConstBool::ConstBool(bool value, Span span)
    : Expr(NodeKind::kConstBool, ScalarType::Get(DataType::kBool), std::move(span)),
      value_(value) {}

ConstString::ConstString(std::string value, Span span)
    : Expr(NodeKind::kConstString, UnknownType::Get(), std::move(span)), value_(std::move(value)) {}

bool IsComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return true;
    default:
      return false;
  }
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr; }

std::vector<ArgDirection> Call::GetArgDirections() const {
  auto dirs = GetAttr<std::vector<ArgDirection>>(attrs_, kAttrArgDirections);
  return dirs ? *dirs : std::vector<ArgDirection>{};
}

namespace {
TypePtr TupleTypeOf(const std::vector<ExprPtr>& elements) {
  std::vector<TypePtr> types;
  types.reserve(elements.size());
  for (const ExprPtr& e : elements) types.push_back(e->type());
  return std::make_shared<TupleType>(std::move(types));
}
}  // namespace

MakeTuple::MakeTuple(std::vector<ExprPtr> elements, Span span)
    : Expr(NodeKind::kMakeTuple, TupleTypeOf(elements), std::move(span)),
      elements_(std::move(elements)) {}

Cast::Cast(ExprPtr value, DataType dtype, Span span)
    : Expr(NodeKind::kCast, ScalarType::Get(dtype), std::move(span)), value_(std::move(value)) {}
DataType Cast::dtype() const { return static_cast<const ScalarType&>(*type()).dtype(); }

std::optional<int64_t> GetConstInt(const ExprPtr& e) {
  if (auto c = As<ConstInt>(e)) return c->value();
  return std::nullopt;
}

}  // namespace pto::ir
