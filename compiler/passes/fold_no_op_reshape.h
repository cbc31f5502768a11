// FoldNoOpReshape (PyPTO pass 35): in InCore/AIC/AIV kernels, `b =
// pl.tile.reshape(a, shape)` whose result shares a's MemRef and has a's buffer
// signature (memory space, dtype, rows x cols, valid rows x cols, layout)
// becomes the alias `b = a`, so code generation only ever sees reshapes that
// do something. See docs/passes/FoldNoOpReshape.md.
#ifndef PTO_COMPILER_PASSES_FOLD_NO_OP_RESHAPE_H_
#define PTO_COMPILER_PASSES_FOLD_NO_OP_RESHAPE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class FoldNoOpReshapePass : public Pass {
 public:
  std::string_view name() const override { return "FoldNoOpReshape"; }
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps, IRProperty::kHasMemRefs,
            IRProperty::kTileOps2D};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateFoldNoOpReshapePass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_FOLD_NO_OP_RESHAPE_H_
