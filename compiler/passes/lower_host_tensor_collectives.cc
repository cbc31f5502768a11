#include "compiler/passes/lower_host_tensor_collectives.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ops/op_names.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ArgDirection;
using ir::AttrList;
using ir::CallPtr;
using ir::ExprPtr;
using ir::StmtPtr;

using ops::CollectiveDef;

// The collective a call is, when the HOST rail lowers it.
const CollectiveDef* FindCollective(const CallPtr& call) {
  const CollectiveDef* def = ops::FindCollective(call);
  return def != nullptr && def->OnRail(ops::CollectiveRail::kHost) ? def : nullptr;
}

// Per-operand directions of the builtin dispatch: read-only operands are
// inputs, everything the kernel writes is InOut (a window is updated in place).
std::vector<ArgDirection> Directions(const CollectiveDef& c) {
  std::vector<ArgDirection> out;
  for (const ops::CollectiveOperand& o : c.operands) {
    out.push_back(o.use == ops::OperandUse::kRead ? ArgDirection::kInput : ArgDirection::kInOut);
  }
  return out;
}

std::optional<int64_t> ConstValue(const ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return c->value();
  return std::nullopt;
}

std::shared_ptr<const ir::DistributedTensorType> DistType(const ExprPtr& e) {
  return ir::As<ir::DistributedTensorType>(e->type());
}

// spec §3.11 step 6: a signal of `required_slots` devices (0 = unknown, the
// world-size loop) with `required_lanes` lanes per device.
absl::Status CheckStaticSignalCapacity(std::string_view op, const ir::DistributedTensorType& sig,
                                       int64_t required_slots, int64_t required_lanes,
                                       bool allow_wider, const Span& span) {
  const std::vector<ExprPtr>& shape = sig.shape();
  if (shape.size() != 1 && shape.size() != 2) {
    return UserErrorF(span, op,
                      ": collective signal must be rank-1 [world_size] or rank-2 "
                      "[world_size, signal_stride], got rank ",
                      shape.size());
  }
  if (shape.size() == 1 && required_lanes != 1) {
    return UserErrorF(span, op, ": collective rank-1 signal has one lane per device but ",
                      required_lanes,
                      " lanes are required; use a rank-2 [world_size, signal_stride] signal");
  }
  if (shape.size() == 2) {
    std::optional<int64_t> lanes = ConstValue(shape[1]);
    if (!lanes) return UserErrorF(span, op, ": collective rank-2 signal shape[1] must be constant");
    if (!allow_wider && *lanes != required_lanes) {
      return UserErrorF(span, op, ": collective rank-2 signal shape[1] (", *lanes,
                        ") must equal the required lane count (", required_lanes, ")");
    }
    if (allow_wider && *lanes < required_lanes) {
      return UserErrorF(span, op, ": collective rank-2 signal shape[1] (", *lanes,
                        ") must be at least the required lane count (", required_lanes, ")");
    }
  }
  std::optional<int64_t> slots = ConstValue(shape[0]);
  if (required_slots > 0 && slots && *slots < required_slots) {
    return UserErrorF(span, op, ": collective signal shape[0] (", *slots,
                      ") must be at least the participating device count (", required_slots, ")");
  }
  return absl::OkStatus();
}

