#include "compiler/passes/pipeline.h"

namespace pto::passes {

void RegisterAllPasses(PassRegistry& registry) {
  // The default pipeline grows as the passes of spec §3.2 land; it lists only
  // passes that exist.
  registry.RegisterPipeline("default", {});
}

}  // namespace pto::passes
