// OutlineHierarchyScopes (PyPTO pass 07): every `with pl.at(level=..., role=...)`
// scope (a level other than CORE_GROUP) of an Opaque function becomes an
// Opaque function carrying that level and role
// (`<parent>_<level>[_<role>]_<n>`, or the scope's name_hint), called in its
// place. The parent keeps its type. See docs/passes/OutlineHierarchyScopes.md.
#ifndef PTO_COMPILER_PASSES_OUTLINE_HIERARCHY_SCOPES_H_
#define PTO_COMPILER_PASSES_OUTLINE_HIERARCHY_SCOPES_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class OutlineHierarchyScopesPass : public Pass {
 public:
  std::string_view name() const override { return "OutlineHierarchyScopes"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kHierarchyOutlined,
            IRProperty::kOrchestrationReferencesResolved};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateOutlineHierarchyScopesPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_OUTLINE_HIERARCHY_SCOPES_H_
