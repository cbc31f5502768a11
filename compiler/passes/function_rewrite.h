// The loop every body-rewriting pass shares: rewrite each function's body and
// rebuild the Program only when some body changed, so an untouched program
// comes back as the same object (spec §1.1).
#ifndef PTO_COMPILER_PASSES_FUNCTION_REWRITE_H_
#define PTO_COMPILER_PASSES_FUNCTION_REWRITE_H_

#include <functional>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::passes {

// `rewrite` returns the new body of a function (its current body to leave it
// alone) or an error, which stops the pass.
using BodyRewrite = std::function<absl::StatusOr<ir::StmtPtr>(const ir::FunctionPtr&)>;

absl::StatusOr<ir::ProgramPtr> RewriteFunctionBodies(const ir::ProgramPtr& program,
                                                     const BodyRewrite& rewrite);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_FUNCTION_REWRITE_H_
