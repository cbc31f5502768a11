// SplitVectorKernel (PyPTO pass 23): puts the AIV half of each mixed kernel
// on both AIV lanes of its cluster. A `split_aiv` kernel (already in per-lane
// form) gets its split stamped: `dual_aiv_dispatch` on the AIV function, and
// a missing split mode is a located error. On a platform whose no-split MIX
// tasks dual-dispatch (a2a3, PyPTO's RequiresNoSplitDualAivDispatch), a
// no-split AIV half becomes `if subblock_idx == 0: <body> else: <replay>`:
// lane 1 keeps the cross-core handshakes with empty tiles, so the AIC's pipe
// stays balanced with both lanes. See docs/passes/SplitVectorKernel.md.
#ifndef PTO_COMPILER_PASSES_SPLIT_VECTOR_KERNEL_H_
#define PTO_COMPILER_PASSES_SPLIT_VECTOR_KERNEL_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

struct SplitVectorKernelOptions {
  // The platform runs a no-split MIX task on both AIV lanes (a2a3).
  bool dual_aiv_dispatch = false;
};

class SplitVectorKernelPass : public Pass {
 public:
  explicit SplitVectorKernelPass(SplitVectorKernelOptions options) : options_(options) {}
  std::string_view name() const override { return "SplitVectorKernel"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kMixedKernelExpanded};
  }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;

 private:
  SplitVectorKernelOptions options_;
};

std::unique_ptr<Pass> CreateSplitVectorKernelPass(SplitVectorKernelOptions options = {});

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_SPLIT_VECTOR_KERNEL_H_
