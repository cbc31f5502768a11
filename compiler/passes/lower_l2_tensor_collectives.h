// LowerL2TensorCollectives (docs/passes/LowerL2TensorCollectives.md): the
// CHIP/L2 managed rail. A pld.tensor.all_to_all_v (or indexed_all_to_all_v)
// written in a CHIP orchestration body becomes a call of a synthesized
// FunctionType.AIV kernel whose implementation is the builtin template, so the
// collective is one AIV task of the caller's own pipeline.
// See docs/passes/LowerL2TensorCollectives.md.
#ifndef PTO_COMPILER_PASSES_LOWER_L2_TENSOR_COLLECTIVES_H_
#define PTO_COMPILER_PASSES_LOWER_L2_TENSOR_COLLECTIVES_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/pass.h"

namespace pto::passes {

struct LowerL2TensorCollectivesOptions {
  // The target platform (passes::Target::platform); empty = pure IR, no
  // platform checks. pld.tensor.indexed_all_to_all_v needs URMA queues, so
  // a platform without them (Target::urma) rejects it, suggesting one of
  // `urma_platforms`.
  std::string platform;
  bool urma = false;
  std::vector<std::string> urma_platforms;
};

std::unique_ptr<Pass> CreateLowerL2TensorCollectivesPass(
    LowerL2TensorCollectivesOptions options = {});

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LOWER_L2_TENSOR_COLLECTIVES_H_
