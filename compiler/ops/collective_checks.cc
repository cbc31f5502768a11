#include "compiler/ops/collective_checks.h"

#include <optional>
#include <string>
#include <string_view>

#include "compiler/ir/structural_equal.h"
#include "compiler/ops/deduce_util.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops::checks {
namespace {

using ir::DataType;
using DT = std::shared_ptr<const ir::DistributedTensorType>;

std::optional<int64_t> ConstDim(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return c->value();
  return std::nullopt;
}

std::shared_ptr<const ir::TensorType> TypeOf(const CallSite& s, size_t i) {
  return ir::AsTensorTypeLike(s.args[i]->type());
}

// The builtin's i-th operand (its deducer has checked it is a window view).
DT Window(const CallSite& s, size_t i) { return ir::As<ir::DistributedTensorType>(s.args[i]->type()); }

absl::Status Int32Signal(const CallSite& s, size_t i, std::string_view op) {
  auto t = TypeOf(s, i);
  if (t->dtype() != DataType::kInt32) {
    return UserErrorF(ArgSpan(s, i), op, " signal must be INT32, got ", ir::DataTypeName(t->dtype()));
  }
  return absl::OkStatus();
}

absl::Status ReduceOpKwarg(const CallSite& s, std::string_view op) {
  int64_t v = ir::GetAttr<int64_t>(s.kwargs, "op").value_or(0);
  if (v < 0 || v > 3) {
    return UserErrorF(s.span, op, " op must be a ReduceOp in [0, 3] (Sum, Max, Min, Prod), got ",
                      v);
  }
  return absl::OkStatus();
}

// The operand's dtype is one some rail of the collective accepts; each rail's
// pass checks its own list.
absl::Status DTypeOnSomeRail(const CollectiveDef& d, const CallSite& s, size_t i) {
  const CollectiveDef* def = &d;
  const std::string_view op = d.op;
  DataType dt = TypeOf(s, i)->dtype();
  std::string list;
  for (CollectiveRail rail : {CollectiveRail::kInCore, CollectiveRail::kHost}) {
    const std::optional<std::vector<DataType>>& allowed = def->DTypes(rail);
    if (!def->OnRail(rail)) continue;
    if (!allowed) return absl::OkStatus();
    for (DataType d : *allowed) {
      if (d == dt) return absl::OkStatus();
      if (list.find(ir::DataTypeName(d)) == std::string::npos) {
        list += pto::StrCat(list.empty() ? "" : ", ", ir::DataTypeName(d));
      }
    }
  }
  return UserErrorF(ArgSpan(s, i), op, " target dtype must be one of ", list, ", got ",
                    ir::DataTypeName(dt));
}

// An operand view the kernels can address as packed row-major ND memory.
absl::Status CheckPackedND(const CallSite& s, size_t i, std::string_view op,
                           std::string_view role) {
  auto t = TypeOf(s, i);
  if (!t->tensor_view()) return absl::OkStatus();
  const ir::TensorView& v = *t->tensor_view();
  if (v.layout != ir::TensorLayout::kND) {
    return UserErrorF(ArgSpan(s, i), op, " ", role, " must have ND layout");
  }
  if (!v.stride.empty()) {
    int64_t expect = 1;
    for (size_t k = t->shape().size(); k-- > 0;) {
      std::optional<int64_t> st = k < v.stride.size() ? ConstDim(v.stride[k]) : std::nullopt;
      if (v.stride.size() != t->shape().size() || !st || *st != expect) {
        return UserErrorF(ArgSpan(s, i), op, " ", role,
                          " must be packed (compact row-major stride)");
      }
      std::optional<int64_t> d = ConstDim(t->shape()[k]);
      if (!d) break;
      expect *= *d;
    }
  }
  if (!v.valid_shape.empty()) {
    return UserErrorF(ArgSpan(s, i), op, " ", role,
                      " must not have a valid_shape narrower than its shape");
  }
  return absl::OkStatus();
}

// Signal of allgather / all_to_all: INT32 [NR] or [NR, 1].
absl::Status CheckNrSignal(const CallSite& s, size_t i, std::string_view op) {
  RETURN_IF_ERROR(Int32Signal(s, i, op));
  auto t = TypeOf(s, i);
  bool ok = t->shape().size() == 1 ||
            (t->shape().size() == 2 && ConstDim(t->shape()[1]) == std::optional<int64_t>(1));
  if (!ok) return UserErrorF(ArgSpan(s, i), op, " signal must be [NR] or [NR, 1]");
  return absl::OkStatus();
}

// allgather: input [1, SIZE] -> target [NR, SIZE]; all_to_all: input [NR, SIZE].
absl::Status RowExchange(const CallSite& s, std::string_view op, bool gather) {
  auto in = TypeOf(s, 0);
  auto tg = TypeOf(s, 1);
  auto sig = TypeOf(s, 2);
  if (in->shape().size() != 2) {
    return UserErrorF(ArgSpan(s, 0), op, " input must be rank-2 ",
                      gather ? "[1, SIZE]" : "[NR, SIZE]");
  }
  if (gather && ConstDim(in->shape()[0]).value_or(1) != 1) {
    return UserErrorF(ArgSpan(s, 0), op, " input dim 0 must be 1");
  }
  if (tg->shape().size() != 2) return UserErrorF(ArgSpan(s, 1), op, " target must be rank-2");
  if (!gather) {
    std::optional<int64_t> a = ConstDim(in->shape()[0]), b = ConstDim(tg->shape()[0]);
    if (a && b && *a != *b) {
      return UserErrorF(s.span, op, " target dim 0 (", *b, ") must equal input dim 0 (", *a, ")");
    }
  }
  if (!ir::StructuralEqual(in->shape()[1], tg->shape()[1])) {
    return UserErrorF(s.span, op, " target SIZE must equal input SIZE");
  }
  if (in->dtype() != tg->dtype()) {
    return UserErrorF(s.span, op, " target dtype must equal input dtype");
  }
  RETURN_IF_ERROR(CheckNrSignal(s, 2, op));
  std::optional<int64_t> nr = ConstDim(sig->shape()[0]);
  std::optional<int64_t> rows = ConstDim((gather ? tg : in)->shape()[0]);
  if (nr && rows && *nr != *rows) {
    return UserErrorF(s.span, op, " signal dim 0 (", *nr, ") must equal ",
                      gather ? "target" : "input", " dim 0 (", *rows, ")");
  }
  return absl::OkStatus();
}

// all_to_all_v's data and signal: [NR*MAX_RECV, SIZE] windows, an [NR, S] signal.
absl::StatusOr<int64_t> AllToAllVData(const CallSite& s, std::string_view op) {
  auto in = TypeOf(s, 0);
  auto tg = TypeOf(s, 1);
  auto sig = TypeOf(s, 2);
  if (in->shape().size() != 2) return UserErrorF(ArgSpan(s, 0), op, " input must be rank-2");
  if (tg->shape().size() != 2) return UserErrorF(ArgSpan(s, 1), op, " target must be rank-2");
  std::optional<int64_t> rows = ConstDim(tg->shape()[0]);
  if (!rows) {
    return UserErrorF(ArgSpan(s, 1), op,
                      " target dim 0 (NR*MAX_RECV) must be a compile-time constant");
  }
  std::optional<int64_t> in_rows = ConstDim(in->shape()[0]);
  if (in_rows && *in_rows != *rows) {
    return UserErrorF(s.span, op, " target dim 0 (", *rows, ") must equal input dim 0 (", *in_rows,
                      ")");
  }
  if (!ir::StructuralEqual(in->shape()[1], tg->shape()[1])) {
    return UserErrorF(s.span, op, " target SIZE must equal input SIZE");
  }
  if (in->dtype() != tg->dtype()) {
    return UserErrorF(s.span, op, " target dtype must equal input dtype");
  }
  RETURN_IF_ERROR(Int32Signal(s, 2, op));
  if (sig->shape().size() != 2) {
    return UserErrorF(ArgSpan(s, 2), op, " signal must be rank-2 [NR, S]");
  }
  std::optional<int64_t> nr = ConstDim(sig->shape()[0]);
  if (!nr || *nr <= 0) return UserErrorF(ArgSpan(s, 2), op, " signal dim 0 (NR) must be positive");
  if (*rows % *nr != 0) {
    return UserErrorF(s.span, op, " signal dim 0 (", *nr, ") must divide target dim 0 (", *rows,
                      ")");
  }
  std::optional<int64_t> lanes = ConstDim(sig->shape()[1]);
  if (lanes && *lanes < 1) {
    return UserErrorF(ArgSpan(s, 2), op, " signal dim 1 (lane stride) must be >= 1");
  }
  return *nr;
}

// CheckSignalDistributedTensor: INT32 of rank 1 (or 1..max_rank).
absl::Status BuiltinSignal(const CallSite& s, size_t i, std::string_view op, size_t max_rank) {
  DT sig = Window(s, i);
  if (sig->dtype() != DataType::kInt32) {
    return UserErrorF(s.span, op, " signal must be INT32, got ", ir::DataTypeName(sig->dtype()));
  }
  if (sig->shape().empty() || sig->shape().size() > max_rank) {
    return UserErrorF(s.span, op, " signal must be ",
                      max_rank == 1 ? "rank-1 [world_size]" : "rank-1 or rank-2", ", got rank ",
                      sig->shape().size());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AllReduce(const CollectiveDef& d, const CallSite& s) {
  const std::string_view op = d.op;
  RETURN_IF_ERROR(DTypeOnSomeRail(d, s, 0));
  if (s.args.size() == 2) RETURN_IF_ERROR(Int32Signal(s, 1, op));
  if (s.args.size() == 1 && ir::GetAttr<std::string>(s.kwargs, "mode") == "ring") {
    return UserErrorF(s.span, op,
                      " requires an explicit signal; host signal synthesis only supports mesh "
                      "mode");
  }
  return ReduceOpKwarg(s, op);
}

absl::Status Barrier(const CollectiveDef& d, const CallSite& s) {
  return Int32Signal(s, d.signal_arg, d.op);
}

absl::Status Broadcast(const CollectiveDef& d, const CallSite& s) {
  const std::string_view op = d.op;
  int64_t root = ir::GetAttr<int64_t>(s.kwargs, "root").value_or(0);
  if (root < 0) return UserErrorF(s.span, op, " root must be >= 0, got ", root);
  return Int32Signal(s, 1, op);
}

absl::Status ReduceScatter(const CollectiveDef& d, const CallSite& s) {
  const std::string_view op = d.op;
  // Which ops a rail lowers is the rail's check (CollectiveDef::reduce_ops).
  RETURN_IF_ERROR(ReduceOpKwarg(s, op));
  if (TypeOf(s, 0)->shape().size() != 2) {
    return UserErrorF(ArgSpan(s, 0), op, " target must be rank-2 [NR, SIZE]");
  }
  return Int32Signal(s, 1, op);
}

absl::Status AllGather(const CollectiveDef& d, const CallSite& s) {
  return RowExchange(s, d.op, d.operands[0].row);
}
absl::Status AllToAll(const CollectiveDef& d, const CallSite& s) {
  return RowExchange(s, d.op, d.operands[0].row);
}

absl::Status AllToAllV(const CollectiveDef& d, const CallSite& s) {
  const std::string_view op = d.op;
  for (size_t i = 0; i < d.operands.size(); ++i) {
    RETURN_IF_ERROR(CheckPackedND(s, i, op, d.operands[i].role));
  }
  ASSIGN_OR_RETURN(int64_t nr, AllToAllVData(s, op));
  for (size_t i : d.count_args) {
    auto c = TypeOf(s, i);
    std::string_view role = d.operands[i].role;
    const bool send = d.operands[i].use == OperandUse::kRead;
    if (c->dtype() != DataType::kInt32) {
      return UserErrorF(ArgSpan(s, i), op, " ", role, " must be INT32, got ",
                        ir::DataTypeName(c->dtype()));
    }
    bool shape_ok =
        (send && c->shape().size() == 1) ||
        (c->shape().size() == 2 && ConstDim(c->shape()[1]) == std::optional<int64_t>(1));
    if (!shape_ok) {
      return UserErrorF(ArgSpan(s, i), op, " ", role,
                        send ? " must be [NR] or [NR, 1]" : " must be [NR, 1]");
    }
    std::optional<int64_t> d0 = ConstDim(c->shape()[0]);
    if (!d0 || *d0 != nr) {
      return UserErrorF(ArgSpan(s, i), op, " ", role, " dim 0 (",
                        d0 ? pto::StrCat(*d0) : std::string("dynamic"),
                        ") must equal signal dim 0 (NR = ", nr, ")");
    }
  }
  return absl::OkStatus();
}

absl::Status IndexedAllToAllV(const CollectiveDef& d, const CallSite& s) {
  const std::string_view op = d.op;
  // spec §5: L is a compile-time width.
  if (DecodeCoreNum(ir::FindAttr(s.kwargs, ir::kAttrCoreNum), 1).expr != nullptr) {
    return UserErrorF(s.span, op, " core_num must be a compile-time positive int");
  }
  return Int32Signal(s, 2, op);
}

absl::Status BuiltinAllReduce(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  RETURN_IF_ERROR(BuiltinSignal(s, 1, op, 2));
  std::optional<int64_t> core_num =
      DecodeCoreNum(ir::FindAttr(s.kwargs, ir::kAttrCoreNum), 1).value;
  if (!core_num) return UserErrorF(s.span, op, " core_num must be a compile-time int");
  DT sig = Window(s, 1);
  if (sig->shape().size() == 1 && *core_num != 1) {
    return UserErrorF(s.span, op, " rank-1 signal is valid only when core_num=1");
  }
  if (sig->shape().size() == 2) {
    std::optional<int64_t> lanes = ConstDim(sig->shape()[1]);
    if (!lanes || *lanes < *core_num) {
      return UserErrorF(s.span, op, " rank-2 signal shape[1] must be a constant >= core_num (",
                        *core_num, ")");
    }
  }
  return absl::OkStatus();
}

absl::Status BuiltinAllReduceRing(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  RETURN_IF_ERROR(BuiltinSignal(s, 1, op, 2));
  DT sig = Window(s, 1);
  if (sig->shape().size() != 2) {
    return UserErrorF(s.span, op, " signal must be rank-2 [2*(NR-1)+1, NR]");
  }
  std::optional<int64_t> rows = ConstDim(sig->shape()[0]);
  std::optional<int64_t> nr = ConstDim(sig->shape()[1]);
  if (nr && *nr > 16) return UserErrorF(s.span, op, " supports at most 16 ranks, got ", *nr);
  if (rows && nr && *rows != 2 * (*nr - 1) + 1) {
    return UserErrorF(s.span, op, " signal shape[0] (", *rows,
                      ") must be 2*(NR-1)+1 = ", 2 * (*nr - 1) + 1);
  }
  if (!nr) return absl::OkStatus();
  int64_t numel = 1;
  for (const ir::ExprPtr& d : Window(s, 0)->shape()) {
    std::optional<int64_t> v = ConstDim(d);
    if (!v) {
      return UserErrorF(s.span, op, " requires a statically-known src shape when NR is constant");
    }
    numel *= *v;
  }
  if (*nr > 0 && numel % *nr != 0) {
    return UserErrorF(s.span, op, " src element count (", numel, ") must be divisible by NR (",
                      *nr, ")");
  }
  return absl::OkStatus();
}

// The HOST builtins but allreduce read their signal as one lane per device,
// a flat array: PyPTO's rank-2 [world_size, 1] signal of every HOST
// collective is the same memory as [world_size].
absl::Status OneLaneSignal(const CallSite& s, size_t i, std::string_view op) {
  RETURN_IF_ERROR(BuiltinSignal(s, i, op, 2));
  DT sig = Window(s, i);
  if (sig->shape().size() == 2 && ConstDim(sig->shape()[1]) != std::optional<int64_t>(1)) {
    return UserErrorF(s.span, op, " signal must be [NR] or [NR, 1]");
  }
  return absl::OkStatus();
}

absl::Status BuiltinBarrier(const CollectiveDef& d, const CallSite& s) {
  return OneLaneSignal(s, 0, d.BuiltinOpName());
}

absl::Status BuiltinBroadcast(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  RETURN_IF_ERROR(OneLaneSignal(s, 1, op));
  int64_t root = ir::GetAttr<int64_t>(s.kwargs, "root").value_or(0);
  if (root < 0) return UserErrorF(s.span, op, " root must be >= 0, got ", root);
  return absl::OkStatus();
}

absl::Status BuiltinReduceScatter(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  if (Window(s, 0)->shape().size() != 2) {
    return UserErrorF(s.span, op, " target must be rank-2 [NR, SIZE]");
  }
  return OneLaneSignal(s, 1, op);
}

// allgather / all_to_all: input and target are rank-2 windows of one dtype.
absl::Status BuiltinRowExchange(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  if (Window(s, 0)->shape().size() != 2 || Window(s, 1)->shape().size() != 2) {
    return UserErrorF(s.span, op, " input and target must be rank-2");
  }
  if (Window(s, 0)->dtype() != Window(s, 1)->dtype()) {
    return UserErrorF(s.span, op, " input and target dtypes differ");
  }
  return OneLaneSignal(s, 2, op);
}

absl::Status BuiltinAllToAllV(const CollectiveDef& d, const CallSite& s) {
  const std::string op = d.BuiltinOpName();
  if (Window(s, 0)->dtype() != Window(s, 1)->dtype()) {
    return UserErrorF(s.span, op, " input and target dtypes differ");
  }
  RETURN_IF_ERROR(BuiltinSignal(s, 2, op, 2));
  for (size_t i : {3, 4}) {
    if (Window(s, i)->dtype() != DataType::kInt32) {
      return UserErrorF(s.span, op, i == 3 ? " send_counts" : " recv_counts", " must be INT32");
    }
  }
  return absl::OkStatus();
}

}  // namespace pto::ops::checks
