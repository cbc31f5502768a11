// LowerCompositeOps (spec §3.3, collective part): expands every `pld.tensor.*`
// collective written in a kernel (non-orchestration) body into point-to-point
// primitives — `pld.system.notify/wait`, `pld.tile.put/get/remote_load`,
// `pl.tensor.read` and `pl.tile.*` — around a self-clearing credit barrier, so
// the collective is legal inside for/while/if. Orchestration bodies
// (func_type Orchestration or role Orchestrator) are skipped: their
// collectives belong to the HOST and CHIP rails.
#ifndef PTO_COMPILER_PASSES_LOWER_COMPOSITE_OPS_H_
#define PTO_COMPILER_PASSES_LOWER_COMPOSITE_OPS_H_

#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class LowerCompositeOps : public Pass {
 public:
  std::string_view name() const override { return "LowerCompositeOps"; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateLowerCompositeOpsPass();

namespace lower_composite_ops_internal {
// Misuses of the barrier emitter that no program can trigger; they exist so
// the INTERNAL diagnostics are tested. Each returns the emitter's status.
absl::Status EmitBarrierInNestedBuilderForTesting();
absl::Status EmitEpilogueResetTwiceForTesting();
}  // namespace lower_composite_ops_internal

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LOWER_COMPOSITE_OPS_H_
