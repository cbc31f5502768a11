// NormalizeReturnOrder (PyPTO pass 25): a kernel or wrapper that returns a
// tensor it wrote through a parameter returns that parameter itself
// (ReturnParamsExplicit), and an InCore kernel's returns follow the order of
// its Out / InOut parameters, the callers' tuple indices remapped to match.
// See docs/passes/NormalizeReturnOrder.md.
#ifndef PTO_COMPILER_PASSES_NORMALIZE_RETURN_ORDER_H_
#define PTO_COMPILER_PASSES_NORMALIZE_RETURN_ORDER_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class NormalizeReturnOrderPass : public Pass {
 public:
  std::string_view name() const override { return "NormalizeReturnOrder"; }
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kSSAForm, IRProperty::kReturnParamsExplicit};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateNormalizeReturnOrderPass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_NORMALIZE_RETURN_ORDER_H_
