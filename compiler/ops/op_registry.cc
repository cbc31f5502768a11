#include "compiler/ops/op_registry.h"

#include <algorithm>

#include "compiler/ir/arena.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::ops {

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterDistributedOps(*r);
    RegisterBuiltinOps(*r);
    RegisterTensorOps(*r);
    RegisterTileOps(*r);
    RegisterRuntimeOps(*r);
    RegisterPyptoSignatures(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpDef def) {
  def.op = std::make_shared<ir::Op>(def.name);
  auto owned = std::make_unique<OpDef>(std::move(def));
  const OpDef* p = owned.get();
  by_name_[p->name] = p;
  for (const std::string& a : p->aliases) by_name_[a] = p;
  defs_.push_back(std::move(owned));
}

void RegisterOp(OpRegistry& registry, std::string name, std::vector<std::string> aliases,
                OpCategory category, std::vector<ArgEffect> effects, TypeDeducer deduce) {
  OpDef def;
  def.name = std::move(name);
  def.aliases = std::move(aliases);
  def.category = category;
  def.effects = std::move(effects);
  def.deduce = std::move(deduce);
  registry.Register(std::move(def));
}

OpDef* OpRegistry::FindMutable(std::string_view name) {
  auto it = by_name_.find(ToAbsl(name));
  return it == by_name_.end() ? nullptr : const_cast<OpDef*>(it->second);
}

void OpRegistry::AddAlias(std::string alias, std::string_view target) {
  const OpDef* def = Find(target);
  if (def == nullptr || Find(alias) != nullptr) return;
  const_cast<OpDef*>(def)->aliases.push_back(alias);
  by_name_[std::move(alias)] = def;
}

const OpDef* OpRegistry::Find(std::string_view name) const {
  auto it = by_name_.find(ToAbsl(name));
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& d : defs_) names.push_back(d->name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<ir::CallPtr> OpRegistry::MakeCall(std::string_view name,
                                                 std::vector<ir::ExprPtr> args,
                                                 ir::AttrList kwargs, ir::AttrList attrs,
                                                 const Span& span) const {
  const OpDef* def = Find(name);
  if (def == nullptr) return UserErrorF(span, "unknown operator '", name, "'");
  RETURN_IF_ERROR(NormalizeCoreNum(def->name, args, kwargs, span));
  ASSIGN_OR_RETURN(ir::TypePtr type, def->deduce(CallSite{args, kwargs, span}));
  return ir::MakeNode<const ir::Call>(def->op, std::move(args), std::move(kwargs),
                                          std::move(attrs), std::move(type), span);
}

}  // namespace pto::ops
