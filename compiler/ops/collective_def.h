// One description per collective (docs/operators.md, docs/collectives.md): its
// operands, what the result aliases, its signal and count operands, the rails
// that run it, the dtypes and reduce ops each rail allows, its launch-width
// rule, its builtin template and its default core_num. Every pass and the
// codegen look collectives up here instead of keeping their own table.
#ifndef PTO_COMPILER_OPS_COLLECTIVE_DEF_H_
#define PTO_COMPILER_OPS_COLLECTIVE_DEF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/enums.h"
#include "compiler/ir/expr.h"

namespace pto::ops {

// The collective rails of spec §2.6.
enum class CollectiveRail { kInCore, kHost, kChip };
std::string_view CollectiveRailName(CollectiveRail rail);

// ReduceOp ABI values of the `op` kwarg (spec §2.4).
enum class ReduceOp : int64_t { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };
// "sum", "max", "min", "prod" (variant suffixes, §3.11); "" outside [0, 3].
std::string_view ReduceOpName(int64_t op);

// What the public op accepts for an operand.
enum class CollectiveOperandKind {
  kTensor,  // Tensor-like (a plain Tensor or a window view)
  kWindow,  // a DistributedTensor (window view)
};

// How an operand is used (spec §2 effects): Write = overwritten, not updated.
enum class OperandUse { kRead, kWrite, kReadWrite };

struct CollectiveOperand {
  std::string_view role;
  CollectiveOperandKind kind;
  OperandUse use;
};

// How the entry (or the compile-time fold) turns the requested block limit L
// into the launched width B (common/launch_width.h).
enum class LaunchWidthRule {
  kOneBlock,    // always one block; core_num is not an operand
  kOneShot,     // mesh allreduce: B = min(L, P + 1) (RFC #2521, HCCL one-shot)
  kPerPeer,     // allgather, all_to_all: B = P, one block per peer; core_num is not an operand
  kAllToAllV,   // B = CalAllToAllVBlocks(P, L)
};

struct CollectiveDef {
  std::string_view op;    // public op, e.g. "pld.tensor.allreduce"
  std::string_view mode;  // value of the `mode` kwarg this entry covers ("" = any)
  // Suffix of the HOST builtin op and name of its template package
  // (runtime/builtins/<builtin>); "" when the HOST rail has no builtin.
  std::string_view builtin;
  // Tensor operands in argument order (a positional core_num is not one).
  std::vector<CollectiveOperand> operands;
  size_t alias_arg;                 // the operand the result aliases
  size_t signal_arg;                // the INT32 signal window
  std::vector<size_t> count_args;   // send_counts / recv_counts
  std::optional<size_t> core_num_arg;  // positional index core_num may take
  bool rails[3];                    // indexed by CollectiveRail
  // Dtypes per rail: nullopt = whatever the point-to-point primitives accept.
  std::optional<std::vector<ir::DataType>> dtypes[3];
  // Reduce ops the `op` kwarg may take on each rail (empty: no `op` kwarg).
  std::vector<ReduceOp> reduce_ops[3];
  bool has_root = false;  // broadcast's `root` kwarg
  // HOST rail: the signal may have more lanes than the required count.
  bool wider_signal = false;
  LaunchWidthRule launch_width = LaunchWidthRule::kOneBlock;
  int64_t default_core_num = 1;

  bool OnRail(CollectiveRail r) const { return rails[static_cast<int>(r)]; }
  const std::optional<std::vector<ir::DataType>>& DTypes(CollectiveRail r) const {
    return dtypes[static_cast<int>(r)];
  }
  const std::vector<ReduceOp>& ReduceOps(CollectiveRail r) const {
    return reduce_ops[static_cast<int>(r)];
  }
  bool IsCountArg(size_t i) const;
  // "builtin.tensor.<builtin>".
  std::string BuiltinOpName() const;
  // ":pypto.runtime.builtins.collectives.<builtin>" (spec §2.5).
  std::string TemplateDir() const;
};

// Every collective, in a fixed order.
const std::vector<CollectiveDef>& Collectives();

// The collective a public op name (canonical or alias) names: for allreduce
// the mesh entry. nullptr for any other name.
const CollectiveDef* FindCollective(std::string_view op_name);
// The entry a call selects (allreduce: by its `mode` kwarg); nullptr when the
// call is not a public collective (a function call, another op, null).
const CollectiveDef* FindCollective(const ir::CallPtr& call);
// The entry whose HOST builtin is `builtin` ("allreduce_ring"); nullptr if none.
const CollectiveDef* FindCollectiveByBuiltin(std::string_view builtin);

// The requested block limit L of a collective call: the `core_num` kwarg the
// deducer normalised (an int, or an expression when dynamic), else the
// collective's default. nullptr-free: a dynamic value is returned as its Expr.
struct CoreNum {
  std::optional<int64_t> value;  // set when known at compile time
  ir::ExprPtr expr;              // set when dynamic
};
CoreNum CollectiveCoreNum(const CollectiveDef& def, const ir::Call& call);

// Run by OpRegistry::MakeCall before the deducer of a collective with a
// positional core_num (all_to_all_v's 6th operand): moves it into the
// `core_num` kwarg (an int when constant, else the expression), so passes see
// one spelling. A located user error when both spellings are given.
absl::Status NormalizeCoreNum(std::string_view op, std::vector<ir::ExprPtr>& args,
                              ir::AttrList& kwargs, const Span& span);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_COLLECTIVE_DEF_H_
