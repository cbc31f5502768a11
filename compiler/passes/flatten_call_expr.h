// FlattenCallExpr (PyPTO pass 06): three-address form for calls. A call
// nested in another call's arguments, in an operand of an arithmetic or
// logical expression, in an if condition, a for loop's bounds or init values,
// or a return or yield value moves to a temporary (`_tmp<k> = call(...)`)
// assigned just before the statement; inside a `with` block and a loop or
// branch body the temporary stays inside. A while loop's condition, which runs
// every iteration, is left alone. See docs/passes/FlattenCallExpr.md.
#ifndef PTO_COMPILER_PASSES_FLATTEN_CALL_EXPR_H_
#define PTO_COMPILER_PASSES_FLATTEN_CALL_EXPR_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class FlattenCallExprPass : public Pass {
 public:
  std::string_view name() const override { return "FlattenCallExpr"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kNoNestedCalls,
            IRProperty::kNormalizedStmtStructure};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateFlattenCallExprPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_FLATTEN_CALL_EXPR_H_
