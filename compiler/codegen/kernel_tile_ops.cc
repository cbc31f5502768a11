// Kernel code of tile and GM operators: loads, stores, tile arithmetic,
// casts, moves, GM element reads/writes and reshapes (kernel_generator.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/kernel_generator.h"
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
// into the tensor-rank box `shapes`: [rows / inner, shapes[1..N-2], cols],
// inner the product of the middle dims.
absl::StatusOr<std::string> Generator::StoreBox(const ir::TypePtr& type, const ir::ExprPtr& shapes,
                                                const Span& span) {
  auto tile = ir::As<ir::TileType>(type);
  auto s = ir::As<ir::MakeTuple>(shapes);
  if (tile == nullptr || tile->valid_shape().empty() || s == nullptr ||
      s->elements().size() == tile->shape().size() || tile->valid_shape().size() != 2) {
    return IndexList(shapes);
  }
  const std::vector<ir::ExprPtr>& dims = s->elements();
  int64_t inner = 1;
  for (size_t k = 1; k + 1 < dims.size(); ++k) {
    std::optional<int64_t> d = ir::GetConstInt(dims[k]);
    if (!d) return Unsupported(span, "a partial store of rank above 2 with a dynamic box");
    inner *= *d;
  }
  std::optional<int64_t> rows = ir::GetConstInt(tile->valid_shape()[0]);
  if (!rows.has_value() && inner != 1) {
    return Unsupported(span, "a partial store of rank above 2 with dynamic valid rows");
  }
  if (rows.has_value() && *rows % inner != 0) {
    return Unsupported(span, pto::StrCat("a partial store of rank ", dims.size(), " whose ",
                                         *rows, " valid rows are not whole [", inner,
                                         "]-row blocks"));
  }
  ASSIGN_OR_RETURN(std::string first,
                   rows.has_value() ? absl::StatusOr<std::string>(pto::StrCat(*rows / inner))
                                    : ValidDim(tile->valid_shape()[0], span));
  ASSIGN_OR_RETURN(std::string cols, ValidDim(tile->valid_shape()[1], span));
  std::string box = pto::StrCat("{", first);
  for (size_t k = 1; k + 1 < dims.size(); ++k) pto::StrAppend(&box, ", ", *ir::GetConstInt(dims[k]));
  return pto::StrCat(box, ", ", cols, "}");
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
  // PyPTO's tile-with-scalar operators (pl.add(tile, 1.0) resolves to
  // pl.tile.adds) are the scalar branch of the binary operators below.
  const std::string& name = call->op()->name();
  const bool scalar_form =
      (name == "pl.tile.adds" || name == "pl.tile.subs" || name == "pl.tile.muls" ||
       name == "pl.tile.maximums" || name == "pl.tile.minimums") &&
      call->args().size() == 2 && ir::Is<ir::ScalarType>(call->args()[1]->type());
  const std::string op = scalar_form ? name.substr(0, name.size() - 1) : name;
  const auto& args = call->args();
  const std::string in = Indent(indent);
  if (op == "pl.tile.load") {
    ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
    ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
    ASSIGN_OR_RETURN(std::string box, LoadBox(var->type(), args[1], args[2],
                                              args.size() == 4 ? args[3] : nullptr,
                                              call->span()));
    ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
    pto::StrAppend(&body_, in, "pto::kernels::internal::CopyBox(true, ", tile, ", ", t.name, ", ",
                   off, ", ", box, ValidRowPitch(var->type()), ");\n");
    return absl::OkStatus();
  }
  if (op == "pld.tile.remote_load" && args.size() == 4) {
    // The value form, `recv = pld.tile.remote_load(window, peer, offsets,
    // shape)`: a fresh tile loaded from the peer's box.
    ASSIGN_OR_RETURN(Value window, WindowOperand(args[0], call));
    if (DTypeOf(var->type()) != window.dtype) {
      return Unsupported(call->span(), op + " between different dtypes");
    }
    ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
    ASSIGN_OR_RETURN(std::string off, IndexList(args[2]));
    ASSIGN_OR_RETURN(std::string shape, IndexList(args[3]));
    ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
    const std::string remote = Fresh("remote");
    pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                   " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                   ", static_cast<int64_t>(", peer, "));\n", in,
                   "  pto::kernels::internal::CopyBox(true, ", tile, ", &", remote, ", ", off,
                   ", ", shape, ");\n", in, "}\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.store") {
    ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
    ASSIGN_OR_RETURN(Value t, LookupKind(args[2], Kind::kTensor, "tensor"));
    // FlattenTileNdTo2D gives a store into a tensor of rank above 2 its
    // tensor-rank box.
    ASSIGN_OR_RETURN(std::string box, args.size() == 4
                                          ? StoreBox(args[0]->type(), args[3], call->span())
                                          : BoxShape(args[0]->type(), args[1], call->span()));
    ASSIGN_OR_RETURN(bool atomic_add, AtomicAdd(call, tile.dtype));
    std::string pitch = ValidRowPitch(args[0]->type());
    if (atomic_add) {
      if (pitch.empty()) pitch = ", 0";
      pitch += ", pto::AtomicType::AtomicAdd";
    }
    pto::StrAppend(&body_, in, "pto::kernels::internal::CopyBox(false, ", tile.name, ", ", t.name,
                   ", ", off, ", ", box, pitch, ");\n");
    return Alias(var, t, indent);
  }
  if (op == "pl.tensor.write") {
    ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
    RETURN_IF_ERROR(EmitWrite(call, t, indent));
    return Alias(var, t, indent);
  }
  if (op == "pl.tensor.read") {
    ASSIGN_OR_RETURN(std::string read, ReadExpr(call));
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    pto::StrAppend(&body_, in, decl, " = ", read, ";\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.create") {
    return NewTile(var, indent).status();
  }
  if (op == "pld.system.get_comm_ctx") {
    ASSIGN_OR_RETURN(Value t, WindowOperand(args[0], call));
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    pto::StrAppend(&body_, in, decl, " = ", t.ctx, ";\n");
    return absl::OkStatus();
  }
  if (op == "pld.system.nranks" || op == "pld.system.rank") {
    ASSIGN_OR_RETURN(Value ctx, LookupKind(args[0], Kind::kCtx, "CommCtx"));
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    pto::StrAppend(&body_, in, decl, " = static_cast<int32_t>(", ctx.name,
                   op == "pld.system.rank" ? "->rankId" : "->rankNum", ");\n");
    return absl::OkStatus();
  }
  if (op == "pl.tensor.reshape") {
    // A descriptor of the new shape over the same GM (and window context).
    ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
    ASSIGN_OR_RETURN(std::string shape, IndexList(args[1]));
    const std::string desc = Fresh(pto::StrCat(var->name_hint(), "_desc"));
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    values_[var.get()].ctx = t.ctx;
    pto::StrAppend(&body_, in, "const pto::TensorDesc ", desc,
                   " = pto::kernels::internal::Reshape(", t.name, ", ", shape, ");\n", in, decl,
                   " = &", desc, ";\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.full") {
    ASSIGN_OR_RETURN(std::string value, Scalar(args[1]));
    ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
    ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TEXPANDS(", tile, ", static_cast<", elem, ">(", value,
                   "));\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.add" || op == "pl.tile.sub" || op == "pl.tile.mul" ||
      op == "pl.tile.maximum" || op == "pl.tile.minimum") {
    ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
    if (ir::Is<ir::ScalarType>(args[1]->type())) {
      ASSIGN_OR_RETURN(std::string s, Scalar(args[1]));
      const std::string cast = DTypeOf(args[1]->type()) == DTypeOf(var->type())
                                   ? s
                                   : pto::StrCat("static_cast<", elem, ">(", s, ")");
      std::string api;
      if (op == "pl.tile.add") {
        api = pto::StrCat("pto::TADDS(%, ", a.name, ", ", cast, ")");
      } else if (op == "pl.tile.sub") {
        api = pto::StrCat("pto::TADDS(%, ", a.name, ", static_cast<", elem, ">(-", cast, "))");
      } else if (op == "pl.tile.mul") {
        api = pto::StrCat("pto::TMULS(%, ", a.name, ", ", cast, ")");
      } else {
        return Unsupported(call->span(), pto::StrCat(op, " with a scalar operand"));
      }
      ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
      api.replace(api.find('%'), 1, dst);
      pto::StrAppend(&body_, in, api, ";\n");
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Value b, LookupKind(args[1], Kind::kTile, "tile"));
    const std::string api = op == "pl.tile.add"       ? "TADD"
                            : op == "pl.tile.sub"     ? "TSUB"
                            : op == "pl.tile.mul"     ? "TMUL"
                            : op == "pl.tile.maximum" ? "TMAX"
                                                      : "TMIN";
    ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
    pto::StrAppend(&body_, in, "pto::", api, "(", dst, ", ", a.name, ", ", b.name, ");\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.move") {
    // A copy into the carried buffer (MemoryReuse's yield fixup).
    ASSIGN_OR_RETURN(Value src, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TMOV(", dst, ", ", src.name, ");\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.cast") {
    // Only conversions that are one rounding-free or round-to-nearest C++
    // cast: a float -> integer cast needs PyPTO's rounding modes.
    ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
    const ir::DataType to = DTypeOf(var->type());
    if (!ir::IsFloat(to) && ir::IsFloat(a.dtype)) {
      return Unsupported(call->span(), "pl.tile.cast from a float to an integer dtype");
    }
    RETURN_IF_ERROR(ElemType(a.dtype, call->span()).status());
    ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TCVT(", dst, ", ", a.name, ");\n");
    return absl::OkStatus();
  }
  if (op == "pl.tile.neg" || op == "pl.tile.relu") {
    ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
    ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
    if (op == "pl.tile.neg") {
      pto::StrAppend(&body_, in, "pto::TMULS(", dst, ", ", a.name, ", static_cast<", elem,
                     ">(-1));\n");
    } else {
      // relu(a) = max(a, 0), with the 0s in the result tile itself.
      pto::StrAppend(&body_, in, "pto::TEXPANDS(", dst, ", static_cast<", elem, ">(0));\n", in,
                     "pto::TMAX(", dst, ", ", a.name, ", ", dst, ");\n");
    }
    return absl::OkStatus();
  }
  return Unsupported(call->span(), op);
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
