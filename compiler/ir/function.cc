#include "compiler/ir/function.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/ir/arena.h"
#include "compiler/support/diagnostics.h"

namespace pto::ir {

std::optional<Level> Function::DerivedLevel(FunctionType t) {
  switch (t) {
    case FunctionType::kOrchestration:
    case FunctionType::kGraph:
      return Level::kChip;
    case FunctionType::kInCore:
      return Level::kChipDie;
    case FunctionType::kAIC:
      return Level::kAIC;
    case FunctionType::kAIV:
      return Level::kAIV;
    case FunctionType::kGroup:
      return Level::kCoreGroup;
    default:
      return std::nullopt;
  }
}

std::optional<Role> Function::DerivedRole(FunctionType t) {
  switch (t) {
    case FunctionType::kOrchestration:
    case FunctionType::kGraph:
      return Role::kOrchestrator;
    case FunctionType::kInCore:
    case FunctionType::kAIC:
    case FunctionType::kAIV:
    case FunctionType::kGroup:
      return Role::kSubWorker;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<FunctionPtr> Function::Create(std::string name, std::vector<VarPtr> params,
                                             std::vector<ParamDirection> param_directions,
                                             std::vector<TypePtr> return_types, StmtPtr body,
                                             FunctionType func_type, std::optional<Level> level,
                                             std::optional<Role> role, AttrList attrs,
                                             bool requires_runtime_binding, Span span) {
  if (params.size() != param_directions.size()) {
    return UserError(span, "params and param_directions must have same size");
  }
  if (std::optional<Level> derived = DerivedLevel(func_type)) {
    if (level.has_value() && *level != *derived) {
      return UserErrorF(span, "Function '", name, "' has func_type=", FunctionTypeName(func_type),
                        " which implies level=", LevelName(*derived), ", but explicit level=",
                        LevelName(*level), " was provided");
    }
    level = derived;
  }
  if (std::optional<Role> derived = DerivedRole(func_type)) {
    if (role.has_value() && *role != *derived) {
      return UserErrorF(span, "Function '", name, "' has func_type=", FunctionTypeName(func_type),
                        " which implies role=", RoleName(*derived), ", but explicit role=",
                        RoleName(*role), " was provided");
    }
    role = derived;
  }
  return MakeNode<const Function>(Private{}, std::move(name), std::move(params),
                                          std::move(param_directions), std::move(return_types),
                                          std::move(body), func_type, level, role,
                                          std::move(attrs), requires_runtime_binding,
                                          std::move(span));
}

Function::Function(Private, std::string name, std::vector<VarPtr> params,
                   std::vector<ParamDirection> param_directions,
                   std::vector<TypePtr> return_types, StmtPtr body, FunctionType func_type,
                   std::optional<Level> level, std::optional<Role> role, AttrList attrs,
                   bool requires_runtime_binding, Span span)
    : Node(NodeKind::kFunction, std::move(span)),
      name_(std::move(name)),
      params_(std::move(params)),
      param_directions_(std::move(param_directions)),
      return_types_(std::move(return_types)),
      body_(std::move(body)),
      func_type_(func_type),
      level_(level),
      role_(role),
      attrs_(std::move(attrs)),
      requires_runtime_binding_(requires_runtime_binding) {}

FunctionPtr Function::WithBody(StmtPtr body) const {
  return MakeNode<const Function>(Private{}, name_, params_, param_directions_,
                                          return_types_, std::move(body), func_type_, level_,
                                          role_, attrs_, requires_runtime_binding_, span());
}

bool Function::IsHostOrch() const {
  return level_ == Level::kHost &&
         (func_type_ == FunctionType::kOrchestration || role_ == Role::kOrchestrator);
}

bool Function::IsChipOrch() const {
  return level_ == Level::kChip && func_type_ != FunctionType::kGraph &&
         (func_type_ == FunctionType::kOrchestration || role_ == Role::kOrchestrator);
}

absl::StatusOr<ProgramPtr> Program::Create(std::vector<FunctionPtr> functions, std::string name,
                                           Span span) {
  std::vector<std::pair<GlobalVarPtr, FunctionPtr>> entries;
  entries.reserve(functions.size());
  for (FunctionPtr& f : functions) {
    entries.emplace_back(MakeNode<GlobalVar>(f->name(), f->span()), std::move(f));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.first->name() < b.first->name();
  });
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].first->name() == entries[i - 1].first->name()) {
      return UserErrorF(entries[i].second->span(), "function '", entries[i].first->name(),
                        "' is defined more than once (GlobalVar names must be unique)");
    }
  }
  return MakeNode<const Program>(Private{}, std::move(entries), std::move(name),
                                         std::move(span));
}

Program::Program(Private, std::vector<std::pair<GlobalVarPtr, FunctionPtr>> functions,
                 std::string name, Span span)
    : Node(NodeKind::kProgram, std::move(span)),
      functions_(std::move(functions)),
      name_(std::move(name)) {}

FunctionPtr Program::GetFunction(std::string_view name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first->name() < n; });
  if (it != functions_.end() && it->first->name() == name) return it->second;
  return nullptr;
}

GlobalVarPtr Program::GetGlobalVar(std::string_view name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first->name() < n; });
  if (it != functions_.end() && it->first->name() == name) return it->first;
  return nullptr;
}

}  // namespace pto::ir
