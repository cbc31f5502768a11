// UnrollLoops (PyPTO pass 02): replaces every `pl.unroll` loop with one copy of
// its body per iteration, the loop variable a constant in each copy. Loop-
// carried values flow from each copy's yield into the next copy; the loop's
// results are the last copy's yields. See docs/passes/UnrollLoops.md.
#ifndef PTO_COMPILER_PASSES_UNROLL_LOOPS_H_
#define PTO_COMPILER_PASSES_UNROLL_LOOPS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class UnrollLoopsPass : public Pass {
 public:
  std::string_view name() const override { return "UnrollLoops"; }
  IRPropertySet produced() const override { return {IRProperty::kUnrollResolved}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateUnrollLoopsPass();

// The most copies one pl.unroll loop may make (a larger trip count is a
// located error rather than a program that exhausts memory).
inline constexpr int64_t kMaxUnrollTrips = 4096;

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_UNROLL_LOOPS_H_
