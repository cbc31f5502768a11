// Tensor and tile subscripts, read (`x[i]`, `x[a:b, j]`) and written
// (`x[a:b, :] = src`), as PyPTO's parser reads them.
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

// The window a subscript selects, full rank: an index `i` on dimension d is
// offset i, extent 1 and drops d (numpy's rank reduction); a slice `a:b` is
// offset a, extent b - a; dimensions past the written ones are whole.
absl::StatusOr<Parser::Window> Parser::LowerWindow(const Ast* idx,
                                                   const std::vector<ExprPtr>& dims) {
  std::vector<const Ast*> items;
  if (idx->kind == AstKind::kTuple) {
    for (uint32_t i = 0; i < idx->num_kids; ++i) items.push_back(Kid(idx, i));
  } else {
    items.push_back(idx);
  }
  if (items.size() > dims.size()) {
    return ErrorAt(idx, pto::StrCat("the subscript has ", items.size(), " indices but the tensor "
                                    "has rank ", dims.size()));
  }
  Span span = SpanOf(idx);
  auto index_const = [&span](int64_t v) -> ExprPtr {
    return ir::MakeNode<ir::ConstInt>(v, DataType::kIndex, span);
  };
  Window w;
  for (size_t d = 0; d < dims.size(); ++d) {
    const Ast* s = d < items.size() ? items[d] : nullptr;
    if (s != nullptr && s->kind != AstKind::kSlice) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerScalarOperand(s, "a tensor index"));
      w.offsets.push_back(std::move(e));
      w.extents.push_back(index_const(1));
      w.dropped.push_back(true);
      ++w.num_indices;
      continue;
    }
    w.dropped.push_back(false);
    if (s == nullptr || (Kid(s, 0)->kind == AstKind::kNone && Kid(s, 1)->kind == AstKind::kNone &&
                         Kid(s, 2)->kind == AstKind::kNone)) {
      w.offsets.push_back(index_const(0));
      w.extents.push_back(dims[d]);
      continue;
    }
    ++w.num_slices;
    if (Kid(s, 2)->kind != AstKind::kNone) {
      return ErrorAt(Kid(s, 2), "a slice step is not supported (write x[a:b])");
    }
    ExprPtr lower = index_const(0);
    ExprPtr upper = dims[d];
    if (Kid(s, 0)->kind != AstKind::kNone) {
      ASSIGN_OR_RETURN(lower, LowerDim(Kid(s, 0)));
    }
    if (Kid(s, 1)->kind != AstKind::kNone) {
      ASSIGN_OR_RETURN(upper, LowerDim(Kid(s, 1)));
    }
    std::optional<int64_t> lo = ir::GetConstInt(lower), hi = ir::GetConstInt(upper);
    std::optional<int64_t> dim = ir::GetConstInt(dims[d]);
    if (lo && hi && (*lo < 0 || *hi < *lo || (dim && *hi > *dim))) {
      return ErrorAt(s, pto::StrCat("slice ", *lo, ":", *hi, " is outside dimension ", d,
                                    dim ? pto::StrCat(" (of size ", *dim, ")") : std::string()));
    }
    if (lo && hi) {
      w.extents.push_back(index_const(*hi - *lo));
    } else if (lo && *lo == 0) {
      w.extents.push_back(upper);
    } else {
      w.extents.push_back(ir::MakeNode<ir::BinaryExpr>(
          ir::BinaryOp::kSub, upper, lower, ir::ScalarType::Get(DataType::kIndex), span));
    }
    w.offsets.push_back(std::move(lower));
  }
  return w;
}

// x[i, j], x[a:b], x[r, :], x[i, a:b] on a tensor: indices on every dimension
// read one element (pl.tensor.read); leading indices alone take the sub-tensor
// there (pl.tensor.index); otherwise the window is a pl.tensor.slice, reshaped
// to drop the indexed dimensions when there are any.
absl::StatusOr<ExprPtr> Parser::LowerTensorSubscript(const Ast* a, ExprPtr base, const Ast* idx) {
  const std::vector<ExprPtr> dims = static_cast<const ir::ShapedType&>(*base->type()).shape();
  ASSIGN_OR_RETURN(Window w, LowerWindow(idx, dims));
  Span span = SpanOf(idx);
  if (w.num_slices == 0 && w.num_indices == 0) return base;  // x[:]
  if (w.num_slices == 0) {
    bool leading = true;  // the indices are the first dimensions
    for (size_t d = 0; d < w.num_indices; ++d) leading = leading && w.dropped[d];
    if (leading) {
      std::vector<ExprPtr> indices(w.offsets.begin(), w.offsets.begin() + w.num_indices);
      std::vector<ExprPtr> args;
      args.push_back(std::move(base));
      args.push_back(ir::MakeNode<ir::MakeTuple>(std::move(indices), span));
      const char* op = w.num_indices == dims.size() ? "pl.tensor.read" : "pl.tensor.index";
      return MakeOpCall(op, std::move(args), {}, {}, SpanOf(a));
    }
  }
  // A window of a tile is a pl.tile.slice (PyPTO's subscript of a Tile).
  const bool tile = ir::Is<ir::TileType>(base->type());
  std::vector<ExprPtr> args;
  args.push_back(std::move(base));
  args.push_back(ir::MakeNode<ir::MakeTuple>(w.extents, span));
  args.push_back(ir::MakeNode<ir::MakeTuple>(std::move(w.offsets), span));
  ASSIGN_OR_RETURN(ExprPtr slice, MakeOpCall(tile ? "pl.tile.slice" : "pl.tensor.slice",
                                             std::move(args), {}, {}, SpanOf(a)));
  if (w.num_indices == 0) return slice;
  std::vector<ExprPtr> kept;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!w.dropped[d]) kept.push_back(w.extents[d]);
  }
  std::vector<ExprPtr> reshape_args;
  reshape_args.push_back(std::move(slice));
  reshape_args.push_back(ir::MakeNode<ir::MakeTuple>(std::move(kept), span));
  return MakeOpCall(tile ? "pl.tile.reshape" : "pl.tensor.reshape", std::move(reshape_args), {},
                    {}, SpanOf(a));
}

