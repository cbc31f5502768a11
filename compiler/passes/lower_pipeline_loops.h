// LowerPipelineLoops (PyPTO pass 28): a `pl.pipeline(n, stage=F)` loop
// becomes a loop of stride F * step whose body is F copies of the original
// body (each with fresh definitions, so each stage's tiles are distinct
// buffers), and the trip count's remainder is F - 1 or fewer copies after
// it. See docs/passes/LowerPipelineLoops.md.
#ifndef PTO_COMPILER_PASSES_LOWER_PIPELINE_LOOPS_H_
#define PTO_COMPILER_PASSES_LOWER_PIPELINE_LOOPS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

// Marks the replicated loop with its copy count F (PyPTO keeps
// ForKind::Pipeline as this marker); CanonicalizeIOOrder (29) orders the
// copies' loads and stores by it and removes it.
inline constexpr char kAttrPipelineCopies[] = "pipeline_copies";

class LowerPipelineLoopsPass : public Pass {
 public:
  std::string_view name() const override { return "LowerPipelineLoops"; }
  // PyPTO also requires IncoreTileOps, TileOps2D and NormalizedStmtStructure
  // (kept by our builders); a pipeline loop of an orchestration is lowered
  // the same way.
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateLowerPipelineLoopsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LOWER_PIPELINE_LOOPS_H_
