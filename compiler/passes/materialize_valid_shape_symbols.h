// MaterializeValidShapeSymbols (PyPTO pass 47): a device kernel (InCore, AIC,
// AIV, Spmd) whose parameter declares pl.TensorView(valid_shape=[..., VALID])
// with a pl.dynamic symbol that no tensor parameter's shape and no scalar
// parameter binds gets VALID as a leading Scalar[INDEX] parameter, and every
// call of the kernel passes the extent its argument's valid_shape has at that
// position. A symbol named only inside a compound valid_shape dim, a call
// whose arguments give one symbol two extents and a call whose argument has
// no extent there are located errors.
// See docs/passes/MaterializeValidShapeSymbols.md.
#ifndef PTO_COMPILER_PASSES_MATERIALIZE_VALID_SHAPE_SYMBOLS_H_
#define PTO_COMPILER_PASSES_MATERIALIZE_VALID_SHAPE_SYMBOLS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class MaterializeValidShapeSymbolsPass : public Pass {
 public:
  std::string_view name() const override { return "MaterializeValidShapeSymbols"; }
  // PyPTO declares no properties: it only extends signatures and call
  // argument lists, which are final by then.
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMaterializeValidShapeSymbolsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MATERIALIZE_VALID_SHAPE_SYMBOLS_H_
