// Kernel code of the GM and tile-memory operators: the dispatch of every
// operator call through kernel_op_table.h, loads, stores, GM element reads /
// writes, reshapes, fills, moves and casts (kernel_generator.h). The
// vector arithmetic and layout families are in kernel_vector_ops.cc.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/kernel_generator.h"
#include "compiler/codegen/kernel_op_table.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::kernel_internal {

// The element count of a tile type with constant dims, and `{d0, d1, ...}`.
absl::StatusOr<std::pair<int64_t, std::string>> Generator::TileShape(const ir::TypePtr& type,
                                                                     const Span& span) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr) return Unsupported(span, "a non-tile operand here");
  int64_t count = 1;
  std::string dims = "{";
  for (size_t i = 0; i < tile->shape().size(); ++i) {
    std::optional<int64_t> d = ir::GetConstInt(tile->shape()[i]);
    if (!d) return Unsupported(span, "a tile with a non-constant shape");
    count *= *d;
    pto::StrAppend(&dims, i ? ", " : "", *d);
  }
  return std::make_pair(count, dims + "}");
}

// The GM box of a tile at `offsets`: the tile's dims, with leading 1s when
// the offsets address a tensor of higher rank (PyPTO's `pl.store(row,
// [0, j, 0], out)` of a [1, SIZE] row into a [1, NR, SIZE] tensor).
// A tile with a valid_shape (PyPTO's partial tile) moves only that box,
// each row at the tile's full row pitch (ValidRowPitch).
absl::StatusOr<std::string> Generator::BoxShape(const ir::TypePtr& type, const ir::ExprPtr& offsets,
                                                const Span& span) {
  ASSIGN_OR_RETURN(auto shape, TileShape(type, span));
  auto tile = ir::As<ir::TileType>(type);
  if (!tile->valid_shape().empty()) {
    std::string dims = "{";
    for (size_t i = 0; i < tile->valid_shape().size(); ++i) {
      // A symbol's error names the load or store that reads it.
      ASSIGN_OR_RETURN(std::string d, ValidDim(tile->valid_shape()[i], span));
      pto::StrAppend(&dims, i ? ", " : "", d);
    }
    shape.second = dims + "}";
  }
  auto tuple = ir::As<ir::MakeTuple>(offsets);
  const size_t rank = tile->shape().size();
  if (tuple == nullptr || tuple->elements().size() <= rank) return shape.second;
  std::string dims = "{";
  for (size_t i = rank; i < tuple->elements().size(); ++i) pto::StrAppend(&dims, "1, ");
  return dims + shape.second.substr(1);
}

// The GM box of a load: its shape operand when that has the offsets' rank
// (a tile FlattenTileNdTo2D flattened keeps its tensor-rank window), else
// the tile's dims as for a store. A partial tile (valid_shape) loads its
// valid box.
absl::StatusOr<std::string> Generator::LoadBox(const ir::TypePtr& type, const ir::ExprPtr& offsets,
                                               const ir::ExprPtr& shape, const ir::ExprPtr& valid,
                                               const Span& span) {
  auto o = ir::As<ir::MakeTuple>(offsets);
  auto s = ir::As<ir::MakeTuple>(shape);
  auto tile = ir::As<ir::TileType>(type);
  const bool partial = tile != nullptr && !tile->valid_shape().empty();
  const bool nd = o != nullptr && s != nullptr && o->elements().size() == s->elements().size();
  if (!partial && nd) return IndexList(shape);
  if (partial && nd && s->elements().size() != tile->shape().size()) {
    // A partial tile FlattenTileNdTo2D flattened: its valid box in the
    // tensor's rank, from the load's own valid_shape operand.
    auto v = valid != nullptr ? ir::As<ir::MakeTuple>(valid) : nullptr;
    if (v == nullptr || v->elements().size() != s->elements().size()) {
      return Unsupported(span, "a partial load of rank above 2 without its valid_shape");
    }
    RETURN_IF_ERROR(CheckRowsContiguous(s->elements(), v->elements(), span));
    return IndexList(valid);
  }
  return BoxShape(type, offsets, span);
}

