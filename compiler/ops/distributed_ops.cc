// pld.* operators (docs/operators.md): windows, system ops,
// point-to-point data ops and the public collectives. The deducers enforce the
// operand rules of §2 that the operand types alone decide (kinds, dtypes,
// ranks, static dims, kwarg ranges); what needs window identity or the device
// count is checked by the rails' passes (e.g. LowerHostTensorCollectives).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "compiler/ir/arena.h"
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

// A public collective, from its CollectiveDef: arity and operand kinds, the
// input / target distinction, the collective's own check, then the one
// core_num check. The result is the window the def's alias operand names, so
// user code rebinds `x = pld.tensor.op(x, ...)`.
TypeDeducer DeduceCollective(const CollectiveDef& def) {
  return [&def](const CallSite& s) -> absl::StatusOr<TypePtr> {
    const size_t n = def.operands.size();
    // A positional core_num reaches here only if MakeCall did not normalise it.
    const size_t max = n + (def.core_num_arg ? 1 : 0);
    RETURN_IF_ERROR(CheckArgCount(s, def.op, def.signal_optional ? n - 1 : n, max));
    for (size_t i = 0; i < s.args.size(); ++i) {
      if (i >= n) {
        RETURN_IF_ERROR(ScalarArg(s, i, def.op, ir::kAttrCoreNum));
      } else if (def.operands[i].kind == CollectiveOperandKind::kWindow) {
        RETURN_IF_ERROR(DistTensorArg(s, i, def.op, def.operands[i].role).status());
      } else {
        RETURN_IF_ERROR(TensorArg(s, i, def.op, def.operands[i].role).status());
      }
    }
    if (def.alias_arg > 0 && s.args[0] == s.args[def.alias_arg]) {
      return UserErrorF(s.span, def.op, " input and target must not be the same expression");
    }
    if (def.check != nullptr) RETURN_IF_ERROR(def.check(def, s));
    RETURN_IF_ERROR(CheckCoreNum(def.op, s.kwargs, s.span));
    return s.args[def.alias_arg]->type();
  };
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

  // The public collectives: one registration per op (allreduce's mesh and
  // ring share one), everything but the check hook from the def: its id, its
  // effects, its alias and PyPTO's signature (CollectiveSignatureText).
  for (const CollectiveDef& c : Collectives()) {
    if (r.Find(c.op) != nullptr) continue;
    OpDef def;
    def.name = std::string(c.op);
    def.aliases = {c.Alias()};
    def.category = OpCategory::kDistributedOp;
    for (const CollectiveOperand& o : c.operands) def.effects.push_back(EffectOfUse(o.use));
    def.deduce = DeduceCollective(c);
    absl::StatusOr<Signature> sig = ParseSignature(CollectiveSignatureText(c), "");
    // The defs are ours and fixed; a signature that does not parse is a build defect.
    if (!sig.ok()) {
      std::fprintf(stderr, "signature of %s: %s\n", def.name.c_str(),
                   std::string(sig.status().message()).c_str());
      std::abort();
    }
    def.signature = std::make_shared<const Signature>(*std::move(sig));
    r.RegisterCollectiveOp(std::move(def));
  }
}

}  // namespace pto::ops
