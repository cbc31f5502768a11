// Kernel code of the vector operator families (kernel_op_table.h): unary,
// binary and scalar-binary arithmetic, reductions, row / col expansion and
// the layout operators (fillpad, transpose, slice, assemble, reshape), as
// calls of the kernel API's vector operators (runtime/device/vector_ops.h).
#include <optional>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "compiler/codegen/kernel_generator.h"
#include "compiler/codegen/kernel_op_table.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::kernel_internal {

// A tile of rank 1 or 2 as `rows x cols` with its valid box.
absl::StatusOr<Generator::TileDims> Generator::DimsOf(const ir::TypePtr& type, const Span& span) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr) return Unsupported(span, "a non-tile operand here");
  const size_t rank = tile->shape().size();
  if (rank < 1 || rank > 2) {
    return Unsupported(span, pto::StrCat("a rank-", rank, " tile operand of this operator"));
  }
  TileDims d;
  std::optional<int64_t> c = ir::GetConstInt(tile->shape().back());
  std::optional<int64_t> r = rank == 2 ? ir::GetConstInt(tile->shape()[0]) : 1;
  if (!r || !c) return Unsupported(span, "a tile with a non-constant shape");
  d.rows = *r;
  d.cols = *c;
  d.valid_rows = pto::StrCat(d.rows);
  d.valid_cols = pto::StrCat(d.cols);
  if (!tile->valid_shape().empty()) {
    d.partial = true;
    ASSIGN_OR_RETURN(d.valid_cols, ValidDim(tile->valid_shape().back(), span));
    if (rank == 2) {
      ASSIGN_OR_RETURN(d.valid_rows, ValidDim(tile->valid_shape()[0], span));
    }
  }
  d.text = pto::StrCat("pto::Dims2{", d.rows, ", ", d.cols, ", ", d.valid_rows, ", ", d.valid_cols,
                       "}");
  return d;
}

// An elementwise instruction covers every row of its tile, and the vector
// unit pays whole repeats per row (docs/simulator.md, "Per-instruction
// costs"), so a 2-D tile passes its rows x cols; the box is the whole tile,
// so the elements computed are the same as without one.
std::string Generator::RowsArg(const ir::TypePtr& type) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr || tile->shape().size() != 2) return "";
  std::optional<int64_t> r = ir::GetConstInt(tile->shape()[0]);
  std::optional<int64_t> c = ir::GetConstInt(tile->shape()[1]);
  if (!r || !c || *r <= 1) return "";
  return pto::StrCat(", pto::Dims2{", *r, ", ", *c, ", ", *r, ", ", *c, "}");
}

// Scratch operands PyPTO passes (row_sum's tmp_tile, rsqrt's tmp) that the
// kernel API does not need: read, so the kernel compiles warning-free.
absl::Status Generator::IgnoreScratch(const OpCall& c, size_t from) {
  for (size_t i = from; i < c.call->args().size(); ++i) {
    const ir::ExprPtr& a = c.call->args()[i];
    if (!ir::Is<ir::Var>(a) || !ir::Is<ir::TileType>(a->type())) continue;
    ASSIGN_OR_RETURN(Value v, Lookup(a));
    pto::StrAppend(&body_, Indent(c.indent), "static_cast<void>(", v.name, ");  // scratch\n");
  }
  return absl::OkStatus();
}

absl::Status Generator::CheckFloatOnly(const OpCall& c, ir::DataType dtype) {
  if (c.op.float_only && !ir::IsFloat(dtype)) {
    return Unsupported(c.call->span(), pto::StrCat(c.call->op()->name(), " of ",
                                                   ir::DataTypeName(dtype), " tiles"));
  }
  return absl::OkStatus();
}