// A box of rank above 2 whose rows sit at the tile's row pitch: every dim
// but the first and the last whole (a gap in a middle dim is not one pitch).
absl::Status Generator::CheckRowsContiguous(const std::vector<ir::ExprPtr>& shape,
                                            const std::vector<ir::ExprPtr>& valid,
                                            const Span& span) {
  for (size_t k = 1; k + 1 < shape.size(); ++k) {
    std::optional<int64_t> d = ir::GetConstInt(shape[k]);
    std::optional<int64_t> v = ir::GetConstInt(valid[k]);
    if (!d || !v || *d != *v) {
      return Unsupported(span, pto::StrCat("a partial tile of rank ", shape.size(),
                                           " whose valid_shape is partial in dim ", k));
    }
  }
  return absl::OkStatus();
}

// The GM box of a store of a flattened partial tile (valid [rows, cols])
// into the tensor-rank box `shapes` [s0, ..., s(N-2), w]: the first `rows`
// rows of the flattened box as a box, [1, ..., 1, rows / inner, s(k+1), ...,
// s(N-2), cols] for the outermost dim k whose inner block count divides
// `rows` (inner the product of the dims after k).
absl::StatusOr<std::string> Generator::StoreBox(const ir::TypePtr& type, const ir::ExprPtr& shapes,
                                                const Span& span) {
  auto tile = ir::As<ir::TileType>(type);
  auto s = ir::As<ir::MakeTuple>(shapes);
  if (tile == nullptr || tile->valid_shape().empty() || s == nullptr ||
      s->elements().size() == tile->shape().size() || tile->valid_shape().size() != 2) {
    return IndexList(shapes);
  }
  const std::vector<ir::ExprPtr>& elems = s->elements();
  const size_t n = elems.size();
  std::vector<int64_t> dims;
  for (size_t k = 0; k + 1 < n; ++k) {
    std::optional<int64_t> d = ir::GetConstInt(elems[k]);
    if (!d) return Unsupported(span, "a partial store of rank above 2 with a dynamic box");
    dims.push_back(*d);
  }
  ASSIGN_OR_RETURN(std::string cols, ValidDim(tile->valid_shape()[1], span));
  std::optional<int64_t> rows = ir::GetConstInt(tile->valid_shape()[0]);
  std::vector<std::string> box;
  if (!rows.has_value()) {
    // A dynamic row count is a box only in the innermost row dim.
    for (size_t k = 0; k + 1 < dims.size(); ++k) {
      if (dims[k] != 1) {
        return Unsupported(span, "a partial store of rank above 2 with dynamic valid rows");
      }
      box.push_back("1");
    }
    ASSIGN_OR_RETURN(std::string r, ValidDim(tile->valid_shape()[0], span));
    box.push_back(r);
  } else {
    bool found = false;
    for (size_t k = 0; k < dims.size() && !found; ++k) {
      int64_t inner = 1;
      for (size_t j = k + 1; j < dims.size(); ++j) inner *= dims[j];
      if (*rows % inner != 0 || *rows / inner > dims[k]) continue;
      found = true;
      for (size_t j = 0; j < k; ++j) box.push_back("1");
      box.push_back(pto::StrCat(*rows / inner));
      for (size_t j = k + 1; j < dims.size(); ++j) box.push_back(pto::StrCat(dims[j]));
    }
    if (!found) {
      return Unsupported(span, pto::StrCat("a partial store of rank ", n, " whose ", *rows,
                                           " valid rows are not a box of the tensor"));
    }
  }
  std::string out = "{";
  for (const std::string& b : box) pto::StrAppend(&out, b, ", ");
  return pto::StrCat(out, cols, "}");
}

// One valid_shape entry as an int64_t expression.
absl::StatusOr<std::string> Generator::ValidDim(const ir::ExprPtr& v, const Span& span) {
  auto dyn = ir::As<ir::DynDim>(v);
  ASSIGN_OR_RETURN(std::string d, dyn != nullptr ? DynParam(*dyn, span) : Scalar(v));
  return ir::Is<ir::ConstInt>(v) ? d : pto::StrCat("static_cast<int64_t>(", d, ")");
}

