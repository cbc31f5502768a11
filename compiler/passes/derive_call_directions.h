// DeriveCallDirections (docs/passes/DeriveCallDirections.md): gives every kernel call
// (a call of a Program function) and every managed collective call of an
// orchestration body its per-argument `arg_directions`, from the callee's
// parameter directions (kernel calls) or the operator's argument effects
// (collectives), with the R-seq / R-prior / R-enclosing rules for Out
// parameters. Pre-populated vectors are authoritative. Phase 0 first widens the
// parameter directions of Group/Spmd wrappers to what their bodies do.
// See docs/passes/DeriveCallDirections.md.
#ifndef PTO_COMPILER_PASSES_DERIVE_CALL_DIRECTIONS_H_
#define PTO_COMPILER_PASSES_DERIVE_CALL_DIRECTIONS_H_

#include <memory>

#include "absl/status/status.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class DeriveCallDirectionsPass : public Pass {
 public:
  std::string_view name() const override { return "DeriveCallDirections"; }
  // As PyPTO declares it: OutlineIncoreScopes produces SplitIncoreOrch, and
  // its verifier accepts a program whose kernels are written as functions.
  IRPropertySet required() const override { return {IRProperty::kSplitIncoreOrch}; }
  IRPropertySet produced() const override { return {IRProperty::kCallDirectionsResolved}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateDeriveCallDirectionsPass();

// The CallDirectionsResolved check: every kernel call with arguments and every
// managed collective call outside InCore bodies carries `arg_directions` with
// one entry per argument. Internal error at the first offending call.
absl::Status VerifyCallDirectionsResolved(const ir::ProgramPtr& program);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_DERIVE_CALL_DIRECTIONS_H_
