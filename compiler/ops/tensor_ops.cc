// pl.tensor.* operators a kernel or orchestration needs (DDR tensors).
#include "compiler/ir/arena.h"
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using ir::TypePtr;
constexpr ArgEffect R = ArgEffect::kRead;
constexpr ArgEffect W = ArgEffect::kWrite;
constexpr ArgEffect RW = ArgEffect::kReadWrite;

TypePtr TensorOf(std::vector<ir::ExprPtr> shape, ir::DataType dtype) {
  return ir::MakeNode<ir::TensorType>(std::move(shape), dtype);
}

absl::StatusOr<TypePtr> DeduceCreate(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.create";
  RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
  ASSIGN_OR_RETURN(auto shape, TupleArg(s, 0, op, "shape"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "dtype", op));
  return TensorOf(std::move(shape), dtype);
}

absl::Status CheckIndices(const CallSite& s, size_t i, std::string_view op,
                          const ir::TensorType& t) {
  ASSIGN_OR_RETURN(auto idx, TupleArg(s, i, op, "indices"));
  if (idx.size() != t.shape().size()) {
    return UserErrorF(ArgSpan(s, i), op, " needs ", t.shape().size(), " indices, got ",
                      idx.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<TypePtr> DeduceRead(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.read";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  RETURN_IF_ERROR(CheckIndices(s, 1, op, *t));
  return TypePtr(ir::ScalarType::Get(t->dtype()));
}

absl::StatusOr<TypePtr> DeduceWrite(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.write";
  RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  RETURN_IF_ERROR(CheckIndices(s, 1, op, *t));
  RETURN_IF_ERROR(ScalarArg(s, 2, op, "value"));
  return s.args[0]->type();
}

// Elementwise binary op: tensor (op) tensor of the same dtype and rank, or
// tensor (op) scalar. The result has the first operand's type.
TypeDeducer DeduceElementwise(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
    ASSIGN_OR_RETURN(auto a, TensorArg(s, 0, op, "lhs"));
    if (ir::Is<ir::ScalarType>(s.args[1]->type())) return s.args[0]->type();
    ASSIGN_OR_RETURN(auto b, TensorArg(s, 1, op, "rhs"));
    if (a->dtype() != b->dtype()) {
      return UserErrorF(s.span, op, " operands must have the same dtype, got ",
                        ir::DataTypeName(a->dtype()), " and ", ir::DataTypeName(b->dtype()));
    }
    if (a->shape().size() != b->shape().size()) {
      return UserErrorF(s.span, op, " operands must have the same rank, got ", a->shape().size(),
                        " and ", b->shape().size());
    }
    return TensorOf(a->shape(), a->dtype());
  };
}

absl::StatusOr<TypePtr> DeduceCast(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.cast";
  RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "target_type", op));
  return TensorOf(t->shape(), dtype);
}

// view / slice: (tensor, shape, offsets) -> tensor of `shape`.
TypeDeducer DeduceWindowed(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
    ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
    ASSIGN_OR_RETURN(auto shape, TupleArg(s, 1, op, "shape"));
    ASSIGN_OR_RETURN(auto offsets, TupleArg(s, 2, op, "offsets"));
    if (shape.size() != t->shape().size() || offsets.size() != t->shape().size()) {
      return UserErrorF(s.span, op, " shape and offsets must have rank ", t->shape().size());
    }
    return TensorOf(std::move(shape), t->dtype());
  };
}

absl::StatusOr<TypePtr> DeduceReshape(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.reshape";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  ASSIGN_OR_RETURN(auto shape, TupleArg(s, 1, op, "shape"));
  // A reshape is a zero-copy view: a window stays a window of the same buffer,
  // so peers can still address it (LowerCompositeOps' flattened allreduce view).
  if (auto dt = ir::As<ir::DistributedTensorType>(s.args[0]->type())) {
    return TypePtr(ir::MakeNode<ir::DistributedTensorType>(
        std::move(shape), t->dtype(), std::nullopt, std::nullopt, dt->window_buffer()));
  }
  return TensorOf(std::move(shape), t->dtype());
}

