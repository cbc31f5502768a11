#include "compiler/ops/op_binding.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "compiler/ir/arena.h"
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/enum_spellings.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using ir::AttrValue;
using ir::ExprPtr;

std::string_view AttrKindText(std::string_view kind) {
  if (kind == "dtype") return "a data type such as pl.FP32";
  if (kind == "int") return "an int";
  if (kind == "bool") return "True or False";
  if (kind == "float") return "a number";
  if (kind == "str") return "a string";
  return kind;
}

std::string_view AttrValueText(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "a bool";
    case 1: return "an int";
    case 2: return "a float";
    case 3: return "a string";
    case 4: return "a data type";
    case 5: return "a run-time value";
    default: return "a list";
  }
}

// Converts an attribute argument to the stored value its parameter's kinds
// accept, or nullopt.
std::optional<AttrValue> Accept(const Param& p, const AttrValue& v) {
  for (const std::string& kind : p.attr_kinds) {
    if (kind == "any") return v;
    if (kind == "dtype" && std::holds_alternative<ir::DataType>(v)) return v;
    if (kind == "bool" && std::holds_alternative<bool>(v)) return v;
    if (kind == "str" && std::holds_alternative<std::string>(v)) return v;
    if (kind == "int" && std::holds_alternative<int64_t>(v)) return v;
    if (kind == "float" && std::holds_alternative<double>(v)) return v;
    if (kind == "float" && std::holds_alternative<int64_t>(v)) {
      return AttrValue(static_cast<double>(std::get<int64_t>(v)));
    }
    if (const EnumDef* e = FindEnum(kind)) {
      if (std::optional<AttrValue> m = EnumValueFromAttr(*e, v)) return m;
    }
  }
  // A compile-time integer written as an expression (a module constant folded
  // to a ConstInt) is an int.
  if (const auto* e = std::get_if<ExprPtr>(&v)) {
    if (std::optional<int64_t> c = ir::GetConstInt(*e)) return Accept(p, AttrValue(*c));
  }
  return std::nullopt;
}

std::string ExpectedText(const Param& p) {
  std::string out;
  for (const std::string& kind : p.attr_kinds) {
    if (!out.empty()) out += " or ";
    if (const EnumDef* e = FindEnum(kind)) {
      out += pto::StrCat("one of ", EnumMemberList(*e));
    } else {
      out += AttrKindText(kind);
    }
  }
  return out;
}

absl::StatusOr<AttrValue> LowerAttrParam(std::string_view op, const Param& p, CallArgs& args,
                                         ArgRef r, bool lenient = false) {
  if (std::optional<std::string> path = args.DottedName(r)) {
    for (const std::string& kind : p.attr_kinds) {
      if (std::optional<AttrValue> v = EnumValueFromPath(kind, *path)) return *v;
      if (FindEnum(kind) != nullptr && (path->find(pto::StrCat("pl.", kind, ".")) == 0 ||
                                        path->find(pto::StrCat("pld.", kind, ".")) == 0)) {
        return UserErrorF(args.SpanOf(r), op, " argument '", p.name, "' must be ",
                          ExpectedText(p), ", got '", *path, "'");
      }
    }
  }
  ASSIGN_OR_RETURN(AttrValue v, args.LowerAttr(r));
  if (std::optional<AttrValue> accepted = Accept(p, v)) return *accepted;
  // An operator with its own deducer range-checks its ABI enum codes itself.
  if (lenient && std::holds_alternative<int64_t>(v)) {
    for (const std::string& kind : p.attr_kinds) {
      if (const EnumDef* e = FindEnum(kind); e != nullptr && e->int_coded) return v;
    }
  }
  return UserErrorF(args.SpanOf(r), op, " argument '", p.name, "' must be ", ExpectedText(p),
                    ", got ", AttrValueText(v));
}

// Binding without a signature: positionals are operands, keywords kwargs.
absl::StatusOr<BoundCall> BindUnchecked(const OpDef& def, CallArgs& args) {
  BoundCall out;
  out.op = &def;
  for (size_t i = 0; i < args.NumPositional(); ++i) {
    ASSIGN_OR_RETURN(ExprPtr e, args.LowerOperand(ArgRef{false, i}));
    out.args.push_back(std::move(e));
  }
  for (size_t i = 0; i < args.NumKeywords(); ++i) {
    ASSIGN_OR_RETURN(AttrValue v, args.LowerAttr(ArgRef{true, i}));
    out.kwargs.emplace_back(std::string(args.KeywordName(i)), std::move(v));
  }
  return out;
}

