// The outlining that OutlineHierarchyScopes, OutlineIncoreScopes and
// OutlineClusterScopes share (PyPTO's outline_utils): an execution scope
// becomes a function of the program whose parameters are the values the scope
// reads from before it (live-in) and whose results are the values it defines
// that are used after it; the scope becomes a call of that function.
#ifndef PTO_COMPILER_PASSES_SCOPE_OUTLINER_H_
#define PTO_COMPILER_PASSES_SCOPE_OUTLINER_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::passes {

struct OutlineSpec {
  std::string_view pass;  // for messages
  // Which scopes this pass outlines.
  std::function<bool(const ir::ExecScopeStmt&)> matches;
  // Which functions it looks into.
  std::function<bool(const ir::Function&)> eligible;
  // The type, level and role of the outlined function.
  std::function<ir::FunctionType(const ir::ExecScopeStmt&)> func_type;
  std::function<std::optional<ir::Level>(const ir::ExecScopeStmt&)> level;
  std::function<std::optional<ir::Role>(const ir::ExecScopeStmt&)> role;
  // The default name of the n-th scope outlined from `parent` (a non-empty
  // name_hint is used instead).
  std::function<std::string(const std::string& parent, const ir::ExecScopeStmt&, int n)>
      default_name;
  // Attrs of the call that replaces the scope (e.g. core_num of pl.spmd).
  std::function<ir::AttrList(const ir::ExecScopeStmt&)> call_attrs;
  // The statements that become the function body (default: the scope body)
  // and the attrs of the outlined function.
  std::function<ir::StmtPtr(const ir::ExecScopeStmt&)> body;
  std::function<ir::AttrList(const ir::ExecScopeStmt&)> func_attrs;
  // An Opaque parent that outlined a scope becomes an Orchestration function.
  bool promote_parent = false;
};

// Outlines every matching scope of every eligible function (the outlined
// functions too, so nested scopes are outlined inside their outer function).
// Returns `program` itself when no scope matched.
absl::StatusOr<ir::ProgramPtr> OutlineScopes(const ir::ProgramPtr& program,
                                             const OutlineSpec& spec);

// PyPTO's lower-case level spelling in outlined names ("chip", "core_group").
std::string LevelSuffix(ir::Level level);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_SCOPE_OUTLINER_H_
