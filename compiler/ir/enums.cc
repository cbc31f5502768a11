#include "compiler/ir/enums.h"

#include <string>
#include <utility>

namespace pto::ir {
namespace {

template <typename E, size_t N>
std::string_view NameOf(const std::pair<E, std::string_view> (&table)[N], E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> FromName(const std::pair<E, std::string_view> (&table)[N], std::string_view name) {
  for (const auto& [e, n] : table) {
    if (n == name) return e;
  }
  return std::nullopt;
}

constexpr std::pair<FunctionType, std::string_view> kFunctionTypes[] = {
    {FunctionType::kOpaque, "Opaque"},   {FunctionType::kOrchestration, "Orchestration"},
    {FunctionType::kInCore, "InCore"},   {FunctionType::kAIC, "AIC"},
    {FunctionType::kAIV, "AIV"},         {FunctionType::kGroup, "Group"},
    {FunctionType::kSpmd, "Spmd"},       {FunctionType::kInline, "Inline"},
    {FunctionType::kGraph, "Graph"},
};

// Canonical names first: NameOf returns the first match.
constexpr std::pair<Level, std::string_view> kLevels[] = {
    {Level::kAIV, "AIV"},
    {Level::kAIC, "AIC"},
    {Level::kCoreGroup, "CORE_GROUP"},
    {Level::kChipDie, "CHIP_DIE"},
    {Level::kChip, "CHIP"},
    {Level::kHost, "HOST"},
    {Level::kCluster0, "CLUSTER_0"},
    {Level::kCluster1, "CLUSTER_1"},
    {Level::kCluster2, "CLUSTER_2"},
    {Level::kGlobal, "GLOBAL"},
    {Level::kUndefined, "UNDEFINED"},
    {Level::kChipDie, "L2CACHE"},
    {Level::kChip, "PROCESSOR"},
    {Level::kChip, "UMA"},
    {Level::kHost, "NODE"},
    {Level::kCluster0, "POD"},
    {Level::kCluster1, "CLOS1"},
    {Level::kCluster2, "CLOS2"},
};

constexpr std::pair<Role, std::string_view> kRoles[] = {
    {Role::kOrchestrator, "Orchestrator"},
    {Role::kSubWorker, "SubWorker"},
    {Role::kOrchestrator, "ORCHESTRATOR"},
    {Role::kSubWorker, "SUBWORKER"},
    {Role::kSubWorker, "SUB_WORKER"},
};

constexpr std::pair<ParamDirection, std::string_view> kParamDirections[] = {
    {ParamDirection::kIn, "In"}, {ParamDirection::kOut, "Out"}, {ParamDirection::kInOut, "InOut"}};

constexpr std::pair<ArgDirection, std::string_view> kArgDirections[] = {
    {ArgDirection::kInput, "Input"},   {ArgDirection::kOutput, "Output"},
    {ArgDirection::kInOut, "InOut"},   {ArgDirection::kOutputExisting, "OutputExisting"},
    {ArgDirection::kNoDep, "NoDep"},   {ArgDirection::kScalar, "Scalar"},
};

constexpr std::pair<ForKind, std::string_view> kForKinds[] = {
    {ForKind::kSequential, "range"},
    {ForKind::kParallel, "parallel"},
    {ForKind::kUnroll, "unroll"},
    {ForKind::kPipeline, "pipeline"},
};

constexpr std::pair<TensorLayout, std::string_view> kLayouts[] = {
    {TensorLayout::kND, "ND"},           {TensorLayout::kDN, "DN"},
    {TensorLayout::kNZ, "NZ"},           {TensorLayout::kMX_A_ZZ, "MX_A_ZZ"},
    {TensorLayout::kMX_B_NN, "MX_B_NN"},
};

constexpr std::pair<PadValue, std::string_view> kPads[] = {
    {PadValue::kNull, "null"}, {PadValue::kZero, "zero"}, {PadValue::kMax, "max"},
    {PadValue::kMin, "min"}};

constexpr std::pair<MemorySpace, std::string_view> kSpaces[] = {
    {MemorySpace::kDDR, "DDR"}, {MemorySpace::kUB, "UB"},   {MemorySpace::kL1, "L1"},
    {MemorySpace::kL0A, "L0A"}, {MemorySpace::kL0B, "L0B"}, {MemorySpace::kL0C, "L0C"},
    {MemorySpace::kBias, "Bias"}};
constexpr std::pair<MemorySpace, std::string_view> kPyptoSpaces[] = {
    {MemorySpace::kDDR, "DDR"},   {MemorySpace::kUB, "Vec"},    {MemorySpace::kL1, "Mat"},
    {MemorySpace::kL0A, "Left"},  {MemorySpace::kL0B, "Right"}, {MemorySpace::kL0C, "Acc"},
    {MemorySpace::kBias, "Bias"}};

}  // namespace

std::string_view FunctionTypeName(FunctionType t) { return NameOf(kFunctionTypes, t); }
std::optional<FunctionType> FunctionTypeFromName(std::string_view n) {
  return FromName(kFunctionTypes, n);
}
std::string_view LevelName(Level l) { return NameOf(kLevels, l); }
std::optional<Level> LevelFromName(std::string_view n) { return FromName(kLevels, n); }
std::string_view RoleName(Role r) { return NameOf(kRoles, r); }
std::optional<Role> RoleFromName(std::string_view n) { return FromName(kRoles, n); }
std::string_view ParamDirectionName(ParamDirection d) { return NameOf(kParamDirections, d); }
std::string_view ArgDirectionName(ArgDirection d) { return NameOf(kArgDirections, d); }
std::optional<ArgDirection> ArgDirectionFromName(std::string_view n) {
  return FromName(kArgDirections, n);
}
std::optional<ArgDirection> ArgDirectionFromAdirName(std::string_view n) {
  // PyPTO's module-level spellings are the member names in lower case, with '_'
  // between words except in "inout".
  std::string folded;
  for (char c : n) {
    if (c >= 'A' && c <= 'Z') return std::nullopt;
    if (c != '_') folded += c;
  }
  for (const auto& [d, name] : kArgDirections) {
    std::string lower;
    for (char c : name) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower == folded) return d;
  }
  return std::nullopt;
}
std::string_view ForKindName(ForKind k) { return NameOf(kForKinds, k); }
std::optional<ForKind> ForKindFromName(std::string_view n) { return FromName(kForKinds, n); }
std::string_view TensorLayoutName(TensorLayout l) { return NameOf(kLayouts, l); }
std::optional<TensorLayout> TensorLayoutFromName(std::string_view n) {
  return FromName(kLayouts, n);
}
std::string_view PadValueName(PadValue p) { return NameOf(kPads, p); }
std::optional<PadValue> PadValueFromName(std::string_view n) { return FromName(kPads, n); }
std::string_view MemorySpaceName(MemorySpace m) { return NameOf(kSpaces, m); }
std::optional<MemorySpace> MemorySpaceFromName(std::string_view n) {
  std::optional<MemorySpace> m = FromName(kSpaces, n);
  return m ? m : FromName(kPyptoSpaces, n);
}
std::string_view MemorySpacePyptoName(MemorySpace m) { return NameOf(kPyptoSpaces, m); }
bool IsCubeSpace(MemorySpace m) {
  return m == MemorySpace::kL1 || m == MemorySpace::kL0A || m == MemorySpace::kL0B ||
         m == MemorySpace::kL0C || m == MemorySpace::kBias;
}

bool IsInCoreType(FunctionType t) {
  return t == FunctionType::kInCore || t == FunctionType::kAIC || t == FunctionType::kAIV;
}
bool IsWrapperType(FunctionType t) {
  return t == FunctionType::kGroup || t == FunctionType::kSpmd;
}
bool IsOrchestrationLike(FunctionType t) {
  return t == FunctionType::kOrchestration || t == FunctionType::kGraph;
}

}  // namespace pto::ir