// Which written argument fills each parameter (Python's rules, plus skipping
// attributes given by keyword; see op_binding.h). With `lenient`, the
// operator's own deducer owns arity: surplus positionals go to `extra` and
// missing arguments are left to it, so its message texts (the spec's) stay.
// One slot per parameter; inline for the usual few, so binding allocates nothing.
using Slots = absl::InlinedVector<std::optional<ArgRef>, 8>;

absl::StatusOr<Slots> Assign(std::string_view op,
                                                          const Signature& sig, CallArgs& args,
                                                          const Span& span,
                                                          std::vector<ArgRef>* extra,
                                                          bool lenient = false) {
  Slots slot(sig.params.size());
  for (size_t k = 0; k < args.NumKeywords(); ++k) {
    std::string_view name = args.KeywordName(k);
    size_t i = 0;
    while (i < sig.params.size() && sig.params[i].name != name) ++i;
    if (i == sig.params.size()) {
      return UserErrorF(args.SpanOf(ArgRef{true, k}), op, " got an unexpected keyword argument '",
                        name, "' (parameters: ", sig.Text(), ")");
    }
    if (slot[i].has_value()) {
      return UserErrorF(args.SpanOf(ArgRef{true, k}), op, " got multiple values for argument '",
                        name, "'");
    }
    slot[i] = ArgRef{true, k};
  }
  size_t next = 0;
  for (size_t k = 0; k < args.NumPositional(); ++k) {
    while (next < sig.params.size() && !sig.params[next].keyword_only &&
           sig.params[next].is_attr && slot[next].has_value()) {
      ++next;
    }
    ArgRef r{false, k};
    if (next >= sig.params.size() || sig.params[next].keyword_only) {
      if (sig.variadic || (lenient && extra != nullptr)) {
        extra->push_back(r);
        continue;
      }
      size_t n = 0;
      for (const Param& p : sig.params) n += p.keyword_only ? 0 : 1;
      if (sig.params.empty()) return UserErrorF(args.SpanOf(r), op, " takes no arguments");
      return UserErrorF(args.SpanOf(r), op, " takes at most ", n, " positional argument",
                        n == 1 ? "" : "s", ", got ", args.NumPositional());
    }
    if (slot[next].has_value()) {
      return UserErrorF(args.SpanOf(r), op, " got multiple values for argument '",
                        sig.params[next].name, "'");
    }
    slot[next++] = r;
  }
  for (size_t i = 0; i < sig.params.size() && !lenient; ++i) {
    if (!slot[i].has_value() && !sig.params[i].has_default) {
      return UserErrorF(span, op, " missing required argument '", sig.params[i].name,
                        "' (parameters: ", sig.Text(), ")");
    }
  }
  return slot;
}

absl::StatusOr<BoundCall> BindForm(const OpDef& def, const Signature& sig, CallArgs& args,
                                   const Span& span) {
  std::string_view op = def.name;
  std::vector<ArgRef> extra;
  const bool lenient = sig.result.empty();  // has its own deducer
  ASSIGN_OR_RETURN(auto slot, Assign(op, sig, args, span, &extra, lenient));
  BoundCall out;
  out.op = &def;
  out.args.reserve(sig.params.size() + extra.size());
  std::optional<std::string> gap;  // an omitted optional operand before a given one
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Param& p = sig.params[i];
    bool given = slot[i].has_value() && !args.IsNone(*slot[i]);
    if (slot[i].has_value() && !given && !p.DefaultIsNone()) {
      return UserErrorF(args.SpanOf(*slot[i]), op, " argument '", p.name,
                        "' cannot be None");
    }
    if (p.is_attr) {
      if (!given) continue;
      ASSIGN_OR_RETURN(AttrValue v, LowerAttrParam(op, p, args, *slot[i], lenient));
      out.kwargs.emplace_back(p.name, std::move(v));
      continue;
    }
    if (!given) {
      if (!gap) gap = p.name;
      continue;
    }
    if (gap && !lenient && !slot[i]->keyword) {
      return UserErrorF(args.SpanOf(*slot[i]), op, " argument '", p.name,
                        "' needs the optional operand '", *gap, "' before it to be given too");
    }
    ASSIGN_OR_RETURN(ExprPtr e, args.LowerOperand(*slot[i]));
    if ((gap || p.keyword_only) && !lenient) {
      // A keyword-only operand, or one given by keyword after an omitted
      // optional one (PyPTO's `gather(x, mask_pattern=...)`,
      // `mrgsort(t, block_len=64)`, `tpush_to_aiv(t, split=1)`), has no
      // position: it is kept under its name, as PyPTO's IR keeps its keyword
      // operands, and prints back as `name=value`.
      out.kwargs.emplace_back(p.name, std::move(e));
      continue;
    }
    out.args.push_back(std::move(e));
  }
  for (ArgRef r : extra) {
    ASSIGN_OR_RETURN(ExprPtr e, args.LowerOperand(r));
    out.args.push_back(std::move(e));
  }
  return out;
}

