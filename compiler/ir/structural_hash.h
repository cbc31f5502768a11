// A hash consistent with StructuralEqual: structurally equal trees hash alike.
// Vars hash by the index of their definition (or first sight) in traversal
// order, never by address, so the value is deterministic across runs. The
// numbering restarts for each function of a Program, as in StructuralEqual.
#ifndef PTO_COMPILER_IR_STRUCTURAL_HASH_H_
#define PTO_COMPILER_IR_STRUCTURAL_HASH_H_

#include <cstdint>

#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::ir {

uint64_t StructuralHash(const ProgramPtr& program);
uint64_t StructuralHash(const FunctionPtr& func);
uint64_t StructuralHash(const StmtPtr& stmt);
uint64_t StructuralHash(const ExprPtr& expr);
uint64_t StructuralHash(const TypePtr& type);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_STRUCTURAL_HASH_H_
