#include "compiler/ops/deduce_util.h"

#include "compiler/support/diagnostics.h"

namespace pto::ops {

const Span& ArgSpan(const CallSite& site, size_t i) {
  if (i < site.args.size() && site.args[i] != nullptr && site.args[i]->span().known()) {
    return site.args[i]->span();
  }
  return site.span;
}

std::string TypeText(const ir::TypePtr& type) {
  using ir::NodeKind;
  if (type == nullptr) return "<null>";
  switch (type->kind()) {
    case NodeKind::kScalarType:
      return pto::StrCat("Scalar[", ir::DataTypeName(ir::As<ir::ScalarType>(type)->dtype()), "]");
    case NodeKind::kTensorType:
      return pto::StrCat("Tensor[", ir::DataTypeName(ir::As<ir::TensorType>(type)->dtype()), "]");
    case NodeKind::kDistributedTensorType:
      return pto::StrCat("DistributedTensor[",
                         ir::DataTypeName(ir::As<ir::DistributedTensorType>(type)->dtype()), "]");
    case NodeKind::kTileType:
      return pto::StrCat("Tile[", ir::DataTypeName(ir::As<ir::TileType>(type)->dtype()), "]");
    case NodeKind::kTupleType:
      return "Tuple";
    case NodeKind::kArrayType:
      return pto::StrCat("Array[", ir::DataTypeName(ir::As<ir::ArrayType>(type)->dtype()), "]");
    case NodeKind::kPtrType:
      return "Ptr";
    case NodeKind::kMemRefType:
      return "MemRef";
    case NodeKind::kWindowBufferType:
      return "WindowBuffer";
    case NodeKind::kCommCtxType:
      return "CommCtx";
    default:
      return "Unknown";
  }
}

absl::Status CheckArgCount(const CallSite& site, std::string_view op, size_t min, size_t max) {
  size_t n = site.args.size();
  if (n >= min && n <= max) return absl::OkStatus();
  if (min == max) {
    return UserErrorF(site.span, op, " requires exactly ", min, " positional argument",
                      min == 1 ? "" : "s", ", got ", n);
  }
  return UserErrorF(site.span, op, " requires ", min, " to ", max, " positional arguments, got ",
                    n);
}

absl::StatusOr<std::shared_ptr<const ir::TensorType>> TensorArg(const CallSite& site, size_t i,
                                                                std::string_view op,
                                                                std::string_view role) {
  auto t = ir::AsTensorTypeLike(site.args[i]->type());
  if (t == nullptr) {
    return UserErrorF(ArgSpan(site, i), op, " ", role, " must be a Tensor, got ",
                      TypeText(site.args[i]->type()));
  }
  return t;
}

absl::StatusOr<std::shared_ptr<const ir::DistributedTensorType>> DistTensorArg(
    const CallSite& site, size_t i, std::string_view op, std::string_view role) {
  auto t = ir::As<ir::DistributedTensorType>(site.args[i]->type());
  if (t == nullptr) {
    return UserErrorF(ArgSpan(site, i), op, " ", role,
                      " must be a DistributedTensor (a pld.window view), got ",
                      TypeText(site.args[i]->type()));
  }
  return t;
}

absl::StatusOr<std::shared_ptr<const ir::TileType>> TileArg(const CallSite& site, size_t i,
                                                            std::string_view op,
                                                            std::string_view role) {
  auto t = ir::As<ir::TileType>(site.args[i]->type());
  if (t == nullptr) {
    return UserErrorF(ArgSpan(site, i), op, " ", role, " must be a Tile, got ",
                      TypeText(site.args[i]->type()));
  }
  return t;
}

absl::Status ScalarArg(const CallSite& site, size_t i, std::string_view op, std::string_view role) {
  if (!ir::Is<ir::ScalarType>(site.args[i]->type())) {
    return UserErrorF(ArgSpan(site, i), op, " ", role, " must be a scalar, got ",
                      TypeText(site.args[i]->type()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ir::ExprPtr>> TupleArg(const CallSite& site, size_t i,
                                                  std::string_view op, std::string_view role) {
  auto t = ir::As<ir::MakeTuple>(site.args[i]);
  if (t == nullptr) {
    return UserErrorF(ArgSpan(site, i), op, " ", role, " must be a shape tuple");
  }
  for (size_t k = 0; k < t->elements().size(); ++k) {
    auto s = ir::As<ir::ScalarType>(t->elements()[k]->type());
    if (s == nullptr || !ir::IsIntegral(s->dtype())) {
      return UserErrorF(ArgSpan(site, i), op, " ", role, " element ", k,
                        " must be an integer scalar, got ", TypeText(t->elements()[k]->type()));
    }
  }
  return t->elements();
}

absl::StatusOr<ir::DataType> DTypeKwarg(const CallSite& site, std::string_view key,
                                        std::string_view op) {
  auto dt = ir::GetAttr<ir::DataType>(site.kwargs, key);
  if (!dt)
    return UserErrorF(site.span, op, " requires kwarg '", key, "' (a dtype such as pl.FP32)");
  return *dt;
}

}  // namespace pto::ops

namespace pto::ops {

std::optional<std::vector<ir::DataType>> CollectiveDTypes(CollectiveRail rail, std::string_view c) {
  const CollectiveDef* def = FindCollectiveByBuiltin(c);
  if (def == nullptr) return std::nullopt;
  if (!def->OnRail(rail)) return std::vector<ir::DataType>{};
  return def->DTypes(rail);
}

absl::Status CheckCollectiveDType(CollectiveRail rail, std::string_view collective,
                                  ir::DataType dtype, std::string_view op, const Span& span) {
  const CollectiveDef* def = FindCollectiveByBuiltin(collective);
  if (def == nullptr) return absl::OkStatus();
  return CheckCollectiveDType(rail, *def, dtype, op, span);
}

absl::Status CheckCollectiveDType(CollectiveRail rail, const CollectiveDef& def,
                                  ir::DataType dtype, std::string_view op, const Span& span) {
  std::optional<std::vector<ir::DataType>> allowed =
      def.OnRail(rail) ? def.DTypes(rail) : std::vector<ir::DataType>{};
  if (!allowed) return absl::OkStatus();
  if (allowed->empty()) {
    return UserErrorF(span, op, " is not supported on the ", CollectiveRailName(rail), " rail");
  }
  std::string list;
  for (ir::DataType d : *allowed) {
    if (d == dtype) return absl::OkStatus();
    list += pto::StrCat(list.empty() ? "" : ", ", ir::DataTypeName(d));
  }
  return UserErrorF(span, op, " supports ", list, " on the ", CollectiveRailName(rail),
                    " rail, got ", ir::DataTypeName(dtype));
}

}  // namespace pto::ops
