// pld.* operators (spec/collectives.md §2.1–§2.4): windows, system ops,
// point-to-point data ops and the public collectives. The deducers here check
// arity and operand kinds; the collective-specific shape rules of §2.4 are
// enforced by the rails' passes and by the deducers as they grow.
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::ops {
namespace {

using ir::TypePtr;

constexpr ArgEffect R = ArgEffect::kRead;
constexpr ArgEffect W = ArgEffect::kWrite;
constexpr ArgEffect RW = ArgEffect::kReadWrite;

absl::StatusOr<TypePtr> DeduceAllocWindowBuffer(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.alloc_window_buffer";
  if (s.args.size() != 1) {
    return UserErrorF(s.span, op, " requires exactly 1 positional argument (size in bytes)");
  }
  RETURN_IF_ERROR(ScalarArg(s, 0, op, "size"));
  const ir::AttrValue* name = ir::FindAttr(s.kwargs, "name");
  if (name == nullptr) return UserErrorF(s.span, "Missing kwarg 'name' for ", op);
  if (!std::holds_alternative<std::string>(*name) || std::get<std::string>(*name).empty()) {
    return UserErrorF(s.span, op, " requires a non-empty 'name' kwarg");
  }
  return TypePtr(ir::PtrType::Get());
}

absl::StatusOr<TypePtr> DeduceWindow(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.window";
  if (s.args.size() != 2) {
    return UserErrorF(s.span, op, " requires exactly 2 positional arguments (buf, shape)");
  }
  if (!ir::Is<ir::PtrType>(s.args[0]->type())) {
    return UserErrorF(ArgSpan(s, 0), op,
                      " buf must have type Ptr (output of pld.tensor.alloc_window_buffer)");
  }
  ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> shape, TupleArg(s, 1, op, "shape"));
  ASSIGN_OR_RETURN(ir::DataType dtype, DTypeKwarg(s, "dtype", op));
  return TypePtr(std::make_shared<ir::DistributedTensorType>(std::move(shape), dtype));
}

absl::StatusOr<TypePtr> DeduceWorldSize(const CallSite& s) {
  if (!s.args.empty() || !s.kwargs.empty()) {
    return UserError(s.span, "pld.system.world_size takes no arguments");
  }
  return TypePtr(ir::ScalarType::Get(ir::DataType::kInt64));
}

absl::StatusOr<TypePtr> DeduceGetCommCtx(const CallSite& s) {
  constexpr std::string_view op = "pld.system.get_comm_ctx";
  RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
  if (!ir::Is<ir::DistributedTensorType>(s.args[0]->type())) {
    return UserErrorF(ArgSpan(s, 0), op, " expects a DistributedTensor (window-bound), got ",
                      TypeText(s.args[0]->type()));
  }
  return TypePtr(ir::CommCtxType::Get());
}

TypeDeducer DeduceCtxScalar(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 1, 1));
    if (!ir::Is<ir::CommCtxType>(s.args[0]->type())) {
      return UserErrorF(ArgSpan(s, 0), op, " expects a CommCtx, got ", TypeText(s.args[0]->type()));
    }
    return TypePtr(ir::ScalarType::Get(ir::DataType::kInt32));
  };
}

absl::StatusOr<TypePtr> DeduceNotify(const CallSite& s) {
  constexpr std::string_view op = "pld.system.notify";
  RETURN_IF_ERROR(CheckArgCount(s, op, 4, 4));
  RETURN_IF_ERROR(DistTensorArg(s, 0, op, "target").status());
  RETURN_IF_ERROR(ScalarArg(s, 1, op, "peer"));
  RETURN_IF_ERROR(TupleArg(s, 2, op, "offsets").status());
  RETURN_IF_ERROR(ScalarArg(s, 3, op, "value"));
  return TypePtr(ir::UnknownType::Get());
}

TypeDeducer DeduceWaitLike(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
    RETURN_IF_ERROR(DistTensorArg(s, 0, op, "signal").status());
    RETURN_IF_ERROR(TupleArg(s, 1, op, "offsets").status());
    RETURN_IF_ERROR(ScalarArg(s, 2, op, "expected"));
    return TypePtr(ir::UnknownType::Get());
  };
}

// Point-to-point ops have side effects only.
TypeDeducer DeduceEffectOnly(std::string op, size_t min, size_t max) {
  return [op, min, max](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, min, max));
    return TypePtr(ir::UnknownType::Get());
  };
}

// Operand kinds of a collective: tensor-like, window view, or scalar.
enum class Kind { kTensor, kWindow, kScalar };
struct Operand {
  std::string role;
  Kind kind;
};

// Window-as-result collectives: the result is the type of args[result_arg]
// (always a window view), so user code rebinds `x = pld.tensor.op(x, ...)`.
TypeDeducer DeduceCollective(std::string op, size_t min, size_t max, size_t result_arg,
                             std::vector<Operand> operands) {
  return [=](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, min, max));
    for (size_t i = 0; i < s.args.size() && i < operands.size(); ++i) {
      switch (operands[i].kind) {
        case Kind::kScalar:
          RETURN_IF_ERROR(ScalarArg(s, i, op, operands[i].role));
          break;
        case Kind::kWindow:
          RETURN_IF_ERROR(DistTensorArg(s, i, op, operands[i].role).status());
          break;
        case Kind::kTensor:
          RETURN_IF_ERROR(TensorArg(s, i, op, operands[i].role).status());
          break;
      }
    }
    if (result_arg > 0 && s.args[0] == s.args[result_arg]) {
      return UserErrorF(s.span, op, " input and target must not be the same expression");
    }
    return s.args[result_arg]->type();
  };
}

}  // namespace

