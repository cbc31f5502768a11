// CtrlFlowTransform (PyPTO pass 03): removes `break` and `continue`. A loop
// with `continue` gets a per-iteration flag (`__continue_<n>`): the continue
// sets it and the statements after it run under `if not __continue_<n>`. A
// loop with `break` gets a flag (`__break_<n>`) that ends it: a while loop's
// condition becomes `cond and not __break_<n>`, a for loop becomes a while
// loop over its index. The flags and the index are reassigned in place
// (non-SSA), which ConvertToSSA (04, next) turns into iter args. See
// docs/passes/CtrlFlowTransform.md.
#ifndef PTO_COMPILER_PASSES_CTRL_FLOW_TRANSFORM_H_
#define PTO_COMPILER_PASSES_CTRL_FLOW_TRANSFORM_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class CtrlFlowTransformPass : public Pass {
 public:
  std::string_view name() const override { return "CtrlFlowTransform"; }
  IRPropertySet produced() const override { return {IRProperty::kStructuredCtrlFlow}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateCtrlFlowTransformPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CTRL_FLOW_TRANSFORM_H_
