// Well-formedness checks of the IR. Returns the first violation in program
// order (functions in the program's order, statements in text order) as a
// located user error, so a pass that breaks the IR, or a parser bug, points at
// the user's source.
//
// Checked:
//  - scoping: a Var is used only after its definition and where it is visible.
//    Params are visible in the whole function; an assignment's target after
//    the assignment until the end of the enclosing block; a loop var and iter
//    args only in the loop body (a while loop's condition included); return
//    vars after their statement. Loop and if bodies are blocks (their
//    definitions are not visible after them, except an assignment's target
//    before SSA form: see VerifyOptions); scope statement bodies
//    (CommDomainScopeStmt, RuntimeScopeStmt) are not. MemRefs and
//    WindowBuffers (referenced from types and scope slots) need no definition.
//    Vars inside types are checked where the type is written: params and
//    assignment targets.
//  - single definition: a Var is defined at most once in its function. An
//    assignment to a Var that is visible where it stands (a parameter, a loop
//    variable, an earlier assignment's target, a return var) is a
//    reassignment, not a second definition: the non-SSA form the parser reads
//    and ConvertToSSA removes (docs/language.md, "Reassignment"). IterArgs are
//    never reassigned. The SSAForm property (compiler/passes) rules
//    reassignments out.
//  - types: an assignment's target type agrees with its value's (see
//    TypesAgree); if/while conditions are scalars; for bounds are integer
//    scalars; iter arg init values agree with the iter args; a loop body ends
//    with a pl.yield_ of one value per iter arg, an if with return vars has
//    both branches ending with one value per return var, yielded values agree
//    with the iter args / return vars, a loop has no return vars or one per
//    iter arg; pl.yield_ appears only as the last statement of a loop or if
//    body; return values match the function's return types in number and type.
//  - calls of program functions: the callee exists and gets at most one
//    argument per param; missing trailing params must all be CommCtx-typed
//    (they are bound by MaterializeDistTensorCtx).
//  - a WindowBuffer is a slot of at most one CommDomainScopeStmt in the program.
//  - GlobalVar names are unique and equal their function's name.
//
// A use is reported at the innermost enclosing expression or statement with a
// known span (a Var's own span is its definition).
#ifndef PTO_COMPILER_IR_VERIFIER_H_
#define PTO_COMPILER_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "compiler/ir/function.h"
#include "compiler/ir/type.h"

namespace pto::ir {

struct VerifyOptions {
  // Before ConvertToSSA, a Var first assigned inside a loop or if body stays
  // visible after the body (Python's scoping, which ConvertToSSA carries out
  // with iter args and phis). With strict_scoping (the SSAForm property) it
  // ends with its body, as every other definition there does.
  bool strict_scoping = false;
};

absl::Status VerifyProgram(const ProgramPtr& program, VerifyOptions options = {});
// One function on its own; calls of GlobalVars are checked only against
// `program` when given.
absl::Status VerifyFunction(const FunctionPtr& func, const ProgramPtr& program = nullptr,
                            VerifyOptions options = {});

// Whether a value of type `actual` may be bound to a var (or yielded to a
// return var, returned as a declared type) of type `expected`: same family
// (DistributedTensorType may stand for TensorType on the expected side),
// dtype and rank; equal dtype for scalars; element-wise for tuples; kind for
// the singleton types. Window buffers disagree only when both sides have one
// and they differ (e.g. the target of a window view may carry the buffer
// while the value does not yet). Shapes are not compared (they may be
// symbolic).
bool TypesAgree(const TypePtr& expected, const TypePtr& actual);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_VERIFIER_H_
