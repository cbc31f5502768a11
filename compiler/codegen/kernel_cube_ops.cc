// The operators of an AIC kernel (aic_kernel.h), against the cube half of the
// kernel API (runtime/device/cube_api.h, cube_support.h): TASSIGN of each
// tile at its AllocateMemoryAddr offset, TLOAD into Mat, TMOV between the
// buffers, TEXTRACT of a window of a Mat tile, TRESHAPE of a Mat tile to its
// transposed view (pl.tile.transpose_view), TMATMUL / TMATMUL_ACC / TMATMUL_BIAS, TSTORE of an
// Acc tile through FIXPIPE, and the scalar unit's GM read (pl.tensor.read). Every instruction is
// followed by a full pipe barrier: the pipes (MTE2, MTE1, M, FIX) are ordered, not overlapped,
// until a pass plans their flags.
#include <optional>
#include <string>

#include "compiler/codegen/kernel_generator.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::kernel_internal {
namespace {

using ir::MemorySpace;
using ir::OpId;

std::optional<MemorySpace> SpaceOf(const ir::TypePtr& type) {
  auto t = ir::As<ir::TileType>(type);
  return t != nullptr ? t->Space() : std::nullopt;
}

constexpr char kBarrier[] = "pto::pipe_barrier(pto::PIPE_ALL);\n";

}  // namespace

std::optional<std::string> Generator::CubeTileType(const ir::TypePtr& type,
                                                   const std::string& elem) {
  switch (SpaceOf(type).value_or(MemorySpace::kUB)) {
    case MemorySpace::kL1: return pto::StrCat("pto::MatTile<", elem, ">");
    case MemorySpace::kL0A: return pto::StrCat("pto::LeftTile<", elem, ">");
    case MemorySpace::kL0B: return pto::StrCat("pto::RightTile<", elem, ">");
    case MemorySpace::kL0C: return pto::StrCat("pto::AccTile<", elem, ">");
    case MemorySpace::kBias: return pto::StrCat("pto::BiasTile<", elem, ">");
    default: return std::nullopt;
  }
}

absl::StatusOr<std::string> Generator::NewCubeTile(const ir::VarPtr& var, int indent) {
  auto tile = ir::As<ir::TileType>(var->type());
  ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), var->span()));
  std::optional<std::string> type = CubeTileType(var->type(), elem);
  if (tile == nullptr || !type) return Unsupported(var->span(), "a non-cube tile in an AIC kernel");
  if (!tile->valid_shape().empty()) {
    return Unsupported(var->span(), "a partial (valid_shape) cube tile");
  }
  const auto& shape = tile->shape();
  std::optional<int64_t> rows = shape.size() == 2 ? ir::GetConstInt(shape[0]) : 1;
  std::optional<int64_t> cols = shape.empty() ? std::nullopt : ir::GetConstInt(shape.back());
  if (shape.empty() || shape.size() > 2 || !rows || !cols) {
    return Unsupported(var->span(), "a cube tile that is not a constant 2D shape");
  }
  std::optional<int64_t> addr;
  if (tile->memref() && *tile->memref()) addr = ir::GetConstInt((*tile->memref())->addr());
  if (!addr || *addr < 0) {
    return UserErrorF(var->span(), "code generation needs a cube-buffer address for tile '",
                      var->name_hint(), "': run InferTileMemorySpace, InitMemRef and "
                      "AllocateMemoryAddr (the default pipeline) first");
  }
  ASSIGN_OR_RETURN(std::string decl, Declare(var, /*mut=*/true));
  pto::StrAppend(&body_, Indent(indent), decl, " = pto::TASSIGN<", *type, ">(", *addr, ", ",
                 *rows, ", ", *cols, ");\n");
  return values_[var.get()].name;
}

