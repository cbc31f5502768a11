// Prints IR in the PTO program language (docs/language.md). Every node prints,
// lowered-only ones included, so every pass's output can be read and re-parsed:
// print -> parse -> print is a fixed point.
#ifndef PTO_COMPILER_IR_PRINTER_H_
#define PTO_COMPILER_IR_PRINTER_H_

#include <string>

#include "compiler/ir/function.h"

namespace pto::ir {

// The whole program: import lines, the @pl.program class, functions in name order.
std::string PrintProgram(const ProgramPtr& program);

// One function as a method (4-space indented under a class), for messages and tests.
std::string PrintFunction(const FunctionPtr& function);

// Fragments for diagnostics and tests. Variables print under their name hints.
std::string PrintType(const TypePtr& type);
std::string PrintExpr(const ExprPtr& expr);
std::string PrintStmt(const StmtPtr& stmt);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_PRINTER_H_
