// FlattenTileNdTo2D (PyPTO pass 13): hardware tiles are 2D, so in every
// kernel a tile of rank above 2 becomes [product of the leading dims, last
// dim] (a dynamic valid_shape merges the same way). A load keeps its tensor
// rank window and only its tile flattens; a store into a tensor of rank above
// 2 gets its box (`shapes`) as a fourth operand, so code generation still
// knows the tensor-rank window; create/full/reshape get 2D shapes; an
// assemble into a flattened tile folds its offset into (row, col). See
// docs/passes/FlattenTileNdTo2D.md.
#ifndef PTO_COMPILER_PASSES_FLATTEN_TILE_ND_TO_2D_H_
#define PTO_COMPILER_PASSES_FLATTEN_TILE_ND_TO_2D_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class FlattenTileNdTo2DPass : public Pass {
 public:
  std::string_view name() const override { return "FlattenTileNdTo2D"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kIncoreTileOps,
            IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kTileOps2D, IRProperty::kNormalizedStmtStructure};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateFlattenTileNdTo2DPass();

// The pass's first step (flatten_tile_nd_to_2d_batch_matmul.cc): every
// pl.tile.batch_matmul of a kernel body as one 2D matmul per batch.
absl::StatusOr<ir::StmtPtr> ExpandBatchMatmuls(const ir::StmtPtr& body);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_FLATTEN_TILE_ND_TO_2D_H_
