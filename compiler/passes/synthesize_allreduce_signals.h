// SynthesizeAllReduceSignals (spec §3.9): gives every HOST-level
// `pld.tensor.allreduce(target)` written without a signal an explicit one,
// `[world_size, core_num]` INT32 in a fresh window allocation, so that
// MaterializeCommDomainScopes sees the signal as an ordinary window in the
// data's domain. A `return pld.tensor.allreduce(...)` is lifted into an
// assignment so HOST lowering can rewrite it. Only host orchestrators change.
#ifndef PTO_COMPILER_PASSES_SYNTHESIZE_ALLREDUCE_SIGNALS_H_
#define PTO_COMPILER_PASSES_SYNTHESIZE_ALLREDUCE_SIGNALS_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class SynthesizeAllReduceSignals : public Pass {
 public:
  std::string_view name() const override { return "SynthesizeAllReduceSignals"; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateSynthesizeAllReduceSignalsPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_SYNTHESIZE_ALLREDUCE_SIGNALS_H_