absl::Status Generator::EmitUnary(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  RETURN_IF_ERROR(CheckFloatOnly(c, a.dtype));
  if (c.op.api == "TNOT" && !ir::IsIntegral(a.dtype)) {
    return Unsupported(c.call->span(), pto::StrCat(c.call->op()->name(), " of ",
                                                   ir::DataTypeName(a.dtype), " tiles"));
  }
  RETURN_IF_ERROR(IgnoreScratch(c, 1));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  const std::string rows = c.op.api == "TNOT" ? "" : RowsArg(c.var->type());
  pto::StrAppend(&body_, Indent(c.indent), "pto::", c.op.api, "(", dst, ", ", a.name, rows, ");\n");
  return absl::OkStatus();
}

// neg(a) = a * -1; relu(a) = max(a, 0), with the 0s in the result tile.
absl::Status Generator::EmitComposite(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(c.var->type()), c.call->span()));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  const std::string in = Indent(c.indent);
  const std::string rows = RowsArg(c.var->type());
  if (c.op.api == "neg") {
    pto::StrAppend(&body_, in, "pto::TMULS(", dst, ", ", a.name, ", static_cast<", elem,
                   ">(-1)", rows, ");\n");
  } else {
    pto::StrAppend(&body_, in, "pto::TEXPANDS(", dst, ", static_cast<", elem, ">(0));\n", in,
                   "pto::TMAX(", dst, ", ", a.name, ", ", dst, rows, ");\n");
  }
  return absl::OkStatus();
}

absl::Status Generator::EmitBinary(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() < 2) return Unsupported(c.call->span(), "this form of " + c.call->op()->name());
  if (ir::Is<ir::ScalarType>(args[1]->type())) return EmitScalarForm(c, c.op.arg);
  ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(Value b, LookupKind(args[1], Kind::kTile, "tile"));
  RETURN_IF_ERROR(CheckFloatOnly(c, a.dtype));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::", c.op.api, "(", dst, ", ", a.name, ", ", b.name,
                 RowsArg(c.var->type()), ");\n");
  return absl::OkStatus();
}

absl::Status Generator::EmitScalarBinary(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() != 2 || !ir::Is<ir::ScalarType>(args[1]->type())) {
    return Unsupported(c.call->span(), c.call->op()->name() + " without a scalar operand");
  }
  return EmitScalarForm(c, c.op.api);
}

// api(dst, tile, scalar), the scalar in the tile's element type.
absl::Status Generator::EmitScalarForm(const OpCall& c, std::string_view api) {
  const auto& args = c.call->args();
  ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
  RETURN_IF_ERROR(CheckFloatOnly(c, a.dtype));
  ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(c.var->type()), c.call->span()));
  ASSIGN_OR_RETURN(std::string s, Scalar(args[1]));
  std::string cast = DTypeOf(args[1]->type()) == DTypeOf(c.var->type())
                         ? s
                         : pto::StrCat("static_cast<", elem, ">(", s, ")");
  if (c.op.negate_scalar) cast = pto::StrCat("static_cast<", elem, ">(-", cast, ")");
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::", api, "(", dst, ", ", a.name, ", ", cast,
                 RowsArg(c.var->type()), ");\n");
  return absl::OkStatus();
}

// row_* / col_* (tile[, tmp_tile]): the scratch tile PyPTO passes is not
// needed here.
absl::Status Generator::EmitReduce(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(TileDims d, DimsOf(c.call->args()[0]->type(), c.call->span()));
  if (DTypeOf(c.var->type()) != a.dtype) {
    return InternalErrorF(c.call->span(), c.call->op()->name(), " changes the dtype");
  }
  RETURN_IF_ERROR(IgnoreScratch(c, 1));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::", c.op.arg, "(pto::ReduceKind::", c.op.api, ", ",
                 dst, ", ", a.name, ", ", d.text, ");\n");
  return absl::OkStatus();
}