// The ring schedule's signal and src rules for a known device count n.
absl::Status CheckRingAllReduce(std::string_view op, const ir::DistributedTensorType& src,
                                const ir::DistributedTensorType& sig, int64_t n, const Span& span) {
  if (n > 16) {
    return UserErrorF(span, op, ": ring allreduce requires 16 or fewer participating devices, got ",
                      n);
  }
  const int64_t rows = 2 * (n - 1) + 1;
  if (sig.shape().size() != 2) {
    return UserErrorF(span, op, " mode=\"ring\" requires a rank-2 INT32 signal [2*(N-1)+1, N] = [",
                      rows, ", ", n, "], got rank ", sig.shape().size());
  }
  std::optional<int64_t> s0 = ConstValue(sig.shape()[0]);
  std::optional<int64_t> s1 = ConstValue(sig.shape()[1]);
  if (s0 && *s0 < rows) {
    return UserErrorF(span, op, ": ring allreduce signal shape[0] (", *s0,
                      ") must be at least 2*(N-1)+1 = ", rows, " for N=", n,
                      " participating devices");
  }
  if (s0 && s1 && *s0 != 2 * (*s1 - 1) + 1) {
    return UserErrorF(span, op, ": ring allreduce signal shape[0] (", *s0,
                      ") must equal 2*(shape[1]-1)+1 = ", 2 * (*s1 - 1) + 1);
  }
  if (!s1 || *s1 != n) {
    return UserErrorF(span, op,
                      ": ring allreduce signal shape[1] must equal the participating "
                      "device count (",
                      n, ")");
  }
  int64_t numel = 1;
  for (const ExprPtr& d : src.shape()) {
    std::optional<int64_t> v = ConstValue(d);
    if (!v) {
      return UserErrorF(span, op,
                        ": ring allreduce requires a statically-known src shape when "
                        "the participating device count is known");
    }
    numel *= *v;
  }
  if (numel % n != 0) {
    return UserErrorF(span, op, ": ring allreduce src element count (", numel,
                      ") must be divisible by the participating device count (", n, ")");
  }
  return absl::OkStatus();
}

// The reduce ops the HOST kernel of `c` implements (CollectiveDef).
absl::Status CheckHostReduceOp(const CollectiveDef& c, int64_t op, const Span& span) {
  std::string list;
  for (ops::ReduceOp r : c.ReduceOps(ops::CollectiveRail::kHost)) {
    if (static_cast<int64_t>(r) == op) return absl::OkStatus();
    pto::StrAppend(&list, list.empty() ? "" : ", ", ops::ReduceOpName(static_cast<int64_t>(r)));
  }
  return UserErrorF(span, c.op, " on the HOST rail supports op ", list, ", got ", op);
}

class Lowerer : public ir::IRMutator {
 public:
  explicit Lowerer(const LowerHostTensorCollectivesOptions& options) : options_(options) {}
  const absl::Status& status() const { return status_; }

 protected:
  ir::FunctionPtr MutateFunction(const ir::FunctionPtr& func) override {
    if (!status_.ok() || func == nullptr || !func->IsHostOrch()) return func;
    return IRMutator::MutateFunction(func);
  }

  StmtPtr MutateStmt(const StmtPtr& stmt) override {
    if (!status_.ok()) return stmt;
    return IRMutator::MutateStmt(stmt);
  }

  StmtPtr MutateCommDomainScopeStmt(
      const std::shared_ptr<const ir::CommDomainScopeStmt>& stmt) override {
    scopes_.push_back(stmt.get());
    StmtPtr out = IRMutator::MutateCommDomainScopeStmt(stmt);
    scopes_.pop_back();
    return out;
  }

  // A collective off the HOST rail (spec §5: indexed_all_to_all_v runs only
  // on the managed CHIP rail).
  ExprPtr MutateCall(const CallPtr& call) override {
    if (const CollectiveDef* any = ops::FindCollective(call);
        any != nullptr && !any->OnRail(ops::CollectiveRail::kHost) && status_.ok()) {
      status_ = UserErrorF(call->span(), any->op,
                           " is not supported from a HOST orchestrator; call it from a CHIP "
                           "orchestration (managed L2 rail)");
      return call;
    }
    // Statement-level collectives never reach here (they are rewritten whole);
    // one nested in another expression has no statement to fan out into.
    if (const CollectiveDef* c = FindCollective(call); c != nullptr && status_.ok()) {
      status_ = UserErrorF(call->span(), c->op,
                           " in a HOST orchestrator must be a direct assignment, expression "
                           "statement, or return value");
      return call;
    }
    return IRMutator::MutateCall(call);
  }

