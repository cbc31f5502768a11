// InitMemRef (PyPTO pass 31): gives every UB tile of an InCore/AIC/AIV kernel a
// MemRef with an unassigned address (-1): a fresh one per tile-producing
// operator, shared by a plain alias (`b = a`), by a loop's iter arg with its
// init value, and by a loop's or branch's return var with the value yielded
// into it. A tile whose size is not known at compile time is a located error.
// See docs/passes/InitMemRef.md.
#ifndef PTO_COMPILER_PASSES_INIT_MEM_REF_H_
#define PTO_COMPILER_PASSES_INIT_MEM_REF_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class InitMemRefPass : public Pass {
 public:
  std::string_view name() const override { return "InitMemRef"; }
  // PyPTO also requires TileMemoryInferred (InferTileMemorySpace, 17); here
  // a tile without a space (a pass list without 17) is a UB tile.
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps,
            IRProperty::kTileOps2D};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kHasMemRefs, IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet invalidated() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateInitMemRefPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_INIT_MEM_REF_H_
