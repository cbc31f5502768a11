// LowerAutoVectorSplit (PyPTO pass 20): lowers each `pl.split_aiv` region of
// an InCore function in place. A region written in the per-lane form (its
// cube<->vector crossings are pl.aiv_shard / pl.aic_gather, its vector work on
// the lane's half) is spliced into the body and the function is stamped
// `split` (the region's mode) and `split_aiv`, which ExpandMixedKernel (21)
// and SplitVectorKernel (23) read. The forms this pass does not lower yet (a
// full-width body the compiler would halve, mode NONE, regions of two modes)
// are located errors. See docs/passes/LowerAutoVectorSplit.md.
#ifndef PTO_COMPILER_PASSES_LOWER_AUTO_VECTOR_SPLIT_H_
#define PTO_COMPILER_PASSES_LOWER_AUTO_VECTOR_SPLIT_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class LowerAutoVectorSplitPass : public Pass {
 public:
  std::string_view name() const override { return "LowerAutoVectorSplit"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateLowerAutoVectorSplitPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LOWER_AUTO_VECTOR_SPLIT_H_