// `, pitch` for CopyBox when the tile has a valid_shape: its full innermost
// dim, the UB distance between the box's rows.
std::string Generator::ValidRowPitch(const ir::TypePtr& type) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr || tile->valid_shape().empty() || tile->shape().empty()) return "";
  std::optional<int64_t> d = ir::GetConstInt(tile->shape().back());
  return d.has_value() ? pto::StrCat(", ", *d) : "";
}

// A tile-valued assignment: `var` at the UB address AllocateMemoryAddr
// gave its MemRef.
absl::StatusOr<std::string> Generator::NewTile(const ir::VarPtr& var, int indent) {
  ASSIGN_OR_RETURN(auto shape, TileShape(var->type(), var->span()));
  ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), var->span()));
  auto tile = ir::As<ir::TileType>(var->type());
  std::optional<int64_t> addr;
  if (tile->memref().has_value() && *tile->memref() != nullptr) {
    addr = ir::GetConstInt((*tile->memref())->addr());
  }
  if (!addr || *addr < 0) {
    return UserErrorF(var->span(), "code generation needs a UB address for tile '",
                      var->name_hint(),
                      "': run InitMemRef, MemoryReuse and AllocateMemoryAddr (the default "
                      "pipeline) first");
  }
  ASSIGN_OR_RETURN(std::string decl, Declare(var));
  const int64_t bytes = shape.first * ir::DataTypeBytes(DTypeOf(var->type()));
  ub_bytes_ = std::max(ub_bytes_, *addr + bytes);
  pto::StrAppend(&body_, Indent(indent), decl, " = pto::TASSIGN<", elem, ">(", *addr, ", ",
                 shape.first, ");\n");
  return values_[var.get()].name;
}

absl::Status Generator::EmitCallAssign(const ir::VarPtr& var, const ir::CallPtr& call, int indent) {
  if (IsPipeOp(*call)) return EmitPipeCall(var, call, indent);
  if (aic_) return EmitCubeCall(var, call, indent);
  const std::string& name = call->op()->name();
  const KernelOp* op = FindKernelOp(call->op()->id());
  if (op == nullptr) return Unsupported(call->span(), name);
  // The deducers check arity; a call built otherwise (a pass, pto-opt
  // --allow-internal-ops) must not index past its operands.
  if (call->args().size() < MinOperands(op->family)) {
    return InternalErrorF(call->span(), name, " with ", call->args().size(), " operands");
  }
  const OpCall c{var, call, *op, indent};
  switch (op->family) {
    case OpFamily::kLoad: return EmitLoad(c);
    case OpFamily::kStore: return EmitStore(c);
    case OpFamily::kRemoteLoad: return EmitRemoteLoadValue(c);
    case OpFamily::kTensorRead: return EmitTensorRead(c);
    case OpFamily::kTensorWrite: return EmitTensorWrite(c);
    case OpFamily::kTensorReshape: return EmitTensorReshape(c);
    case OpFamily::kTensorDim: return EmitTensorDim(c);
    case OpFamily::kCommInfo: return EmitCommInfo(c);
    case OpFamily::kBlockInfo: return EmitBlockInfo(c);
    case OpFamily::kCreate: return NewTile(var, indent).status();
    case OpFamily::kFull: return EmitFull(c);
    case OpFamily::kMove: return EmitMove(c);
    case OpFamily::kCast: return EmitCast(c);
    case OpFamily::kUnary: return EmitUnary(c);
    case OpFamily::kComposite: return EmitComposite(c);
    case OpFamily::kBinary: return EmitBinary(c);
    case OpFamily::kScalarBinary: return EmitScalarBinary(c);
    case OpFamily::kReduce: return EmitReduce(c);
    case OpFamily::kArgReduce: return EmitArgReduce(c);
    case OpFamily::kExpand: return EmitExpand(c);
    case OpFamily::kFillPad: return EmitFillPad(c);
    case OpFamily::kTranspose: return EmitTranspose(c);
    case OpFamily::kSlice: return EmitSlice(c);
    case OpFamily::kAssemble: return EmitAssemble(c);
    case OpFamily::kTileReshape: return EmitTileReshape(c);
  }
  return Unsupported(call->span(), name);
}

