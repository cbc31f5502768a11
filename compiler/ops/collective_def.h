// One description per collective (docs/operators.md, docs/collectives.md): its
// operands, what the result aliases, its signal and count operands, the rails
// that run it, the dtypes and reduce ops each rail allows, its launch-width
// rule, its builtin template and its default core_num. Every pass and the
// codegen look collectives up here instead of keeping their own table.
#ifndef PTO_COMPILER_OPS_COLLECTIVE_DEF_H_
#define PTO_COMPILER_OPS_COLLECTIVE_DEF_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/launch_width.h"
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
  // Peers read it through the window (send_counts): on the CHIP rail it must
  // trace to a window even where the kernel takes a plain tensor.
  bool peers_read = false;
  // A single [1, SIZE] row (allgather's input), not an [NR, SIZE] window.
  bool row = false;
  // PyPTO's parameter name where it differs from `role` (allgather's
  // local_data): the name a keyword argument binds to.
  std::string_view param = {};
};

// What every rank holds after the call, as the golden models of
// testing/reference compute it. Tests pick their expected values, and the
// bench its bus-bandwidth factor and alpha-beta bound, by the pattern (and
// `ring_signal` for the ring algorithm), never by the collective's name.
enum class CollectivePattern {
  kAllReduce,      // every rank: the fold over ranks of the whole buffer
  kReduceScatter,  // rank r: the fold over ranks of row r
  kBroadcast,      // every rank: the root's buffer
  kBarrier,        // no data moves
  kAllGather,      // every rank: every rank's row, in rank order
  kAllToAll,       // rank r, row s: rank s's row r
  kAllToAllV,      // the counted exchange: rows and their counts
};

struct CallSite;  // op_registry.h
struct CollectiveDef;
// A collective's own operand rules beyond kinds, arity and core_num (shapes,
// signal layout, kwargs): the public op's and its HOST builtin's.
using CollectiveCheck = absl::Status (*)(const CollectiveDef&, const CallSite&);

// How L becomes B: the rule of common/launch_width.h, which the HOST entries
// apply at run time and the CHIP rail at compile time.
using LaunchWidthRule = pto::LaunchWidthRule;

struct CollectiveDef {
  std::string_view op;    // public op, e.g. "pld.tensor.allreduce"
  std::string_view mode;  // value of the `mode` kwarg this entry covers ("" = any)
  CollectivePattern pattern;
  // Suffix of the HOST builtin op and name of its template package
  // (runtime/builtins/<builtin>); "" when the HOST rail has no builtin.
  std::string_view builtin;
  // Template package of the CHIP rail's synthesized kernel ("" off that rail).
  std::string_view chip_package;
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
  // The public op accepts a call without its signal (allreduce: synthesized
  // by SynthesizeAllReduceSignals).
  bool signal_optional = false;
  // One signal row per ring step ([2(P-1)+1, P] on the HOST rail, [2(P-1), P]
  // InCore) instead of one cell per rank.
  bool ring_signal = false;
  // Runs only on the A5 URMA PER_PEER queues (spec §5).
  bool urma_only = false;
  LaunchWidthRule launch_width = LaunchWidthRule::kOneBlock;
  int64_t default_core_num = 1;
  CollectiveCheck check = nullptr;          // the public op's (the op's first entry)
  CollectiveCheck builtin_check = nullptr;  // its HOST builtin's

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
  // The same handle for the CHIP rail's package.
  std::string ChipTemplateDir() const;
  // The CHIP rail's kernel of one dtype: "__builtin_<chip_package>__<dtype>"
  // (spec §3.4: "__builtin_all_to_all_v__fp32").
  std::string ChipKernelName(std::string_view dtype_suffix) const;
  // "pld.<name>" for "pld.tensor.<name>": the short spelling PyPTO accepts.
  std::string Alias() const;
  // The kernel config / HOST entry signature: IN for a read-only operand,
  // OUT for the rest ("[IN, OUT, OUT]").
  std::string Signature() const;
  // The HOST entry's read-only flags as C++ ("{true, false, false}").
  std::string ReadOnlyCpp() const;
  // An input operand besides the one the result aliases, the signal and the
  // counts (allgather's row, all_to_all's input): the index, or nullopt.
  std::optional<size_t> InputArg() const;
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

// A located user error when the call's `mode` kwarg names none of the entries
// of its op ("pld.tensor.allreduce mode must be \"mesh\" or \"ring\", got
// \"tree\""); OK for an op with one entry or no mode.
absl::Status CheckCollectiveMode(const ir::Call& call);

// PyPTO's signature of the public op `def.op`, in the compact form of
// compiler/ops/pypto_signatures.inc, derived from its def(s): the operands in
// order (the signal `= None` when optional), a positional core_num, then the
// keywords op (when a rail takes a reduce op), mode (when the op has several
// entries; the first is the default), root and core_num (when the launch rule
// takes it). The registry attaches it to the op, so the front end binds a
// collective's arguments from its def alone.
std::string CollectiveSignatureText(const CollectiveDef& def);

// What a written call of a collective names: a variable per operand and the
// values of the kwargs its def takes.
struct CallSpelling {
  std::function<std::string(const CollectiveOperand&)> operand;  // the variable
  int64_t op = 0;        // the reduce op, when the def takes one on the rail
  int64_t root = 0;      // when the def has a root
  int64_t core_num = 1;  // when the def's launch rule takes it
  // The variable the result is bound to: nullopt = the aliased operand's;
  // "" = none (a statement, as InCore kernels write barrier).
  std::optional<std::string> result;
};
// "<target> = pld.tensor.<name>(<operands>[, op=..][, mode=".."][, root=..]
// [, core_num=..])" on `rail`: the call syntax tests and the bench tool write.
// mode is spelled for every mode but the op's first (default) one; core_num
// off the InCore rail only (a kernel launches nothing).
std::string CollectiveCallText(const CollectiveDef& def, CollectiveRail rail,
                               const CallSpelling& spelling);

// The requested block limit L of a collective call: the `core_num` kwarg the
// deducer normalised (an int, or an expression when dynamic), else the
// collective's default. nullptr-free: a dynamic value is returned as its Expr.
struct CoreNum {
  std::optional<int64_t> value;  // set when known at compile time
  ir::ExprPtr expr;              // set when dynamic
};
CoreNum CollectiveCoreNum(const CollectiveDef& def, const ir::Call& call);
// The same decoder over a kwarg / attr value (nullptr = absent).
CoreNum DecodeCoreNum(const ir::AttrValue* v, int64_t default_value);

// The one compile-time check of a written core_num: an int in
// [1, INT32_MAX] (CheckRequestedCoreNum, which the HOST entries apply to a
// runtime value) or a scalar expression. Located at `span`, naming `op`.
absl::Status CheckCoreNum(std::string_view op, const ir::AttrList& kwargs, const Span& span);

// Run by OpRegistry::MakeCall before the deducer of a collective with a
// positional core_num (all_to_all_v's 6th operand): moves it into the
// `core_num` kwarg (an int when constant, else the expression), so passes see
// one spelling. A located user error when both spellings are given.
absl::Status NormalizeCoreNum(std::string_view op, std::vector<ir::ExprPtr>& args,
                              ir::AttrList& kwargs, const Span& span);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_COLLECTIVE_DEF_H_
