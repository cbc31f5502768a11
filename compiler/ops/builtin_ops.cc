// builtin.tensor.* chip-dispatch operators (spec §2.5): created only by
// LowerHostTensorCollectives, never written by users; each names the template
// package its kernel is rendered from. The deducers re-validate what the
// kernel templates assume, including the HOST dtype allowlist of §2.6.
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using DT = std::shared_ptr<const ir::DistributedTensorType>;
using ir::DataType;

constexpr ArgEffect W = ArgEffect::kWrite;
constexpr ArgEffect RW = ArgEffect::kReadWrite;
constexpr ArgEffect R = ArgEffect::kRead;

std::optional<int64_t> Const(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return c->value();
  return std::nullopt;
}

// Every operand is a window view.
absl::StatusOr<std::vector<DT>> Operands(const CallSite& s, std::string_view op, size_t arity,
                                         const std::vector<std::string_view>& roles) {
  RETURN_IF_ERROR(CheckArgCount(s, op, arity, arity));
  std::vector<DT> out;
  for (size_t i = 0; i < arity; ++i) {
    ASSIGN_OR_RETURN(DT t, DistTensorArg(s, i, op, roles[i]));
    out.push_back(std::move(t));
  }
  return out;
}

// CheckSignalDistributedTensor: INT32 of rank 1 (or 1..max_rank).
absl::Status CheckSignal(const CallSite& s, const DT& sig, std::string_view op, size_t max_rank) {
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

absl::StatusOr<DataType> DTypeMatches(const CallSite& s, const DT& data, std::string_view op,
                                      std::string_view collective) {
  ASSIGN_OR_RETURN(DataType dt, DTypeKwarg(s, "dtype", op));
  if (dt != data->dtype()) {
    return UserErrorF(s.span, op, " dtype kwarg (", ir::DataTypeName(dt),
                      ") must equal the data dtype (", ir::DataTypeName(data->dtype()), ")");
  }
  RETURN_IF_ERROR(CheckCollectiveDType(CollectiveRail::kHost, collective, dt, op, s.span));
  return dt;
}

// The reduce ops the HOST kernel of `collective` implements (CollectiveDef).
absl::Status CheckReduceOp(const CallSite& s, std::string_view op, std::string_view collective) {
  int64_t v = ir::GetAttr<int64_t>(s.kwargs, "op").value_or(0);
  if (v < 0 || v > 3) return UserErrorF(s.span, op, " op must be in [0, 3] (Sum..Prod), got ", v);
  for (ReduceOp r : FindCollectiveByBuiltin(collective)->ReduceOps(CollectiveRail::kHost)) {
    if (static_cast<int64_t>(r) == v) return absl::OkStatus();
  }
  return UserErrorF(s.span, op, " does not support op ", ReduceOpName(v));
}

// [NR] or [NR, 1] signal of allgather / all_to_all.
absl::Status CheckMeshSignal(const CallSite& s, const DT& sig, std::string_view op) {
  RETURN_IF_ERROR(CheckSignal(s, sig, op, 2));
  if (sig->shape().size() == 2 && Const(sig->shape()[1]) != std::optional<int64_t>(1)) {
    return UserErrorF(s.span, op, " signal must be [NR] or [NR, 1]");
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::TypePtr> DeduceAllreduce(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.allreduce";
  ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 2, {"src", "signal"}));
  RETURN_IF_ERROR(CheckSignal(s, a[1], op, 2));
  int64_t core_num = ir::GetAttr<int64_t>(s.kwargs, "core_num").value_or(1);
  if (core_num <= 0) return UserErrorF(s.span, op, " core_num must be positive, got ", core_num);
  if (a[1]->shape().size() == 1 && core_num != 1) {
    return UserErrorF(s.span, op, " rank-1 signal is valid only when core_num=1");
  }
  if (a[1]->shape().size() == 2) {
    std::optional<int64_t> lanes = Const(a[1]->shape()[1]);
    if (!lanes || *lanes < core_num) {
      return UserErrorF(s.span, op, " rank-2 signal shape[1] must be a constant >= core_num (",
                        core_num, ")");
    }
  }
  RETURN_IF_ERROR(CheckReduceOp(s, op, "allreduce"));
  RETURN_IF_ERROR(DTypeMatches(s, a[0], op, "allreduce").status());
  return s.args[0]->type();
}

absl::StatusOr<ir::TypePtr> DeduceAllreduceRing(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.allreduce_ring";
  ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 2, {"src", "signal"}));
  RETURN_IF_ERROR(CheckSignal(s, a[1], op, 2));
  if (a[1]->shape().size() != 2) {
    return UserErrorF(s.span, op, " signal must be rank-2 [2*(NR-1)+1, NR]");
  }
  std::optional<int64_t> rows = Const(a[1]->shape()[0]);
  std::optional<int64_t> nr = Const(a[1]->shape()[1]);
  if (nr && *nr > 16) return UserErrorF(s.span, op, " supports at most 16 ranks, got ", *nr);
  if (rows && nr && *rows != 2 * (*nr - 1) + 1) {
    return UserErrorF(s.span, op, " signal shape[0] (", *rows,
                      ") must be 2*(NR-1)+1 = ", 2 * (*nr - 1) + 1);
  }
  if (nr) {
    int64_t numel = 1;
    for (const ir::ExprPtr& d : a[0]->shape()) {
      std::optional<int64_t> v = Const(d);
      if (!v) {
        return UserErrorF(s.span, op, " requires a statically-known src shape when NR is constant");
      }
      numel *= *v;
    }
    if (*nr > 0 && numel % *nr != 0) {
      return UserErrorF(s.span, op, " src element count (", numel, ") must be divisible by NR (",
                        *nr, ")");
    }
  }
  RETURN_IF_ERROR(CheckReduceOp(s, op, "allreduce_ring"));
  RETURN_IF_ERROR(DTypeMatches(s, a[0], op, "allreduce_ring").status());
  return s.args[0]->type();
}