// `pto::CubeView<T>(tensor, offsets)`, which the caller binds to a fresh
// name (a fixed one could shadow a parameter of the kernel).
absl::StatusOr<std::string> Generator::CubeGmView(const ir::ExprPtr& tensor,
                                                  const ir::ExprPtr& offsets,
                                                  const ir::ExprPtr& shapes, const Span& span) {
  ASSIGN_OR_RETURN(Value t, LookupKind(tensor, Kind::kTensor, "tensor"));
  ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, span));
  ASSIGN_OR_RETURN(std::string off, IndexList(offsets));
  // A box of a tensor of rank above 2 is one 2D slab (FlattenTileNdTo2D's
  // merged rows of several slabs would need a stride per slab).
  if (auto box = ir::As<ir::MakeTuple>(shapes)) {
    for (size_t i = 0; i + 2 < box->elements().size(); ++i) {
      std::optional<int64_t> d = ir::GetConstInt(box->elements()[i]);
      if (!d || *d != 1) return Unsupported(span, "a cube load or store of several 2D slabs");
    }
  }
  return pto::StrCat("pto::CubeView<", elem, ">(", t.name, ", ", off, ")");
}

absl::Status Generator::EmitCubeCall(const ir::VarPtr& var, const ir::CallPtr& call, int indent) {
  const auto& args = call->args();
  const std::string in = Indent(indent);
  const std::string& name = call->op()->name();
  if (ir::IsOp(call, OpId::kPlTileCreate)) return NewCubeTile(var, indent).status();
  if (ir::IsOp(call, OpId::kPlTensorRead)) {
    // The scalar unit reads GM directly (a count that bounds a loop).
    if (args.size() != 2) return Unsupported(call->span(), "this form of pl.tensor.read");
    ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
    ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, call->span()));
    ASSIGN_OR_RETURN(std::string idx, IndexList(args[1]));
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    pto::StrAppend(&body_, in, decl, " = pto::CubeReadElement<", elem, ">(", t.name, ", ", idx,
                   ");\n");
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlTileLoad)) {
    if (args.size() < 3 || (args.size() > 3 && !ir::Is<ir::MakeTuple>(args[3]))) {
      return Unsupported(call->span(), "this form of pl.tile.load in an AIC kernel");
    }
    if (SpaceOf(var->type()) != MemorySpace::kL1) {
      return Unsupported(call->span(), "a GM load into a cube buffer other than Mat");
    }
    ASSIGN_OR_RETURN(std::string view, CubeGmView(args[0], args[1], args[2], call->span()));
    ASSIGN_OR_RETURN(std::string tile, NewCubeTile(var, indent));
    const std::string v = Fresh("view");
    pto::StrAppend(&body_, in, "{\n", in, "  const auto ", v, " = ", view, ";\n", in,
                   "  pto::TLOAD(", tile, ", ", v, ".gm, ", v, ".row_stride);\n", in, "}\n", in,
                   kBarrier);
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlTileStore)) {
    if (args.size() < 3) return Unsupported(call->span(), "this form of pl.tile.store");
    if (SpaceOf(args[0]->type()) != MemorySpace::kL0C) {
      return Unsupported(call->span(), "a store to GM of a cube tile outside Acc (L0C)");
    }
    ASSIGN_OR_RETURN(Value acc, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string view, CubeGmView(args[2], args[1],
                                                  args.size() > 3 ? args[3] : nullptr,
                                                  call->span()));
    const std::string v = Fresh("view");
    pto::StrAppend(&body_, in, "{\n", in, "  const auto ", v, " = ", view, ";\n", in,
                   "  pto::TSTORE(", v, ".gm, ", acc.name, ", ", v, ".row_stride);\n", in, "}\n",
                   in, kBarrier);
    ASSIGN_OR_RETURN(Value t, LookupKind(args[2], Kind::kTensor, "tensor"));
    return Alias(var, t, indent);
  }
  if (ir::IsOp(call, OpId::kPlTileMove)) {
    std::optional<MemorySpace> from = SpaceOf(args[0]->type()), to = SpaceOf(var->type());
    const bool ok = (from == MemorySpace::kL1 &&
                     (to == MemorySpace::kL0A || to == MemorySpace::kL0B ||
                      to == MemorySpace::kBias)) ||
                    (from == MemorySpace::kL0C && to == MemorySpace::kL1);
    if (!ok) {
      return Unsupported(call->span(),
                         pto::StrCat("a move from ", ir::MemorySpacePyptoName(from.value_or(
                                                         MemorySpace::kUB)),
                                     " to ", ir::MemorySpacePyptoName(to.value_or(MemorySpace::kUB)),
                                     " (TMOV: Mat to Left / Right / Bias, Acc to Mat)"));
    }
    ASSIGN_OR_RETURN(Value src, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string dst, NewCubeTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TMOV(", dst, ", ", src.name, ");\n", in, kBarrier);
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlTileTransposeView)) {
    // The Mat tile read as its transpose (NZ as ZN, no data moved): pto-isa
    // TRESHAPE; InitMemRef gave the view its source's buffer.
    if (args.size() != 1 || SpaceOf(args[0]->type()) != MemorySpace::kL1 ||
        SpaceOf(var->type()) != MemorySpace::kL1) {
      return Unsupported(call->span(), "a pl.tile.transpose_view of a tile outside Mat (L1)");
    }
    ASSIGN_OR_RETURN(Value src, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string decl, Declare(var, /*mut=*/true));
    pto::StrAppend(&body_, in, decl, ";\n", in, "pto::TRESHAPE(", values_[var.get()].name, ", ",
                   src.name, ");\n");
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlTileExtract)) {
    std::optional<MemorySpace> from = SpaceOf(args[0]->type()), to = SpaceOf(var->type());
    if (args.size() < 3 || from != MemorySpace::kL1 ||
        (to != MemorySpace::kL0A && to != MemorySpace::kL0B)) {
      return Unsupported(call->span(), "a pl.tile.extract other than Mat to Left / Right (TEXTRACT)");
    }
    ASSIGN_OR_RETURN(Value src, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string row, Scalar(args[1]));
    ASSIGN_OR_RETURN(std::string col, Scalar(args[2]));
    ASSIGN_OR_RETURN(std::string dst, NewCubeTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TEXTRACT(", dst, ", ", src.name, ", ", row, ", ", col, ");\n",
                   in, kBarrier);
    return absl::OkStatus();
  }
  // InsertMxScaleAddr (18) binds an mx matmul's scales right before it, so
  // the binding is met first.
  if (ir::IsOp(call, OpId::kPlTileTgetScaleAddr) || ir::IsOp(call, OpId::kPlTileMatmulMx) ||
      ir::IsOp(call, OpId::kPlTileMatmulMxAcc) || ir::IsOp(call, OpId::kPlTileMatmulMxBias)) {
    return Unsupported(call->span(),
                       "an mx matmul (" + name + "; the cube kernel API has no mx instruction)");
  }
  const bool plain = ir::IsOp(call, OpId::kPlTileMatmul) || ir::IsOp(call, OpId::kPlTileGemv);
  const bool acc = ir::IsOp(call, OpId::kPlTileMatmulAcc) || ir::IsOp(call, OpId::kPlTileGemvAcc);
  const bool bias =
      ir::IsOp(call, OpId::kPlTileMatmulBias) || ir::IsOp(call, OpId::kPlTileGemvBias);
  if (!plain && !acc && !bias) {
    return Unsupported(call->span(), name + " (no cube API instruction for it)");
  }
  if (acc && args.size() > 3) {
    return Unsupported(call->span(), name + " with init_cond");
  }
  if (args.size() < (plain ? 2u : 3u)) {
    return InternalErrorF(call->span(), name, " with ", args.size(), " operands");
  }
  std::string operands;
  for (size_t i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(Value v, LookupKind(args[i], Kind::kTile, "tile"));
    pto::StrAppend(&operands, ", ", v.name);
  }
  ASSIGN_OR_RETURN(std::string c, NewCubeTile(var, indent));
  // A gemv is a matmul of one row (pto-isa TGEMV computes the same values).
  const char* api = plain ? "TMATMUL" : acc ? "TMATMUL_ACC" : "TMATMUL_BIAS";
  pto::StrAppend(&body_, in, "pto::", api, "(", c, operands, ");\n", in, kBarrier);
  return absl::OkStatus();
}

}  // namespace pto::codegen::kernel_internal
