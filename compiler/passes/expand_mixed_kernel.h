// ExpandMixedKernel (PyPTO pass 21): splits a mixed InCore kernel (one whose
// tiles live both in the AIV's UB and the AIC's cube buffers) into an AIC
// function, an AIV function and a Group function of the original name that
// calls both. Each cross-core pl.tile.move becomes a tpush on the producing
// core and a tpop on the consuming one; the consumer frees each popped slot
// (tfree) and both sides declare their pipes (reserve_buffer /
// import_peer_buffer, aic_ / aiv_initialize_pipe). See
// docs/passes/ExpandMixedKernel.md.
#ifndef PTO_COMPILER_PASSES_EXPAND_MIXED_KERNEL_H_
#define PTO_COMPILER_PASSES_EXPAND_MIXED_KERNEL_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class ExpandMixedKernelPass : public Pass {
 public:
  std::string_view name() const override { return "ExpandMixedKernel"; }
  // PyPTO also requires NormalizedStmtStructure (our builders keep it) and
  // produces HardSyncallOccupancyValid (no hard syncall here).
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kIncoreTileOps, IRProperty::kSplitIncoreOrch,
            IRProperty::kTileOps2D, IRProperty::kTileMemoryInferred};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kMixedKernelExpanded};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateExpandMixedKernelPass();

// PyPTO's MixedKernelExpanded verifier: no InCore function holds tiles of
// both cores; an AIC tpop lands in Mat and an AIV tpop in Vec; every tpop has
// its tfree; a function with cross-core ops declares its pipe.
absl::Status VerifyMixedKernelExpanded(const ir::ProgramPtr& program);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_EXPAND_MIXED_KERNEL_H_
