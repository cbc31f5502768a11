// Name resolution (local scopes, dotted module paths, data types) and
// compile-time constants: module and class constants, attribute values and
// the literals that annotations give a dtype.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "common/floor_div.h"
#include "compiler/ir/arena.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

std::string_view ConstKindName(const ConstVal& v) {
  switch (v.kind) {
    case ConstVal::kInt: return "int";
    case ConstVal::kFloat: return "float";
    case ConstVal::kBool: return "bool";
    case ConstVal::kStr: return "str";
    case ConstVal::kDType: return "data type";
    case ConstVal::kList: return v.is_tuple ? "tuple" : "list";
    case ConstVal::kDynDim: return "dynamic dimension";
  }
  return "value";
}

// ===========================================================================
// Names.

void Parser::PopScope(std::vector<Escaped>* escaped) {
  Frame f = frames_.back();
  frames_.pop_back();
  // The names first bound in this block whose last binding is an assignment's
  // target: Python keeps them after the block.
  absl::flat_hash_set<std::string_view> escaping;
  if (escaped != nullptr) {
    for (size_t k = f.undo_mark; k < undo_.size(); ++k) {
      const Undo& u = undo_[k];
      if (u.prev.var != nullptr) continue;  // bound before the block, or again in it
      auto it = names_.find(u.name);
      if (it == names_.end() || !it->second.assigned || it->second.var == nullptr ||
          it->second.var->kind() != ir::NodeKind::kVar) {
        continue;
      }
      escaping.insert(u.name);
      escaped->push_back({u.name, it->second.var});
    }
  }
  while (undo_.size() > f.undo_mark) {
    Undo u = std::move(undo_.back());
    undo_.pop_back();
    auto it = names_.find(u.name);
    if (it == names_.end()) continue;  // cannot happen: Define inserted it
    if (u.prev.var == nullptr) {
      if (escaping.contains(u.name)) {
        names_.erase(it);
        continue;
      }
      // Remember where the name lived so a later use can suggest pl.yield_.
      int line = it->second.var != nullptr ? it->second.var->span().line : 0;
      dead_[u.name] = DeadName{f.kind, line};
      names_.erase(it);
    } else {
      // A reassignment of an outer value targets the outer Var itself
      // (AssignTarget) and leaves no undo entry. This name got a new Var in
      // the block, which Python would keep after it: a later use is an error
      // rather than a silent read of the value from before the block.
      if (!escaping.contains(u.name)) {
        int line = it->second.var != nullptr ? it->second.var->span().line : 0;
        stale_[u.name] = DeadName{f.kind, line};
      }
      it->second = std::move(u.prev);
    }
  }
}

VarPtr Parser::AssignTarget(std::string_view name, const TypePtr& type, const Span& span,
                            bool* reassigned) {
  auto it = names_.find(name);
  *reassigned = false;
  if (it != names_.end() && it->second.frame < frames_.size() && it->second.var != nullptr &&
      it->second.var->kind() == ir::NodeKind::kVar && ir::TypesAgree(it->second.var->type(), type)) {
    *reassigned = true;
    return it->second.var;
  }
  if (it == names_.end()) {
    // An else branch assigning a name its then branch assigned: the same Var.
    for (auto p = pending_.rbegin(); p != pending_.rend(); ++p) {
      for (const Escaped& e : *p) {
        if (e.name == name) {
          if (ir::TypesAgree(e.var->type(), type)) return e.var;
          return ir::MakeNode<const ir::Var>(std::string(name), type, span);
        }
      }
    }
  }
  return ir::MakeNode<const ir::Var>(std::string(name), type, span);
}

absl::Status Parser::StaleName(std::string_view name, const Span& span) const {
  const DeadName& d = stale_.find(name)->second;
  return UserError(span, pto::StrCat("'", name, "' is rebound inside the ", d.kind, " at line ",
                                     d.line, " to a new value that is not visible after it (a "
                                     "loop-carried iter arg, or a value of another type, is "
                                     "not reassigned in place); carry it out of the block with "
                                     "pl.yield_ (e.g. `", name, " = pl.yield_(...)`), or give "
                                     "the new value another name"));
}

