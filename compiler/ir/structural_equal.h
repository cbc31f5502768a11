// Structural equality of IR trees (the round-trip and pass-test oracle).
//
// Ignored: Program and Function names (so also the Program's GlobalVar keys),
// Var name hints, spans, leading comments. Compared in order: a Program's
// functions (its by-name order), params, statements, args, and kwargs/attrs
// (keys and values; ExprPtr values structurally). GlobalVar and Op compare by
// name. Types compare structurally; singleton types by kind.
//
// Vars (and IterArgs, MemRefs, WindowBuffers) compare through a bijective
// mapping: a definition site (param, assignment target, loop var, iter arg,
// return var) or the first sight of a free var compares the kind and fields
// (type; IterArg init value; MemRef space/addr/size/id; WindowBuffer base via
// the mapping, size and flags) and binds the pair; every later occurrence must
// map consistently. Hence two DistributedTensorTypes with the same shape/dtype
// but different window buffers are not equal. The mapping restarts for each
// function of a Program.
#ifndef PTO_COMPILER_IR_STRUCTURAL_EQUAL_H_
#define PTO_COMPILER_IR_STRUCTURAL_EQUAL_H_

#include <optional>
#include <string>

#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::ir {

bool StructuralEqual(const ProgramPtr& a, const ProgramPtr& b);
bool StructuralEqual(const FunctionPtr& a, const FunctionPtr& b);
bool StructuralEqual(const StmtPtr& a, const StmtPtr& b);
bool StructuralEqual(const ExprPtr& a, const ExprPtr& b);
bool StructuralEqual(const TypePtr& a, const TypePtr& b);

// nullopt when structurally equal; otherwise the first mismatch as
// "<path>: <what>", e.g.
//   "functions[1].body.stmts[2].value.args[0]: ConstInt value 3 vs 4
//    (in function 'f' vs 'f') [a.pto:7:12 vs b.pto:7:12]".
std::optional<std::string> StructuralDiff(const ProgramPtr& a, const ProgramPtr& b);
std::optional<std::string> StructuralDiff(const FunctionPtr& a, const FunctionPtr& b);
std::optional<std::string> StructuralDiff(const StmtPtr& a, const StmtPtr& b);
std::optional<std::string> StructuralDiff(const ExprPtr& a, const ExprPtr& b);
std::optional<std::string> StructuralDiff(const TypePtr& a, const TypePtr& b);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_STRUCTURAL_EQUAL_H_
