// A program pass (XLA/MLIR style): it states the IR properties it needs, makes
// and breaks, and returns the input program object itself when it changed
// nothing, so callers can test "changed" by pointer.
#ifndef PTO_COMPILER_PASSES_PASS_H_
#define PTO_COMPILER_PASSES_PASS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"
#include "compiler/passes/ir_property.h"

namespace pto::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  // The CamelCase name of the seeds, e.g. "MaterializeCommDomainScopes".
  virtual std::string_view name() const = 0;
  virtual IRPropertySet required() const { return {}; }
  virtual IRPropertySet produced() const { return {}; }
  virtual IRPropertySet invalidated() const { return {}; }
  // Returns `program` itself when nothing changed; a located user error for a
  // bad program, an internal error for a broken invariant.
  virtual absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) = 0;
};

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PASS_H_
