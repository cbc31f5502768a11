// ConvertTensorToTileOps (PyPTO pass 10), the subset our AIV code generation
// reads: in InCore functions, `pl.tensor.slice` of a GM tensor becomes
// `pl.tile.load`, elementwise `pl.tensor.*` operators become their
// `pl.tile.*` form (a GM tensor operand loaded once, whole, at its first use),
// and `pl.tensor.assemble` of a converted value becomes `pl.tile.store`; a
// value needed as a GM tensor afterwards stays a tensor operator.
// See docs/passes/ConvertTensorToTileOps.md.
#ifndef PTO_COMPILER_PASSES_CONVERT_TENSOR_TO_TILE_OPS_H_
#define PTO_COMPILER_PASSES_CONVERT_TENSOR_TO_TILE_OPS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class ConvertTensorToTileOpsPass : public Pass {
 public:
  std::string_view name() const override { return "ConvertTensorToTileOps"; }
  // PyPTO also requires NormalizedStmtStructure, which our IR builders keep
  // (flattened sequences) and no pass here tracks.
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kIncoreTileOps};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateConvertTensorToTileOpsPass();

// After the pass: a tensor-level matmul left in the program (a form the pass
// does not convert) is a located error saying which form it is. The pass
// manager calls it when the pass list runs past pass 10.
absl::Status CheckNoTensorMatmul(const ir::ProgramPtr& program);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CONVERT_TENSOR_TO_TILE_OPS_H_
