// Expressions: names, attributes, subscripts, scalar arithmetic, and the
// pl.MemRef / pld.WindowBuffer references of types.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "compiler/ir/arena.h"
#include "compiler/ir/mutator.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

// ===========================================================================
// Expressions.

absl::StatusOr<ExprPtr> Parser::LowerExpr(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
      if (!a->negative && a->int_value <= static_cast<uint64_t>(INT64_MAX)) {
        return ExprPtr(ir::MakeNode<ir::ConstInt>(static_cast<int64_t>(a->int_value),
                                                      DataType::kIndex, SpanOf(a)));
      }
      [[fallthrough]];
    case AstKind::kString: {
      ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
      return ConstToExpr(v, SpanOf(a));
    }
    case AstKind::kFloat:
      return ExprPtr(ir::MakeNode<ir::ConstFloat>(a->float_value, DataType::kFP32, SpanOf(a)));
    case AstKind::kTrue:
    case AstKind::kFalse:
      return ExprPtr(ir::MakeNode<ir::ConstBool>(a->kind == AstKind::kTrue, SpanOf(a)));
    case AstKind::kNone:
      // PyPTO's "no producer yet" task id (a dependency carry seeded with
      // `prev_tid = None`): an invalid TASK_ID, which a dependency skips.
      return MakeOpCall("pl.system.task_invalid", {}, {}, {}, SpanOf(a));
    case AstKind::kEllipsis:
      return ErrorAt(a, "'...' is not a value here");
    case AstKind::kName:
      return LowerName(a);
    case AstKind::kAttribute:
      return LowerAttribute(a);
    case AstKind::kCall:
      return LowerCall(a);
    case AstKind::kSubscript:
      return LowerSubscript(a);
    case AstKind::kBinary:
      return LowerBinary(a);
    case AstKind::kUnary:
      return LowerUnary(a);
    case AstKind::kTuple:
    case AstKind::kList: {
      std::vector<ExprPtr> elems;
      elems.reserve(a->num_kids);
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
        elems.push_back(std::move(e));
      }
      return ExprPtr(ir::MakeNode<ir::MakeTuple>(std::move(elems), SpanOf(a)));
    }
    case AstKind::kDict:
      return ErrorAt(a, "a dict is only allowed as the value of attrs=...");
    case AstKind::kSlice:
      return ErrorAt(a, "a slice a:b is only allowed as a tensor subscript (x[a:b])");
    default:  // statements are never expressions
      break;
  }
  return ErrorAt(a, "unsupported expression");
}

absl::StatusOr<ExprPtr> Parser::LowerName(const Ast* a) {
  if (const VarPtr* v = LookupLocal(a->text)) {
    if (!stale_.empty() && stale_.contains(a->text)) return StaleName(a->text, SpanOf(a));
    return ExprPtr(*v);
  }
  if (const ConstVal* c = LookupConst(a->text)) return ConstToExpr(*c, SpanOf(a));
  std::string_view n = a->text;
  if (n == "pl" || n == "pld" || n == "builtin") {
    return ErrorAt(a, pto::StrCat("'", n, "' is a module, not a value"));
  }
  if (n == "self") return ErrorAt(a, "'self' is not a value (call functions as self.f(...))");
  if (n == "tuple" || n == "Tuple") {
    return ErrorAt(a, pto::StrCat("'", n, "' is only allowed in type annotations"));
  }
  return UnknownName(n, SpanOf(a));
}

