// InferTileMemorySpace (PyPTO pass 17): gives every tile of an InCore (AIC,
// AIV) function its memory space, Vec (UB), Mat (L1), Left (L0A), Right
// (L0B), Acc (L0C) or Bias, and inserts a `pl.tile.move` where a consumer
// needs its operand in another space (a matmul reads Left and Right, a vector
// operator Vec). See docs/passes/InferTileMemorySpace.md.
#ifndef PTO_COMPILER_PASSES_INFER_TILE_MEMORY_SPACE_H_
#define PTO_COMPILER_PASSES_INFER_TILE_MEMORY_SPACE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class InferTileMemorySpacePass : public Pass {
 public:
  std::string_view name() const override { return "InferTileMemorySpace"; }
  // PyPTO also requires NormalizedStmtStructure (its utility pass; our IR
  // builders flatten sequences) and produces AivSplitValid / AccToGmStoreValid
  // (properties of its mixed-kernel passes 20-23, not here).
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kIncoreTileOps, IRProperty::kSplitIncoreOrch};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kTileMemoryInferred};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateInferTileMemorySpacePass();

// After this pass: OK unless a kernel moves a tile between Vec (the AIV's UB)
// and a cube buffer (the AIC's), i.e. is a mixed AIC + AIV kernel, which
// PyPTO's passes 21-24 split and which are out of scope here (a located
// error at the move).
absl::Status CheckNoMixedKernel(const ir::ProgramPtr& program);

// PyPTO's TileMemoryInferred verifier: every tile defined in a kernel has a
// memory space, and every operand a cube or vector operator constrains is in
// the space it needs (an internal error at the offender otherwise).
absl::Status VerifyTileMemoryInferred(const ir::ProgramPtr& program);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_INFER_TILE_MEMORY_SPACE_H_
