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
#include "compiler/ir/op_id.h"
#include "compiler/ops/collective_def.h"
#include "compiler/ops/op_signature.h"

namespace pto::ops {

enum class OpCategory { kScalarOp, kTensorOp, kTileOp, kDistributedOp, kBuiltinOp, kControlOp };

// How an operator touches an argument (spec §2): Write means "overwritten, not
// updated" and must not make the enclosing parameter InOut.
enum class ArgEffect { kRead, kWrite, kReadWrite };

// The unit a kernel-side operator runs on (the AIC cube or the AIV vector
// unit); kNone for orchestration, system and scalar operators.
// kEither: data movement, allocation and block queries both cores run.
enum class ExecUnit : uint8_t { kNone, kVector, kCube, kEither };

// What a view's result is of its source, operand 0 (MLIR's
// ViewLikeOpInterface): every view shares the source's buffer, zero-copy.
enum class ViewKind : uint8_t {
  kNone,     // not a view
  kReshape,  // the same elements in the same row-major order (reshape, set_validshape)
  kWindow,   // a box of the source (view, slice, index): contiguous only when it
             // narrows the leading dimension alone
  kPermute,  // the source's elements in another order (transpose)
};

// The properties passes and code generation ask of an operator, instead of
// its name (op_traits.cc holds them; testdata/op_traits.txt lists them all).
struct OpTraits {
  ViewKind view = ViewKind::kNone;
  // Operands that name a peer's memory or signal (MLIR's memory-effect
  // resource): bit i set = operand i is accessed on a peer, with the effect
  // of OpDef::effects[i] (pld.tile.put writes operand 0 on the peer,
  // pld.tile.get reads operand 2 there).
  uint32_t peer_args = 0;
  // Part of inter-rank communication: peer operands, signals, waits on
  // them, the collectives and their builtin dispatches.
  bool communicates = false;
  ExecUnit unit = ExecUnit::kNone;
  // The operand the result is: a view's source (0), or the operand an
  // in-place update returns (pl.tile.store -> 2, pl.tensor.assemble -> 0, a
  // collective -> its target); -1 when the result is a new value.
  int8_t result_arg = -1;
  // An elementwise kernel operator whose result may take the buffer of an
  // operand it reads last: it reads each element before writing it
  // (tile_liveness). Not relu: its emission fills the result with 0s first.
  bool in_place_safe = false;
  // The operand an in-place update writes and returns (pl.tile.store -> 2,
  // pl.tensor.write and pl.tensor.assemble -> 0), so a pass traces the result
  // back to the buffer it is; -1 otherwise. Views and collectives alias an
  // operand too (result_arg) but do not update it element by element.
  int8_t updated_arg = -1;
  // A HOST-rail collective's chip dispatch (builtin.tensor.*): a builtin
  // kernel template runs it, the orchestrators call it as a task.
  bool host_dispatch = false;
  // A pl.tensor.* operator's pl.tile.* counterpart of the same name, and its
  // scalar-operand form (pl.tensor.add -> pl.tile.add / pl.tile.adds), which
  // ConvertTensorToTileOps picks; kUnknown when there is none.
  ir::OpId tile_form = ir::OpId::kUnknown;
  ir::OpId tile_scalar_form = ir::OpId::kUnknown;

  bool IsView() const { return view != ViewKind::kNone; }
  bool OnPeer(size_t arg) const { return arg < 32 && ((peer_args >> arg) & 1u) != 0; }
};

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
  ir::OpId id = ir::OpId::kUnknown;
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

  OpTraits traits;

  ArgEffect EffectOf(size_t arg_index) const {
    return arg_index < effects.size() ? effects[arg_index] : ArgEffect::kRead;
  }
  // OpTraits::updated_arg when the call has that operand.
  std::optional<size_t> UpdatedArg(size_t num_args) const {
    if (traits.updated_arg < 0 || static_cast<size_t>(traits.updated_arg) >= num_args) {
      return std::nullopt;
    }
    return static_cast<size_t>(traits.updated_arg);
  }
  // OpTraits::result_arg when the call has that operand.
  std::optional<size_t> AliasedArg(size_t num_args) const;
  // The first operand written in local memory (not on a peer).
  std::optional<size_t> LocalWrittenArg(size_t num_args) const;
  // Whether some operand is written on a peer.
  bool WritesPeer() const;
};

class OpRegistry {
 public:
  // The process-wide registry with every operator registered.
  static const OpRegistry& Global();

  // By canonical name or alias; nullptr if unknown.
  const OpDef* Find(std::string_view name) const;
  // By id (every id but kUnknown is registered); nullptr for kUnknown.
  const OpDef* Find(ir::OpId id) const;
  // The operator `call` calls (by its Op node's id); nullptr for a function call.
  const OpDef* Find(const ir::Call& call) const { return Find(call.op()->id()); }
  // Canonical names, sorted.
  std::vector<std::string> Names() const;

  // Builds a Call of `name` with its deduced type (user error if the name is
  // unknown or the deducer rejects the operands).
  absl::StatusOr<ir::CallPtr> MakeCall(std::string_view name, std::vector<ir::ExprPtr> args,
                                       ir::AttrList kwargs, ir::AttrList attrs,
                                       const Span& span) const;
  // The same by id (passes build calls without spelling the name).
  absl::StatusOr<ir::CallPtr> MakeCall(ir::OpId id, std::vector<ir::ExprPtr> args,
                                       ir::AttrList kwargs, ir::AttrList attrs,
                                       const Span& span) const {
    return MakeCall(ir::OpIdName(id), std::move(args), std::move(kwargs), std::move(attrs), span);
  }

  void Register(OpDef def);
  // The same for an operator of a CollectiveDef: its id is handed out here
  // (ir::AllocateOpId), as op_list.inc has no line for it.
  void RegisterCollectiveOp(OpDef def);
  // Aborts unless every OpId but kUnknown names a registered operator.
  void CheckEveryIdRegistered() const;
  // Mutable access while registering (attaching signatures).
  OpDef* FindMutable(std::string_view name);
  // Another spelling of a registered operator (`pl.load` for pl.tile.load).
  void AddAlias(std::string alias, std::string_view target);

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;
  std::vector<const OpDef*> by_id_;  // indexed by OpId
  absl::flat_hash_map<std::string, const OpDef*> by_name_;
};

// The traits of the operator `call` calls; all-default for a function call.
const OpTraits& TraitsOf(const ir::Call& call);
const OpTraits& TraitsOf(ir::OpId id);
// The registered operator of `call`; nullptr for a function call.
const OpDef* DefOf(const ir::Call& call);

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
// The same for a def (one without a HOST builtin too).
absl::Status CheckCollectiveDType(CollectiveRail rail, const CollectiveDef& def,
                                  ir::DataType dtype, std::string_view op, const Span& span);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_OP_REGISTRY_H_
