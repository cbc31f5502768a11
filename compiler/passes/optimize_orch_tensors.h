// OptimizeOrchTensors (PyPTO pass 11): how orchestration passes tensors to
// kernels, in PyPTO's pattern order, one file per pattern:
//  1 iter-arg reuse: a kernel's fresh Out tensor that the loop feeds back
//    merges into the In param it replaces (now InOut);
//  3 assemble-loop rewrite: a kernel's pl.tile.assemble loop followed by one
//    final store stores each chunk into the Out param instead;
//  5 static windows (opt-in, `windowize=True`): a kernel whose tensor params
//    are provably accessed in one window gets a `<name>__windowed` clone over
//    the windows, and its calls slice, call the clone and assemble.
// See docs/passes/OptimizeOrchTensors.md for the rules and for patterns 2, 4.
#ifndef PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_H_
#define PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class OptimizeOrchTensorsPass : public Pass {
 public:
  std::string_view name() const override { return "OptimizeOrchTensors"; }
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateOptimizeOrchTensorsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_H_
