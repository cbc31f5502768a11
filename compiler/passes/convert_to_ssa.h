// ConvertToSSA (PyPTO pass 04): turns the parser's non-SSA reassignments (an
// assignment to a Var already visible, e.g. `acc = acc + t` inside a loop)
// into SSA form. Every reassignment defines a new version of the Var; a value
// reassigned inside a loop and read by a later iteration or after the loop
// becomes an iter arg with a yield and a return var, and one reassigned inside
// an if and read after it becomes a return var (phi) yielded by both branches.
// A value first assigned inside a loop and read after it (Python's scoping)
// becomes an iter arg started from a value of its type before the loop, and
// one first assigned in both branches of an if a phi (PyPTO's escaping-variable
// promotion). See docs/passes/ConvertToSSA.md.
#ifndef PTO_COMPILER_PASSES_CONVERT_TO_SSA_H_
#define PTO_COMPILER_PASSES_CONVERT_TO_SSA_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class ConvertToSSAPass : public Pass {
 public:
  std::string_view name() const override { return "ConvertToSSA"; }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet invalidated() const override {
    return {IRProperty::kNormalizedStmtStructure};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateConvertToSSAPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CONVERT_TO_SSA_H_
