// pld.* operators (docs/operators.md): windows, system ops,
// point-to-point data ops and the public collectives. The deducers enforce the
// operand rules of §2 that the operand types alone decide (kinds, dtypes,
// ranks, static dims, kwarg ranges); what needs window identity or the device
// count is checked by the rails' passes (e.g. LowerHostTensorCollectives).
#include <algorithm>
#include <functional>
#include <optional>

#include "compiler/ir/arena.h"
#include "compiler/ir/structural_equal.h"
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

// PyPTO's shape form `alloc_window_buffer([d0, d1], dtype=pl.FP32)` is the byte
// size d0 * d1 * 4: folded when every dim is a constant, else a product.
absl::Status CanonicalAllocWindowBuffer(std::vector<ir::ExprPtr>& args, ir::AttrList& kwargs,
                                        const Span& span) {
  constexpr std::string_view op = "pld.tensor.alloc_window_buffer";
  auto dtype_at = std::find_if(kwargs.begin(), kwargs.end(),
                               [](const auto& kv) { return kv.first == "dtype"; });
  auto shape = args.empty() ? nullptr : ir::As<ir::MakeTuple>(args[0]);
  if (shape == nullptr) {
    if (dtype_at != kwargs.end()) {
      return UserErrorF(span, op, " dtype= is only valid when the first argument is a shape "
                        "(list / tuple), not a scalar byte size");
    }
    return absl::OkStatus();
  }
  if (dtype_at == kwargs.end()) {
    return UserErrorF(span, op, " requires dtype= when the first argument is a shape (list / "
                      "tuple of per-rank dimensions)");
  }
  const auto* dtype = std::get_if<ir::DataType>(&dtype_at->second);
  if (dtype == nullptr) return UserErrorF(span, op, " dtype= must be a data type");
  const std::vector<ir::ExprPtr>& dims = shape->elements();
  if (dims.empty()) return UserErrorF(shape->span(), op, " shape must be non-empty");
  int64_t folded = ir::DataTypeBytes(*dtype);
  ir::ExprPtr product;
  for (size_t i = 0; i < dims.size(); ++i) {
    const ir::ExprPtr& d = dims[i];
    if (d == nullptr || !ir::Is<ir::ScalarType>(d->type())) {
      return UserErrorF(span, op, " shape dimension[", i, "] must be an integer, got ",
                        TypeText(d == nullptr ? nullptr : d->type()));
    }
    if (std::optional<int64_t> c = ir::GetConstInt(d)) {
      if (*c <= 0) {
        return UserErrorF(d->span(), op, " shape dimension[", i, "] is ", *c,
                          "; all dimensions must be positive");
      }
      folded *= *c;
      continue;
    }
    product = product == nullptr
                  ? d
                  : ir::MakeNode<ir::BinaryExpr>(ir::BinaryOp::kMul, product, d,
                                                     ir::ScalarType::Get(ir::DataType::kIndex),
                                                     span);
  }
  ir::ExprPtr bytes = ir::MakeNode<ir::ConstInt>(folded, ir::DataType::kIndex, span);
  if (product != nullptr) {
    bytes = ir::MakeNode<ir::BinaryExpr>(ir::BinaryOp::kMul, product, bytes,
                                             ir::ScalarType::Get(ir::DataType::kIndex), span);
  }
  args[0] = std::move(bytes);
  kwargs.erase(dtype_at);
  return absl::OkStatus();
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
  return TypePtr(ir::MakeNode<ir::DistributedTensorType>(std::move(shape), dtype));
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
  auto target = ir::As<ir::DistributedTensorType>(s.args[0]->type());
  if (ir::As<ir::MakeTuple>(s.args[2])->elements().size() != target->shape().size()) {
    return UserErrorF(ArgSpan(s, 2), op, " offsets must have one entry per target dimension (",
                      target->shape().size(), ")");
  }
  int64_t notify_op = ir::GetAttr<int64_t>(s.kwargs, "op").value_or(0);
  if (notify_op != 0 && notify_op != 1) {
    return UserErrorF(s.span, op, " op must be a NotifyOp: AtomicAdd (0) or Set (1), got ",
                      notify_op);
  }
  return TypePtr(ir::UnknownType::Get());
}

