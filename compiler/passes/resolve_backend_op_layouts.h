// ResolveBackendOpLayouts (PyPTO pass 19): an operand of a vector operator
// whose pto-isa instruction reads row-major tiles, when it is a tile that a
// pl.tile.move laid out col_major, is first moved back to a row-major tile of
// its memory space.
// See docs/passes/ResolveBackendOpLayouts.md.
#ifndef PTO_COMPILER_PASSES_RESOLVE_BACKEND_OP_LAYOUTS_H_
#define PTO_COMPILER_PASSES_RESOLVE_BACKEND_OP_LAYOUTS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class ResolveBackendOpLayoutsPass : public Pass {
 public:
  std::string_view name() const override { return "ResolveBackendOpLayouts"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateResolveBackendOpLayoutsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_RESOLVE_BACKEND_OP_LAYOUTS_H_
