#include "compiler/passes/var_cloner.h"

#include <memory>

namespace pto::passes {
namespace {

class FreshVarCloner : public ir::IRMutator {
 public:
  FreshVarCloner(std::string suffix, const absl::flat_hash_set<const ir::Var*>* keep)
      : suffix_(std::move(suffix)), keep_(keep) {}

 protected:
  ir::VarPtr MutateVarDef(const ir::VarPtr& var) override {
    if (ir::VarPtr done = LookupVarReplacement(var.get())) return done;
    if (keep_ != nullptr && keep_->contains(var.get())) return RemapVar(var);
    // The type (and an IterArg's init value) may name earlier fresh vars.
    ir::TypePtr type = MutateType(var->type());
    ir::VarPtr fresh;
    std::string name = var->name_hint() + suffix_;
    if (ir::IterArgPtr ia = ir::As<ir::IterArg>(var)) {
      fresh = std::make_shared<ir::IterArg>(std::move(name), type, MutateExpr(ia->init_value()),
                                            var->span());
    } else if (var->kind() == ir::NodeKind::kVar) {
      fresh = std::make_shared<ir::Var>(std::move(name), type, var->span());
    } else {
      return RemapVar(var);  // MemRef / WindowBuffer definitions keep their identity
    }
    SetVarReplacement(var, fresh);
    return fresh;
  }

 private:
  std::string suffix_;
  const absl::flat_hash_set<const ir::Var*>* keep_;
};

}  // namespace

ir::StmtPtr CloneWithFreshVars(const ir::StmtPtr& stmt, const ir::VarSubstMap& subst,
                               const std::string& suffix,
                               const absl::flat_hash_set<const ir::Var*>* keep) {
  ir::StmtPtr substituted = subst.empty() ? stmt : ir::Substitute(stmt, subst);
  FreshVarCloner cloner(suffix, keep);
  return cloner.MutateStmt(substituted);
}

}  // namespace pto::passes
