// Enumerations of the IR. Underlying values are ABI where the spec says so
// (docs/language.md): append only.
#ifndef PTO_COMPILER_IR_ENUMS_H_
#define PTO_COMPILER_IR_ENUMS_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto::ir {

// What a function is to the pipeline: an orchestration (runs on the host
// CPU and submits tasks), a kernel (InCore, and AIC / AIV once split by core
// type), or a form the pipeline removes (Inline, Opaque, Group, Spmd).
enum class FunctionType : uint8_t {
  kOpaque = 0,
  kOrchestration = 1,
  kInCore = 2,
  kAIC = 3,
  kAIV = 4,
  kGroup = 5,
  kSpmd = 6,
  kInline = 7,
  kGraph = 8,
};

// Where in the machine's hierarchy a function or scope runs, lowest first;
// the type implies the level (spec §1.2), so a conflicting pair is an error.
enum class Level : uint8_t {
  kAIV = 0,
  kAIC = 1,
  kCoreGroup = 2,
  kChipDie = 3,
  kChip = 4,
  kHost = 5,
  kCluster0 = 6,
  kCluster1 = 7,
  kCluster2 = 8,
  kGlobal = 9,
  kUndefined = 255,
};

// At a level above the chip: the function that schedules (Orchestrator) or
// one that does the work on a device (SubWorker).
enum class Role : uint8_t { kOrchestrator = 0, kSubWorker = 1 };

// A parameter's declared direction (pl.Out / pl.InOut); the runtime's
// dependency tracking needs to know which tensors a task writes.
enum class ParamDirection : uint8_t { kIn = 0, kOut = 1, kInOut = 2 };

// A call argument's direction as the runtime ABI takes it (derived per call
// by DeriveCallDirections): OutputExisting writes a tensor the caller
// allocated, NoDep is passed without creating a dependency.
enum class ArgDirection : uint8_t {
  kInput = 0,
  kOutput = 1,
  kInOut = 2,
  kOutputExisting = 3,
  kNoDep = 4,
  kScalar = 5,
};

enum class ForKind : uint8_t { kSequential = 0, kParallel = 1, kUnroll = 2, kPipeline = 3 };

enum class TensorLayout : uint8_t { kND = 0, kDN = 1, kNZ = 2, kMX_A_ZZ = 3, kMX_B_NN = 4 };

enum class PadValue : uint8_t { kNull = 0, kZero = 1, kMax = 2, kMin = 3 };

// PyPTO's names in parentheses: UB (Vec), L1 (Mat), L0A (Left), L0B (Right),
// L0C (Acc), Bias (the cube's bias table).
enum class MemorySpace : uint8_t {
  kDDR = 0,
  kUB = 1,
  kL1 = 2,
  kL0A = 3,
  kL0B = 4,
  kL0C = 5,
  kBias = 6
};

// The kind of a ScopeStmt; the values follow PyPTO's ScopeKind, with a gap
// where PyPTO has a kind we do not build.
enum class ScopeKind : uint8_t {
  kInCore = 0,
  kCluster = 2,
  kHierarchy = 3,
  kSpmd = 4,
  kRuntime = 5,
  kCommDomain = 6,
  kSplitAiv = 7,
};

// DSL spellings: `pl.FunctionType.<name>`, `pl.Level.<name>`, ... The From*
// parsers accept every alias the spec lists (Level L2CACHE, PROCESSOR, ...;
// Role in upper case).
std::string_view FunctionTypeName(FunctionType t);
std::optional<FunctionType> FunctionTypeFromName(std::string_view name);
std::string_view LevelName(Level l);
std::optional<Level> LevelFromName(std::string_view name);
std::string_view RoleName(Role r);
std::optional<Role> RoleFromName(std::string_view name);
std::string_view ParamDirectionName(ParamDirection d);
std::string_view ArgDirectionName(ArgDirection d);
std::optional<ArgDirection> ArgDirectionFromName(std::string_view name);
// PyPTO's short spelling `pl.adir.<name>`: input, output, inout, output_existing,
// no_dep, scalar.
std::optional<ArgDirection> ArgDirectionFromAdirName(std::string_view name);
std::string_view ForKindName(ForKind k);  // "range", "parallel", "unroll", "pipeline"
std::optional<ForKind> ForKindFromName(std::string_view name);
std::string_view TensorLayoutName(TensorLayout l);
std::optional<TensorLayout> TensorLayoutFromName(std::string_view name);
std::string_view PadValueName(PadValue p);
std::optional<PadValue> PadValueFromName(std::string_view name);
std::string_view MemorySpaceName(MemorySpace m);
// Accepts both spellings (UB or Vec, L1 or Mat, ...).
std::optional<MemorySpace> MemorySpaceFromName(std::string_view name);
// PyPTO's spelling (pl.MemorySpace.Vec, Mat, Left, Right, Acc, Bias, DDR), as a
// tile type prints its space.
std::string_view MemorySpacePyptoName(MemorySpace m);
// The cube buffers: Mat, Left, Right, Acc, Bias.
bool IsCubeSpace(MemorySpace m);

// Spec §1.2 predicates.
bool IsInCoreType(FunctionType t);       // InCore, AIC, AIV
bool IsWrapperType(FunctionType t);      // Group, Spmd
bool IsOrchestrationLike(FunctionType t);  // Orchestration, Graph

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_ENUMS_H_
