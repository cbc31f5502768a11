// pl.tile.* operators: on-chip tiles inside InCore/AIV kernels.
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

TypePtr TileOf(std::vector<ir::ExprPtr> shape, ir::DataType dtype) {
  return ir::MakeNode<ir::TileType>(std::move(shape), dtype);
}

// load(tensor, offsets, shape[, valid_shape]) -> Tile[shape]. A valid_shape
// (PyPTO's partial tile: a [1, 264] tile holding 257 elements) narrows the
// region read from the tensor; the tile keeps its full shape in UB.
absl::StatusOr<TypePtr> DeduceLoad(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.load";
  RETURN_IF_ERROR(CheckArgCount(s, op, 3, 4));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 0, op, "tensor"));
  ASSIGN_OR_RETURN(auto offsets, TupleArg(s, 1, op, "offsets"));
  ASSIGN_OR_RETURN(auto shape, TupleArg(s, 2, op, "shape"));
  if (offsets.size() != t->shape().size()) {
    return UserErrorF(ArgSpan(s, 1), op, " offsets must have rank ", t->shape().size());
  }
  std::vector<ir::ExprPtr> valid;
  if (s.args.size() == 4) {
    ASSIGN_OR_RETURN(valid, TupleArg(s, 3, op, "valid_shape"));
    if (valid.size() != shape.size()) {
      return UserErrorF(ArgSpan(s, 3), op, " valid_shape must have rank ", shape.size());
    }
    for (size_t k = 0; k < valid.size(); ++k) {
      std::optional<int64_t> v = ir::GetConstInt(valid[k]);
      std::optional<int64_t> d = ir::GetConstInt(shape[k]);
      if (v.has_value() && (*v < 0 || (d.has_value() && *v > *d))) {
        return UserErrorF(ArgSpan(s, 3), op, " valid_shape[", k, "] = ", *v,
                          " must lie in [0, ", d.has_value() ? pto::StrCat(*d) : "shape", "]");
      }
    }
    // A valid_shape equal to the shape is the full tile.
    bool full = true;
    for (size_t k = 0; k < valid.size(); ++k) {
      std::optional<int64_t> v = ir::GetConstInt(valid[k]);
      full &= v.has_value() && v == ir::GetConstInt(shape[k]);
    }
    if (full) valid.clear();
  }
  return std::make_shared<ir::TileType>(std::move(shape), t->dtype(), std::nullopt,
                                        std::move(valid));
}

// store(tile, offsets, tensor[, shapes]) -> the tensor, updated. The box
// `shapes` (tensor rank) is what FlattenTileNdTo2D adds when it flattens the
// tile of a store into a tensor of rank above 2.
absl::StatusOr<TypePtr> DeduceStore(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.store";
  RETURN_IF_ERROR(CheckArgCount(s, op, 3, 4));
  ASSIGN_OR_RETURN(auto tile, TileArg(s, 0, op, "tile"));
  ASSIGN_OR_RETURN(auto offsets, TupleArg(s, 1, op, "offsets"));
  ASSIGN_OR_RETURN(auto t, TensorArg(s, 2, op, "tensor"));
  if (tile->dtype() != t->dtype()) {
    return UserErrorF(s.span, op, " tile and tensor must have the same dtype, got ",
                      ir::DataTypeName(tile->dtype()), " and ", ir::DataTypeName(t->dtype()));
  }
  if (offsets.size() != t->shape().size()) {
    return UserErrorF(ArgSpan(s, 1), op, " offsets must have rank ", t->shape().size());
  }
  if (s.args.size() == 4) {
    ASSIGN_OR_RETURN(auto shapes, TupleArg(s, 3, op, "shapes"));
    if (shapes.size() != t->shape().size()) {
      return UserErrorF(ArgSpan(s, 3), op, " shapes must have rank ", t->shape().size());
    }
  }
  return s.args[2]->type();
}

absl::StatusOr<TypePtr> DeduceCreate(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.create";
  RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
  ASSIGN_OR_RETURN(auto shape, TupleArg(s, 0, op, "shape"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "dtype", op));
  return TileOf(std::move(shape), dtype);
}

absl::StatusOr<TypePtr> DeduceFull(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.full";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  ASSIGN_OR_RETURN(auto shape, TupleArg(s, 0, op, "shape"));
  RETURN_IF_ERROR(ScalarArg(s, 1, op, "value"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "dtype", op));
  return TileOf(std::move(shape), dtype);
}

TypeDeducer DeduceBinary(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
    ASSIGN_OR_RETURN(auto a, TileArg(s, 0, op, "lhs"));
    if (ir::Is<ir::ScalarType>(s.args[1]->type())) return s.args[0]->type();
    ASSIGN_OR_RETURN(auto b, TileArg(s, 1, op, "rhs"));
    if (a->dtype() != b->dtype()) {
      return UserErrorF(s.span, op, " operands must have the same dtype, got ",
                        ir::DataTypeName(a->dtype()), " and ", ir::DataTypeName(b->dtype()));
    }
    return s.args[0]->type();
  };
}

TypeDeducer DeduceUnary(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
    RETURN_IF_ERROR(TileArg(s, 0, op, "operand").status());
    return s.args[0]->type();
  };
}

absl::StatusOr<TypePtr> DeduceCast(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.cast";
  RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
  ASSIGN_OR_RETURN(auto t, TileArg(s, 0, op, "tile"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "target_type", op));
  // A cast is valid where its operand is.
  return std::make_shared<ir::TileType>(t->shape(), dtype, std::nullopt, t->valid_shape());
}

// tget_scale_addr(scale, data): the scale tile bound to the data tile it
// scales (an mx matmul's A5 scale address); compiler-made by
// InsertMxScaleAddr (18), not in PyPTO's pypto.language surface.
absl::StatusOr<TypePtr> DeduceTgetScaleAddr(const CallSite& s) {
  constexpr std::string_view op = "pl.tile.tget_scale_addr";
  RETURN_IF_ERROR(CheckArgCount(s, op, 2, 2));
  RETURN_IF_ERROR(TileArg(s, 1, op, "data").status());
  ASSIGN_OR_RETURN(auto scale, TileArg(s, 0, op, "scale"));
  return TypePtr(scale);
}

}  // namespace

void RegisterTileOps(OpRegistry& r) {
  auto add = [&r](std::string name, std::vector<ArgEffect> eff, TypeDeducer d) {
    RegisterOp(r, std::move(name), {}, OpCategory::kTileOp, std::move(eff), std::move(d));
  };
  add("pl.tile.load", {R, R, R, R}, DeduceLoad);
  add("pl.tile.store", {R, R, W, R}, DeduceStore);
  add("pl.tile.create", {R}, DeduceCreate);
  add("pl.tile.full", {R, R}, DeduceFull);
  add("pl.tile.cast", {R}, DeduceCast);
  add("pl.tile.tget_scale_addr", {R, R}, DeduceTgetScaleAddr);
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    std::string full = pto::StrCat("pl.tile.", name);
    add(full, {R, R}, DeduceBinary(full));
  }
  for (const char* name : {"exp", "neg", "abs", "sqrt", "relu"}) {
    std::string full = pto::StrCat("pl.tile.", name);
    add(full, {R}, DeduceUnary(full));
  }
}

}  // namespace pto::ops