// Lowers each operand once (dispatch looks at the first before binding) and
// renames keywords of the unified operator to the target's parameter names.
class DispatchArgs : public CallArgs {
 public:
  explicit DispatchArgs(CallArgs& inner) : inner_(inner), pos_(inner.NumPositional()),
                                           kw_(inner.NumKeywords()) {}
  size_t NumPositional() const override { return inner_.NumPositional(); }
  size_t NumKeywords() const override { return inner_.NumKeywords(); }
  std::string_view KeywordName(size_t i) const override {
    return renamed_.size() > i && !renamed_[i].empty() ? renamed_[i] : inner_.KeywordName(i);
  }
  Span SpanOf(ArgRef r) const override { return inner_.SpanOf(r); }
  bool IsNone(ArgRef r) const override { return inner_.IsNone(r); }
  std::optional<std::string> DottedName(ArgRef r) const override { return inner_.DottedName(r); }
  absl::StatusOr<ExprPtr> LowerOperand(ArgRef r) override {
    ExprPtr& cached = (r.keyword ? kw_ : pos_)[r.index];
    if (cached == nullptr) {
      ASSIGN_OR_RETURN(cached, inner_.LowerOperand(r));
    }
    return cached;
  }
  absl::StatusOr<AttrValue> LowerAttr(ArgRef r) override { return inner_.LowerAttr(r); }

  // Keyword names of `from` become the names `to` gives the same position.
  void Rename(const Signature& from, const Signature& to) {
    renamed_.assign(inner_.NumKeywords(), std::string());
    for (size_t k = 0; k < inner_.NumKeywords(); ++k) {
      std::string_view name = inner_.KeywordName(k);
      for (size_t i = 0; i < from.params.size() && i < to.params.size(); ++i) {
        if (from.params[i].name == name && to.Find(name) == nullptr) {
          renamed_[k] = to.params[i].name;
        }
      }
    }
  }

 private:
  CallArgs& inner_;
  std::vector<ExprPtr> pos_, kw_;
  std::vector<std::string> renamed_;
};

// PyPTO's form, or our own where an operator has one (OpDef::alt_signature):
// the first whose operand kinds fit; else the one that bound, so its deducer
// reports the mismatch.
absl::StatusOr<BoundCall> BindSignature(const OpDef& def, CallArgs& raw, const Span& span) {
  if (def.alt_signature == nullptr) return BindForm(def, *def.signature, raw, span);
  DispatchArgs args(raw);
  absl::StatusOr<BoundCall> primary = BindForm(def, *def.signature, args, span);
  if (primary.ok() && FitsOperands(*def.signature, primary->args)) return primary;
  absl::StatusOr<BoundCall> alt = BindForm(def, *def.alt_signature, args, span);
  if (alt.ok() && (FitsOperands(*def.alt_signature, alt->args) || !primary.ok())) return alt;
  return primary;
}

std::optional<ArgRef> FindArg(CallArgs& args, const Signature& sig, size_t param) {
  if (param < args.NumPositional()) return ArgRef{false, param};
  for (size_t k = 0; k < args.NumKeywords(); ++k) {
    if (param < sig.params.size() && args.KeywordName(k) == sig.params[param].name) {
      return ArgRef{true, k};
    }
  }
  return std::nullopt;
}

ir::DataType ScalarDType(const ExprPtr& e) {
  return static_cast<const ir::ScalarType&>(*e->type()).dtype();
}

