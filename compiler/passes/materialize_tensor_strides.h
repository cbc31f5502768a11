// MaterializeTensorStrides (PyPTO pass 30): every tensor type that carries a
// TensorView without strides gets the packed strides of its layout (ND: row
// major; DN: the last two dims column major), so from here on a present view
// states its strides and the TensorViewCanonical verifier holds. A bare
// tensor type (no view) is left as it is (implicitly ND packed). An NZ layout
// on a tensor is a located error: NZ is a fractal tile layout with no strides.
// See docs/passes/MaterializeTensorStrides.md.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_TENSOR_STRIDES_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_TENSOR_STRIDES_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class MaterializeTensorStridesPass : public Pass {
 public:
  std::string_view name() const override { return "MaterializeTensorStrides"; }
  // PyPTO also requires TileMemoryInferred (InferTileMemorySpace, 17); this
  // pass rewrites tensors only, so pass lists without 17 may run it.
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps,
            IRProperty::kTileOps2D, IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm,        IRProperty::kSplitIncoreOrch,
            IRProperty::kIncoreTileOps,  IRProperty::kTileOps2D,
            IRProperty::kNormalizedStmtStructure, IRProperty::kTensorViewCanonical};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeTensorStridesPass();

// The packed strides (in elements) of `shape` in `layout`: ND row major, DN
// with dims n-2 and n-1 swapped in the innermost pair, MX layouts as ND.
// Constant products fold; a dynamic dim stays a product expression. An error
// (at `span`) for NZ and for DN below rank 2.
absl::StatusOr<std::vector<ir::ExprPtr>> PackedStrides(const std::vector<ir::ExprPtr>& shape,
                                                       ir::TensorLayout layout, const Span& span);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_TENSOR_STRIDES_H_