absl::StatusOr<ExprPtr> Parser::LowerAttribute(const Ast* a) {
  if (std::optional<DataType> dt = ResolveDType(a)) {
    return ErrorAt(a, pto::StrCat("data type pl.", ir::DataTypeName(*dt),
                                  " is not a value here (use pl.const(v, pl.",
                                  ir::DataTypeName(*dt), ") for a typed constant)"));
  }
  const Ast* root = a;
  while (root->kind == AstKind::kAttribute) root = Kid(root, 0);
  if (a->text == "shape" && Kid(a, 0)->kind == AstKind::kName && LookupLocal(Kid(a, 0)->text)) {
    // `t.shape` of a tensor or tile (PyPTO's Tensor.shape / Tile.shape): the
    // tuple of its dimensions, so `M, N = a.shape` binds them.
    const VarPtr& v = *LookupLocal(Kid(a, 0)->text);
    std::vector<ExprPtr> dims;
    if (auto tt = ir::AsTensorTypeLike(v->type())) {
      dims = tt->shape();
    } else if (auto tl = ir::As<ir::TileType>(v->type())) {
      dims = tl->shape();
    } else {
      return ErrorAt(a, pto::StrCat("'.shape' needs a tensor or a tile; '", Kid(a, 0)->text,
                                    "' is ", TypeText(v->type())));
    }
    return ExprPtr(ir::MakeNode<ir::MakeTuple>(std::move(dims), SpanOf(a)));
  }
  if (!DottedPath(a)) {
    if (root->kind == AstKind::kName && LookupLocal(root->text) == nullptr &&
        LookupConst(root->text) == nullptr) {
      return UnknownName(root->text, SpanOf(root));
    }
    return ErrorAt(a, pto::StrCat("unsupported attribute access '.", a->text,
                                  "' (values have no attributes here)"));
  }
  std::string path = path_;
  if (StartsWith(path, "self.")) {
    std::string_view fname = std::string_view(path).substr(5);
    auto it = funcs_by_name_.find(fname);
    if (fname.find('.') == std::string_view::npos && it != funcs_by_name_.end()) {
      return ExprPtr(it->second->gv);
    }
    return ErrorAt(a, pto::StrCat("unknown function '", path, "'"));
  }
  if (std::optional<int64_t> code = ops::IntEnumConstant(path)) {
    return ExprPtr(ir::MakeNode<ir::ConstInt>(*code, DataType::kIndex, SpanOf(a)));
  }
  if (const ops::OpDef* def = registry_.Find(path)) return ExprPtr(def->op);
  if (root->text != "pl" && root->text != "pld" && root->text != "builtin") {
    return UnknownName(root->text, SpanOf(root));
  }
  return ErrorAt(a, pto::StrCat("'", path, "' is not a value here"));
}

absl::StatusOr<ExprPtr> Parser::LowerScalarOperand(const Ast* a, std::string_view op) {
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  if (!ir::Is<ir::ScalarType>(e->type())) {
    return ErrorAt(a, pto::StrCat(op, " needs scalar operands, got ", TypeText(e->type()),
                                  " (use tensor operators such as pl.tensor.add for tensors)"));
  }
  return e;
}

// The dtype of a scalar operation: a literal operand takes the other side's
// dtype; otherwise floats win over integers and wider over narrower.
DataType PromoteDType(DataType l, DataType r, bool l_lit, bool r_lit) {
  if (l == r) return l;
  if (l_lit != r_lit) {
    DataType lit = l_lit ? l : r;
    DataType other = l_lit ? r : l;
    if (ir::IsFloat(lit) && !ir::IsFloat(other)) return lit;
    return other;
  }
  bool lf = ir::IsFloat(l), rf = ir::IsFloat(r);
  if (lf != rf) return lf ? l : r;
  int lb = ir::DataTypeBits(l), rb = ir::DataTypeBits(r);
  if (lb != rb) return lb > rb ? l : r;
  if (l == DataType::kIndex || r == DataType::kIndex) return DataType::kIndex;
  return l;
}

namespace {

ir::BinaryOp ToBinaryOp(AstOp op) {
  switch (op) {
    case AstOp::kAdd: return ir::BinaryOp::kAdd;
    case AstOp::kSub: return ir::BinaryOp::kSub;
    case AstOp::kMul: return ir::BinaryOp::kMul;
    case AstOp::kDiv: return ir::BinaryOp::kDiv;
    case AstOp::kFloorDiv: return ir::BinaryOp::kFloorDiv;
    case AstOp::kMod: return ir::BinaryOp::kFloorMod;
    case AstOp::kPow: return ir::BinaryOp::kPow;
    case AstOp::kShl: return ir::BinaryOp::kShl;
    case AstOp::kShr: return ir::BinaryOp::kShr;
    case AstOp::kBitAnd: return ir::BinaryOp::kBitAnd;
    case AstOp::kBitOr: return ir::BinaryOp::kBitOr;
    case AstOp::kBitXor: return ir::BinaryOp::kBitXor;
    case AstOp::kEq: return ir::BinaryOp::kEq;
    case AstOp::kNe: return ir::BinaryOp::kNe;
    case AstOp::kLt: return ir::BinaryOp::kLt;
    case AstOp::kLe: return ir::BinaryOp::kLe;
    case AstOp::kGt: return ir::BinaryOp::kGt;
    case AstOp::kGe: return ir::BinaryOp::kGe;
    case AstOp::kAnd: return ir::BinaryOp::kAnd;
    default: return ir::BinaryOp::kOr;
  }
}

}  // namespace

absl::StatusOr<ExprPtr> Parser::LowerBinary(const Ast* a) {
  return LowerBinaryOp(a->op, Kid(a, 0), Kid(a, 1), SpanOf(a));
}