absl::Status Generator::EmitLoad(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() < 3) return Unsupported(c.call->span(), "this form of pl.tile.load");
  ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
  ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
  ASSIGN_OR_RETURN(std::string box, LoadBox(c.var->type(), args[1], args[2],
                                            args.size() == 4 ? args[3] : nullptr,
                                            c.call->span()));
  ASSIGN_OR_RETURN(std::string tile, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::kernels::internal::CopyBox(true, ", tile, ", ",
                 t.name, ", ", off, ", ", box, ValidRowPitch(c.var->type()), ");\n");
  return absl::OkStatus();
}

// The value form, `recv = pld.tile.remote_load(window, peer, offsets,
// shape)`: a fresh tile loaded from the peer's box.
absl::Status Generator::EmitRemoteLoadValue(const OpCall& c) {
  const auto& args = c.call->args();
  const std::string& op = c.call->op()->name();
  if (args.size() != 4) return Unsupported(c.call->span(), op + " of this form");
  ASSIGN_OR_RETURN(Value window, WindowOperand(args[0], c.call));
  if (DTypeOf(c.var->type()) != window.dtype) {
    return Unsupported(c.call->span(), op + " between different dtypes");
  }
  ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
  ASSIGN_OR_RETURN(std::string off, IndexList(args[2]));
  ASSIGN_OR_RETURN(std::string shape, IndexList(args[3]));
  ASSIGN_OR_RETURN(std::string tile, NewTile(c.var, c.indent));
  const std::string remote = Fresh("remote");
  const std::string in = Indent(c.indent);
  pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                 " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                 ", static_cast<int64_t>(", peer, "));\n", in,
                 "  pto::kernels::internal::CopyBox(true, ", tile, ", &", remote, ", ", off, ", ",
                 shape, ");\n", in, "}\n");
  return absl::OkStatus();
}

absl::Status Generator::EmitStore(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() < 3) return Unsupported(c.call->span(), "this form of pl.tile.store");
  ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
  ASSIGN_OR_RETURN(Value t, LookupKind(args[2], Kind::kTensor, "tensor"));
  // FlattenTileNdTo2D gives a store into a tensor of rank above 2 its
  // tensor-rank box.
  ASSIGN_OR_RETURN(std::string box, args.size() == 4
                                        ? StoreBox(args[0]->type(), args[3], c.call->span())
                                        : BoxShape(args[0]->type(), args[1], c.call->span()));
  ASSIGN_OR_RETURN(bool atomic_add, AtomicAdd(c.call, tile.dtype));
  std::string pitch = ValidRowPitch(args[0]->type());
  if (atomic_add) {
    if (pitch.empty()) pitch = ", 0";
    pitch += ", pto::AtomicType::AtomicAdd";
  }
  pto::StrAppend(&body_, Indent(c.indent), "pto::kernels::internal::CopyBox(false, ", tile.name,
                 ", ", t.name, ", ", off, ", ", box, pitch, ");\n");
  return Alias(c.var, t, c.indent);
}

absl::Status Generator::EmitTensorWrite(const OpCall& c) {
  ASSIGN_OR_RETURN(Value t, LookupKind(c.call->args()[0], Kind::kTensor, "tensor"));
  RETURN_IF_ERROR(EmitWrite(c.call, t, c.indent));
  return Alias(c.var, t, c.indent);
}

absl::Status Generator::EmitTensorRead(const OpCall& c) {
  ASSIGN_OR_RETURN(std::string read, ReadExpr(c.call));
  ASSIGN_OR_RETURN(std::string decl, Declare(c.var));
  pto::StrAppend(&body_, Indent(c.indent), decl, " = ", read, ";\n");
  return absl::OkStatus();
}

