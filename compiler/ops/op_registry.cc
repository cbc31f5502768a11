#include "compiler/ops/op_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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
    AttachTraits(*r);
    r->CheckEveryIdRegistered();
    return r;
  }();
  return *registry;
}

namespace {

// A collective's Op node built by name before the registry still gets its id.
const bool kOpIdAllocatorSet = (ir::SetOpIdAllocator([] { OpRegistry::Global(); }), true);

[[noreturn]] void RegistryDefect(std::string_view what, std::string_view name) {
  // The registrations, compiler/ir/op_list.inc and the CollectiveDefs are ours and fixed; a
  // mismatch is a build defect, caught by every test that builds a call.
  std::fprintf(stderr, "operator registry: %s '%s' (compiler/ir/op_list.inc)\n",
               std::string(what).c_str(), std::string(name).c_str());
  std::abort();
}

}  // namespace

void OpRegistry::Register(OpDef def) {
  def.id = ir::OpIdFromName(def.name);
  if (def.id == ir::OpId::kUnknown) RegistryDefect("no OpId for the operator", def.name);
  def.op = std::make_shared<ir::Op>(def.name);
  auto owned = std::make_unique<OpDef>(std::move(def));
  const OpDef* p = owned.get();
  if (by_id_.size() < ir::NumOpIds()) by_id_.resize(ir::NumOpIds(), nullptr);
  if (by_id_[static_cast<size_t>(p->id)] != nullptr) RegistryDefect("registered twice", p->name);
  by_id_[static_cast<size_t>(p->id)] = p;
  by_name_[p->name] = p;
  for (const std::string& a : p->aliases) by_name_[a] = p;
  defs_.push_back(std::move(owned));
}

void OpRegistry::RegisterCollectiveOp(OpDef def) {
  ir::AllocateOpId(def.name);
  Register(std::move(def));
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

void OpRegistry::CheckEveryIdRegistered() const {
  for (size_t i = 1; i < ir::NumOpIds(); ++i) {
    if (i >= by_id_.size() || by_id_[i] == nullptr) {
      RegistryDefect("OpId without a registered operator", ir::OpIdName(static_cast<ir::OpId>(i)));
    }
  }
}

const OpDef* OpRegistry::Find(ir::OpId id) const {
  const size_t i = static_cast<size_t>(id);
  return i < by_id_.size() ? by_id_[i] : nullptr;
}

std::optional<size_t> OpDef::AliasedArg(size_t num_args) const {
  if (traits.result_arg < 0 || static_cast<size_t>(traits.result_arg) >= num_args) {
    return std::nullopt;
  }
  return static_cast<size_t>(traits.result_arg);
}

std::optional<size_t> OpDef::LocalWrittenArg(size_t num_args) const {
  for (size_t i = 0; i < num_args; ++i) {
    if (EffectOf(i) != ArgEffect::kRead && !traits.OnPeer(i)) return i;
  }
  return std::nullopt;
}

bool OpDef::WritesPeer() const {
  for (size_t i = 0; i < effects.size(); ++i) {
    if (effects[i] != ArgEffect::kRead && traits.OnPeer(i)) return true;
  }
  return false;
}

const OpDef* DefOf(const ir::Call& call) { return OpRegistry::Global().Find(call); }

const OpTraits& TraitsOf(ir::OpId id) {
  static const OpTraits kNone;
  const OpDef* def = OpRegistry::Global().Find(id);
  return def == nullptr ? kNone : def->traits;
}

const OpTraits& TraitsOf(const ir::Call& call) { return TraitsOf(call.op()->id()); }

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