// `op` is an AstOp, or kNone with pl.min/pl.max encoded by the caller below.
absl::StatusOr<ExprPtr> Parser::LowerBinaryOp(AstOp op, const Ast* lhs_ast, const Ast* rhs_ast,
                                              const Span& span) {
  std::string op_name = pto::StrCat("operator '", AstOpText(op), "'");
  ASSIGN_OR_RETURN(ExprPtr l, LowerScalarOperand(lhs_ast, op_name));
  ASSIGN_OR_RETURN(ExprPtr r, LowerScalarOperand(rhs_ast, op_name));
  DataType dt;
  if (IsCompareOp(op) || op == AstOp::kAnd || op == AstOp::kOr) {
    dt = DataType::kBool;
  } else {
    dt = PromoteDType(static_cast<const ir::ScalarType&>(*l->type()).dtype(),
                      static_cast<const ir::ScalarType&>(*r->type()).dtype(), IsLiteral(lhs_ast),
                      IsLiteral(rhs_ast));
  }
  return ExprPtr(ir::MakeNode<ir::BinaryExpr>(ToBinaryOp(op), std::move(l), std::move(r),
                                                  ir::ScalarType::Get(dt), span));
}

absl::StatusOr<ExprPtr> Parser::LowerUnary(const Ast* a) {
  ASSIGN_OR_RETURN(ExprPtr e,
                   LowerScalarOperand(Kid(a, 0), pto::StrCat("unary '", AstOpText(a->op), "'")));
  switch (a->op) {
    case AstOp::kPos:
      return e;
    case AstOp::kNot:
      return ExprPtr(ir::MakeNode<ir::UnaryExpr>(ir::UnaryOp::kNot, std::move(e),
                                                     ir::ScalarType::Get(DataType::kBool),
                                                     SpanOf(a)));
    case AstOp::kInvert: {
      TypePtr t = e->type();
      return ExprPtr(
          ir::MakeNode<ir::UnaryExpr>(ir::UnaryOp::kBitNot, std::move(e), t, SpanOf(a)));
    }
    default: {
      // `-(4)` and `-SIZE` are the literal -4 / -64: the printer writes a negated
      // literal of the default dtype exactly as it writes a negative literal.
      if (auto c = ir::As<ir::ConstInt>(e);
          c != nullptr && c->dtype() == DataType::kIndex && c->value() >= 0) {
        return ExprPtr(ir::MakeNode<ir::ConstInt>(-c->value(), DataType::kIndex, SpanOf(a)));
      }
      if (auto c = ir::As<ir::ConstFloat>(e);
          c != nullptr && c->dtype() == DataType::kFP32 && !std::signbit(c->value())) {
        return ExprPtr(ir::MakeNode<ir::ConstFloat>(-c->value(), DataType::kFP32, SpanOf(a)));
      }
      TypePtr t = e->type();
      return ExprPtr(
          ir::MakeNode<ir::UnaryExpr>(ir::UnaryOp::kNeg, std::move(e), t, SpanOf(a)));
    }
  }
}


absl::StatusOr<ExprPtr> Parser::LowerSubscript(const Ast* a) {
  const Ast* base = Kid(a, 0);
  const Ast* idx = Kid(a, 1);
  if ((base->kind == AstKind::kName && (base->text == "tuple" || base->text == "Tuple") &&
       LookupLocal(base->text) == nullptr) ||
      (base->kind == AstKind::kAttribute && DottedPath(base) &&
       (StartsWith(path_, "pl.") || StartsWith(path_, "pld.")) && registry_.Find(path_) == nullptr)) {
    return ErrorAt(a, "a type is not a value; type expressions are only allowed in annotations");
  }
  ASSIGN_OR_RETURN(ExprPtr b, LowerExpr(base));
  if (auto tt = ir::As<ir::TupleType>(b->type())) {
    ASSIGN_OR_RETURN(int64_t k, ConstInt(idx, "a tuple index"));
    int64_t n = static_cast<int64_t>(tt->types().size());
    if (k < 0) k += n;
    if (k < 0 || k >= n) {
      return ErrorAt(idx, pto::StrCat("tuple index out of range: the tuple has ", n, " element",
                                      n == 1 ? "" : "s"));
    }
    // An element of a tuple built here (`a.shape[1]`) is that element.
    if (auto made = ir::As<ir::MakeTuple>(b)) return made->elements()[static_cast<size_t>(k)];
    TypePtr et = tt->types()[static_cast<size_t>(k)];
    return ExprPtr(ir::MakeNode<ir::TupleGetItem>(std::move(b), static_cast<int>(k),
                                                      std::move(et), SpanOf(a)));
  }
  if (ir::Is<ir::ShapedType>(b->type())) return LowerTensorSubscript(a, std::move(b), idx);
  if (ir::Is<ir::ArrayType>(b->type())) {  // arr[i] is pl.array.get_element(arr, i)
    ASSIGN_OR_RETURN(ExprPtr i, LowerScalarOperand(idx, "an array index"));
    return MakeOpCall("pl.array.get_element", {std::move(b), std::move(i)}, {}, {}, SpanOf(a));
  }
  return ErrorAt(base, pto::StrCat("cannot subscript a value of type ", TypeText(b->type())));
}