absl::Status Parser::UnknownName(std::string_view name, const Span& span) const {
  auto it = dead_.find(name);
  if (it != dead_.end()) {
    return UserError(span, pto::StrCat("unknown name '", name, "': it is defined inside the ",
                                       it->second.kind, " at line ", it->second.line,
                                       " and is not visible after it; pass the value out with "
                                       "pl.yield_ (e.g. `", name, " = pl.yield_(...)`)"));
  }
  return UserError(span, pto::StrCat("unknown name '", name, "'"));
}

bool Parser::DottedPath(const Ast* a) {
  // Walk to the root, then build "root.a.b" front to back.
  const Ast* parts[64];
  int n = 0;
  while (a->kind == AstKind::kAttribute) {
    if (n == 64) return false;
    parts[n++] = a;
    a = Kid(a, 0);
  }
  if (a->kind != AstKind::kName) return false;
  // The module names always mean the modules (docs/language.md), even where a
  // value of that name exists; other roots must not name a value.
  if (!IsModuleRoot(a->text) && !IsFreeName(a->text)) return false;
  path_.assign(a->text.data(), a->text.size());
  for (int i = n - 1; i >= 0; --i) {
    path_ += '.';
    path_.append(parts[i]->text.data(), parts[i]->text.size());
  }
  return true;
}

std::optional<DataType> Parser::ResolveDType(const Ast* a) {
  if (a->kind == AstKind::kName) {
    const ConstVal* c = LookupConst(a->text);
    if (c != nullptr && c->kind == ConstVal::kDType) return c->dtype;
    return std::nullopt;
  }
  if (a->kind == AstKind::kAttribute && Kid(a, 0)->kind == AstKind::kName &&
      Kid(a, 0)->text == "pl") {
    return ir::DataTypeFromName(a->text);
  }
  return std::nullopt;
}


// ===========================================================================
// Compile-time constants.

// Cached per node: a statement's name bindings do not change while it is
// lowered, and operator chains would otherwise be rescanned at every level.
bool Parser::IsConstAst(const Ast* a) {
  if (a->const_cache >= 0) return a->const_cache != 0;
  bool result = IsConstAstUncached(a);
  const_cast<Ast*>(a)->const_cache = result ? 1 : 0;
  return result;
}

bool Parser::IsConstAstUncached(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
    case AstKind::kFloat:
    case AstKind::kString:
    case AstKind::kTrue:
    case AstKind::kFalse:
      return true;
    case AstKind::kName: {
      // A dynamic dimension is a value (an ir::DynDim), not a folded constant.
      const ConstVal* c = LookupConst(a->text);
      return c != nullptr && c->kind != ConstVal::kDynDim;
    }
    case AstKind::kAttribute: {
      if (ResolveDType(a)) return true;
      if (!DottedPath(a)) return false;
      return ops::IntEnumConstant(path_).has_value();
    }
    case AstKind::kCall: {
      const Ast* f = Kid(a, 0);
      if (f->kind == AstKind::kAttribute && f->text == "get_byte" && a->num_kids == 1) {
        return ResolveDType(Kid(f, 0)).has_value();
      }
      return f->kind == AstKind::kName && f->text == "float" &&
             a->num_kids == 2 && a->num_kws == 0 && Kid(a, 1)->kind == AstKind::kString;
    }
    case AstKind::kUnary:
    case AstKind::kBinary:
    case AstKind::kTuple:
    case AstKind::kList:
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        if (!IsConstAst(Kid(a, i))) return false;
      }
      return true;
    default:
      return false;
  }
}

