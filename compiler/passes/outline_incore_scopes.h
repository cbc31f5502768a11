// OutlineIncoreScopes (PyPTO pass 08): every `with pl.at(level=
// pl.Level.CORE_GROUP)` scope of an Opaque, Orchestration or Group function
// becomes an InCore function (`<parent>_incore_<n>`, or the scope's
// name_hint) called in its place; its parameters are the values the scope
// reads, In / Out / InOut by what the body does with them, and its results
// the values used after the scope. An Opaque parent becomes an Orchestration
// function. See docs/passes/OutlineIncoreScopes.md.
#ifndef PTO_COMPILER_PASSES_OUTLINE_INCORE_SCOPES_H_
#define PTO_COMPILER_PASSES_OUTLINE_INCORE_SCOPES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class OutlineIncoreScopesPass : public Pass {
 public:
  std::string_view name() const override { return "OutlineIncoreScopes"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateOutlineIncoreScopesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_OUTLINE_INCORE_SCOPES_H_