// `pl.add(a, b)` of scalars and the other scalar forms PyPTO accepts.
absl::StatusOr<ExprPtr> ScalarForm(const UnifiedOp& u, DispatchArgs& args, const Span& span) {
  std::string_view short_name = std::string_view(u.name).substr(u.name.find('.') + 1);
  ASSIGN_OR_RETURN(auto slot, Assign(u.name, u.signature, args, span, nullptr));
  ASSIGN_OR_RETURN(ExprPtr lhs, args.LowerOperand(*slot[0]));
  if (short_name == "cast") {
    const Param& p = u.signature.params[1];
    ASSIGN_OR_RETURN(AttrValue v, LowerAttrParam(u.name, p, args, *slot[1]));
    if (!std::holds_alternative<ir::DataType>(v)) {
      return UserErrorF(args.SpanOf(*slot[1]), u.name, " target_type must be a data type");
    }
    if (slot.size() > 2 && slot[2].has_value()) {
      ASSIGN_OR_RETURN(AttrValue mode, args.LowerAttr(*slot[2]));
      const auto* s = std::get_if<std::string>(&mode);
      const auto* i = std::get_if<int64_t>(&mode);
      if (!(s && *s == "round") && !(i && *i == 2)) {
        return UserErrorF(args.SpanOf(*slot[2]), u.name,
                          ": a scalar cast supports only the default mode \"round\"");
      }
    }
    return ExprPtr(ir::MakeNode<ir::Cast>(std::move(lhs), std::get<ir::DataType>(v), span));
  }
  if (short_name == "abs" || short_name == "neg") {
    ir::TypePtr t = lhs->type();
    return ExprPtr(ir::MakeNode<ir::UnaryExpr>(
        short_name == "abs" ? ir::UnaryOp::kAbs : ir::UnaryOp::kNeg, std::move(lhs), t, span));
  }
  if (!slot[1].has_value()) return UserErrorF(span, u.name, " needs two operands");
  ASSIGN_OR_RETURN(ExprPtr rhs, args.LowerOperand(*slot[1]));
  if (!ir::Is<ir::ScalarType>(rhs->type())) {
    return UserErrorF(args.SpanOf(*slot[1]), u.name, " of a scalar needs a scalar rhs, got ",
                      TypeText(rhs->type()));
  }
  ir::BinaryOp bop = short_name == "add"   ? ir::BinaryOp::kAdd
                     : short_name == "sub" ? ir::BinaryOp::kSub
                     : short_name == "mul" ? ir::BinaryOp::kMul
                                           : ir::BinaryOp::kDiv;
  ir::DataType dt = ScalarDType(lhs);
  if (!ir::IsFloat(dt) && ir::IsFloat(ScalarDType(rhs))) dt = ScalarDType(rhs);
  return ExprPtr(ir::MakeNode<ir::BinaryExpr>(bop, std::move(lhs), std::move(rhs),
                                                  ir::ScalarType::Get(dt), span));
}

// The args of a call without one keyword argument.
class WithoutKeyword : public CallArgs {
 public:
  WithoutKeyword(CallArgs& inner, size_t hidden) : inner_(inner), hidden_(hidden) {}
  size_t NumPositional() const override { return inner_.NumPositional(); }
  size_t NumKeywords() const override { return inner_.NumKeywords() - 1; }
  std::string_view KeywordName(size_t i) const override { return inner_.KeywordName(Map(i)); }
  Span SpanOf(ArgRef r) const override { return inner_.SpanOf(Map(r)); }
  bool IsNone(ArgRef r) const override { return inner_.IsNone(Map(r)); }
  std::optional<std::string> DottedName(ArgRef r) const override {
    return inner_.DottedName(Map(r));
  }
  absl::StatusOr<ExprPtr> LowerOperand(ArgRef r) override { return inner_.LowerOperand(Map(r)); }
  absl::StatusOr<AttrValue> LowerAttr(ArgRef r) override { return inner_.LowerAttr(Map(r)); }

 private:
  size_t Map(size_t i) const { return i < hidden_ ? i : i + 1; }
  ArgRef Map(ArgRef r) const { return r.keyword ? ArgRef{true, Map(r.index)} : r; }
  CallArgs& inner_;
  size_t hidden_;
};

