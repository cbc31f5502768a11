#include "compiler/ir/expr.h"

#include "compiler/ir/arena.h"

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
    : Expr(kind, UnknownType::Get(), std::move(span)),
      name_(std::move(name)),
      id_(kind == NodeKind::kOp ? OpIdFromName(name_) : OpId::kUnknown) {}

OpId OpIdOf(const ExprPtr& e) {
  if (e == nullptr || e->kind() != NodeKind::kCall) return OpId::kUnknown;
  return static_cast<const Call&>(*e).op()->id();
}

bool IsOp(const ExprPtr& e, OpId id) { return id != OpId::kUnknown && OpIdOf(e) == id; }

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

DynDim::DynDim(std::string name, Span span)
    : Expr(NodeKind::kDynDim, ScalarType::Get(DataType::kIndex), std::move(span)),
      name_(std::move(name)) {}

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
// Shape and offset tuples are everywhere: one shared TupleType per (scalar
// dtype, arity) saves an allocation per tuple (types have no identity).
TypePtr CachedScalarTupleType(DataType dtype, size_t arity) {
  constexpr size_t kMaxArity = 8;
  static auto* cache = [] {
    auto* c = new std::vector<TypePtr>(kNumDataTypes * (kMaxArity + 1));
    for (int d = 0; d < kNumDataTypes; ++d) {
      for (size_t n = 1; n <= kMaxArity; ++n) {
        std::vector<TypePtr> types(n, ScalarType::Get(static_cast<DataType>(d)));
        (*c)[d * (kMaxArity + 1) + n] = std::make_shared<TupleType>(std::move(types));
      }
    }
    return c;
  }();
  if (arity == 0 || arity > kMaxArity) return nullptr;
  return (*cache)[static_cast<int>(dtype) * (kMaxArity + 1) + arity];
}

TypePtr TupleTypeOf(const std::vector<ExprPtr>& elements) {
  if (!elements.empty()) {
    auto first = As<ScalarType>(elements[0]->type());
    bool uniform = first != nullptr;
    for (size_t i = 1; uniform && i < elements.size(); ++i) {
      auto s = As<ScalarType>(elements[i]->type());
      uniform = s != nullptr && s->dtype() == first->dtype();
    }
    if (uniform) {
      if (TypePtr t = CachedScalarTupleType(first->dtype(), elements.size())) return t;
    }
  }
  std::vector<TypePtr> types;
  types.reserve(elements.size());
  for (const ExprPtr& e : elements) types.push_back(e->type());
  return MakeNode<TupleType>(std::move(types));
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
