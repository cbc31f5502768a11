// InlineFunctions (PyPTO pass 01): splices the body of every
// `FunctionType.Inline` function into each call site, with its locals renamed
// (`<name>_inline<k>`) and its parameters replaced by the arguments, then drops
// the Inline functions. See docs/passes/InlineFunctions.md.
#ifndef PTO_COMPILER_PASSES_INLINE_FUNCTIONS_H_
#define PTO_COMPILER_PASSES_INLINE_FUNCTIONS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class InlineFunctionsPass : public Pass {
 public:
  std::string_view name() const override { return "InlineFunctions"; }
  IRPropertySet produced() const override { return {IRProperty::kInlineFunctionsEliminated}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateInlineFunctionsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_INLINE_FUNCTIONS_H_