absl::StatusOr<ir::TypePtr> DeduceBarrier(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.barrier";
  ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 1, {"signal"}));
  RETURN_IF_ERROR(CheckSignal(s, a[0], op, 1));
  return s.args[0]->type();
}

absl::StatusOr<ir::TypePtr> DeduceBroadcast(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.broadcast";
  ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 2, {"target", "signal"}));
  RETURN_IF_ERROR(CheckSignal(s, a[1], op, 1));
  int64_t root = ir::GetAttr<int64_t>(s.kwargs, "root").value_or(0);
  if (root < 0) return UserErrorF(s.span, op, " root must be >= 0, got ", root);
  RETURN_IF_ERROR(DTypeMatches(s, a[0], op, "broadcast").status());
  return s.args[0]->type();
}

absl::StatusOr<ir::TypePtr> DeduceReduceScatter(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.reduce_scatter";
  ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 2, {"target", "signal"}));
  if (a[0]->shape().size() != 2) {
    return UserErrorF(s.span, op, " target must be rank-2 [NR, SIZE]");
  }
  RETURN_IF_ERROR(CheckSignal(s, a[1], op, 1));
  RETURN_IF_ERROR(CheckReduceOp(s, op, "reduce_scatter"));
  RETURN_IF_ERROR(DTypeMatches(s, a[0], op, "reduce_scatter").status());
  return s.args[0]->type();
}

// allgather / all_to_all: input and target are distinct windows of one dtype.
TypeDeducer DeduceGatherLike(std::string op, std::string collective) {
  return [=](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
    ASSIGN_OR_RETURN(std::vector<DT> a, Operands(s, op, 3, {"input", "target", "signal"}));
    if (s.args[0] == s.args[1]) {
      return UserErrorF(s.span, op, " input and target must not be the same expression");
    }
    if (a[0]->shape().size() != 2 || a[1]->shape().size() != 2) {
      return UserErrorF(s.span, op, " input and target must be rank-2");
    }
    if (a[0]->dtype() != a[1]->dtype()) {
      return UserErrorF(s.span, op, " input and target dtypes differ");
    }
    RETURN_IF_ERROR(CheckMeshSignal(s, a[2], op));
    RETURN_IF_ERROR(DTypeMatches(s, a[1], op, collective).status());
    return s.args[1]->type();
  };
}

absl::StatusOr<ir::TypePtr> DeduceAllToAllV(const CallSite& s) {
  constexpr std::string_view op = "builtin.tensor.all_to_all_v";
  ASSIGN_OR_RETURN(std::vector<DT> a,
                   Operands(s, op, 5, {"input", "target", "signal", "send_counts", "recv_counts"}));
  if (s.args[0] == s.args[1]) {
    return UserErrorF(s.span, op, " input and target must not be the same expression");
  }
  if (a[0]->dtype() != a[1]->dtype()) {
    return UserErrorF(s.span, op, " input and target dtypes differ");
  }
  RETURN_IF_ERROR(CheckSignal(s, a[2], op, 2));
  for (size_t i : {3, 4}) {
    if (a[i]->dtype() != DataType::kInt32) {
      return UserErrorF(s.span, op, i == 3 ? " send_counts" : " recv_counts", " must be INT32");
    }
  }
  RETURN_IF_ERROR(DTypeMatches(s, a[1], op, "all_to_all_v").status());
  return s.args[1]->type();
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  struct Entry {
    const char* short_name;
    std::vector<ArgEffect> effects;
    TypeDeducer deduce;
  };
  const Entry entries[] = {
      {"allreduce", {RW, RW}, DeduceAllreduce},
      {"allreduce_ring", {RW, RW}, DeduceAllreduceRing},
      {"barrier", {RW}, DeduceBarrier},
      {"broadcast", {RW, RW}, DeduceBroadcast},
      {"reduce_scatter", {RW, RW}, DeduceReduceScatter},
      {"allgather", {R, W, RW}, DeduceGatherLike("builtin.tensor.allgather", "allgather")},
      {"all_to_all", {R, W, RW}, DeduceGatherLike("builtin.tensor.all_to_all", "all_to_all")},
      {"all_to_all_v", {R, W, RW, R, W}, DeduceAllToAllV},
  };
  for (const Entry& e : entries) {
    OpDef def;
    def.name = pto::StrCat("builtin.tensor.", e.short_name);
    def.category = OpCategory::kBuiltinOp;
    def.effects = e.effects;
    def.internal_only = true;
    def.template_dir = FindCollectiveByBuiltin(e.short_name)->TemplateDir();
    def.deduce = e.deduce;
    r.Register(std::move(def));
  }
}

}  // namespace pto::ops
