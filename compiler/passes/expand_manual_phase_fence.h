// ExpandManualPhaseFence (PyPTO pass 39): inside a manual runtime scope, a
// loop whose pl.submit consumers each wait for one whole, stable
// Array[N, TASK_ID] (N producers x M consumers edges) gets one
// dependency-only `pl.system.task_dummy(deps=[tids])` before the loop, and
// the consumers wait for that one task id instead (N + M edges). Only when
// N * M - (N + M) >= 1, and never when the array may change inside the loop
// (see docs/passes/ExpandManualPhaseFence.md for the fallbacks).
#ifndef PTO_COMPILER_PASSES_EXPAND_MANUAL_PHASE_FENCE_H_
#define PTO_COMPILER_PASSES_EXPAND_MANUAL_PHASE_FENCE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class ExpandManualPhaseFencePass : public Pass {
 public:
  std::string_view name() const override { return "ExpandManualPhaseFence"; }
  // As PyPTO declares it.
  IRPropertySet required() const override {
    return {IRProperty::kNoNestedCalls, IRProperty::kNormalizedStmtStructure,
            IRProperty::kCallDirectionsResolved};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kNoNestedCalls, IRProperty::kNormalizedStmtStructure,
            IRProperty::kCallDirectionsResolved};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateExpandManualPhaseFencePass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_EXPAND_MANUAL_PHASE_FENCE_H_