absl::StatusOr<ConstVal> Parser::ConstEval(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt: {
      uint64_t m = a->int_value;
      if (a->negative) {
        if (m > (uint64_t{1} << 63)) {
          return ErrorAt(a, "integer literal does not fit in 64 bits");
        }
        return ConstVal::Int(m == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                                       : -static_cast<int64_t>(m));
      }
      if (m > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return ErrorAt(a, "integer literal does not fit in 64 bits");
      }
      return ConstVal::Int(static_cast<int64_t>(m));
    }
    case AstKind::kFloat:
      return ConstVal::Float(a->float_value);
    case AstKind::kString: {
      ConstVal v;
      v.kind = ConstVal::kStr;
      v.s = std::string(a->text);
      return v;
    }
    case AstKind::kTrue:
      return ConstVal::Bool(true);
    case AstKind::kFalse:
      return ConstVal::Bool(false);
    case AstKind::kName: {
      if (const ConstVal* c = LookupConst(a->text)) {
        if (c->kind == ConstVal::kDynDim) {
          return ErrorAt(a, pto::StrCat("'", a->text, "' is a dynamic dimension (pl.dynamic), known "
                                        "only at run time; it can be a shape dimension but not "
                                        "part of a compile-time constant"));
        }
        return *c;
      }
      if (LookupLocal(a->text) != nullptr) {
        return ErrorAt(a, pto::StrCat("'", a->text, "' is not a compile-time constant"));
      }
      return UnknownName(a->text, SpanOf(a));
    }
    case AstKind::kAttribute: {
      if (std::optional<DataType> dt = ResolveDType(a)) {
        ConstVal v;
        v.kind = ConstVal::kDType;
        v.dtype = *dt;
        return v;
      }
      if (DottedPath(a)) {
        if (std::optional<int64_t> code = ops::IntEnumConstant(path_)) return ConstVal::Int(*code);
        return ErrorAt(a, pto::StrCat("'", path_, "' is not a compile-time constant"));
      }
      return ErrorAt(a, "unsupported attribute access in a constant expression");
    }
    case AstKind::kCall: {
      const Ast* f = Kid(a, 0);
      if (f->kind == AstKind::kAttribute && f->text == "get_byte") {
        std::optional<DataType> dt = ResolveDType(Kid(f, 0));
        if (dt && a->num_kids == 1) return ConstVal::Int(ir::DataTypeBytes(*dt));
        if (dt) return ErrorAt(a, "get_byte() takes no arguments");
      }
      if (f->kind == AstKind::kName && f->text == "float" &&
          a->num_kids == 2 && a->num_kws == 0 && Kid(a, 1)->kind == AstKind::kString) {
        std::string s(Kid(a, 1)->text);
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        double inf = std::numeric_limits<double>::infinity();
        if (s == "nan" || s == "+nan") return ConstVal::Float(std::nan(""));
        if (s == "-nan") return ConstVal::Float(-std::nan(""));
        if (s == "inf" || s == "+inf" || s == "infinity" || s == "+infinity") {
          return ConstVal::Float(inf);
        }
        if (s == "-inf" || s == "-infinity") return ConstVal::Float(-inf);
        return ErrorAt(a, "float(...) accepts only \"nan\", \"inf\" and \"-inf\"");
      }
      return ErrorAt(a, "this call is not a compile-time constant");
    }
    case AstKind::kUnary: {
      ASSIGN_OR_RETURN(ConstVal v, ConstEval(Kid(a, 0)));
      if (a->op == AstOp::kNot) return ConstVal::Bool(!v.Truthy());
      if (!v.IsNumber()) {
        return ErrorAt(a, pto::StrCat("bad operand type for unary ", AstOpText(a->op), ": '",
                                      ConstKindName(v), "'"));
      }
      switch (a->op) {
        case AstOp::kPos:
          return v.kind == ConstVal::kBool ? ConstVal::Int(v.i) : v;
        case AstOp::kNeg:
          if (v.kind == ConstVal::kFloat) return ConstVal::Float(-v.f);
          if (v.i == std::numeric_limits<int64_t>::min()) {
            return ErrorAt(a, "integer overflow in constant expression");
          }
          return ConstVal::Int(-v.i);
        case AstOp::kInvert:
          if (v.kind == ConstVal::kFloat) {
            return ErrorAt(a, "bad operand type for unary ~: 'float'");
          }
          return ConstVal::Int(~v.i);
        default:
          break;
      }
      return ErrorAt(a, "unsupported operator in constant expression");
    }
    case AstKind::kBinary: {
      ASSIGN_OR_RETURN(ConstVal l, ConstEval(Kid(a, 0)));
      if (a->op == AstOp::kAnd) {
        if (!l.Truthy()) return l;
        return ConstEval(Kid(a, 1));
      }
      if (a->op == AstOp::kOr) {
        if (l.Truthy()) return l;
        return ConstEval(Kid(a, 1));
      }
      ASSIGN_OR_RETURN(ConstVal r, ConstEval(Kid(a, 1)));
      return ConstBinary(a, l, r);
    }
    case AstKind::kTuple:
    case AstKind::kList: {
      ConstVal v;
      v.kind = ConstVal::kList;
      v.is_tuple = a->kind == AstKind::kTuple;
      v.list.reserve(a->num_kids);
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ConstVal e, ConstEval(Kid(a, i)));
        v.list.push_back(std::move(e));
      }
      return v;
    }
    default:
      return ErrorAt(a, "not a compile-time constant expression");
  }
}