absl::Status Parser::BindFourFields(const Ast* call, const std::string_view (&names)[4],
                                    uint32_t min_pos, std::string_view what,
                                    const Ast* (&field)[4]) {
  if (NumPos(call) > 4) RETURN_IF_ERROR(CheckPosCount(call, min_pos, 4, what));
  for (uint32_t i = 0; i < NumPos(call); ++i) field[i] = PosArg(call, i);
  for (uint32_t i = 0; i < call->num_kws; ++i) {
    const KwName& k = KwAt(call, i);
    int j = 0;
    while (j < 4 && names[j] != k.name) ++j;
    if (j == 4 || field[j] != nullptr) {
      return UserError(KwSpan(k), pto::StrCat("unexpected keyword argument '", k.name,
                                              "' for ", what));
    }
    field[j] = KwValue(call, i);
  }
  return absl::OkStatus();
}

absl::StatusOr<ExprPtr> Parser::LowerMemRef(const Ast* call) {
  static constexpr std::string_view kFields[] = {"memory_space", "addr", "size", "id"};
  const Ast* field[4] = {nullptr, nullptr, nullptr, nullptr};
  RETURN_IF_ERROR(BindFourFields(call, kFields, 4, "pl.MemRef", field));
  for (int j = 0; j < 4; ++j) {
    if (field[j] == nullptr) {
      return ErrorAt(call, "pl.MemRef(memory_space, addr, size, id) needs all four fields");
    }
  }
  if (!DottedPath(field[0]) || !StartsWith(path_, "pl.MemorySpace.")) {
    return ErrorAt(field[0], "expected a memory space such as pl.MemorySpace.DDR");
  }
  std::optional<ir::MemorySpace> space =
      ir::MemorySpaceFromName(std::string_view(path_).substr(15));
  if (!space) return ErrorAt(field[0], pto::StrCat("unknown memory space '", path_, "'"));
  ASSIGN_OR_RETURN(ExprPtr addr, LowerExpr(field[1]));
  ASSIGN_OR_RETURN(int64_t size, ConstInt(field[2], "the MemRef size"));
  ASSIGN_OR_RETURN(int64_t id, ConstInt(field[3], "the MemRef id"));
  // One object per distinct buffer in a function: MemRef identity matters.
  std::optional<int64_t> addr_const = ir::GetConstInt(addr);
  MemRefKey key{static_cast<int>(*space), id, size,
                addr_const.value_or(std::numeric_limits<int64_t>::min()),
                addr_const ? nullptr : addr.get()};
  if (cur_func_ != nullptr) {
    auto it = cur_func_->memrefs.find(key);
    if (it != cur_func_->memrefs.end()) return ExprPtr(it->second);
  }
  auto m = ir::MakeNode<const ir::MemRef>("memref", *space, std::move(addr), size, id,
                                              SpanOf(call));
  if (cur_func_ != nullptr) cur_func_->memrefs.emplace(key, m);
  return ExprPtr(std::move(m));
}

absl::StatusOr<ir::WindowBufferPtr> Parser::LowerWindowBufferRef(const Ast* call) {
  RETURN_IF_ERROR(CheckPosCount(call, 1, 1, "pld.WindowBuffer"));
  RETURN_IF_ERROR(CheckNoKeywords(call, "pld.WindowBuffer"));
  const Ast* arg = PosArg(call, 0);
  if (!IsConstAst(arg)) return ErrorAt(arg, "pld.WindowBuffer(...) needs a buffer name string");
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(arg));
  if (v.kind != ConstVal::kStr) {
    return ErrorAt(arg, "pld.WindowBuffer(...) needs a buffer name string");
  }
  WinAlloc* w = nullptr;
  if (cur_func_ != nullptr) {
    auto it = cur_func_->windows.find(v.s);
    if (it != cur_func_->windows.end()) w = &it->second;
  }
  if (w == nullptr) {
    return ErrorAt(call, pto::StrCat("pld.WindowBuffer(\"", v.s,
                                     "\") does not name a window allocation made earlier in "
                                     "this function (expected `",
                                     v.s, " = pld.tensor.alloc_window_buffer(size)` before it)"));
  }
  if (w->wb == nullptr) {
    w->wb = ir::MakeNode<const ir::WindowBuffer>(w->base, w->size, false, false, w->span);
  }
  return w->wb;
}


}  // namespace pto::parser::internal
