// ClassifyIterArgCarry (PyPTO pass 45): decides, for every iter_arg of every
// for loop of a chip orchestration (FunctionType.Orchestration), whether the
// carried value is the same buffer the loop started with (a trivial alias:
// code generation names the init value) or another one (a rebind: code
// generation declares a carry variable and assigns it at the yield). The plan
// is stamped on the loop as `iter_arg_rebind_<i>` (every slot) and, for a
// TASK_ID carry inside a manual scope, `iter_arg_array_size_<i>` (the fence
// array's extent). A parallel loop that carries a TASK_ID in a manual scope
// must have a constant trip count (located error).
// See docs/passes/ClassifyIterArgCarry.md.
#ifndef PTO_COMPILER_PASSES_CLASSIFY_ITER_ARG_CARRY_H_
#define PTO_COMPILER_PASSES_CLASSIFY_ITER_ARG_CARRY_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "compiler/ir/stmt.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

class ClassifyIterArgCarryPass : public Pass {
 public:
  std::string_view name() const override { return "ClassifyIterArgCarry"; }
  // As PyPTO declares it.
  IRPropertySet required() const override {
    return {IRProperty::kCallDirectionsResolved, IRProperty::kRuntimeScopesMaterialized};
  }
  IRPropertySet produced() const override {
    return {IRProperty::kIterArgCarryClassified, IRProperty::kRuntimeScopesMaterialized};
  }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateClassifyIterArgCarryPass();

// The stamped plan of iter_arg `i` of `loop`, as code generation reads it:
// nullopt when the pass has not classified the loop.
std::optional<bool> IterArgIsRebind(const ir::ForStmt& loop, size_t i);
// The TASK_ID fence-array extent of iter_arg `i` (0: not an array carry).
int64_t IterArgArraySize(const ir::ForStmt& loop, size_t i);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CLASSIFY_ITER_ARG_CARRY_H_
