// MaterializeSemanticAliases (PyPTO pass 32): the buffers a kernel's
// semantics require to be one share one MemRef. A loop's yielded tile takes
// its iter arg's buffer (or a pl.tile.move before the yield copies it
// there), an if's two yields share one buffer when each is computed in its
// branch. It is MemoryReuse's carry step run on its own, as PyPTO split it
// out of MemoryReuse. See docs/passes/MaterializeSemanticAliases.md.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_SEMANTIC_ALIASES_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_SEMANTIC_ALIASES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class MaterializeSemanticAliasesPass : public Pass {
 public:
  std::string_view name() const override { return "MaterializeSemanticAliases"; }
  // PyPTO's kMaterializeSemanticAliasesProperties.
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps, IRProperty::kTileOps2D,
            IRProperty::kHasMemRefs, IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet produced() const override { return {IRProperty::kNormalizedStmtStructure}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeSemanticAliasesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_SEMANTIC_ALIASES_H_
