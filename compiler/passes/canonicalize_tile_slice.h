// CanonicalizeTileSlice (PyPTO pass 16): a window of a Mat tile read by a
// pl.tile.extract or a matmul becomes a pl.tile.extract of the tile itself
// (the cube's TEXTRACT reads it at the window's offset), and the slice is
// dropped; a matmul accumulator that is a strided window of an Acc tile is a
// located error. See docs/passes/CanonicalizeTileSlice.md.
#ifndef PTO_COMPILER_PASSES_CANONICALIZE_TILE_SLICE_H_
#define PTO_COMPILER_PASSES_CANONICALIZE_TILE_SLICE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class CanonicalizeTileSlicePass : public Pass {
 public:
  std::string_view name() const override { return "CanonicalizeTileSlice"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateCanonicalizeTileSlicePass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CANONICALIZE_TILE_SLICE_H_
