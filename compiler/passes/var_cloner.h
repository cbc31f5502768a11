// A copy of a statement in which every variable it defines is a fresh Var, so
// the copy can sit next to the original (or another copy) and the program
// stays in SSA form. Used where a body is replicated: inlining a function at
// each call site, unrolling a loop.
#ifndef PTO_COMPILER_PASSES_VAR_CLONER_H_
#define PTO_COMPILER_PASSES_VAR_CLONER_H_

#include <string>

#include "absl/container/flat_hash_set.h"

#include "compiler/ir/mutator.h"

namespace pto::passes {

// Copies `stmt` with fresh definitions named `<name><suffix>`; uses of the vars
// in `subst` (e.g. formal parameters, the loop variable) become their values.
// Vars defined outside `stmt` and not in `subst` are kept, and so are the
// Vars in `keep`: before ConvertToSSA a body may reassign a Var of the code
// around it, and every copy must assign that same Var.
ir::StmtPtr CloneWithFreshVars(const ir::StmtPtr& stmt, const ir::VarSubstMap& subst,
                               const std::string& suffix,
                               const absl::flat_hash_set<const ir::Var*>* keep = nullptr);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_VAR_CLONER_H_