absl::StatusOr<TypePtr> DeduceAssemble(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.assemble";
  RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
  ASSIGN_OR_RETURN(auto target, TensorArg(s, 0, op, "target"));
  ASSIGN_OR_RETURN(auto src, TensorArg(s, 1, op, "source"));
  ASSIGN_OR_RETURN(auto offsets, TupleArg(s, 2, op, "offsets"));
  if (target->dtype() != src->dtype()) {
    return UserErrorF(s.span, op, " target and source must have the same dtype");
  }
  if (offsets.size() != target->shape().size()) {
    return UserErrorF(ArgSpan(s, 2), op, " offsets must have rank ", target->shape().size());
  }
  return s.args[0]->type();
}

absl::StatusOr<TypePtr> DeduceTranspose(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.transpose";
  RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  auto a = ir::GetConstInt(s.args[1]);
  auto b = ir::GetConstInt(s.args[2]);
  int64_t rank = static_cast<int64_t>(t->shape().size());
  if (!a || !b || *a < 0 || *b < 0 || *a >= rank || *b >= rank) {
    return UserErrorF(s.span, op, " axes must be constant integers in [0, ", rank, ")");
  }
  std::vector<ir::ExprPtr> shape = t->shape();
  std::swap(shape[*a], shape[*b]);
  return TensorOf(std::move(shape), t->dtype());
}

absl::StatusOr<TypePtr> DeduceSetValidShape(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.set_validshape";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  ASSIGN_OR_RETURN(auto valid, TupleArg(s, 1, op, "valid_shape"));
  if (valid.size() != t->shape().size()) {
    return UserErrorF(ArgSpan(s, 1), op, " valid_shape must have rank ", t->shape().size());
  }
  ir::TensorView view = t->tensor_view().value_or(ir::TensorView{});
  view.valid_shape = std::move(valid);
  return TypePtr(ir::MakeNode<ir::TensorType>(t->shape(), t->dtype(), t->memref(), view));
}

// x[i, j]: the sub-tensor at the leading indices.
absl::StatusOr<TypePtr> DeduceIndex(const CallSite& s) {
  constexpr std::string_view op = "pl.tensor.index";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  ASSIGN_OR_RETURN(auto idx, TupleArg(s, 1, op, "indices"));
  if (idx.empty() || idx.size() >= t->shape().size()) {
    return UserErrorF(s.span, "indexing a rank-", t->shape().size(), " tensor with ", idx.size(),
                      " indices must leave at least one dimension (use pl.tensor.read for an "
                      "element)");
  }
  return TensorOf(std::vector<ir::ExprPtr>(t->shape().begin() + idx.size(), t->shape().end()),
                  t->dtype());
}

}  // namespace

void RegisterTensorOps(OpRegistry& r) {
  auto add = [&r](std::string name, std::vector<ArgEffect> eff, TypeDeducer d) {
    RegisterOp(r, std::move(name), {}, OpCategory::kTensorOp, std::move(eff), std::move(d));
  };
  add("pl.tensor.create", {R}, DeduceCreate);
  add("pl.tensor.read", {R, R}, DeduceRead);
  add("pl.tensor.write", {RW, R, R}, DeduceWrite);
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    std::string full = pto::StrCat("pl.tensor.", name);
    add(full, {R, R}, DeduceElementwise(full));
  }
  add("pl.tensor.cast", {R}, DeduceCast);
  add("pl.tensor.view", {R, R, R}, DeduceWindowed("pl.tensor.view"));
  add("pl.tensor.slice", {R, R, R}, DeduceWindowed("pl.tensor.slice"));
  add("pl.tensor.reshape", {R, R}, DeduceReshape);
  add("pl.tensor.assemble", {W, R, R}, DeduceAssemble);
  add("pl.tensor.transpose", {R, R, R}, DeduceTranspose);
  add("pl.tensor.set_validshape", {R, R}, DeduceSetValidShape);
  add("pl.tensor.index", {R, R}, DeduceIndex);
}

}  // namespace pto::ops