TypeDeducer DeduceWaitLike(std::string op) {
  return [op](const CallSite& s) -> absl::StatusOr<TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, 3, 3));
    RETURN_IF_ERROR(DistTensorArg(s, 0, op, "signal").status());
    RETURN_IF_ERROR(TupleArg(s, 1, op, "offsets").status());
    RETURN_IF_ERROR(ScalarArg(s, 2, op, "expected"));
    int64_t cmp = ir::GetAttr<int64_t>(s.kwargs, "cmp").value_or(0);
    if (cmp != 0 && cmp != 1) {
      return UserErrorF(s.span, op, " cmp must be a WaitCmp: Eq (0) or Ge (1), got ", cmp);
    }
    if (op == "pld.system.defer_wait") {
      // Simpler's deferred completion only polls for "counter >= threshold".
      if (cmp != 1) return UserErrorF(s.span, op, " cmp must be Ge (1)");
      auto sig = ir::As<ir::DistributedTensorType>(s.args[0]->type());
      if (sig->dtype() != ir::DataType::kInt32 || sig->shape().empty()) {
        return UserErrorF(ArgSpan(s, 0), op, " signal must be an INT32 window of rank >= 1");
      }
      auto c = ir::As<ir::ConstInt>(s.args[2]);
      if (c == nullptr || c->value() < 0 || c->value() > 2147483647) {
        return UserErrorF(ArgSpan(s, 2), op, " expected must be a constant in [0, INT32_MAX]");
      }
    }
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

std::optional<int64_t> ConstDim(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return c->value();
  return std::nullopt;
}

