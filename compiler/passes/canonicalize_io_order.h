// CanonicalizeIOOrder (PyPTO pass 29): inside a loop LowerPipelineLoops (28)
// replicated, the statements are reordered (a stable topological sort of
// their dependences) into scalar arithmetic, then loads, then each copy's
// compute followed by its stores, so that the copies' loads are issued
// together ahead of the compute; the loop's marker is removed.
// See docs/passes/CanonicalizeIOOrder.md.
#ifndef PTO_COMPILER_PASSES_CANONICALIZE_IO_ORDER_H_
#define PTO_COMPILER_PASSES_CANONICALIZE_IO_ORDER_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class CanonicalizeIOOrderPass : public Pass {
 public:
  std::string_view name() const override { return "CanonicalizeIOOrder"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateCanonicalizeIOOrderPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CANONICALIZE_IO_ORDER_H_
