#include "compiler/passes/pipeline.h"

#include "compiler/passes/lower_composite_ops.h"
#include "compiler/passes/auto_derive_task_dependencies.h"
#include "compiler/passes/derive_call_directions.h"
#include "compiler/passes/insert_comm_fence.h"
#include "compiler/passes/legalize_spmd_launches.h"
#include "compiler/passes/lower_host_tensor_collectives.h"
#include "compiler/passes/lower_l2_tensor_collectives.h"
#include "compiler/passes/materialize_comm_domain_scopes.h"
#include "compiler/passes/materialize_dist_tensor_ctx.h"
#include "compiler/passes/simplify.h"
#include "compiler/passes/synthesize_allreduce_signals.h"

namespace pto::passes {

void RegisterAllPasses(PassRegistry& registry) {
  registry.RegisterPass("LowerCompositeOps", [] { return CreateLowerCompositeOpsPass(); });
  registry.RegisterPass("LowerL2TensorCollectives", [](const Target& target) {
    return CreateLowerL2TensorCollectivesPass({.platform = target.platform,
                                               .urma = target.urma,
                                               .urma_platforms = target.urma_platforms});
  });
  registry.RegisterPass("SynthesizeAllReduceSignals",
                        [] { return CreateSynthesizeAllReduceSignalsPass(); });
  registry.RegisterPass("MaterializeCommDomainScopes",
                        [] { return CreateMaterializeCommDomainScopesPass(); });
  registry.RegisterPass("LowerHostTensorCollectives", [](const Target& target) {
    return CreateLowerHostTensorCollectivesPass({.backend_aiv_core_count = target.aiv_cores});
  });
  registry.RegisterPass("MaterializeDistTensorCtx",
                        [] { return CreateMaterializeDistTensorCtxPass(); });
  registry.RegisterPass("Simplify", [] { return CreateSimplifyPass(); });
  registry.RegisterPass("LegalizeSpmdLaunches", [] { return CreateLegalizeSpmdLaunchesPass(); });
  registry.RegisterPass("DeriveCallDirections", [] { return CreateDeriveCallDirectionsPass(); });
  registry.RegisterPass("AutoDeriveTaskDependencies",
                        [] { return CreateAutoDeriveTaskDependenciesPass(); });
  registry.RegisterPass("InsertCommFence", [] { return CreateInsertCommFencePass(); });
  // The default pipeline grows as the passes of spec §3.2 land; it lists only
  // passes that exist.
  registry.RegisterPipeline("default",
                            {"LowerCompositeOps", "LowerL2TensorCollectives", "LegalizeSpmdLaunches", "DeriveCallDirections",
                             "AutoDeriveTaskDependencies", "SynthesizeAllReduceSignals", "MaterializeCommDomainScopes",
                             "LowerHostTensorCollectives", "MaterializeDistTensorCtx",
                             "Simplify", "InsertCommFence"});
}

}  // namespace pto::passes
