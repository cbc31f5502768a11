// The project's passes and pipelines (the one place that lists them).
#ifndef PTO_COMPILER_PASSES_PIPELINE_H_
#define PTO_COMPILER_PASSES_PIPELINE_H_

#include "compiler/passes/pass_registry.h"

namespace pto::passes {

// Registers every pass of the project and the "default" pipeline: only real
// passes, in the relative order of spec §3.2.
void RegisterAllPasses(PassRegistry& registry);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PIPELINE_H_