void RegisterDistributedOps(OpRegistry& r) {
  auto add = [&r](std::string name, std::vector<std::string> aliases, std::vector<ArgEffect> eff,
                  TypeDeducer d) {
    OpDef def;
    def.name = std::move(name);
    def.aliases = std::move(aliases);
    def.category = OpCategory::kDistributedOp;
    def.effects = std::move(eff);
    def.deduce = std::move(d);
    r.Register(std::move(def));
  };
  add("pld.tensor.alloc_window_buffer", {"pld.alloc_window_buffer"}, {R}, DeduceAllocWindowBuffer);
  add("pld.tensor.window", {"pld.window"}, {R, R}, DeduceWindow);
  add("pld.system.world_size", {"pld.world_size"}, {}, DeduceWorldSize);
  add("pld.system.get_comm_ctx", {"pld.get_comm_ctx"}, {R}, DeduceGetCommCtx);
  add("pld.system.rank", {}, {R}, DeduceCtxScalar("pld.system.rank"));
  add("pld.system.nranks", {}, {R}, DeduceCtxScalar("pld.system.nranks"));
  add("pld.system.notify", {}, {RW, R, R, R}, DeduceNotify);
  add("pld.system.wait", {}, {R, R, R}, DeduceWaitLike("pld.system.wait"));
  add("pld.system.defer_wait", {}, {R, R, R}, DeduceWaitLike("pld.system.defer_wait"));
  add("pld.tensor.put", {}, {W, R, R, RW}, DeduceEffectOnly("pld.tensor.put", 7, 8));
  add("pld.tile.put", {}, {W, R, R, RW}, DeduceEffectOnly("pld.tile.put", 7, 8));
  add("pld.tensor.get", {}, {W, R, R, RW}, DeduceEffectOnly("pld.tensor.get", 7, 8));
  add("pld.tile.get", {}, {W, R, R, RW}, DeduceEffectOnly("pld.tile.get", 7, 8));
  add("pld.tile.remote_load", {}, {W, R, R}, DeduceEffectOnly("pld.tile.remote_load", 3, 5));
  add("pld.tile.remote_store", {}, {W, R, R}, DeduceEffectOnly("pld.tile.remote_store", 3, 5));
  add("pld.tensor.remote_store", {}, {W, R, R},
      DeduceEffectOnly("pld.tensor.remote_store", 3, 5));

  add("pld.tensor.allreduce", {"pld.allreduce"}, {RW, RW},
      DeduceCollective("pld.tensor.allreduce", 1, 2, 0, {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}));
  add("pld.tensor.barrier", {"pld.barrier"}, {RW},
      DeduceCollective("pld.tensor.barrier", 1, 1, 0, {{"signal", Kind::kWindow}}));
  add("pld.tensor.broadcast", {"pld.broadcast"}, {RW, RW},
      DeduceCollective("pld.tensor.broadcast", 2, 2, 0, {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}));
  add("pld.tensor.reduce_scatter", {"pld.reduce_scatter"}, {RW, RW},
      DeduceCollective("pld.tensor.reduce_scatter", 2, 2, 0, {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}));
  add("pld.tensor.allgather", {"pld.allgather"}, {R, W, RW},
      DeduceCollective("pld.tensor.allgather", 3, 3, 1, {{"input", Kind::kTensor}, {"target", Kind::kWindow}, {"signal", Kind::kWindow}}));
  add("pld.tensor.all_to_all", {"pld.all_to_all"}, {R, W, RW},
      DeduceCollective("pld.tensor.all_to_all", 3, 3, 1, {{"input", Kind::kTensor}, {"target", Kind::kWindow}, {"signal", Kind::kWindow}}));
  add("pld.tensor.all_to_all_v", {"pld.all_to_all_v"}, {R, W, RW, R, W, R},
      DeduceCollective("pld.tensor.all_to_all_v", 5, 6, 1,
                       {{"input", Kind::kTensor},
                        {"target", Kind::kWindow},
                        {"signal", Kind::kWindow},
                        {"send_counts", Kind::kTensor},
                        {"recv_counts", Kind::kWindow},
                        {"core_num", Kind::kScalar}}));
  add("pld.tensor.indexed_all_to_all_v", {"pld.indexed_all_to_all_v"}, {R, W, RW, R, W, R},
      DeduceCollective("pld.tensor.indexed_all_to_all_v", 6, 6, 1,
                       {{"input", Kind::kTensor},
                        {"target", Kind::kWindow},
                        {"signal", Kind::kWindow},
                        {"send_counts", Kind::kWindow},
                        {"recv_counts", Kind::kTensor},
                        {"index", Kind::kTensor}}));
}

}  // namespace pto::ops
