// AutoDeriveTaskDependencies (docs/passes/AutoDeriveTaskDependencies.md): turns the call
// directions of an orchestration body into the task edges the runtime
// TensorMap would find (read-after-write, write-after-write, write-after-read
// on one buffer), and records the statically encodable ones on the consumer
// call as `compiler_manual_dep_edges` (the Vars bound to the producer tasks'
// results). This is what orders stage -> collective -> consume on the CHIP
// rail. MANUAL runtime scopes are left alone; a hazard whose producer has no
// name in scope (a statement without a result, a task inside another loop or
// branch) is left to runtime tracking. See docs/passes/AutoDeriveTaskDependencies.md.
#ifndef PTO_COMPILER_PASSES_AUTO_DERIVE_TASK_DEPENDENCIES_H_
#define PTO_COMPILER_PASSES_AUTO_DERIVE_TASK_DEPENDENCIES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

inline constexpr char kAttrCompilerManualDepEdges[] = "compiler_manual_dep_edges";

class AutoDeriveTaskDependenciesPass : public Pass {
 public:
  std::string_view name() const override { return "AutoDeriveTaskDependencies"; }
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kCallDirectionsResolved};
  }
  IRPropertySet produced() const override { return {IRProperty::kCallDirectionsResolved}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateAutoDeriveTaskDependenciesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_AUTO_DERIVE_TASK_DEPENDENCIES_H_
