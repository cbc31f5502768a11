// The deducer of operators registered from PyPTO's signatures without a
// hand-written one: every operand is checked against its parameter's kinds,
// and the result type follows the operator's result rule (chosen by
// tools/pypto/gen_op_signatures.py from the operator's name and PyPTO's
// return annotation).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/op_signature.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using ir::DataType;
using ir::TypePtr;

std::shared_ptr<const ir::ShapedType> FirstShaped(const CallSite& s) {
  for (const ir::ExprPtr& a : s.args) {
    if (auto t = ir::As<ir::ShapedType>(a->type())) return t;
  }
  return nullptr;
}

// A shaped type like `like` (tile or tensor) with another shape / dtype.
TypePtr Reshaped(const ir::ShapedType& like, std::vector<ir::ExprPtr> shape, DataType dtype) {
  if (like.kind() == ir::NodeKind::kTileType) {
    return ir::MakeNode<ir::TileType>(std::move(shape), dtype);
  }
  return ir::MakeNode<ir::TensorType>(std::move(shape), dtype);
}

std::optional<DataType> DTypeAttr(const CallSite& s, const Signature& sig, std::string_view key) {
  if (auto dt = ir::GetAttr<DataType>(s.kwargs, key)) return dt;
  if (const Param* p = sig.Find(key); p != nullptr && p->has_default) {
    return ir::DataTypeFromName(p->default_text);
  }
  return std::nullopt;
}

// The operand of parameter `name`, if given.
ir::ExprPtr Operand(const CallSite& s, const Signature& sig, std::string_view name) {
  int i = sig.OperandIndex(name);
  return i >= 0 && static_cast<size_t>(i) < s.args.size() ? s.args[i] : nullptr;
}

std::optional<std::vector<ir::ExprPtr>> ShapeOperand(const CallSite& s, const Signature& sig) {
  for (std::string_view name : {"shape", "shapes"}) {
    if (auto t = ir::As<ir::MakeTuple>(Operand(s, sig, name))) return t->elements();
  }
  return std::nullopt;
}

// Drops dimension `from_end` (1 = last) to 1; a partial tile's result is
// valid in the other dims where its operand is.
TypePtr Reduced(const ir::ShapedType& t, size_t from_end, std::optional<DataType> dtype) {
  std::vector<ir::ExprPtr> shape = t.shape();
  if (shape.size() >= from_end) shape[shape.size() - from_end] = ir::MakeNode<ir::ConstInt>(1);
  if (t.kind() == ir::NodeKind::kTileType) {
    std::vector<ir::ExprPtr> valid = static_cast<const ir::TileType&>(t).valid_shape();
    if (valid.size() >= from_end) {
      valid[valid.size() - from_end] = ir::MakeNode<ir::ConstInt>(1);
      return ir::MakeNode<ir::TileType>(std::move(shape), dtype.value_or(t.dtype()), std::nullopt,
                                        std::move(valid));
    }
  }
  return Reshaped(t, std::move(shape), dtype.value_or(t.dtype()));
}

// pl.tile.transpose_view: the last two dims swapped (the Mat tile read as
// its transpose, NZ <-> ZN, no copy).
absl::StatusOr<TypePtr> TransposeViewType(const std::string& op, const CallSite& s,
                                          const ir::ShapedType& t) {
  std::vector<ir::ExprPtr> shape = t.shape();
  if (shape.size() < 2) return UserErrorF(s.span, op, " needs a tile of rank >= 2");
  std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
  return Reshaped(t, std::move(shape), t.dtype());
}

// A matmul's batch dims (all but the last two of a), broadcast as NumPy
// does when b has a's rank: a batch of 1 takes b's.
std::vector<ir::ExprPtr> BatchDims(const std::vector<ir::ExprPtr>& a,
                                   const std::vector<ir::ExprPtr>& b) {
  std::vector<ir::ExprPtr> shape(a.begin(), a.end() - 2);
  for (size_t i = 0; i < shape.size() && b.size() == a.size(); ++i) {
    if (ir::GetConstInt(shape[i]) == 1) shape[i] = b[i];
  }
  return shape;
}