// pl.tensor.dim(t, axis): the descriptor's dim, checked against its rank.
absl::Status Generator::EmitTensorDim(const OpCall& c) {
  const auto& args = c.call->args();
  ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
  auto tensor = ir::AsTensorTypeLike(args[0]->type());
  std::optional<int64_t> axis = ir::GetConstInt(args[1]);
  if (tensor == nullptr || !axis.has_value()) {
    return Unsupported(c.call->span(), "pl.tensor.dim with a non-constant axis");
  }
  const int64_t rank = static_cast<int64_t>(tensor->shape().size());
  const int64_t k = *axis < 0 ? *axis + rank : *axis;
  if (k < 0 || k >= rank) {
    return UserErrorF(args[1]->span(), "pl.tensor.dim axis ", *axis, " is outside rank ", rank);
  }
  ASSIGN_OR_RETURN(std::string decl, Declare(c.var));
  ASSIGN_OR_RETURN(std::string type, ElemType(DTypeOf(c.var->type()), c.call->span()));
  pto::StrAppend(&body_, Indent(c.indent), decl, " = static_cast<", type,
                 ">(pto::kernels::internal::Dim(", t.name, ", ", k, "));\n");
  return absl::OkStatus();
}

// The SPMD launch's block index / width, from the dispatch's LocalContext
// (runtime/device/kernel_abi.h), as an INDEX scalar.
absl::Status Generator::EmitBlockInfo(const OpCall& c) {
  ASSIGN_OR_RETURN(std::string decl, Declare(c.var));
  pto::StrAppend(&body_, Indent(c.indent), decl, " = static_cast<int64_t>(pto::", c.op.api,
                 "(args));\n");
  return absl::OkStatus();
}

absl::Status Generator::EmitCommInfo(const OpCall& c) {
  const auto& args = c.call->args();
  ASSIGN_OR_RETURN(std::string decl, Declare(c.var));
  if (c.op.api.empty()) {  // get_comm_ctx(window)
    ASSIGN_OR_RETURN(Value t, WindowOperand(args[0], c.call));
    pto::StrAppend(&body_, Indent(c.indent), decl, " = ", t.ctx, ";\n");
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Value ctx, LookupKind(args[0], Kind::kCtx, "CommCtx"));
  pto::StrAppend(&body_, Indent(c.indent), decl, " = static_cast<int32_t>(", ctx.name, c.op.api,
                 ");\n");
  return absl::OkStatus();
}

// A descriptor of the new shape over the same GM (and window context).
absl::Status Generator::EmitTensorReshape(const OpCall& c) {
  const auto& args = c.call->args();
  ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
  ASSIGN_OR_RETURN(std::string shape, IndexList(args[1]));
  const std::string desc = Fresh(pto::StrCat(c.var->name_hint(), "_desc"));
  ASSIGN_OR_RETURN(std::string decl, Declare(c.var));
  values_[c.var.get()].ctx = t.ctx;
  const std::string in = Indent(c.indent);
  pto::StrAppend(&body_, in, "const pto::TensorDesc ", desc, " = pto::kernels::internal::Reshape(",
                 t.name, ", ", shape, ");\n", in, decl, " = &", desc, ";\n");
  return absl::OkStatus();
}

