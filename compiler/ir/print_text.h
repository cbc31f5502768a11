// How the printer spells names, literals and operators: shared by printer.cc
// and print_names.cc (private to compiler/ir:printer).
#ifndef PTO_COMPILER_IR_PRINT_TEXT_H_
#define PTO_COMPILER_IR_PRINT_TEXT_H_

#include <string>
#include <string_view>

#include "compiler/ir/expr.h"

namespace pto::ir::print_internal {

// Python's reserved words and the names the language reserves (pl, self, ...).
bool IsKeyword(std::string_view s);
// A valid, non-reserved identifier derived from a name hint.
std::string SanitizeName(std::string_view hint);
// The hint is already a valid, non-reserved identifier.
bool IsPlainName(std::string_view hint);
// A Python string literal.
std::string QuoteString(std::string_view s);
// The fewest digits that read back to `v`, always with '.' or 'e'.
std::string FormatFloat(double v);

// Python operator precedence (higher binds tighter).
enum Prec : int {
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,
  kPrecCompare = 4,
  kPrecBitOr = 5,
  kPrecBitXor = 6,
  kPrecBitAnd = 7,
  kPrecShift = 8,
  kPrecAdd = 9,
  kPrecMul = 10,
  kPrecUnary = 11,
  kPrecPow = 12,
  kPrecAtom = 13,
};

struct BinaryInfo {
  const char* text;  // infix operator, or a function name when prec == kPrecAtom
  int prec;
};

BinaryInfo InfoOf(BinaryOp op);
// The precedence an expression prints with.
int PrecOf(const ExprPtr& e);

}  // namespace pto::ir::print_internal

#endif  // PTO_COMPILER_IR_PRINT_TEXT_H_
