#include "compiler/ir/print_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace pto::ir::print_internal {

bool IsKeyword(std::string_view s) {
  // Python's reserved words and the names the language reserves, grouped by
  // length: this runs for every printed variable, and comparing with the few
  // words of the same length is much cheaper than hashing.
  static constexpr std::string_view kReserved[][10] = {
      /*2*/ {"as", "if", "in", "is", "or", "pl"},
      /*3*/ {"and", "def", "del", "for", "not", "try", "pld"},
      /*4*/ {"None", "True", "elif", "else", "from", "pass", "with", "self"},
      /*5*/ {"False", "async", "await", "break", "class", "raise", "while", "yield", "tuple",
             "Tuple"},
      /*6*/ {"assert", "except", "global", "import", "lambda", "return"},
      /*7*/ {"finally"},
      /*8*/ {"continue", "nonlocal"},
  };
  if (s.size() < 2 || s.size() > 8) return false;
  for (std::string_view r : kReserved[s.size() - 2]) {
    if (r.empty()) break;
    if (r[0] == s[0] && r == s) return true;
  }
  return false;
}

// A valid, non-reserved identifier derived from a name hint.
std::string SanitizeName(std::string_view hint) {
  std::string s;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_';
    s += ok ? c : '_';
  }
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s = "v" + s;
  if (IsKeyword(s)) s += "_";
  return s;
}

// A hint that prints as itself: a valid identifier that is not reserved.
bool IsPlainName(std::string_view hint) {
  if (hint.empty() || (hint[0] >= '0' && hint[0] <= '9')) return false;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_';
    if (!ok) return false;
  }
  return !IsKeyword(hint);
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

// Fewest digits that read back to the same double; always has '.' or 'e'.
std::string FormatFloat(double v) {
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";
  if (std::isnan(v)) return "float(\"nan\")";
  char buf[64];
  // The shortest round-trip form has the fewest significant digits any
  // round-tripping %g can have, so the search starts there.
  auto [sci_end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  int shortest = 0;
  for (const char* p = buf; ec == std::errc() && p < sci_end && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9') ++shortest;
  }
  for (int prec = std::max(shortest, 1); prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}


BinaryInfo InfoOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return {"+", kPrecAdd};
    case BinaryOp::kSub: return {"-", kPrecAdd};
    case BinaryOp::kMul: return {"*", kPrecMul};
    case BinaryOp::kFloorDiv: return {"//", kPrecMul};
    case BinaryOp::kFloorMod: return {"%", kPrecMul};
    case BinaryOp::kDiv: return {"/", kPrecMul};
    case BinaryOp::kPow: return {"**", kPrecPow};
    case BinaryOp::kMin: return {"pl.min", kPrecAtom};
    case BinaryOp::kMax: return {"pl.max", kPrecAtom};
    case BinaryOp::kEq: return {"==", kPrecCompare};
    case BinaryOp::kNe: return {"!=", kPrecCompare};
    case BinaryOp::kLt: return {"<", kPrecCompare};
    case BinaryOp::kLe: return {"<=", kPrecCompare};
    case BinaryOp::kGt: return {">", kPrecCompare};
    case BinaryOp::kGe: return {">=", kPrecCompare};
    case BinaryOp::kAnd: return {"and", kPrecAnd};
    case BinaryOp::kOr: return {"or", kPrecOr};
    case BinaryOp::kBitAnd: return {"&", kPrecBitAnd};
    case BinaryOp::kBitOr: return {"|", kPrecBitOr};
    case BinaryOp::kBitXor: return {"^", kPrecBitXor};
    case BinaryOp::kShl: return {"<<", kPrecShift};
    case BinaryOp::kShr: return {">>", kPrecShift};
  }
  return {"?", kPrecAtom};
}

int PrecOf(const ExprPtr& e) {
  if (auto b = As<BinaryExpr>(e)) return InfoOf(b->op()).prec;
  if (auto u = As<UnaryExpr>(e)) {
    if (u->op() == UnaryOp::kNot) return kPrecNot;
    if (u->op() == UnaryOp::kAbs) return kPrecAtom;
    return kPrecUnary;
  }
  // A negative literal prints with a leading '-', like a unary minus.
  if (auto c = As<ConstInt>(e)) {
    if (c->value() < 0 && c->dtype() == DataType::kIndex) return kPrecUnary;
  }
  if (auto c = As<ConstFloat>(e)) {
    if (std::signbit(c->value()) && c->dtype() == DataType::kFP32) return kPrecUnary;
  }
  return kPrecAtom;
}

}  // namespace pto::ir::print_internal