absl::Status Int32Signal(const CallSite& s, size_t i, std::string_view op) {
  auto t = ir::AsTensorTypeLike(s.args[i]->type());
  if (t->dtype() != ir::DataType::kInt32) {
    return UserErrorF(ArgSpan(s, i), op, " signal must be INT32, got ",
                      ir::DataTypeName(t->dtype()));
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
absl::Status DTypeOnSomeRail(const CallSite& s, size_t i, std::string_view op) {
  const CollectiveDef* def = FindCollective(op);
  ir::DataType dt = ir::AsTensorTypeLike(s.args[i]->type())->dtype();
  std::string list;
  for (CollectiveRail rail : {CollectiveRail::kInCore, CollectiveRail::kHost}) {
    const std::optional<std::vector<ir::DataType>>& allowed = def->DTypes(rail);
    if (!def->OnRail(rail)) continue;
    if (!allowed) return absl::OkStatus();
    for (ir::DataType d : *allowed) {
      if (d == dt) return absl::OkStatus();
      if (list.find(ir::DataTypeName(d)) == std::string::npos) {
        list += pto::StrCat(list.empty() ? "" : ", ", ir::DataTypeName(d));
      }
    }
  }
  return UserErrorF(ArgSpan(s, i), op, " target dtype must be one of ", list, ", got ",
                    ir::DataTypeName(dt));
}

// Runs the generic operand checks, then `more`.
TypeDeducer With(TypeDeducer base, std::function<absl::Status(const CallSite&)> more) {
  return [=](const CallSite& s) -> absl::StatusOr<TypePtr> {
    ASSIGN_OR_RETURN(TypePtr t, base(s));
    RETURN_IF_ERROR(more(s));
    return t;
  };
}

absl::Status CheckAllreduce(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.allreduce";
  RETURN_IF_ERROR(DTypeOnSomeRail(s, 0, op));
  if (s.args.size() == 2) RETURN_IF_ERROR(Int32Signal(s, 1, op));
  if (s.args.size() == 1 && ir::GetAttr<std::string>(s.kwargs, "mode") == "ring") {
    return UserErrorF(s.span, op,
                      " requires an explicit signal; host signal synthesis only supports mesh "
                      "mode");
  }
  RETURN_IF_ERROR(ReduceOpKwarg(s, op));
  if (const ir::AttrValue* c = ir::FindAttr(s.kwargs, "core_num")) {
    if (!std::holds_alternative<int64_t>(*c) || std::get<int64_t>(*c) <= 0) {
      return UserErrorF(s.span, op, " core_num must be a positive int");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckReduceScatter(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.reduce_scatter";
  // Which ops a rail lowers is the rail's check (CollectiveDef::reduce_ops).
  RETURN_IF_ERROR(ReduceOpKwarg(s, op));
  if (ir::AsTensorTypeLike(s.args[0]->type())->shape().size() != 2) {
    return UserErrorF(ArgSpan(s, 0), op, " target must be rank-2 [NR, SIZE]");
  }
  return Int32Signal(s, 1, op);
}

absl::Status CheckBroadcast(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.broadcast";
  int64_t root = ir::GetAttr<int64_t>(s.kwargs, "root").value_or(0);
  if (root < 0) return UserErrorF(s.span, op, " root must be >= 0, got ", root);
  return Int32Signal(s, 1, op);
}

// An operand view the kernels can address as packed row-major ND memory.
absl::Status CheckPackedND(const CallSite& s, size_t i, std::string_view op,
                           std::string_view role) {
  auto t = ir::AsTensorTypeLike(s.args[i]->type());
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

absl::Status CheckAllToAllV(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.all_to_all_v";
  const char* roles[] = {"input", "target", "signal", "send_counts", "recv_counts"};
  for (size_t i = 0; i < 5; ++i) RETURN_IF_ERROR(CheckPackedND(s, i, op, roles[i]));
  auto in = ir::AsTensorTypeLike(s.args[0]->type());
  auto tg = ir::AsTensorTypeLike(s.args[1]->type());
  auto sig = ir::AsTensorTypeLike(s.args[2]->type());
  auto sc = ir::AsTensorTypeLike(s.args[3]->type());
  auto rc = ir::AsTensorTypeLike(s.args[4]->type());
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
  for (size_t i : {3, 4}) {
    auto c = i == 3 ? sc : rc;
    if (c->dtype() != ir::DataType::kInt32) {
      return UserErrorF(ArgSpan(s, i), op, " ", roles[i], " must be INT32, got ",
                        ir::DataTypeName(c->dtype()));
    }
    bool shape_ok =
        (i == 3 && c->shape().size() == 1) ||
        (c->shape().size() == 2 && ConstDim(c->shape()[1]) == std::optional<int64_t>(1));
    if (!shape_ok) {
      return UserErrorF(ArgSpan(s, i), op, " ", roles[i],
                        i == 3 ? " must be [NR] or [NR, 1]" : " must be [NR, 1]");
    }
    std::optional<int64_t> d0 = ConstDim(c->shape()[0]);
    if (!d0 || *d0 != *nr) {
      return UserErrorF(ArgSpan(s, i), op, " ", roles[i], " dim 0 (",
                        d0 ? pto::StrCat(*d0) : std::string("dynamic"),
                        ") must equal signal dim 0 (NR = ", *nr, ")");
    }
  }
  // MakeCall moved a 6th positional core_num here (NormalizeCoreNum); a
  // dynamic one is a scalar expression the HOST entry checks at run time.
  if (const ir::AttrValue* c = ir::FindAttr(s.kwargs, "core_num")) {
    const ir::ExprPtr* e = std::get_if<ir::ExprPtr>(c);
    bool scalar = e != nullptr && *e != nullptr && ir::Is<ir::ScalarType>((*e)->type());
    if (!scalar && (!std::holds_alternative<int64_t>(*c) || std::get<int64_t>(*c) <= 0)) {
      return UserErrorF(s.span, op, " core_num must be a positive int");
    }
  }
  return absl::OkStatus();
}

// Signal of allgather / all_to_all: INT32 [NR] or [NR, 1].
absl::Status CheckNrSignal(const CallSite& s, size_t i, std::string_view op) {
  RETURN_IF_ERROR(Int32Signal(s, i, op));
  auto t = ir::AsTensorTypeLike(s.args[i]->type());
  bool ok = t->shape().size() == 1 ||
            (t->shape().size() == 2 && ConstDim(t->shape()[1]) == std::optional<int64_t>(1));
  if (!ok) return UserErrorF(ArgSpan(s, i), op, " signal must be [NR] or [NR, 1]");
  return absl::OkStatus();
}

// allgather: input [1, SIZE] -> target [NR, SIZE]; all_to_all: input [NR, SIZE].
std::function<absl::Status(const CallSite&)> GatherChecks(std::string op, bool gather) {
  return [=](const CallSite& s) -> absl::Status {
    auto in = ir::AsTensorTypeLike(s.args[0]->type());
    auto tg = ir::AsTensorTypeLike(s.args[1]->type());
    auto sig = ir::AsTensorTypeLike(s.args[2]->type());
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
  };
}

absl::Status CheckIndexedAllToAllV(const CallSite& s) {
  constexpr std::string_view op = "pld.tensor.indexed_all_to_all_v";
  std::optional<int64_t> l = ir::GetAttr<int64_t>(s.kwargs, "core_num");
  if (ir::FindAttr(s.kwargs, "core_num") != nullptr && (!l || *l <= 0)) {
    return UserErrorF(s.span, op, " core_num must be a compile-time positive int");
  }
  return Int32Signal(s, 2, op);
}

}  // namespace

void RegisterDistributedOps(OpRegistry& r) {
  auto add = [&r](std::string name, std::vector<std::string> aliases, std::vector<ArgEffect> eff,
                  TypeDeducer d) {
    RegisterOp(r, std::move(name), std::move(aliases), OpCategory::kDistributedOp, std::move(eff),
               std::move(d));
  };
  add("pld.tensor.alloc_window_buffer", {"pld.alloc_window_buffer"}, {R}, DeduceAllocWindowBuffer);
  r.FindMutable("pld.tensor.alloc_window_buffer")->canonicalize = CanonicalAllocWindowBuffer;
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
  add("pld.tensor.remote_store", {}, {W, R, R}, DeduceEffectOnly("pld.tensor.remote_store", 3, 5));

  add("pld.tensor.allreduce", {"pld.allreduce"}, {RW, RW},
      With(DeduceCollective("pld.tensor.allreduce", 1, 2, 0,
                            {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}),
           CheckAllreduce));
  add("pld.tensor.barrier", {"pld.barrier"}, {RW},
      With(DeduceCollective("pld.tensor.barrier", 1, 1, 0, {{"signal", Kind::kWindow}}),
           [](const CallSite& s) { return Int32Signal(s, 0, "pld.tensor.barrier"); }));
  add("pld.tensor.broadcast", {"pld.broadcast"}, {RW, RW},
      With(DeduceCollective("pld.tensor.broadcast", 2, 2, 0,
                            {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}),
           CheckBroadcast));
  add("pld.tensor.reduce_scatter", {"pld.reduce_scatter"}, {RW, RW},
      With(DeduceCollective("pld.tensor.reduce_scatter", 2, 2, 0,
                            {{"target", Kind::kWindow}, {"signal", Kind::kWindow}}),
           CheckReduceScatter));
  add("pld.tensor.allgather", {"pld.allgather"}, {R, W, RW},
      With(DeduceCollective(
               "pld.tensor.allgather", 3, 3, 1,
               {{"input", Kind::kTensor}, {"target", Kind::kWindow}, {"signal", Kind::kWindow}}),
           GatherChecks("pld.tensor.allgather", true)));
  add("pld.tensor.all_to_all", {"pld.all_to_all"}, {R, W, RW},
      With(DeduceCollective(
               "pld.tensor.all_to_all", 3, 3, 1,
               {{"input", Kind::kTensor}, {"target", Kind::kWindow}, {"signal", Kind::kWindow}}),
           GatherChecks("pld.tensor.all_to_all", false)));
  add("pld.tensor.all_to_all_v", {"pld.all_to_all_v"}, {R, W, RW, R, W, R},
      With(DeduceCollective("pld.tensor.all_to_all_v", 5, 6, 1,
                            {{"input", Kind::kTensor},
                             {"target", Kind::kWindow},
                             {"signal", Kind::kWindow},
                             {"send_counts", Kind::kTensor},
                             {"recv_counts", Kind::kWindow},
                             {"core_num", Kind::kScalar}}),
           CheckAllToAllV));
  add("pld.tensor.indexed_all_to_all_v", {"pld.indexed_all_to_all_v"}, {R, W, RW, R, W, R},
      With(DeduceCollective("pld.tensor.indexed_all_to_all_v", 6, 6, 1,
                            {{"input", Kind::kTensor},
                             {"target", Kind::kWindow},
                             {"signal", Kind::kWindow},
                             {"send_counts", Kind::kWindow},
                             {"recv_counts", Kind::kTensor},
                             {"index", Kind::kTensor}}),
           CheckIndexedAllToAllV));
}

}  // namespace pto::ops