// The cube's operand rules (pto-isa docs/isa/TMATMUL.md, A2/A3 and A5 alike):
// the (C, A, B) dtype triples (INT32, INT8, INT8), (FP32, FP16, FP16),
// (FP32, FP32, FP32), (FP32, BF16, BF16); A's k equal to B's; for a tile form
// m, k, n in [1, 4095]. A tensor form's result may be any FIXPIPE conversion
// of C (TSTORE.md: FP32 -> FP32, FP16 or BF16; INT32 -> INT32); a tile form's
// is C. Returns C. The microscaling forms (`_mx`, A5) are not checked here.
absl::StatusOr<DataType> CheckCube(const std::string& op, const CallSite& s, size_t lhs,
                                   const ir::ShapedType& a, const ir::ShapedType& b,
                                   bool a_trans, bool b_trans, std::optional<DataType> out) {
  if (op.find("_mx") != std::string::npos) return out.value_or(DataType::kFP32);
  const DataType da = a.dtype(), db = b.dtype();
  const bool pair_ok = da == db && (da == DataType::kInt8 || da == DataType::kFP16 ||
                                    da == DataType::kBF16 || da == DataType::kFP32);
  if (!pair_ok) {
    return UserErrorF(ArgSpan(s, lhs), op, ": the cube has no (", ir::DataTypeName(da), ", ",
                      ir::DataTypeName(db), ") operand pair; pto-isa TMATMUL takes (INT8, INT8) -> "
                      "INT32, (FP16, FP16), (BF16, BF16) or (FP32, FP32) -> FP32");
  }
  const DataType c = da == DataType::kInt8 ? DataType::kInt32 : DataType::kFP32;
  const bool tile = op.rfind("pl.tile.", 0) == 0;
  if (out && *out != c) {
    const bool fixpipe = c == DataType::kFP32 && (*out == DataType::kFP16 || *out == DataType::kBF16);
    if (tile || !fixpipe) {
      return UserErrorF(s.span, op, ": out_dtype ", ir::DataTypeName(*out), " is not ",
                        tile ? "the accumulator's " : "a FIXPIPE conversion of the accumulator's ",
                        ir::DataTypeName(c), " for ", ir::DataTypeName(da), " operands");
    }
  }
  const auto& sa = a.shape();
  const auto& sb = b.shape();
  std::optional<int64_t> m = ir::GetConstInt(a_trans ? sa.back() : sa[sa.size() - 2]);
  std::optional<int64_t> k = ir::GetConstInt(a_trans ? sa[sa.size() - 2] : sa.back());
  std::optional<int64_t> kb = ir::GetConstInt(b_trans ? sb.back() : sb[sb.size() - 2]);
  std::optional<int64_t> n = ir::GetConstInt(b_trans ? sb[sb.size() - 2] : sb.back());
  if (k && kb && *k != *kb) {
    return UserErrorF(s.span, op, ": lhs has k = ", *k, " but rhs has k = ", *kb);
  }
  if (op.find("gemv") != std::string::npos && m && *m != 1) {
    return UserErrorF(ArgSpan(s, lhs), op, ": the lhs of a gemv is one row, got m = ", *m);
  }
  if (tile) {
    for (auto [name, v] : {std::pair<const char*, std::optional<int64_t>>{"m", m}, {"k", k},
                           {"n", n}}) {
      if (v && (*v < 1 || *v > 4095)) {
        return UserErrorF(s.span, op, ": ", name, " = ", *v,
                          " is outside [1, 4095] (pto-isa TMATMUL); tile the matmul");
      }
    }
  }
  return c;
}

