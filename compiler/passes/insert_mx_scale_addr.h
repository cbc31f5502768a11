// InsertMxScaleAddr (PyPTO pass 18): before every microscaling matmul
// (pl.tile.matmul_mx, _acc, _bias) each scale operand is bound to its data
// operand, `b = pl.tile.tget_scale_addr(scale, data)`, and the matmul reads
// the binding (TileMemoryInferred, required, puts the data in Left / Right).
// See docs/passes/InsertMxScaleAddr.md.
#ifndef PTO_COMPILER_PASSES_INSERT_MX_SCALE_ADDR_H_
#define PTO_COMPILER_PASSES_INSERT_MX_SCALE_ADDR_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class InsertMxScaleAddrPass : public Pass {
 public:
  std::string_view name() const override { return "InsertMxScaleAddr"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kTileMemoryInferred};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateInsertMxScaleAddrPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_INSERT_MX_SCALE_ADDR_H_