  // `return op(...)` (spec Q9): lowered in place; the function returns the
  // window the collective wrote.
  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& stmt) override {
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> values;
    bool changed = false;
    for (const ExprPtr& v : stmt->value()) {
      CallPtr call = ir::As<ir::Call>(v);
      const CollectiveDef* c = FindCollective(call);
      if (c == nullptr) {
        ExprPtr m = MutateExpr(v);
        changed = changed || m != v;
        values.push_back(std::move(m));
        continue;
      }
      absl::StatusOr<StmtPtr> lowered = Lower(*c, call, {});
      if (!lowered.ok()) return Fail(lowered.status(), stmt);
      stmts.push_back(*std::move(lowered));
      values.push_back(MutateExpr(call->args()[c->alias_arg]));
      changed = true;
    }
    if (!changed) return stmt;
    stmts.push_back(std::make_shared<const ir::ReturnStmt>(std::move(values),
                                                           stmt->leading_comments(), stmt->span()));
    if (stmts.size() == 1) return stmts[0];
    return std::make_shared<const ir::SeqStmts>(std::move(stmts), stmt->span());
  }

  StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    CallPtr call = ir::As<ir::Call>(stmt->expr());
    const CollectiveDef* c = FindCollective(call);
    if (c == nullptr) return IRMutator::MutateEvalStmt(stmt);
    absl::StatusOr<StmtPtr> lowered = Lower(*c, call, stmt->leading_comments());
    if (!lowered.ok()) return Fail(lowered.status(), stmt);
    return *lowered;
  }

  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    CallPtr call = ir::As<ir::Call>(stmt->value());
    const CollectiveDef* c = FindCollective(call);
    if (c == nullptr || stmt->var() == nullptr) return IRMutator::MutateAssignStmt(stmt);
    absl::StatusOr<StmtPtr> lowered = Lower(*c, call, {});
    if (!lowered.ok()) return Fail(lowered.status(), stmt);
    // `res = collective(...)` keeps naming the window it wrote: res' = source.
    ExprPtr source = MutateExpr(call->args()[c->alias_arg]);
    auto src_type = DistType(source);
    auto res_type = ir::As<ir::DistributedTensorType>(MutateType(stmt->var()->type()));
    if (src_type == nullptr || !src_type->window_buffer() || res_type == nullptr) {
      return Fail(InternalErrorF(stmt->span(), c->op,
                                 " result and its alias source must be window-bound "
                                 "DistributedTensors"),
                  stmt);
    }
    auto type = std::make_shared<const ir::DistributedTensorType>(
        res_type->shape(), res_type->dtype(), res_type->memref(), res_type->tensor_view(),
        src_type->window_buffer(), res_type->span());
    auto res = std::make_shared<const ir::Var>(stmt->var()->name_hint(), std::move(type),
                                               stmt->var()->span());
    SetVarReplacement(stmt->var(), res);
    std::vector<StmtPtr> stmts;
    if (auto seq = ir::As<ir::SeqStmts>(*lowered)) {
      stmts = seq->stmts();
    } else {
      stmts.push_back(*lowered);
    }
    stmts.push_back(std::make_shared<const ir::AssignStmt>(res, std::move(source), stmt->span()));
    return std::make_shared<const ir::SeqStmts>(std::move(stmts), stmt->span());
  }

 private:
  StmtPtr Fail(absl::Status status, const StmtPtr& stmt) {
    if (status_.ok()) status_ = std::move(status);
    return stmt;
  }

  absl::StatusOr<StmtPtr> Lower(const CollectiveDef& c, const CallPtr& call,
                                const std::vector<std::string>& comments) {
    const Span& span = call->span();
    if (scopes_.empty()) {
      return InternalErrorF(span, c.op, " must appear inside a CommDomainScopeStmt");
    }
    const std::vector<ExprPtr>& args = call->args();
    if (c.signal_optional && args.size() != c.operands.size()) {
      return UserErrorF(span, c.op,
                        " on the HOST rail needs an explicit signal; run "
                        "SynthesizeAllReduceSignals before LowerHostTensorCollectives");
    }
    RETURN_IF_ERROR(ops::CheckCollectiveMode(*call));
    const size_t arity = c.operands.size();
    if (args.size() < arity) {
      return InternalErrorF(span, c.op, " expects ", arity, " window operands, got ",
                            args.size());
    }
    // Host-bound operands, then every other window operand (whose deducer
    // already demands a DistributedTensor, so only an unbound parameter is
    // left to reject here).
    std::vector<ir::WindowBufferPtr> buffers;
    for (size_t i = 0; i < arity; ++i) {
      auto t = DistType(args[i]);
      if (t == nullptr || !t->window_buffer() || *t->window_buffer() == nullptr) {
        return UserErrorF(span, c.op, " ", c.operands[i].role,
                          " must be a window-bound DistributedTensor (a view of an "
                          "alloc_window_buffer) when called from a HOST orchestrator; a plain "
                          "Tensor or an unbound DistributedTensor parameter is only supported "
                          "on the InCore composite path");
      }
      buffers.push_back(*t->window_buffer());
    }
    RETURN_IF_ERROR(CheckPairwiseDistinctWindows(c, buffers, span));
    ASSIGN_OR_RETURN(const ir::CommDomainScopeStmt* scope, FindScopeForBuffers(c, buffers, span));
    const int64_t n = static_cast<int64_t>(scope->devices().size());

    // Operands after earlier rewrites (a chained `x = op(x, ...)` reads the
    // remapped x).
    std::vector<ExprPtr> new_args;
    for (size_t i = 0; i < arity; ++i) new_args.push_back(MutateExpr(args[i]));
    auto sig = DistType(args[c.signal_arg]);
    ir::DataType data_dtype = DistType(args[c.alias_arg])->dtype();

    const std::string builtin = c.BuiltinOpName();
    AttrList kwargs;
    AttrList extra_attrs;
    if (!c.ReduceOps(ops::CollectiveRail::kHost).empty()) {
      int64_t op = ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0);
      RETURN_IF_ERROR(CheckHostReduceOp(c, op, span));
      kwargs.emplace_back("op", op);
    }
    if (c.has_root) {
      int64_t root = ir::GetAttr<int64_t>(call->kwargs(), "root").value_or(0);
      if (n > 0 && (root < 0 || root >= n)) {
        return UserErrorF(span, "pld.tensor.broadcast root (", root,
                          ") must be a valid rank in [0, ", n, ") for this explicit device subset");
      }
      kwargs.emplace_back("root", root);
    }
    if (c.DTypes(ops::CollectiveRail::kHost).has_value()) kwargs.emplace_back("dtype", data_dtype);

    RETURN_IF_ERROR(AddLaunchWidth(c, call, *sig, args, n, kwargs, extra_attrs));

    // attrs = the builtin's kwargs, the call's other attrs, device, directions.
    AttrList attrs = kwargs;
    for (auto& kv : extra_attrs) attrs.push_back(std::move(kv));
    std::optional<AttrList> call_attrs = MutateAttrs(call->attrs());
    for (const auto& [k, v] : call_attrs ? *call_attrs : call->attrs()) {
      if (k == ir::kAttrDevice || k == ir::kAttrArgDirections || ir::HasAttr(attrs, k)) continue;
      attrs.emplace_back(k, v);
    }
    const ops::OpRegistry& registry = ops::OpRegistry::Global();
    auto make = [&](ExprPtr device) -> absl::StatusOr<CallPtr> {
      AttrList a = attrs;
      a.emplace_back(ir::kAttrDevice, std::move(device));
      a.emplace_back(ir::kAttrArgDirections, Directions(c));
      return registry.MakeCall(builtin, new_args, kwargs, std::move(a), span);
    };

    if (n > 0) {
      std::vector<StmtPtr> evals;
      std::vector<int64_t> devices = scope->devices();
      std::sort(devices.begin(), devices.end());
      for (int64_t dev : devices) {
        ASSIGN_OR_RETURN(CallPtr b,
                         make(std::make_shared<ir::ConstInt>(dev, ir::DataType::kInt64, span)));
        evals.push_back(std::make_shared<const ir::EvalStmt>(
            std::move(b), evals.empty() ? comments : std::vector<std::string>{}, span));
      }
      return StmtPtr(std::make_shared<const ir::SeqStmts>(std::move(evals), span));
    }
    // All devices: one dispatch per rank of the runtime world (bounds spelled
    // as a user's `pl.range(pld.world_size())`; r is Scalar[INT64], spec §3.11).
    auto r = std::make_shared<const ir::Var>("r", ir::ScalarType::Get(ir::DataType::kInt64), span);
    ASSIGN_OR_RETURN(CallPtr b, make(r));
    ASSIGN_OR_RETURN(CallPtr ws,
                     registry.MakeCall(ir::OpId::kPldSystemWorldSize, {}, {}, {}, span));
    return StmtPtr(std::make_shared<const ir::ForStmt>(
        r, std::make_shared<ir::ConstInt>(0, ir::DataType::kIndex, span), ws,
        std::make_shared<ir::ConstInt>(1, ir::DataType::kIndex, span),
        std::vector<ir::IterArgPtr>{},
        std::make_shared<const ir::EvalStmt>(std::move(b), comments, span),
        std::vector<ir::VarPtr>{}, ir::ForKind::kSequential, AttrList{}, span));
  }

  // The requested block limit L travels to the dispatch as the core_num
  // attr, in the form the call's kwarg has (an int, or the scalar
  // expression); the entry turns it into the launched width B at run time.
  // Checks the signal against the width the def's rule launches.
  absl::Status AddLaunchWidth(const CollectiveDef& c, const CallPtr& call,
                              const ir::DistributedTensorType& signal,
                              const std::vector<ExprPtr>& args, int64_t n, AttrList& kwargs,
                              AttrList& extra_attrs) {
    const Span& span = call->span();
    const ops::CoreNum l = ops::CollectiveCoreNum(c, *call);
    if (!TakesCoreNum(c.launch_width)) {
      if (l.value != std::optional<int64_t>(1)) {
        return UserErrorF(span, "HOST ", c.op, c.mode.empty() ? "" : " mode=\"", c.mode,
                          c.mode.empty() ? "" : "\"", " does not support core_num > 1, got core_num=",
                          l.value ? pto::StrCat(*l.value) : std::string("a dynamic value"),
                          c.ring_signal ? "; use mode=\"mesh\" for a multi-core AllReduce"
                                        : "");
      }
      if (c.ring_signal) {
        // The ring's signal is one row per step (CheckRingAllReduce).
        if (n > 0) RETURN_IF_ERROR(CheckRingAllReduce(c.op, *DistType(args[0]), signal, n, span));
      } else {
        RETURN_IF_ERROR(CheckStaticSignalCapacity(c.op, signal, n, 1, c.wider_signal, span));
      }
    } else if (c.launch_width == ops::LaunchWidthRule::kOneShot) {
      if (!l.value) return UserErrorF(span, c.op, " core_num must be a compile-time int");
      if (options_.backend_aiv_core_count && *l.value > *options_.backend_aiv_core_count) {
        return UserErrorF(span, c.op, " core_num (", *l.value,
                          ") exceeds the backend AIV core count (",
                          *options_.backend_aiv_core_count, ")");
      }
      // B = min(L, P + 1) <= L lanes run, so [P, L] lanes always suffice.
      RETURN_IF_ERROR(CheckStaticSignalCapacity(c.op, signal, n, *l.value, c.wider_signal, span));
      kwargs.emplace_back(ir::kAttrCoreNum, *l.value);
    } else {
      // K2: an all_to_all_v signal may be wider than one lane; its entry
      // checks the stride against the launched width B at run time (§4.9).
      RETURN_IF_ERROR(CheckStaticSignalCapacity(c.op, signal, n, 1, c.wider_signal, span));
      if (l.expr != nullptr) {
        extra_attrs.emplace_back(ir::kAttrCoreNum, MutateExpr(l.expr));
      } else if (ir::HasAttr(call->kwargs(), ir::kAttrCoreNum)) {
        extra_attrs.emplace_back(ir::kAttrCoreNum, *l.value);
      }
    }
    return absl::OkStatus();
  }

  // Two views of one allocation in one collective race across processes
  // (TPUT/reduce overwrite, or a notify/count write racing a kernel read).
  static absl::Status CheckPairwiseDistinctWindows(const CollectiveDef& c,
                                                   const std::vector<ir::WindowBufferPtr>& bufs,
                                                   const Span& span) {
    for (size_t i = 0; i < bufs.size(); ++i) {
      for (size_t j = i + 1; j < bufs.size(); ++j) {
        if (bufs[i] == bufs[j]) {
          return UserErrorF(span, c.op, " ", c.operands[i].role, " and ", c.operands[j].role,
                            " must be different window allocations (two pld.window views over "
                            "the same alloc_window_buffer are a cross-process data race under "
                            "in-kernel TPUT/notify)");
        }
      }
    }
    return absl::OkStatus();
  }

  // The innermost enclosing scope whose slots hold every buffer.
  absl::StatusOr<const ir::CommDomainScopeStmt*> FindScopeForBuffers(
      const CollectiveDef& c, const std::vector<ir::WindowBufferPtr>& bufs, const Span& span) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const std::vector<ir::WindowBufferPtr>& slots = (*it)->slots();
      bool all = true;
      for (const ir::WindowBufferPtr& b : bufs) {
        bool found = false;
        for (const ir::WindowBufferPtr& s : slots) found = found || s == b;
        all = all && found;
      }
      if (all) return *it;
    }
    // MaterializeCommDomainScopes groups windows by the devices that use
    // them, so a user reaches this by using the windows of one collective on
    // different device sets (spec: INTERNAL; ours: a user error with advice).
    std::string where;
    for (size_t i = 0; i < bufs.size(); ++i) {
      std::string scope = "no comm domain around the call";
      for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        bool found = false;
        for (const ir::WindowBufferPtr& s : (*it)->slots()) found = found || s == bufs[i];
        if (found) {
          scope = pto::StrCat("comm domain '", (*it)->name_hint(), "'");
          break;
        }
      }
      pto::StrAppend(&where, i == 0 ? "" : ", ", c.operands[i].role, " '", bufs[i]->name_hint(), "' in ",
                     scope);
    }
    return UserErrorF(span, c.op,
                      ": window buffers must resolve to the same comm-domain scope, but its "
                      "windows are in different comm domains (",
                      where,
                      "); windows are grouped into comm domains by the devices that use them, "
                      "so use every window of a collective on the same devices (e.g. dispatch "
                      "each pipeline that takes one to every device with `for r in "
                      "pl.range(pld.world_size())` and device=r)");
  }

  const LowerHostTensorCollectivesOptions options_;
  std::vector<const ir::CommDomainScopeStmt*> scopes_;
  absl::Status status_;
};

class LowerHostTensorCollectivesPass : public Pass {
 public:
  explicit LowerHostTensorCollectivesPass(LowerHostTensorCollectivesOptions options)
      : options_(options) {}
  std::string_view name() const override { return "LowerHostTensorCollectives"; }
  IRPropertySet required() const override { return {IRProperty::kCommDomainScopesMaterialized}; }
  IRPropertySet produced() const override { return {IRProperty::kCommDomainScopesMaterialized}; }

  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override {
    Lowerer lowerer(options_);
    ir::ProgramPtr out = lowerer.MutateProgram(program);
    RETURN_IF_ERROR(lowerer.status());
    return out;
  }

 private:
  LowerHostTensorCollectivesOptions options_;
};

}  // namespace

std::unique_ptr<Pass> CreateLowerHostTensorCollectivesPass(
    LowerHostTensorCollectivesOptions options) {
  return std::make_unique<LowerHostTensorCollectivesPass>(options);
}

}  // namespace pto::passes
