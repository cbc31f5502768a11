// The operator registry: every `pl.*`, `pld.*` and `builtin.*` operator with its
// aliases, argument effects and type deducer. The parser asks it for the result
// type of each call it builds; passes ask it for effects.
#ifndef PTO_COMPILER_OPS_OP_REGISTRY_H_
#define PTO_COMPILER_OPS_OP_REGISTRY_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/ops/collective_def.h"
#include "compiler/ops/op_signature.h"

namespace pto::ops {

enum class OpCategory { kScalarOp, kTensorOp, kTileOp, kDistributedOp, kBuiltinOp, kControlOp };

// How an operator touches an argument (spec §2): Write means "overwritten, not
// updated" and must not make the enclosing parameter InOut.
enum class ArgEffect { kRead, kWrite, kReadWrite };

// Everything a deducer sees of a call being built.
struct CallSite {
  const std::vector<ir::ExprPtr>& args;
  const ir::AttrList& kwargs;
  const Span& span;
};

// Returns the call's result type, or a located user error whose text names the
// operator (spec §2 message texts).
using TypeDeducer = std::function<absl::StatusOr<ir::TypePtr>(const CallSite&)>;

// The typed dependency list of `what` (pl.submit, pl.system.task_dummy): every
// entry a Var of Scalar[TASK_ID] or Array[N, TASK_ID]; else a located error
// at the entry.
absl::Status CheckTaskDeps(const std::vector<ir::ExprPtr>& deps, std::string_view what);

// Rewrites a bound call's operands and keyword attributes to the operator's
// one IR form, where PyPTO's DSL wrapper computes an operand from another
// written form (alloc_window_buffer(shape, dtype=) is a byte size).
using Canonicalizer = std::function<absl::Status(std::vector<ir::ExprPtr>& args,
                                                 ir::AttrList& kwargs, const Span& span)>;

struct OpDef {
  std::string name;                  // canonical, e.g. "pld.tensor.window"
  std::vector<std::string> aliases;  // e.g. "pld.window"
  OpCategory category = OpCategory::kTensorOp;
  std::vector<ArgEffect> effects;  // per positional arg; missing = Read
  bool internal_only = false;      // created by passes only (builtin.tensor.*)
  std::string template_dir;        // builtin template package, if any
  TypeDeducer deduce;
  Canonicalizer canonicalize;  // may be empty: the written form is the IR form
  // PyPTO's signature (names, order, defaults); null for operators PyPTO does
  // not declare (builtin.*, the runtime operators passes insert).
  std::shared_ptr<const Signature> signature;
  // Our own IR form where it differs from PyPTO's (the InCore point-to-point
  // operators take their staging tile explicitly); the binder picks the form
  // whose operand kinds fit the call, so both read and our form prints.
  std::shared_ptr<const Signature> alt_signature;
  // The shared Op node used by every call of this operator.
  ir::OpPtr op;

  ArgEffect EffectOf(size_t arg_index) const {
    return arg_index < effects.size() ? effects[arg_index] : ArgEffect::kRead;
  }
};

class OpRegistry {
 public:
  // The process-wide registry with every operator registered.
  static const OpRegistry& Global();

  // By canonical name or alias; nullptr if unknown.
  const OpDef* Find(std::string_view name) const;
  // Canonical names, sorted.
  std::vector<std::string> Names() const;

  // Builds a Call of `name` with its deduced type (user error if the name is
  // unknown or the deducer rejects the operands).
  absl::StatusOr<ir::CallPtr> MakeCall(std::string_view name, std::vector<ir::ExprPtr> args,
                                       ir::AttrList kwargs, ir::AttrList attrs,
                                       const Span& span) const;

  void Register(OpDef def);
  // Mutable access while registering (attaching signatures).
  OpDef* FindMutable(std::string_view name);
  // Another spelling of a registered operator (`pl.load` for pl.tile.load).
  void AddAlias(std::string alias, std::string_view target);

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;
  absl::flat_hash_map<std::string, const OpDef*> by_name_;
};

// Dtypes the collective whose HOST builtin is `collective` ("allreduce" (mesh),
// "allreduce_ring", "reduce_scatter", "broadcast", "allgather", "all_to_all",
// "barrier", "all_to_all_v") accepts on `rail`, from its CollectiveDef:
// nullopt = any dtype, empty = not supported on that rail.
std::optional<std::vector<ir::DataType>> CollectiveDTypes(CollectiveRail rail,
                                                          std::string_view collective);
// Located user error "<op> supports FP32 on the HOST rail, got FP16" (or "is not
// supported on the CHIP rail") when the allowlist rejects `dtype`.
absl::Status CheckCollectiveDType(CollectiveRail rail, std::string_view collective,
                                  ir::DataType dtype, std::string_view op, const Span& span);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_OP_REGISTRY_H_
