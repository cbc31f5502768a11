// Simplify (docs/passes/Simplify.md): folds scalar arithmetic on constants
// (Python semantics) wherever it appears — statements, loop bounds, call
// arguments and attrs, and the shapes and views inside types — propagates
// scalar constants bound by assignments, and removes unused side-effect-free
// scalar assignments. See docs/passes/Simplify.md.
#ifndef PTO_COMPILER_PASSES_SIMPLIFY_H_
#define PTO_COMPILER_PASSES_SIMPLIFY_H_

#include <memory>

#include "compiler/ir/expr.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class SimplifyPass : public Pass {
 public:
  std::string_view name() const override { return "Simplify"; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateSimplifyPass();

// One fold step of a scalar BinaryExpr / UnaryExpr / Cast whose operands are
// constants: the constant result, or nullptr when the expression does not fold
// (a non-constant operand, division or modulo by zero, an integer result
// outside the result dtype, a float result that is not finite, ...).
ir::ExprPtr FoldConstantExpr(const ir::ExprPtr& expr);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_SIMPLIFY_H_