// An operand of a matmul-family call with the accumulator's dtype (acc, bias).
absl::Status CheckAccLike(const std::string& op, const CallSite& s, size_t i, std::string_view what,
                          DataType c) {
  if (i >= s.args.size()) return absl::OkStatus();
  auto t = ir::As<ir::ShapedType>(s.args[i]->type());
  if (t != nullptr && t->dtype() != c) {
    return UserErrorF(ArgSpan(s, i), op, ": the ", what, " must be ", ir::DataTypeName(c),
                      " (the accumulator of these operands), got ", ir::DataTypeName(t->dtype()));
  }
  return absl::OkStatus();
}

// PyPTO's tensor gather without the index form (op/tensor_ops.py gather):
// the mask form keeps 1 of 2 (P0101, P1010) or of 4 (P0001..P1000) columns,
// or all (P1111), in `output_dtype` or the input's; the compare form is the
// pair ([rows, out_cols] INT32 indices, [1, rows] counts in `count_dtype`).
absl::StatusOr<TypePtr> GatherForm(const std::string& op, const CallSite& s,
                                   const ir::ShapedType& in) {
  std::vector<ir::ExprPtr> shape = in.shape();
  if (const ir::AttrValue* mask = ir::FindAttr(s.kwargs, "mask_pattern")) {
    const auto* e = std::get_if<ir::ExprPtr>(mask);
    std::optional<int64_t> code = e != nullptr ? ir::GetConstInt(*e) : std::nullopt;
    if (const auto* i = std::get_if<int64_t>(mask)) code = *i;
    if (!code || *code < 1 || *code > 7) {
      return UserErrorF(s.span, op, " mask_pattern must be a constant in [1, 7] "
                        "(pl.tile.MaskPattern.P0101 .. P1111)");
    }
    const int64_t keep = *code <= 2 ? 2 : *code <= 6 ? 4 : 1;
    std::optional<int64_t> cols = ir::GetConstInt(shape.back());
    if (keep > 1) {
      if (!cols || *cols % keep != 0) {
        return UserErrorF(s.span, op, " mask form: the last dimension must be a constant "
                          "multiple of ", keep);
      }
      shape.back() = ir::MakeNode<ir::ConstInt>(*cols / keep);
    }
    DataType dt = ir::GetAttr<DataType>(s.kwargs, "output_dtype").value_or(in.dtype());
    return Reshaped(in, std::move(shape), dt);
  }
  if (ir::HasAttr(s.kwargs, "kvalue")) {
    const ir::AttrValue* cols = ir::FindAttr(s.kwargs, "out_cols");
    const auto* e = cols != nullptr ? std::get_if<ir::ExprPtr>(cols) : nullptr;
    if (e == nullptr || shape.size() != 2) {
      return UserErrorF(s.span, op, " compare form needs a rank-2 input and out_cols=");
    }
    TypePtr dst = Reshaped(in, {shape[0], *e}, DataType::kInt32);
    DataType count = ir::GetAttr<DataType>(s.kwargs, "count_dtype").value_or(DataType::kInt32);
    TypePtr cdst = Reshaped(in, {ir::MakeNode<ir::ConstInt>(1), shape[0]}, count);
    return TypePtr(ir::MakeNode<ir::TupleType>(std::vector<TypePtr>{dst, cdst}));
  }
  return UserErrorF(s.span, op, " needs the index form (dim=, index=), the mask form "
                    "(mask_pattern=) or the compare form (kvalue=, cmp_mode=, out_cols=)");
}

