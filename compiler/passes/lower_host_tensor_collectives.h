// LowerHostTensorCollectives (docs/passes/LowerHostTensorCollectives.md): in every HOST
// orchestrator, replaces each public pld.tensor.* collective with one
// builtin.tensor.* chip dispatch per participating device of its comm domain.
// See docs/passes/LowerHostTensorCollectives.md.
#ifndef PTO_COMPILER_PASSES_LOWER_HOST_TENSOR_COLLECTIVES_H_
#define PTO_COMPILER_PASSES_LOWER_HOST_TENSOR_COLLECTIVES_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "compiler/passes/pass.h"

namespace pto::passes {

struct LowerHostTensorCollectivesOptions {
  // AIV cores of the configured backend. When set, a mesh allreduce whose
  // core_num exceeds it is rejected (a sync-start launch above capacity would
  // hang); unset (pure-IR use) skips the check.
  std::optional<int64_t> backend_aiv_core_count;
};

std::unique_ptr<Pass> CreateLowerHostTensorCollectivesPass(
    LowerHostTensorCollectivesOptions options = {});

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LOWER_HOST_TENSOR_COLLECTIVES_H_
