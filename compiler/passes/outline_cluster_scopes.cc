#include "compiler/passes/outline_cluster_scopes.h"

#include "compiler/passes/scope_outliner.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// The single pl.spmd scope a cluster body consists of, or nullptr.
std::shared_ptr<const ir::ExecScopeStmt> OnlySpmd(const ir::ExecScopeStmt& cluster) {
  ir::StmtPtr body = cluster.body();
  if (auto seq = ir::As<ir::SeqStmts>(body); seq != nullptr && seq->stmts().size() == 1) {
    body = seq->stmts()[0];
  }
  auto spmd = ir::As<ir::ExecScopeStmt>(body);
  return spmd != nullptr && spmd->GetScopeKind() == ir::ScopeKind::kSpmd ? spmd : nullptr;
}

ir::AttrList LaunchAttrs(const ir::ExecScopeStmt& spmd) {
  ir::AttrList attrs;
  if (spmd.core_num() != nullptr) attrs.emplace_back("core_num", spmd.core_num());
  if (spmd.sync_start()) attrs.emplace_back("sync_start", true);
  return attrs;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> OutlineClusterScopesPass::Run(const ir::ProgramPtr& program) {
  OutlineSpec spec;
  spec.pass = name();
  spec.matches = [](const ir::ExecScopeStmt& s) {
    return s.GetScopeKind() == ir::ScopeKind::kCluster || s.GetScopeKind() == ir::ScopeKind::kSpmd;
  };
  spec.eligible = [](const ir::Function& f) {
    return f.func_type() == ir::FunctionType::kOpaque ||
           f.func_type() == ir::FunctionType::kOrchestration ||
           f.func_type() == ir::FunctionType::kGroup;
  };
  spec.func_type = [](const ir::ExecScopeStmt& s) {
    return s.GetScopeKind() == ir::ScopeKind::kCluster ? ir::FunctionType::kGroup
                                                       : ir::FunctionType::kSpmd;
  };
  spec.level = [](const ir::ExecScopeStmt&) { return std::optional<ir::Level>(); };
  spec.role = [](const ir::ExecScopeStmt&) { return std::optional<ir::Role>(); };
  spec.default_name = [](const std::string& parent, const ir::ExecScopeStmt& s, int n) {
    return pto::StrCat(parent, s.GetScopeKind() == ir::ScopeKind::kCluster ? "_cluster_" : "_spmd_",
                       n);
  };
  spec.body = [](const ir::ExecScopeStmt& s) {
    auto spmd = s.GetScopeKind() == ir::ScopeKind::kCluster ? OnlySpmd(s) : nullptr;
    return spmd != nullptr ? spmd->body() : s.body();
  };
  spec.call_attrs = [](const ir::ExecScopeStmt& s) {
    if (s.GetScopeKind() == ir::ScopeKind::kSpmd) return LaunchAttrs(s);
    auto spmd = OnlySpmd(s);
    return spmd != nullptr ? LaunchAttrs(*spmd) : ir::AttrList{};
  };
  spec.func_attrs = [](const ir::ExecScopeStmt& s) {
    ir::AttrList attrs;
    if (s.GetScopeKind() == ir::ScopeKind::kCluster && OnlySpmd(s) != nullptr) {
      attrs.emplace_back("spmd_unwrapped", true);
    }
    return attrs;
  };
  return OutlineScopes(program, spec);
}

std::unique_ptr<Pass> CreateOutlineClusterScopesPass() {
  return std::make_unique<OutlineClusterScopesPass>();
}

}  // namespace pto::passes