// tile.cmp / tile.cmps (PyPTO elementwise.cpp, MakePackedPredicateTileType):
// a UINT8 mask of one bit per element, each row ceil(cols / 8) bytes rounded
// up to A2/A3's 32-byte predicate alignment; valid ceil(valid cols / 8).
absl::StatusOr<TypePtr> PackedPredicate(const std::string& op, const CallSite& s,
                                        const ir::ShapedType& in) {
  std::vector<ir::ExprPtr> shape = in.shape();
  auto tile = ir::As<ir::TileType>(s.args[0]->type());
  std::optional<int64_t> cols = shape.empty() ? std::nullopt : ir::GetConstInt(shape.back());
  std::vector<ir::ExprPtr> valid = tile != nullptr ? tile->valid_shape() : shape;
  std::optional<int64_t> vcols = valid.empty() ? cols : ir::GetConstInt(valid.back());
  if (tile == nullptr || !cols || !vcols) {
    return UserErrorF(s.span, op, " needs a tile of a constant column count (its result is a "
                      "packed predicate mask of ceil(cols / 8) bytes a row)");
  }
  auto bytes = [](int64_t n) { return (n + 7) / 8; };
  if (valid.empty()) valid = shape;
  shape.back() = ir::MakeNode<ir::ConstInt>((bytes(*cols) + 31) / 32 * 32);
  valid.back() = ir::MakeNode<ir::ConstInt>(bytes(*vcols));
  bool whole = true;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::optional<int64_t> v = ir::GetConstInt(valid[i]);
    whole = whole && v && v == ir::GetConstInt(shape[i]);
  }
  if (whole) valid.clear();
  return TypePtr(ir::MakeNode<ir::TileType>(std::move(shape), DataType::kUInt8, std::nullopt,
                                            std::move(valid)));
}