absl::Status Generator::EmitFull(const OpCall& c) {
  ASSIGN_OR_RETURN(std::string value, Scalar(c.call->args()[1]));
  ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(c.var->type()), c.call->span()));
  ASSIGN_OR_RETURN(std::string tile, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TEXPANDS(", tile, ", static_cast<", elem, ">(",
                 value, "));\n");
  return absl::OkStatus();
}

// A copy into the carried buffer (MemoryReuse's yield fixup).
absl::Status Generator::EmitMove(const OpCall& c) {
  ASSIGN_OR_RETURN(Value src, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TMOV(", dst, ", ", src.name, ");\n");
  return absl::OkStatus();
}

namespace {
// PyPTO's cast modes (pl.cast mode=), in pto-isa's RoundMode numbering.
constexpr const char* kRoundModes[] = {"kNone", "kRint", "kRound", "kFloor",
                                       "kCeil", "kTrunc", "kOdd"};
constexpr const char* kRoundModeNames[] = {"none", "rint",  "round", "floor",
                                           "ceil", "trunc", "odd"};
}  // namespace

// TCVT with the cast's rounding mode (PyPTO's default "round") for a float
// result; an unknown mode is a located error. A float -> integer cast is not
// offered.
absl::Status Generator::EmitCast(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  const ir::DataType to = DTypeOf(c.var->type());
  if (!ir::IsFloat(to) && ir::IsFloat(a.dtype)) {
    return Unsupported(c.call->span(), "pl.tile.cast from a float to an integer dtype");
  }
  int mode = 2;  // PyPTO's default, "round"
  if (const ir::AttrValue* v = ir::FindAttr(c.call->kwargs(), "mode")) {
    std::optional<int64_t> m;
    if (const auto* i = std::get_if<int64_t>(v)) m = *i;
    if (const auto* e = std::get_if<ir::ExprPtr>(v)) m = ir::GetConstInt(*e);
    if (const auto* n = std::get_if<std::string>(v)) {
      for (int k = 0; k < 7; ++k) {
        if (*n == kRoundModeNames[k]) m = k;
      }
    }
    if (!m || *m < 0 || *m > 6) {
      return UserErrorF(c.call->span(), "pl.tile.cast: unknown rounding mode (expected one of "
                        "none, rint, round, floor, ceil, trunc, odd, or 0-6)");
    }
    mode = static_cast<int>(*m);
  }
  RETURN_IF_ERROR(ElemType(a.dtype, c.call->span()).status());
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  std::string box = RowsArg(c.var->type());
  std::string tail = box;
  if (ir::IsFloat(to) && mode != 1) {  // rint is TCVT's default
    tail = pto::StrCat(box.empty() ? ", pto::Dims2{}" : box, ", pto::RoundMode::",
                       kRoundModes[mode]);
  }
  pto::StrAppend(&body_, Indent(c.indent), "pto::TCVT(", dst, ", ", a.name, tail, ");\n");
  return absl::OkStatus();
}

// Whether a store's `atomic` kwarg asks for an atomic add (PyPTO's
// pl.AtomicType: 0 None, 1 Add); a mode or dtype the device cannot add is a
// located error, never a plain store.
absl::StatusOr<bool> Generator::AtomicAdd(const ir::CallPtr& call, ir::DataType dtype) {
  const ir::AttrValue* v = ir::FindAttr(call->kwargs(), "atomic");
  if (v == nullptr) return false;
  std::optional<int64_t> mode;
  if (const auto* i = std::get_if<int64_t>(v)) mode = *i;
  if (const auto* e = std::get_if<ir::ExprPtr>(v)) mode = ir::GetConstInt(*e);
  if (!mode.has_value() || *mode < 0 || *mode > 1) {
    return Unsupported(call->span(), "this atomic mode of pl.tile.store");
  }
  if (*mode == 0) return false;
  if (dtype != ir::DataType::kFP32 && dtype != ir::DataType::kFP16 &&
      dtype != ir::DataType::kInt32 && dtype != ir::DataType::kInt16 &&
      dtype != ir::DataType::kInt8) {
    return Unsupported(call->span(), pto::StrCat("an atomic-add pl.tile.store of ",
                                                 ir::DataTypeName(dtype), " elements"));
  }
  return true;
}

absl::Status Generator::EmitWrite(const ir::CallPtr& call, const Value& t, int indent) {
  ASSIGN_OR_RETURN(std::string idx, IndexList(call->args()[1]));
  ASSIGN_OR_RETURN(std::string value, Scalar(call->args()[2]));
  ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, call->span()));
  pto::StrAppend(&body_, Indent(indent), "pto::kernels::internal::WriteElement<", elem, ">(",
                 t.name, ", ", idx, ", ", value, ");\n");
  return absl::OkStatus();
}

}  // namespace pto::codegen::kernel_internal
