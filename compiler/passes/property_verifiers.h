// Verifiers of the IR properties that passes claim to produce (spec §1.9). The
// pass manager runs the verifier of every property a pass produces after that
// pass when verify_each is on.
#ifndef PTO_COMPILER_PASSES_PROPERTY_VERIFIERS_H_
#define PTO_COMPILER_PASSES_PROPERTY_VERIFIERS_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/passes/ir_property.h"

namespace pto::passes {

// Checks that `program` has property `property`. OK for properties without a
// verifier. A violation is an internal error (a pass broke its contract),
// located at the offending node.
absl::Status VerifyProperty(IRProperty property, const ir::ProgramPtr& program);

// Whether VerifyProperty checks `property` (the others are only tracked).
bool HasPropertyVerifier(IRProperty property);

// CommDomainScopesMaterialized over an already collected list of scopes (in
// program order): no null scope, every scope has at least one non-null slot,
// and no WindowBuffer is a slot of two scopes. Exposed for tests.
absl::Status VerifyCommDomainScopes(
    const std::vector<std::shared_ptr<const ir::CommDomainScopeStmt>>& scopes);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PROPERTY_VERIFIERS_H_
