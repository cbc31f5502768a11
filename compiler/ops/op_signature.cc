#include "compiler/ops/op_signature.h"

#include <utility>

#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ')) s.remove_suffix(1);
  return s;
}

// Splits on `sep` outside quotes.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (s[i] == sep && !quoted) {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  return out;
}

struct KindName {
  std::string_view name;
  uint32_t bits;
};
constexpr KindName kOperandKinds[] = {
    {"Tensor", kTensorOperand}, {"Window", kWindowOperand},   {"Tile", kTileOperand},
    {"Scalar", kScalarOperand}, {"Shape", kShapeOperand},     {"Ptr", kPtrOperand},
    {"CommCtx", kCommCtxOperand}, {"Any", kAnyOperand},
};

}  // namespace

const Param* Signature::Find(std::string_view name) const {
  for (const Param& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

int Signature::OperandIndex(std::string_view name) const {
  int i = 0;
  for (const Param& p : params) {
    if (p.is_attr) continue;
    if (p.name == name) return i;
    ++i;
  }
  return -1;
}

std::vector<const Param*> Signature::Operands() const {
  std::vector<const Param*> out;
  for (const Param& p : params) {
    if (!p.is_attr) out.push_back(&p);
  }
  return out;
}

std::string Signature::Text() const {
  std::string out;
  bool kw = false;
  for (const Param& p : params) {
    if (!out.empty()) out += ", ";
    if (p.keyword_only && !kw) {
      out += "*, ";
      kw = true;
    }
    out += p.name;
    if (p.has_default) pto::StrAppend(&out, "=", p.default_text);
  }
  if (variadic) out += out.empty() ? "*args" : ", *args";
  return out;
}

absl::StatusOr<Signature> ParseSignature(std::string_view text, std::string_view result) {
  Signature sig;
  sig.result = std::string(result);
  if (Trim(text).empty()) return sig;
  bool keyword_only = false;
  for (std::string_view item : Split(text, ',')) {
    if (item == "*") {
      keyword_only = true;
      continue;
    }
    if (item.size() > 1 && item[0] == '*') {
      sig.variadic = true;
      continue;
    }
    Param p;
    p.keyword_only = keyword_only;
    size_t colon = item.find(':');
    size_t eq = item.find('=');
    if (colon == std::string_view::npos || (eq != std::string_view::npos && eq < colon)) {
      return absl::InternalError(pto::StrCat("bad signature parameter '", item, "'"));
    }
    p.name = std::string(Trim(item.substr(0, colon)));
    std::string_view kinds =
        Trim(item.substr(colon + 1, eq == std::string_view::npos ? std::string_view::npos
                                                                 : eq - colon - 1));
    if (eq != std::string_view::npos) {
      p.has_default = true;
      p.default_text = std::string(Trim(item.substr(eq + 1)));
    }
    if (!kinds.empty() && kinds[0] == '@') {
      p.operand_kinds = 0;
      for (std::string_view k : Split(kinds.substr(1), '|')) {
        bool found = false;
        for (const KindName& kn : kOperandKinds) {
          if (kn.name == k) {
            p.operand_kinds |= kn.bits;
            found = true;
          }
        }
        if (!found) return absl::InternalError(pto::StrCat("bad operand kind '", k, "'"));
      }
    } else {
      p.is_attr = true;
      for (std::string_view k : Split(kinds, '|')) p.attr_kinds.emplace_back(k);
    }
    sig.params.push_back(std::move(p));
  }
  return sig;
}

std::string OperandKindText(uint32_t kinds) {
  if (kinds == kAnyOperand) return "a value";
  std::string out;
  auto add = [&](uint32_t bit, std::string_view name) {
    if ((kinds & bit) == 0) return;
    // A window is a tensor: name it only when plain tensors are not accepted.
    if (bit == kWindowOperand && (kinds & kTensorOperand) != 0) return;
    if (!out.empty()) out += " or ";
    out += name;
  };
  add(kTensorOperand, "a Tensor");
  add(kWindowOperand, "a DistributedTensor (a pld.window view)");
  add(kTileOperand, "a Tile");
  add(kScalarOperand, "a scalar");
  add(kShapeOperand, "a list of integers");
  add(kPtrOperand, "a Ptr");
  add(kCommCtxOperand, "a CommCtx");
  return out;
}

bool FitsOperands(const Signature& sig, const std::vector<ir::ExprPtr>& args) {
  std::vector<const Param*> ops = sig.Operands();
  if (args.size() > ops.size() && !sig.variadic) return false;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i >= args.size()) {
      if (!ops[i]->has_default) return false;
      continue;
    }
    if (!OperandKindAccepts(ops[i]->operand_kinds, args[i]->type())) return false;
  }
  return true;
}

bool OperandKindAccepts(uint32_t kinds, const ir::TypePtr& type) {
  if (kinds == kAnyOperand) return true;
  if (type == nullptr) return false;
  switch (type->kind()) {
    case ir::NodeKind::kTensorType:
      return (kinds & kTensorOperand) != 0;
    case ir::NodeKind::kDistributedTensorType:
      return (kinds & (kTensorOperand | kWindowOperand)) != 0;
    case ir::NodeKind::kTileType:
      return (kinds & kTileOperand) != 0;
    case ir::NodeKind::kScalarType:
      return (kinds & kScalarOperand) != 0;
    case ir::NodeKind::kTupleType:
      return (kinds & kShapeOperand) != 0;
    case ir::NodeKind::kPtrType:
      return (kinds & kPtrOperand) != 0;
    case ir::NodeKind::kCommCtxType:
      return (kinds & kCommCtxOperand) != 0;
    default:
      return false;
  }
}

}  // namespace pto::ops