absl::Status Generator::EmitArgReduce(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(TileDims d, DimsOf(c.call->args()[0]->type(), c.call->span()));
  if (DTypeOf(c.var->type()) != ir::DataType::kInt32) {
    return Unsupported(c.call->span(), c.call->op()->name() + " into a non-INT32 tile");
  }
  RETURN_IF_ERROR(IgnoreScratch(c, 1));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TROWARG(", c.op.api, ", ", dst, ", ", a.name, ", ",
                 d.text, ");\n");
  return absl::OkStatus();
}

// (tile, vec): the result's valid box of tile (op) the row / col vector.
absl::Status Generator::EmitExpand(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() < 2) return Unsupported(c.call->span(), "this form of " + c.call->op()->name());
  ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(Value v, LookupKind(args[1], Kind::kTile, "tile"));
  RETURN_IF_ERROR(CheckFloatOnly(c, a.dtype));
  if (a.dtype != v.dtype) {
    return Unsupported(c.call->span(), c.call->op()->name() + " of tiles of different dtypes");
  }
  ASSIGN_OR_RETURN(TileDims d, DimsOf(c.var->type(), c.call->span()));
  RETURN_IF_ERROR(IgnoreScratch(c, 2));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TEXPAND(pto::ExpandKind::", c.op.api, ", ",
                 c.op.arg, ", ", dst, ", ", a.name, ", ", v.name, ", ", d.text, ");\n");
  return absl::OkStatus();
}

// fillpad(tile, pad_value=zero | number): the valid box kept, the rest the
// pad value. PadValue max / min are refused (their value per dtype is not
// pinned down here).
absl::Status Generator::EmitFillPad(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(TileDims d, DimsOf(c.call->args()[0]->type(), c.call->span()));
  ASSIGN_OR_RETURN(std::string elem, ElemType(a.dtype, c.call->span()));
  std::string pad = "0";
  if (const ir::AttrValue* v = ir::FindAttr(c.call->kwargs(), "pad_value")) {
    if (const auto* i = std::get_if<int64_t>(v)) {
      pad = pto::StrCat(*i);
    } else if (const auto* f = std::get_if<double>(v)) {
      pad = pto::StrCat(*f);
    } else if (const auto* s = std::get_if<std::string>(v); s == nullptr || *s != "zero") {
      return Unsupported(c.call->span(), "pl.tile.fillpad with this pad_value");
    }
  }
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TFILLPAD(", dst, ", ", a.name, ", ", d.text,
                 ", static_cast<", elem, ">(", pad, "));\n");
  return absl::OkStatus();
}

// transpose(tile, 0, 1) of a whole 2-D tile.
absl::Status Generator::EmitTranspose(const OpCall& c) {
  const auto& args = c.call->args();
  ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(TileDims d, DimsOf(args[0]->type(), c.call->span()));
  std::optional<int64_t> x = args.size() >= 3 ? ir::GetConstInt(args[1]) : std::nullopt;
  std::optional<int64_t> y = args.size() >= 3 ? ir::GetConstInt(args[2]) : std::nullopt;
  auto tile = ir::As<ir::TileType>(args[0]->type());
  if (!x || !y || tile->shape().size() != 2 || !((*x == 0 && *y == 1) || (*x == 1 && *y == 0))) {
    return Unsupported(c.call->span(), "pl.tile.transpose other than of axes 0 and 1 of a 2-D tile");
  }
  if (d.partial) return Unsupported(c.call->span(), "pl.tile.transpose of a partial tile");
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TTRANS(", dst, ", ", a.name, ", ", d.text,
                 ");\n");
  return absl::OkStatus();
}

// The `[r, c]` of a 1-D or 2-D offset list as int64_t expressions.
absl::StatusOr<std::pair<std::string, std::string>> Generator::Offset2(const ir::ExprPtr& e,
                                                                       const Span& span) {
  auto t = ir::As<ir::MakeTuple>(e);
  if (t == nullptr || t->elements().empty() || t->elements().size() > 2) {
    return Unsupported(span, "an offset list other than [col] or [row, col] here");
  }
  std::vector<std::string> v;
  for (const ir::ExprPtr& x : t->elements()) {
    ASSIGN_OR_RETURN(std::string s, Scalar(x));
    v.push_back(ir::Is<ir::ConstInt>(x) ? s : pto::StrCat("static_cast<int64_t>(", s, ")"));
  }
  if (v.size() == 1) return std::make_pair(std::string("0"), v[0]);
  return std::make_pair(v[0], v[1]);
}