// `dst[<window>] = src` is `dst = pl.tensor.assemble(dst, src, offsets)` (or
// pl.tile.assemble), as in PyPTO: the write rebinds dst. A source of the
// window's rank without its indexed dimensions is reshaped to the full rank.
absl::Status Parser::LowerSubscriptAssign(const Ast* stmt, const Ast* target, const Ast* value,
                                          std::vector<StmtPtr>* out) {
  const Ast* base = Kid(target, 0);
  if (base->kind != AstKind::kName || LookupLocal(base->text) == nullptr) {
    return ErrorAt(base, "a subscript write needs a tensor or tile variable on the left, as in "
                         "`dst[0:8, :] = src`");
  }
  ExprPtr dst = *LookupLocal(base->text);
  if (ir::Is<ir::ArrayType>(dst->type())) {
    // arr[i] = v is arr = pl.array.update_element(arr, i, v), as in PyPTO.
    ASSIGN_OR_RETURN(ExprPtr i, LowerScalarOperand(Kid(target, 1), "an array index"));
    ASSIGN_OR_RETURN(ExprPtr v, LowerExpr(value));
    ASSIGN_OR_RETURN(ExprPtr updated,
                     MakeOpCall("pl.array.update_element", {dst, std::move(i), std::move(v)}, {},
                                {}, SpanOf(stmt)));
    bool reassigned = false;
    VarPtr var = AssignTarget(base->text, updated->type(), SpanOf(base), &reassigned);
    out->push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(updated), SpanOf(stmt)));
    if (!reassigned) Define(base->text, std::move(var));
    return absl::OkStatus();
  }
  bool tile = ir::Is<ir::TileType>(dst->type());
  if (!tile && ir::AsTensorTypeLike(dst->type()) == nullptr) {
    return ErrorAt(base, pto::StrCat("a subscript write needs a tensor or a tile, '", base->text,
                                     "' is ", TypeText(dst->type())));
  }
  const std::vector<ExprPtr> dims = static_cast<const ir::ShapedType&>(*dst->type()).shape();
  ASSIGN_OR_RETURN(Window w, LowerWindow(Kid(target, 1), dims));
  ASSIGN_OR_RETURN(ExprPtr src, LowerExpr(value));
  std::string_view kind = tile ? "tile" : "tensor";
  bool src_ok = tile ? ir::Is<ir::TileType>(src->type())
                     : ir::AsTensorTypeLike(src->type()) != nullptr;
  if (!src_ok) {
    return ErrorAt(value, pto::StrCat("the value written to a ", kind, " subscript must be a ",
                                      kind, ", got ", TypeText(src->type())));
  }
  const std::vector<ExprPtr>& src_dims = static_cast<const ir::ShapedType&>(*src->type()).shape();
  std::vector<ExprPtr> kept;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!w.dropped[d]) kept.push_back(w.extents[d]);
  }
  const std::vector<ExprPtr>& want = src_dims.size() == dims.size() ? w.extents : kept;
  if (src_dims.size() != want.size()) {
    return ErrorAt(value, pto::StrCat("the value written to ", base->text, "[...] must have rank ",
                                      kept.size(), " (the window's), got rank ", src_dims.size()));
  }
  for (size_t d = 0; d < want.size(); ++d) {
    std::optional<int64_t> a = ir::GetConstInt(want[d]), b = ir::GetConstInt(src_dims[d]);
    if (a && b && *a != *b) {
      return ErrorAt(value, pto::StrCat("the window ", base->text, "[...] has ", *a,
                                        " elements on axis ", d, " but the value written has ",
                                        *b));
    }
  }
  Span span = SpanOf(target);
  if (src_dims.size() != dims.size()) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(src));
    args.push_back(ir::MakeNode<ir::MakeTuple>(w.extents, span));
    ASSIGN_OR_RETURN(src, MakeOpCall(tile ? "pl.tile.reshape" : "pl.tensor.reshape",
                                     std::move(args), {}, {}, SpanOf(value)));
  }
  std::vector<ExprPtr> args;
  args.push_back(dst);
  args.push_back(std::move(src));
  args.push_back(ir::MakeNode<ir::MakeTuple>(std::move(w.offsets), span));
  ASSIGN_OR_RETURN(ExprPtr assembled,
                   MakeOpCall(tile ? "pl.tile.assemble" : "pl.tensor.assemble", std::move(args),
                              {}, {}, SpanOf(stmt)));
  bool reassigned = false;
  VarPtr var = AssignTarget(base->text, assembled->type(), SpanOf(base), &reassigned);
  out->push_back(ir::MakeNode<ir::AssignStmt>(var, std::move(assembled), SpanOf(stmt)));
  if (!reassigned) Define(base->text, std::move(var), /*assigned=*/true);
  return absl::OkStatus();
}

}  // namespace pto::parser::internal
