// OptimizeOrchTensors (PyPTO pass 11), two of its patterns:
//  * iter-arg reuse: in an orchestration loop, a kernel call whose Out
//    argument is a fresh `pl.tensor.create` and whose result is yielded into
//    the loop-carried tensor it also reads (an In argument) writes that
//    tensor in place: the Out param merges into the In param (now InOut) and
//    the create goes;
//  * static windows (opt-in, `windowize=True` on the kernel): a kernel whose
//    only use of an Out param is its final `pl.tile.store` of a constant box
//    at offsets given by its params gets a `<name>__windowed` clone whose Out
//    param is just that box, and each orchestration call becomes
//    slice + windowed call + assemble, so the runtime sees the window.
// See docs/passes/OptimizeOrchTensors.md for the patterns not here and why.
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