absl::StatusOr<TypePtr> Result(const std::string& op, const Signature& sig, const CallSite& s) {
  const std::string& rule = sig.result;
  auto shaped = FirstShaped(s);
  if (rule == "none") return TypePtr(ir::UnknownType::Get());
  if (rule == "ptr") return TypePtr(ir::PtrType::Get());
  if (rule == "scalar_index") return TypePtr(ir::ScalarType::Get(DataType::kIndex));
  if (rule == "scalar") {
    if (shaped) return TypePtr(ir::ScalarType::Get(shaped->dtype()));
    if (!s.args.empty() && ir::Is<ir::ScalarType>(s.args[0]->type())) return s.args[0]->type();
    return TypePtr(ir::ScalarType::Get(DataType::kIndex));
  }
  if (rule == "arg0" || rule == "arg1" || rule == "arg2") {
    size_t i = static_cast<size_t>(rule[3] - '0');
    if (i < s.args.size()) return s.args[i]->type();
  }
  if (rule == "make") {
    std::optional<std::vector<ir::ExprPtr>> shape = ShapeOperand(s, sig);
    std::optional<DataType> dt = DTypeAttr(s, sig, "dtype");
    if (!shape || !dt) {
      return UserErrorF(s.span, op, " needs a shape list and a dtype such as pl.FP32");
    }
    if (op.rfind("pl.tile.", 0) == 0) return TypePtr(ir::MakeNode<ir::TileType>(*shape, *dt));
    return TypePtr(ir::MakeNode<ir::TensorType>(*shape, *dt));
  }
  if (shaped == nullptr) return TypePtr(ir::UnknownType::Get());
  if (rule == "same" || rule == "cast") {
    std::optional<DataType> dt = shaped->dtype();
    if (rule == "cast") dt = DTypeAttr(s, sig, "target_type");
    if (!dt) return UserErrorF(s.span, op, " requires 'target_type' (a dtype such as pl.FP32)");
    // An elementwise result is valid where its operand is (PyPTO's partial
    // tiles: adds of a [1, 264] tile holding 257 elements stores 257).
    // fillpad's result is the whole tile: its padding is filled.
    auto tile = ir::As<ir::TileType>(std::static_pointer_cast<const ir::Type>(shaped));
    if (tile != nullptr && !tile->valid_shape().empty() &&
        op.find(".fillpad") == std::string::npos) {
      return TypePtr(
          ir::MakeNode<ir::TileType>(tile->shape(), *dt, std::nullopt, tile->valid_shape()));
    }
    return Reshaped(*shaped, shaped->shape(), *dt);
  }
  if (rule == "row" || rule == "row_index") {
    return Reduced(*shaped, 1, rule == "row" ? std::nullopt : std::optional(DataType::kInt32));
  }
  if (rule == "col" || rule == "col_index") {
    return Reduced(*shaped, 2, rule == "col" ? std::nullopt : std::optional(DataType::kInt32));
  }
  if (rule == "reshape" || rule == "load") {
    std::optional<std::vector<ir::ExprPtr>> shape = ShapeOperand(s, sig);
    if (!shape) return UserErrorF(s.span, op, " needs a shape list");
    if (rule == "load") return TypePtr(ir::MakeNode<ir::TileType>(*shape, shaped->dtype()));
    return Reshaped(*shaped, *shape, shaped->dtype());
  }
  if (rule == "matmul" || rule == "acc") {
    const size_t lhs = rule == "acc" ? 1 : 0;
    auto lhs_t = s.args.size() > lhs ? ir::As<ir::ShapedType>(s.args[lhs]->type()) : nullptr;
    auto rhs = s.args.size() > lhs + 1 ? ir::As<ir::ShapedType>(s.args[lhs + 1]->type()) : nullptr;
    if (lhs_t == nullptr || rhs == nullptr || lhs_t->shape().size() < 2 ||
        rhs->shape().size() < 2) {
      if (rule == "acc" && !s.args.empty()) return s.args[0]->type();
      return UserErrorF(s.span, op, " operands must be rank >= 2");
    }
    bool a_trans = ir::GetAttr<bool>(s.kwargs, "a_trans").value_or(false);
    bool b_trans = ir::GetAttr<bool>(s.kwargs, "b_trans").value_or(false);
    std::optional<DataType> out = rule == "acc" ? std::nullopt : DTypeAttr(s, sig, "out_dtype");
    ASSIGN_OR_RETURN(DataType c, CheckCube(op, s, lhs, *lhs_t, *rhs, a_trans, b_trans, out));
    if (rule == "acc") {
      if (op.find("_mx") == std::string::npos) {
        RETURN_IF_ERROR(CheckAccLike(op, s, 0, "accumulator", c));
      }
      return s.args[0]->type();
    }
    if (op.find("bias") != std::string::npos && op.find("_mx") == std::string::npos) {
      RETURN_IF_ERROR(CheckAccLike(op, s, 2, "bias", c));
    }
    const auto& a = lhs_t->shape();
    const auto& b = rhs->shape();
    std::vector<ir::ExprPtr> shape = BatchDims(a, b);
    shape.push_back(a_trans ? a[a.size() - 1] : a[a.size() - 2]);
    shape.push_back(b_trans ? b[b.size() - 2] : b[b.size() - 1]);
    return Reshaped(*lhs_t, std::move(shape), out.value_or(c));
  }
  if (rule == "transpose") {
    int64_t rank = static_cast<int64_t>(shaped->shape().size());
    if (s.args.size() < 3) return UserErrorF(s.span, op, " needs two axes");
    std::optional<int64_t> a = ir::GetConstInt(s.args[1]);
    std::optional<int64_t> b = ir::GetConstInt(s.args[2]);
    if (!a || !b || *a < 0 || *b < 0 || *a >= rank || *b >= rank) {
      return UserErrorF(s.span, op, " axes must be constant integers in [0, ", rank, ")");
    }
    std::vector<ir::ExprPtr> shape = shaped->shape();
    std::swap(shape[*a], shape[*b]);
    return Reshaped(*shaped, std::move(shape), shaped->dtype());
  }
  if (rule == "transpose_view") return TransposeViewType(op, s, *shaped);
  if (rule == "gather" && s.args.size() >= 2) {
    // PyPTO's index form gather(input, dim, index): index's shape, input's dtype.
    if (auto index = ir::As<ir::ShapedType>(s.args[1]->type())) {
      return Reshaped(*shaped, index->shape(), shaped->dtype());
    }
  }
  if (rule == "gather") return GatherForm(op, s, *shaped);
  if (rule == "shard" || rule == "unshard") {
    // PyPTO's cross_core.cpp ReshapeSplitAxis: the split attr (the enclosing
    // pl.split_aiv mode, which the parser fills) halves (ceil) or doubles
    // rows (UP_DOWN) or columns (LEFT_RIGHT); mode NONE keeps the shape.
    const int64_t split = ir::GetAttr<int64_t>(s.kwargs, "split").value_or(0);
    if (split == 0) return s.args[0]->type();
    std::vector<ir::ExprPtr> shape = shaped->shape();
    auto tile = ir::As<ir::TileType>(s.args[0]->type());
    const size_t axis = split == 1 ? 0 : 1;
    std::optional<int64_t> d = shape.size() == 2 ? ir::GetConstInt(shape[axis]) : std::nullopt;
    if (split < 0 || split > 2 || !d || (tile != nullptr && !tile->valid_shape().empty())) {
      return UserErrorF(s.span, op, " needs a rank-2 operand of a constant, fully valid split "
                        "axis and split 0-2 (pl.SplitMode)");
    }
    shape[axis] = ir::MakeNode<ir::ConstInt>(rule == "shard" ? (*d + 1) / 2 : *d * 2);
    return Reshaped(*shaped, std::move(shape), shaped->dtype());
  }
  if (rule == "predicate") return PackedPredicate(op, s, *shaped);
  if (rule == "reinterpret") {
    // The same bytes as another dtype: `shape=` if given, else the last
    // dimension scaled by the ratio of the element sizes.
    std::optional<DataType> dt = DTypeAttr(s, sig, "dtype");
    if (!dt) return UserErrorF(s.span, op, " requires a dtype such as pl.INT32");
    const ir::AttrValue* given = ir::FindAttr(s.kwargs, "shape");
    const auto* e = given != nullptr ? std::get_if<ir::ExprPtr>(given) : nullptr;
    if (auto t = e != nullptr ? ir::As<ir::MakeTuple>(*e) : nullptr) {
      return Reshaped(*shaped, t->elements(), *dt);
    }
    std::vector<ir::ExprPtr> shape = shaped->shape();
    const int from = ir::DataTypeBits(shaped->dtype()), to = ir::DataTypeBits(*dt);
    std::optional<int64_t> last = shape.empty() ? std::nullopt : ir::GetConstInt(shape.back());
    if (!last || to <= 0 || (*last * from) % to != 0) {
      return UserErrorF(s.span, op, " cannot view ", ir::DataTypeName(shaped->dtype()), " as ",
                        ir::DataTypeName(*dt), " without shape=: the last dimension must be a "
                        "constant whose bytes divide into the new element size");
    }
    shape.back() = ir::MakeNode<ir::ConstInt>(*last * from / to);
    return Reshaped(*shaped, std::move(shape), *dt);
  }
  if (rule == "pair") {
    TypePtr t = Reshaped(*shaped, shaped->shape(), shaped->dtype());
    return TypePtr(ir::MakeNode<ir::TupleType>(std::vector<TypePtr>{t, t}));
  }
  return TypePtr(ir::UnknownType::Get());
}

}  // namespace

TypeDeducer GenericDeducer(std::string op, std::shared_ptr<const Signature> sig) {
  return [op = std::move(op), sig = std::move(sig)](const CallSite& s) -> absl::StatusOr<TypePtr> {
    std::vector<const Param*> operands = sig->Operands();
    if (s.args.size() > operands.size() && !sig->variadic) {
      return UserErrorF(s.span, op, " takes at most ", operands.size(), " operand",
                        operands.size() == 1 ? "" : "s", ", got ", s.args.size());
    }
    for (size_t i = 0; i < s.args.size() && i < operands.size(); ++i) {
      const Param& p = *operands[i];
      if (!OperandKindAccepts(p.operand_kinds, s.args[i]->type())) {
        return UserErrorF(ArgSpan(s, i), op, " argument '", p.name, "' must be ",
                          OperandKindText(p.operand_kinds), ", got ",
                          TypeText(s.args[i]->type()));
      }
    }
    return Result(op, *sig, s);
  };
}

}  // namespace pto::ops