// PyPTO's pl.matmul of tiles takes out_dtype only when it is the cube
// accumulator's dtype (INT32 for INT8 operands, else FP32): the tile
// operator has no such parameter, so the keyword is checked and dropped.
absl::StatusOr<BoundCall> BindTileMatmul(const OpRegistry& registry, const std::string& target,
                                         DispatchArgs& args, const ExprPtr& lhs,
                                         const Span& span) {
  for (size_t k = 0; k < args.NumKeywords(); ++k) {
    if (args.KeywordName(k) != "out_dtype" || args.IsNone(ArgRef{true, k})) continue;
    ASSIGN_OR_RETURN(AttrValue v, args.LowerAttr(ArgRef{true, k}));
    const auto* dt = std::get_if<ir::DataType>(&v);
    auto tile = ir::As<ir::TileType>(lhs->type());
    const ir::DataType acc =
        tile->dtype() == ir::DataType::kInt8 ? ir::DataType::kInt32 : ir::DataType::kFP32;
    if (dt == nullptr || *dt != acc) {
      return UserErrorF(args.SpanOf(ArgRef{true, k}), "pl.matmul of tiles: out_dtype must be the "
                        "cube accumulator's dtype ", ir::DataTypeName(acc),
                        " (a tile matmul's result is its accumulator)");
    }
    WithoutKeyword rest(args, k);
    return BindCall(registry, target, rest, span);
  }
  return BindCall(registry, target, args, span);
}

absl::StatusOr<BoundCall> BindUnified(const OpRegistry& registry, const UnifiedOp& u,
                                      CallArgs& raw, const Span& span) {
  DispatchArgs args(raw);
  std::optional<ArgRef> first = FindArg(args, u.signature, 0);
  if (!first) {
    return UserErrorF(span, u.name, " missing required argument '",
                      u.signature.params.empty() ? "" : u.signature.params[0].name, "'");
  }
  ASSIGN_OR_RETURN(ExprPtr lhs, args.LowerOperand(*first));
  const ir::TypePtr& t = lhs->type();
  std::string target;
  if (ir::Is<ir::TileType>(t)) {
    target = u.tile_op;
    std::optional<ArgRef> second = FindArg(args, u.signature, 1);
    if (second && !u.tile_scalar_op.empty()) {
      ASSIGN_OR_RETURN(ExprPtr rhs, args.LowerOperand(*second));
      if (ir::Is<ir::ScalarType>(rhs->type())) target = u.tile_scalar_op;
    }
  } else if (ir::AsTensorTypeLike(t) != nullptr) {
    target = u.tensor_op;
  } else if (ir::Is<ir::ScalarType>(t) && u.scalar_form) {
    BoundCall out;
    ASSIGN_OR_RETURN(out.value, ScalarForm(u, args, span));
    return out;
  }
  if (target.empty()) {
    std::string_view accepted = u.scalar_form ? "a Tensor, a Tile or a scalar" : "a Tensor or a Tile";
    return UserErrorF(args.SpanOf(*first), u.name, " expects ", accepted, " as '",
                      u.signature.params[0].name, "', got ", TypeText(t));
  }
  const OpDef* def = registry.Find(target);
  if (def == nullptr) return InternalErrorF(span, u.name, " resolves to unknown operator ", target);
  if (def->signature != nullptr) args.Rename(u.signature, *def->signature);
  if (def->id == ir::OpId::kPlTileMatmul) {
    return BindTileMatmul(registry, target, args, lhs, span);
  }
  return BindCall(registry, target, args, span);
}

}  // namespace

absl::StatusOr<BoundCall> BindCall(const OpRegistry& registry, std::string_view name,
                                   CallArgs& args, const Span& span) {
  // A unified name shadows a promoted alias of the same spelling, as in PyPTO.
  if (const UnifiedOp* u = FindUnifiedOp(name)) return BindUnified(registry, *u, args, span);
  if (const OpDef* def = registry.Find(name)) {
    if (def->signature == nullptr) return BindUnchecked(*def, args);
    ASSIGN_OR_RETURN(BoundCall bound, BindSignature(*def, args, span));
    if (def->canonicalize) RETURN_IF_ERROR(def->canonicalize(bound.args, bound.kwargs, span));
    return bound;
  }
  return UserErrorF(span, "unknown operator '", name, "'");
}

}  // namespace pto::ops