namespace {

using ::pto::FloorDiv;
using ::pto::FloorMod;

}  // namespace

// Python semantics for int/float/bool/str operands.
absl::StatusOr<ConstVal> Parser::ConstBinary(const Ast* a, const ConstVal& l, const ConstVal& r) {
  AstOp op = a->op;
  auto type_error = [&]() {
    return ErrorAt(a, pto::StrCat("unsupported operand types for ", AstOpText(op), ": '",
                                  ConstKindName(l), "' and '", ConstKindName(r), "'"));
  };
  auto overflow = [&]() { return ErrorAt(a, "integer overflow in constant expression"); };
  if (IsCompareOp(op)) {
    int cmp = 0;
    if (l.IsNumber() && r.IsNumber()) {
      if (l.kind != ConstVal::kFloat && r.kind != ConstVal::kFloat) {
        cmp = l.i < r.i ? -1 : l.i > r.i ? 1 : 0;
      } else {
        double x = l.AsDouble(), y = r.AsDouble();
        if (std::isnan(x) || std::isnan(y)) return ConstVal::Bool(op == AstOp::kNe);
        cmp = x < y ? -1 : x > y ? 1 : 0;
      }
    } else if (l.kind == ConstVal::kStr && r.kind == ConstVal::kStr) {
      cmp = l.s < r.s ? -1 : l.s > r.s ? 1 : 0;
    } else if (l.kind == ConstVal::kDType && r.kind == ConstVal::kDType &&
               (op == AstOp::kEq || op == AstOp::kNe)) {
      cmp = l.dtype == r.dtype ? 0 : 1;
    } else {
      return type_error();
    }
    switch (op) {
      case AstOp::kEq: return ConstVal::Bool(cmp == 0);
      case AstOp::kNe: return ConstVal::Bool(cmp != 0);
      case AstOp::kLt: return ConstVal::Bool(cmp < 0);
      case AstOp::kLe: return ConstVal::Bool(cmp <= 0);
      case AstOp::kGt: return ConstVal::Bool(cmp > 0);
      default: return ConstVal::Bool(cmp >= 0);
    }
  }
  if (l.kind == ConstVal::kStr && r.kind == ConstVal::kStr && op == AstOp::kAdd) {
    // Repeated doubling (S2 = S1 + S1, ...) must not exhaust memory.
    if (l.s.size() + r.s.size() > (1u << 20)) {
      return ErrorAt(a, "string constant is too long (more than 1 MiB)");
    }
    ConstVal v;
    v.kind = ConstVal::kStr;
    v.s = l.s + r.s;
    return v;
  }
  if (!l.IsNumber() || !r.IsNumber()) return type_error();
  bool ints = l.kind != ConstVal::kFloat && r.kind != ConstVal::kFloat;
  if (ints) {
    int64_t x = l.i, y = r.i, z = 0;
    switch (op) {
      case AstOp::kAdd:
        if (__builtin_add_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kSub:
        if (__builtin_sub_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kMul:
        if (__builtin_mul_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kFloorDiv:
      case AstOp::kMod:
        if (y == 0) return ErrorAt(a, "division by zero in constant expression");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) {
          if (op == AstOp::kMod) return ConstVal::Int(0);
          return overflow();
        }
        return ConstVal::Int(op == AstOp::kFloorDiv ? FloorDiv(x, y) : FloorMod(x, y));
      case AstOp::kDiv:
        if (y == 0) return ErrorAt(a, "division by zero in constant expression");
        return ConstVal::Float(static_cast<double>(x) / static_cast<double>(y));
      case AstOp::kPow: {
        if (y < 0) return ConstVal::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
        int64_t result = 1, base = x;
        uint64_t e = static_cast<uint64_t>(y);
        while (e > 0) {
          if (e & 1) {
            if (__builtin_mul_overflow(result, base, &result)) return overflow();
          }
          e >>= 1;
          if (e > 0 && __builtin_mul_overflow(base, base, &base)) return overflow();
        }
        return ConstVal::Int(result);
      }
      case AstOp::kShl:
      case AstOp::kShr:
        if (y < 0) return ErrorAt(a, "negative shift count in constant expression");
        if (op == AstOp::kShr) return ConstVal::Int(y >= 64 ? (x < 0 ? -1 : 0) : (x >> y));
        if (x == 0) return ConstVal::Int(0);
        if (y >= 63 || (x > 0 ? x > (std::numeric_limits<int64_t>::max() >> y)
                              : x < (std::numeric_limits<int64_t>::min() >> y))) {
          return overflow();
        }
        return ConstVal::Int(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
      case AstOp::kBitAnd:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x & y);
        return ConstVal::Int(x & y);
      case AstOp::kBitOr:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x | y);
        return ConstVal::Int(x | y);
      case AstOp::kBitXor:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x ^ y);
        return ConstVal::Int(x ^ y);
      default:
        return type_error();
    }
  }
  double x = l.AsDouble(), y = r.AsDouble();
  switch (op) {
    case AstOp::kAdd: return ConstVal::Float(x + y);
    case AstOp::kSub: return ConstVal::Float(x - y);
    case AstOp::kMul: return ConstVal::Float(x * y);
    case AstOp::kDiv:
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      return ConstVal::Float(x / y);
    case AstOp::kFloorDiv:
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      return ConstVal::Float(std::floor(x / y));
    case AstOp::kMod: {
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return ConstVal::Float(m);
    }
    case AstOp::kPow: return ConstVal::Float(std::pow(x, y));
    default: return type_error();
  }
}

