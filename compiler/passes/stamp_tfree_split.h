// StampTfreeSplit (PyPTO pass 24): copies each cross-core tpop's `split` and
// pipe `id` onto the tfree that frees its tile, so code generation reads
// them from the tfree; a tfree towards the wrong core, one whose tile no
// tpop produced, or one whose `id` disagrees with its tpop's is a located
// error. See docs/passes/StampTfreeSplit.md.
#ifndef PTO_COMPILER_PASSES_STAMP_TFREE_SPLIT_H_
#define PTO_COMPILER_PASSES_STAMP_TFREE_SPLIT_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class StampTfreeSplitPass : public Pass {
 public:
  std::string_view name() const override { return "StampTfreeSplit"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateStampTfreeSplitPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_STAMP_TFREE_SPLIT_H_