// slice(tile, shape, offset): the shape-sized box at offset, copied out.
absl::Status Generator::EmitSlice(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() != 3 || !c.call->kwargs().empty()) {
    return Unsupported(c.call->span(), "pl.tile.slice with a valid_shape, drop_dims or pad_value");
  }
  ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(TileDims src, DimsOf(args[0]->type(), c.call->span()));
  ASSIGN_OR_RETURN(TileDims dst_dims, DimsOf(c.var->type(), c.call->span()));
  if (src.partial) return Unsupported(c.call->span(), "pl.tile.slice of a partial tile");
  ASSIGN_OR_RETURN(auto off, Offset2(args[2], c.call->span()));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TCOPYBOX(", dst, ", ", dst_dims.cols, ", 0, 0, ",
                 a.name, ", ", src.cols, ", ", off.first, ", ", off.second, ", ", dst_dims.rows,
                 ", ", dst_dims.cols, ");\n");
  return absl::OkStatus();
}

// assemble(target, source, offset): target with source's valid box written
// at offset.
absl::Status Generator::EmitAssemble(const OpCall& c) {
  const auto& args = c.call->args();
  if (args.size() != 3) return Unsupported(c.call->span(), "this form of pl.tile.assemble");
  ASSIGN_OR_RETURN(Value target, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(Value source, LookupKind(args[1], Kind::kTile, "tile"));
  if (target.dtype != source.dtype) {
    return Unsupported(c.call->span(), "pl.tile.assemble of tiles of different dtypes");
  }
  ASSIGN_OR_RETURN(TileDims t, DimsOf(args[0]->type(), c.call->span()));
  ASSIGN_OR_RETURN(TileDims s, DimsOf(args[1]->type(), c.call->span()));
  ASSIGN_OR_RETURN(auto off, Offset2(args[2], c.call->span()));
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  const std::string in = Indent(c.indent);
  pto::StrAppend(&body_, in, "pto::TMOV(", dst, ", ", target.name, ");\n", in, "pto::TCOPYBOX(",
                 dst, ", ", t.cols, ", ", off.first, ", ", off.second, ", ", source.name, ", ",
                 s.cols, ", 0, 0, ", s.valid_rows, ", ", s.valid_cols, ");\n");
  return absl::OkStatus();
}

// reshape(tile, shape): the same elements in row-major order.
absl::Status Generator::EmitTileReshape(const OpCall& c) {
  ASSIGN_OR_RETURN(Value a, LookupKind(c.call->args()[0], Kind::kTile, "tile"));
  auto src = ir::As<ir::TileType>(c.call->args()[0]->type());
  if (src == nullptr || !src->valid_shape().empty()) {
    return Unsupported(c.call->span(), "pl.tile.reshape of a partial tile");
  }
  ASSIGN_OR_RETURN(auto from, TileShape(c.call->args()[0]->type(), c.call->span()));
  ASSIGN_OR_RETURN(auto to, TileShape(c.var->type(), c.call->span()));
  if (from.first != to.first) {
    return UserErrorF(c.call->span(), "pl.tile.reshape from ", from.second, " to ", to.second,
                      " changes the element count");
  }
  ASSIGN_OR_RETURN(std::string dst, NewTile(c.var, c.indent));
  pto::StrAppend(&body_, Indent(c.indent), "pto::TMOV(", dst, ", ", a.name, ");\n");
  return absl::OkStatus();
}

}  // namespace pto::codegen::kernel_internal