absl::StatusOr<ExprPtr> Parser::ConstToExpr(const ConstVal& v, const Span& span) {
  switch (v.kind) {
    case ConstVal::kInt: return ExprPtr(ir::MakeNode<ir::ConstInt>(v.i, DataType::kIndex, span));
    case ConstVal::kFloat:
      return ExprPtr(ir::MakeNode<ir::ConstFloat>(v.f, DataType::kFP32, span));
    case ConstVal::kBool: return ExprPtr(ir::MakeNode<ir::ConstBool>(v.i != 0, span));
    case ConstVal::kStr: return ExprPtr(ir::MakeNode<ir::ConstString>(v.s, span));
    case ConstVal::kDType:
      return UserError(span, pto::StrCat("data type pl.", ir::DataTypeName(v.dtype),
                                         " is not a value here (use pl.const(v, pl.",
                                         ir::DataTypeName(v.dtype), ") for a typed constant)"));
    case ConstVal::kDynDim:
      return v.dyn;
    case ConstVal::kList: {
      std::vector<ExprPtr> elems;
      elems.reserve(v.list.size());
      for (const ConstVal& e : v.list) {
        ASSIGN_OR_RETURN(ExprPtr x, ConstToExpr(e, span));
        elems.push_back(std::move(x));
      }
      return ExprPtr(ir::MakeNode<ir::MakeTuple>(std::move(elems), span));
    }
  }
  return UserError(span, "unsupported constant");
}

absl::StatusOr<int64_t> Parser::ConstInt(const Ast* a, std::string_view what) {
  if (!IsConstAst(a)) return ErrorAt(a, pto::StrCat(what, " must be a constant integer"));
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
  if (v.kind != ConstVal::kInt) {
    return ErrorAt(a, pto::StrCat(what, " must be a constant integer, got ", ConstKindName(v)));
  }
  return v.i;
}

// A constant with an explicit dtype (pl.const and annotated literals).
absl::StatusOr<ExprPtr> Parser::TypedConst(const ConstVal& v, DataType dtype, const Span& span) {
  switch (v.kind) {
    case ConstVal::kInt:
    case ConstVal::kBool:
      if (v.kind == ConstVal::kBool && dtype == DataType::kBool) {
        return ExprPtr(ir::MakeNode<ir::ConstBool>(v.i != 0, span));
      }
      if (ir::IsFloat(dtype)) {
        return ExprPtr(ir::MakeNode<ir::ConstFloat>(static_cast<double>(v.i), dtype, span));
      }
      return ExprPtr(ir::MakeNode<ir::ConstInt>(v.i, dtype, span));
    case ConstVal::kFloat:
      if (ir::IsFloat(dtype)) return ExprPtr(ir::MakeNode<ir::ConstFloat>(v.f, dtype, span));
      return UserError(span, pto::StrCat("a float constant cannot have the non-float type pl.",
                                         ir::DataTypeName(dtype)));
    default:
      return UserError(span, pto::StrCat("a ", ConstKindName(v),
                                         " constant cannot have the scalar type pl.",
                                         ir::DataTypeName(dtype)));
  }
}

// Operands whose dtype yields to the other operand's in scalar arithmetic:
// compile-time constant expressions. The printer writes constants as literals,
// so this holds for the printed text exactly when it held for the source.
bool Parser::IsLiteral(const Ast* a) { return IsConstAst(a); }

// A literal that an annotation can give a dtype (`x: pl.Scalar[pl.INT32] = 3`):
// a number, True/False, a constant's name, `pl.FP32.get_byte()`,
// `float("nan")`, optionally with a sign. Arithmetic stays arithmetic.
bool Parser::IsSimpleLiteral(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
    case AstKind::kFloat:
    case AstKind::kTrue:
    case AstKind::kFalse:
      return true;
    case AstKind::kName: {
      const ConstVal* c = LookupConst(a->text);
      return c != nullptr && c->IsNumber();
    }
    case AstKind::kCall:
      return IsConstAst(a);
    case AstKind::kUnary: {
      // One sign on an unsigned literal: `-(-5)` stays a negation (the printer
      // writes a negated negative constant that way).
      const Ast* x = Kid(a, 0);
      if (a->op != AstOp::kNeg && a->op != AstOp::kPos) return false;
      if (x->kind == AstKind::kInt) return !x->negative;
      if (x->kind == AstKind::kFloat) return !std::signbit(x->float_value);
      return (x->kind == AstKind::kName || x->kind == AstKind::kCall) && IsSimpleLiteral(x);
    }
    default:
      return false;
  }
}


}  // namespace pto::parser::internal
