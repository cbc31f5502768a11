#include "compiler/passes/lower_composite_ops.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::BinaryOp;
using ir::CallPtr;
using ir::DataType;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

// ABI enum values of spec §2 (stored in int kwargs).
constexpr int64_t kNotifyAtomicAdd = 0;
constexpr int64_t kWaitGe = 1;
constexpr int64_t kAtomicNone = 0;
// Physical UB tile budget of one staged chunk.
constexpr int64_t kUbChunkBytes = 16 * 1024;

using ir::OpId;

// IsManagedTensorCollective: the collectives this pass expands in kernel
// bodies, those whose CollectiveDef lists the InCore rail.
bool IsManagedTensorCollective(std::string_view name) {
  const ops::CollectiveDef* def = ops::FindCollective(name);
  return def != nullptr && def->OnRail(ops::CollectiveRail::kInCore);
}

// The InCore dtypes and reduce ops of the call's CollectiveDef.
absl::Status CheckInCoreRail(const CallPtr& call) {
  const ops::CollectiveDef* def = ops::FindCollective(call);
  constexpr ops::CollectiveRail kRail = ops::CollectiveRail::kInCore;
  const std::vector<ops::ReduceOp>& reduce = def->ReduceOps(kRail);
  if (!reduce.empty()) {
    int64_t op = ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0);
    bool ok = false;
    std::string list;
    for (ops::ReduceOp r : reduce) {
      ok = ok || static_cast<int64_t>(r) == op;
      pto::StrAppend(&list, list.empty() ? "" : ", ", ops::ReduceOpName(static_cast<int64_t>(r)));
    }
    if (!ok) {
      return UserErrorF(call->span(), def->op, " on the InCore rail supports op ", list,
                        ", got ", ops::ReduceOpName(op));
    }
  }
  // A malformed call is left to its rule's arity checks.
  if (def->alias_arg >= call->args().size()) return absl::OkStatus();
  auto data = ir::AsTensorTypeLike(call->args()[def->alias_arg]->type());
  if (data == nullptr) return absl::OkStatus();
  return ops::CheckCollectiveDType(kRail, def->builtin, data->dtype(), def->op, call->span());
}

CallPtr AsCollectiveCall(const ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  if (call == nullptr || ir::Is<ir::GlobalVar>(call->op())) return nullptr;
  return IsManagedTensorCollective(call->op()->name()) ? call : nullptr;
}

// `pld.tensor.all_to_all_v` -> `all_to_all_v` (for result names).
std::string_view ShortName(std::string_view op) { return op.substr(op.rfind('.') + 1); }

// Builds the statements of one lowered call. Nested bodies (loops, branches)
// are filled by callbacks; the first error is kept and later emission is
// skipped (every builder tolerates null operands).
class Emitter {
 public:
  Emitter(std::string_view op, Span span, int64_t* counter)
      : op_(op), span_(std::move(span)), counter_(counter), blocks_(1) {}

  const absl::Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  const Span& span() const { return span_; }
  std::string_view op() const { return op_; }
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  std::vector<StmtPtr> TakeStatements() { return std::move(blocks_.front()); }

  // ---- expressions ----

  VarPtr NewVar(std::string_view base, TypePtr type) {
    return ir::MakeVar(pto::StrCat(base, "_", (*counter_)++), std::move(type), span_);
  }
  ExprPtr Index(int64_t v) { return ir::ConstIndex(v, span_); }
  ExprPtr Int32(int64_t v) { return ir::MakeConstInt(v, DataType::kInt32, span_); }
  ExprPtr Tuple(std::vector<ExprPtr> elems) {
    if (AnyNull(elems)) return nullptr;
    return std::make_shared<ir::MakeTuple>(std::move(elems), span_);
  }
  ExprPtr Cast(const ExprPtr& v, DataType dtype) {
    if (v == nullptr) return nullptr;
    return std::make_shared<ir::Cast>(v, dtype, span_);
  }
  ExprPtr Bin(BinaryOp op, const ExprPtr& a, const ExprPtr& b) {
    if (a == nullptr || b == nullptr || !ok()) return nullptr;
    absl::StatusOr<ExprPtr> e = ir::MakeBinary(op, a, b, span_);
    if (!e.ok()) return Internal(e.status());
    return *e;
  }
  // A registry operator call typed by its deducer: what this pass emits must
  // be what the parser would build from the printed text.
  ExprPtr Call(OpId id, std::vector<ExprPtr> args, ir::AttrList kwargs = {}) {
    if (AnyNull(args) || !ok()) return nullptr;
    absl::StatusOr<CallPtr> call =
        ops::OpRegistry::Global().MakeCall(id, std::move(args), std::move(kwargs), {}, span_);
    if (!call.ok()) return Internal(call.status());
    return *call;
  }

  // ---- statements ----

  VarPtr Let(std::string_view base, const ExprPtr& value) {
    if (value == nullptr || !ok()) return nullptr;
    VarPtr v = NewVar(base, value->type());
    Emit(std::make_shared<ir::AssignStmt>(v, value, span_));
    return v;
  }
  void Eval(const ExprPtr& e) {
    if (e == nullptr || !ok()) return;
    Emit(std::make_shared<ir::EvalStmt>(e, std::vector<std::string>{}, span_));
  }
  void Emit(StmtPtr s) { blocks_.back().push_back(std::move(s)); }
  bool Nested() const { return blocks_.size() > 1; }

  // `for <base> in pl.range(stop): body(i)`.
  void For(std::string_view base, const ExprPtr& stop,
           const std::function<void(const VarPtr&)>& body) {
    if (stop == nullptr || !ok()) return;
    VarPtr i = NewVar(base, ir::ScalarOf(DataType::kIndex));
    blocks_.emplace_back();
    body(i);
    StmtPtr b = PopBlock();
    Emit(std::make_shared<ir::ForStmt>(i, Index(0), stop, Index(1), std::vector<ir::IterArgPtr>{},
                                       b, std::vector<VarPtr>{}, ir::ForKind::kSequential,
                                       ir::AttrList{}, span_));
  }
  // A loop carrying one value: body(i, carried) returns the next value; the
  // loop's result var is returned.
  VarPtr ForCarry(std::string_view base, const ExprPtr& stop, std::string_view carry,
                  const ExprPtr& init,
                  const std::function<ExprPtr(const VarPtr&, const VarPtr&)>& body) {
    if (stop == nullptr || init == nullptr || !ok()) return nullptr;
    VarPtr i = NewVar(base, ir::ScalarOf(DataType::kIndex));
    auto iter = std::make_shared<ir::IterArg>(pto::StrCat(carry, "_", (*counter_)++), init->type(),
                                              init, span_);
    blocks_.emplace_back();
    ExprPtr next = body(i, iter);
    if (next != nullptr) Emit(std::make_shared<ir::YieldStmt>(std::vector<ExprPtr>{next}, span_));
    StmtPtr b = PopBlock();
    if (next == nullptr || !ok()) return nullptr;
    VarPtr out = NewVar(pto::StrCat(carry, "_out"), init->type());
    Emit(std::make_shared<ir::ForStmt>(
        i, Index(0), stop, Index(1), std::vector<ir::IterArgPtr>{iter}, b, std::vector<VarPtr>{out},
        ir::ForKind::kSequential, ir::AttrList{}, span_));
    return out;
  }
  // `if cond: then()`.
  void If(const ExprPtr& cond, const std::function<void()>& then) {
    if (cond == nullptr || !ok()) return;
    blocks_.emplace_back();
    then();
    StmtPtr b = PopBlock();
    Emit(std::make_shared<ir::IfStmt>(cond, b, std::nullopt, std::vector<VarPtr>{}, span_));
  }
  // `r = cond ? then() : otherwise()` as an if with one return var.
  VarPtr IfValue(std::string_view base, const ExprPtr& cond, const std::function<ExprPtr()>& then,
                 const std::function<ExprPtr()>& otherwise) {
    if (cond == nullptr || !ok()) return nullptr;
    blocks_.emplace_back();
    ExprPtr a = then();
    if (a != nullptr) Emit(std::make_shared<ir::YieldStmt>(std::vector<ExprPtr>{a}, span_));
    StmtPtr tb = PopBlock();
    blocks_.emplace_back();
    ExprPtr b = otherwise();
    if (b != nullptr) Emit(std::make_shared<ir::YieldStmt>(std::vector<ExprPtr>{b}, span_));
    StmtPtr eb = PopBlock();
    if (a == nullptr || b == nullptr || !ok()) return nullptr;
    VarPtr r = NewVar(base, a->type());
    Emit(std::make_shared<ir::IfStmt>(cond, tb, eb, std::vector<VarPtr>{r}, span_));
    return r;
  }

  // ---- the comm setup and the credit barrier protocol ----

  // ctx / nranks (INT32) / nranks_idx (INDEX) / my_rank (INT32) for `target`.
  void EmitCommSetup(const ExprPtr& target) {
    ctx_ = Let("ctx", Call(OpId::kPldSystemGetCommCtx, {target}));
    nranks_ = Let("nranks", Call(OpId::kPldSystemNranks, {ctx_}));
    nranks_idx_ = Let("nranks_idx", Cast(nranks_, DataType::kIndex));
    my_rank_ = Let("my_rank", Call(OpId::kPldSystemRank, {ctx_}));
  }
  const VarPtr& nranks_idx() const { return nranks_idx_; }
  const VarPtr& my_rank() const { return my_rank_; }

  // The offsets of cell [row, col] of a signal ([row] for a rank-1 signal).
  ExprPtr Cell(const ExprPtr& signal, const ExprPtr& row, const ExprPtr& col) {
    if (signal == nullptr) return nullptr;
    size_t rank = ir::AsTensorTypeLike(signal->type())->shape().size();
    return rank == 1 ? Tuple({row}) : Tuple({row, col});
  }
  // `for p in range(nranks): if p != my_rank: body(p)`.
  void ForEachPeer(std::string_view base, const std::function<void(const VarPtr&)>& body) {
    For(base, nranks_idx_,
        [&](const VarPtr& p) { If(Bin(BinaryOp::kNe, p, my_rank_), [&] { body(p); }); });
  }
  // One credit to every peer's cell [my_rank, col], then wait for every
  // peer's credit in this rank's cell [src, col] to reach `expected` (Ge: a
  // fast peer may already have advanced it).
  void NotifyAndWaitAll(const ExprPtr& signal, const ExprPtr& row, const ExprPtr& expected,
                        bool row_is_sender) {
    ForEachPeer("peer", [&](const VarPtr& peer) {
      ExprPtr cell = row_is_sender ? Cell(signal, my_rank_, Index(0)) : Cell(signal, row, my_rank_);
      Eval(
          Call(OpId::kPldSystemNotify, {signal, peer, cell, Int32(1)}, {{"op", kNotifyAtomicAdd}}));
    });
    ForEachPeer("src", [&](const VarPtr& src) {
      ExprPtr cell = row_is_sender ? Cell(signal, src, Index(0)) : Cell(signal, row, src);
      Eval(Call(OpId::kPldSystemWait, {signal, cell, expected}, {{"cmp", kWaitGe}}));
    });
  }
  // The next generation's barrier; returns its generation g (1, 2, ...).
  int64_t EmitBarrier(const ExprPtr& signal) {
    if (Nested()) {
      Fail(InternalError(span_,
                         "EmitBarrier must only be called from a top-level lowering rule; a "
                         "loop-resident barrier must hand-roll its call-local expected values"));
      return 0;
    }
    int64_t g = ++generation_;
    NotifyAndWaitAll(signal, nullptr, Int32(g), /*row_is_sender=*/true);
    return g;
  }
  // Subtracts `total` credits from every peer cell of this rank, once per
  // call after all barriers, so the signal is all-zero again for the next
  // call. `rows` > 0 selects the 2-D (ring) form over every row.
  void EmitEpilogueReset(const ExprPtr& signal, const ExprPtr& total, int64_t rows = 0) {
    if (epilogue_emitted_) {
      Fail(InternalError(span_, "EmitEpilogueReset must be called exactly once per lowered call"));
      return;
    }
    epilogue_emitted_ = true;
    std::optional<int64_t> constant = ir::GetConstInt(total);
    ExprPtr minus =
        constant ? Int32(-*constant) : Bin(BinaryOp::kSub, Int32(0), Cast(total, DataType::kInt32));
    auto reset_row = [&](const ExprPtr& row) {
      ForEachPeer("src", [&](const VarPtr& src) {
        ExprPtr cell = row == nullptr ? Cell(signal, src, Index(0)) : Cell(signal, row, src);
        Eval(Call(OpId::kPldSystemNotify, {signal, my_rank_, cell, minus},
                  {{"op", kNotifyAtomicAdd}}));
      });
    };
    if (rows == 0) {
      reset_row(nullptr);
    } else {
      For("row", Index(rows), [&](const VarPtr& row) { reset_row(row); });
    }
  }

 private:
  static bool AnyNull(const std::vector<ExprPtr>& v) {
    return std::any_of(v.begin(), v.end(), [](const ExprPtr& e) { return e == nullptr; });
  }
  ExprPtr Internal(const absl::Status& s) {
    Fail(InternalErrorF(span_, "LowerCompositeOps emitted an ill-typed primitive: ", s.message()));
    return nullptr;
  }
  StmtPtr PopBlock() {
    std::vector<StmtPtr> b = std::move(blocks_.back());
    blocks_.pop_back();
    if (b.empty()) return std::make_shared<ir::SeqStmts>(std::vector<StmtPtr>{}, span_);
    return ir::SeqStmts::Flatten(b, span_);
  }

  std::string_view op_;
  Span span_;
  int64_t* counter_;
  std::vector<std::vector<StmtPtr>> blocks_;
  absl::Status status_;
  int64_t generation_ = 0;
  bool epilogue_emitted_ = false;
  VarPtr ctx_, nranks_, nranks_idx_, my_rank_;
};

std::shared_ptr<const ir::TensorType> TensorLike(const ExprPtr& e) {
  return ir::AsTensorTypeLike(e->type());
}
std::shared_ptr<const ir::DistributedTensorType> Window(const ExprPtr& e) {
  return ir::As<ir::DistributedTensorType>(e->type());
}

// ValidateMeshSignalShape: one [NR, 1] credit cell per rank.
absl::Status ValidateMeshSignalShape(const ExprPtr& signal, std::string_view op, const Span& span) {
  auto sig = Window(signal);
  if (sig == nullptr) {
    return UserErrorF(span, op, " signal must be a DistributedTensor (a window view)");
  }
  if (sig->shape().size() != 2) {
    return UserErrorF(span, op, " signal must be 2D [NR, 1], got rank ", sig->shape().size());
  }
  if (std::optional<int64_t> s = ir::GetConstInt(sig->shape()[1]); s && *s != 1) {
    return UserErrorF(span, op, " signal shape[1] must be 1 (one cell per rank), got ", *s,
                      " — a signal shaped for mode=\"ring\" allreduce ([2*(NR-1), NR]) cannot be "
                      "shared with this collective; give it its own [NR, 1] signal window");
  }
  return absl::OkStatus();
}

// The staging tile of one transfer of `rows` x `size` elements: at most one
// UB chunk of whole rows (at least one row).
ExprPtr StageShape(Emitter& em, int64_t rows, const ExprPtr& size, DataType dtype) {
  int64_t stage_rows = 1;
  if (std::optional<int64_t> s = ir::GetConstInt(size); s && *s > 0) {
    int64_t row_bytes = *s * ir::DataTypeBytes(dtype);
    stage_rows = std::clamp<int64_t>(kUbChunkBytes / std::max<int64_t>(row_bytes, 1), 1,
                                     std::max<int64_t>(rows, 1));
  }
  return em.Tuple({em.Index(stage_rows), size});
}

ExprPtr Stage(Emitter& em, const ExprPtr& shape, DataType dtype) {
  return em.Let("stage", em.Call(OpId::kPlTileCreate, {shape},
                                 {{"dtype", dtype}, {"target_memory", std::string("Vec")}}));
}

// ---- the rules; each returns the value the collective's result is bound to ----

// S1 LowerTensorAllToAllVRule.
ExprPtr LowerAllToAllV(Emitter& em, const CallPtr& call) {
  const std::vector<ExprPtr>& a = call->args();
  const Span& span = call->span();
  if (a.size() != 5) {
    em.Fail(InternalErrorF(span,
                           "pld.tensor.all_to_all_v expects 5 args (input, target, signal, "
                           "send_counts, recv_counts; core_num as a kwarg), got ",
                           a.size()));
    return nullptr;
  }
  std::optional<int64_t> core_num =
      ops::CollectiveCoreNum(*ops::FindCollective(call), *call)
          .value;
  if (!core_num || *core_num != 1) {
    std::string got = core_num ? std::to_string(*core_num) : std::string("a dynamic value");
    em.Fail(UserErrorF(span,
                       "InCore pld.tensor.all_to_all_v requires a compile-time core_num=1, "
                       "got ",
                       got,
                       "; call it from a CHIP Orchestration function to use the managed "
                       "multi-AIV path"));
    return nullptr;
  }
  const ExprPtr &input = a[0], &target = a[1], &signal = a[2], &send_counts = a[3],
                &recv_counts = a[4];
  auto in_t = TensorLike(input);
  auto tg_t = Window(target);
  auto sc_t = TensorLike(send_counts);
  auto rc_t = Window(recv_counts);
  if (in_t == nullptr) {
    em.Fail(InternalError(span, "pld.tensor.all_to_all_v input must be a tensor"));
  } else if (tg_t == nullptr || tg_t->shape().size() != 2) {
    em.Fail(
        InternalError(span, "pld.tensor.all_to_all_v target must be a rank-2 DistributedTensor"));
  } else if (sc_t == nullptr || (sc_t->shape().size() != 1 && sc_t->shape().size() != 2)) {
    em.Fail(InternalError(span,
                          "pld.tensor.all_to_all_v send_counts must be a rank-1 or rank-2 tensor"));
  } else if (rc_t == nullptr || rc_t->shape().size() != 2) {
    em.Fail(InternalError(
        span, "pld.tensor.all_to_all_v recv_counts must be a rank-2 DistributedTensor"));
  }
  if (!em.ok()) return nullptr;

  em.EmitCommSetup(target);
  std::optional<int64_t> total_rows = ir::GetConstInt(tg_t->shape()[0]);
  if (!total_rows) {
    em.Fail(UserError(span,
                      "pld.tensor.all_to_all_v target dim 0 must be a compile-time constant "
                      "(it is split as NR * MAX_RECV rows, one equal-capacity slot per "
                      "sender)"));
    return nullptr;
  }
  if (absl::Status s = ValidateMeshSignalShape(signal, call->op()->name(), span); !s.ok()) {
    em.Fail(s);
    return nullptr;
  }
  std::optional<int64_t> nr = ir::GetConstInt(Window(signal)->shape()[0]);
  if (!nr || *nr <= 0) {
    em.Fail(UserError(span,
                      "pld.tensor.all_to_all_v signal dim 0 (NR) must be a positive "
                      "compile-time constant"));
    return nullptr;
  }
  if (*total_rows % *nr != 0) {
    em.Fail(UserErrorF(span, "pld.tensor.all_to_all_v target dim 0 (", *total_rows,
                       ") must be divisible by NR (", *nr,
                       "): every sender needs an equal-capacity slot"));
    return nullptr;
  }
  const int64_t max_recv_value = *total_rows / *nr;
  ExprPtr max_recv = em.Index(max_recv_value);
  const ExprPtr& size = tg_t->shape()[1];
  ExprPtr stage = Stage(em, StageShape(em, max_recv_value, size, tg_t->dtype()), tg_t->dtype());

  const VarPtr& my_rank = em.my_rank();
  // The counts travel by atomic adds, never by Sets: on a2a3 a Set writes
  // back its whole 64-byte line (pto-isa#322), so the senders' Sets of
  // packed cells in one line lose updates. This rank first zeroes its own
  // cells by an atomic delta (no line write-back either), a barrier orders
  // that before every sender's add, and a destination receiving 0 rows
  // keeps the 0.
  em.For("src", em.nranks_idx(), [&](const VarPtr& src) {
    VarPtr old =
        em.Let("old_count", em.Call(OpId::kPlTensorRead, {recv_counts, em.Tuple({src, em.Index(0)})}));
    em.Eval(em.Call(OpId::kPldSystemNotify,
                    {recv_counts, my_rank, em.Tuple({src, em.Index(0)}),
                     em.Bin(BinaryOp::kSub, em.Int32(0), old)},
                    {{"op", kNotifyAtomicAdd}}));
  });
  em.EmitBarrier(signal);
  em.For("dest", em.nranks_idx(), [&](const VarPtr& dest) {
    ExprPtr idx = sc_t->shape().size() == 1 ? em.Tuple({dest}) : em.Tuple({dest, em.Index(0)});
    VarPtr count = em.Let("count", em.Call(OpId::kPlTensorRead, {send_counts, idx}));
    // Two-sided clamp: negative counts send nothing, over-capacity counts
    // are cut to the slot.
    ExprPtr clamped =
        em.Bin(BinaryOp::kMax, em.Bin(BinaryOp::kMin, em.Cast(count, DataType::kIndex), max_recv),
               em.Index(0));
    VarPtr rows = em.Let("rows", clamped);
    em.If(em.Bin(BinaryOp::kGt, rows, em.Index(0)), [&] {
      em.Eval(em.Call(OpId::kPldSystemNotify,
                      {recv_counts, dest, em.Tuple({my_rank, em.Index(0)}),
                       em.Cast(rows, DataType::kInt32)},
                      {{"op", kNotifyAtomicAdd}}));
      em.Eval(em.Call(
          OpId::kPldTilePut,
          {target, dest, input, stage,
           em.Tuple({em.Bin(BinaryOp::kMul, my_rank, max_recv), em.Index(0)}),
           em.Tuple({em.Bin(BinaryOp::kMul, dest, max_recv), em.Index(0)}), em.Tuple({rows, size})},
          {{"atomic", kAtomicNone}}));
    });
  });
  int64_t g = em.EmitBarrier(signal);
  em.EmitEpilogueReset(signal, em.Int32(g));
  return target;
}

// all_to_all (row dest of input to row my_rank of dest) and allgather (the
// single input row to row my_rank of every rank).
ExprPtr LowerRowExchange(Emitter& em, const CallPtr& call, bool gather) {
  const std::vector<ExprPtr>& a = call->args();
  const Span& span = call->span();
  if (a.size() != 3 || TensorLike(a[0]) == nullptr || Window(a[1]) == nullptr ||
      Window(a[1])->shape().size() != 2) {
    em.Fail(InternalErrorF(span, call->op()->name(),
                           " expects (input, target [NR, SIZE] window, signal)"));
    return nullptr;
  }
  const ExprPtr &input = a[0], &target = a[1], &signal = a[2];
  auto tg_t = Window(target);
  em.EmitCommSetup(target);
  if (absl::Status s = ValidateMeshSignalShape(signal, call->op()->name(), span); !s.ok()) {
    em.Fail(s);
    return nullptr;
  }
  const ExprPtr& size = tg_t->shape()[1];
  // Every rank is done with the previous call's result before anyone puts
  // into its window (a call reused on one window; without this barrier the
  // race detector reports a peer's put against the previous result's read).
  em.EmitBarrier(signal);
  ExprPtr stage = Stage(em, em.Tuple({em.Index(1), size}), tg_t->dtype());
  em.For(gather ? "peer" : "dest", em.nranks_idx(), [&](const VarPtr& dest) {
    em.Eval(em.Call(OpId::kPldTilePut,
                    {target, dest, input, stage, em.Tuple({em.my_rank(), em.Index(0)}),
                     gather ? em.Tuple({em.Index(0), em.Index(0)}) : em.Tuple({dest, em.Index(0)}),
                     em.Tuple({em.Index(1), size})},
                    {{"atomic", kAtomicNone}}));
  });
  int64_t g = em.EmitBarrier(signal);
  em.EmitEpilogueReset(signal, em.Int32(g));
  return target;
}

ExprPtr LowerBarrier(Emitter& em, const CallPtr& call) {
  if (call->args().size() != 1 || Window(call->args()[0]) == nullptr) {
    em.Fail(InternalError(call->span(), "pld.tensor.barrier expects (signal window)"));
    return nullptr;
  }
  const ExprPtr& signal = call->args()[0];
  em.EmitCommSetup(signal);
  int64_t g = em.EmitBarrier(signal);
  em.EmitEpilogueReset(signal, em.Int32(g));
  return signal;
}

std::vector<ExprPtr> Zeros(Emitter& em, size_t n) {
  std::vector<ExprPtr> z;
  for (size_t i = 0; i < n; ++i) z.push_back(em.Index(0));
  return z;
}

ExprPtr LowerBroadcast(Emitter& em, const CallPtr& call) {
  const std::vector<ExprPtr>& a = call->args();
  if (a.size() != 2 || Window(a[0]) == nullptr) {
    em.Fail(InternalError(call->span(), "pld.tensor.broadcast expects (target window, signal)"));
    return nullptr;
  }
  const ExprPtr &target = a[0], &signal = a[1];
  auto tg_t = Window(target);
  int64_t root = ir::GetAttr<int64_t>(call->kwargs(), "root").value_or(0);
  em.EmitCommSetup(target);
  if (absl::Status s = ValidateMeshSignalShape(signal, call->op()->name(), call->span()); !s.ok()) {
    em.Fail(s);
    return nullptr;
  }
  // The barrier orders the root's write of `target` before every pull.
  em.EmitBarrier(signal);
  ExprPtr shape = em.Tuple(tg_t->shape());
  ExprPtr stage = Stage(em, shape, tg_t->dtype());
  ExprPtr zeros = em.Tuple(Zeros(em, tg_t->shape().size()));
  // The root's get of itself is an identity no-op.
  em.Eval(em.Call(OpId::kPldTileGet, {target, em.Index(root), target, stage, zeros, zeros, shape}));
  // And this one every pull before the root may write `target` again (the
  // next call's staging): without it the race detector reports that write
  // against a peer's pull.
  int64_t g = em.EmitBarrier(signal);
  em.EmitEpilogueReset(signal, em.Int32(g));
  return target;
}

// The reduction tile op of a ReduceOp.
OpId ReduceTileOp(int64_t op) {
  switch (op) {
    case 1:
      return OpId::kPlTileMaximum;
    case 2:
      return OpId::kPlTileMinimum;
    case 3:
      return OpId::kPlTileMul;
    default:
      return OpId::kPlTileAdd;
  }
}

ExprPtr LowerReduceScatter(Emitter& em, const CallPtr& call) {
  const std::vector<ExprPtr>& a = call->args();
  if (a.size() != 2 || Window(a[0]) == nullptr || Window(a[0])->shape().size() != 2) {
    em.Fail(InternalError(call->span(),
                          "pld.tensor.reduce_scatter expects (target [NR, SIZE] window, signal)"));
    return nullptr;
  }
  const ExprPtr &target = a[0], &signal = a[1];
  auto tg_t = Window(target);
  const ExprPtr& size = tg_t->shape()[1];
  em.EmitCommSetup(target);
  em.EmitBarrier(signal);  // ready: every rank's target is written
  ExprPtr row = em.Tuple({em.my_rank(), em.Index(0)});
  ExprPtr shape = em.Tuple({em.Index(1), size});
  ExprPtr stage = Stage(em, shape, tg_t->dtype());
  VarPtr own = em.Let("acc", em.Call(OpId::kPlTileLoad, {target, row, shape}));
  VarPtr acc = em.ForCarry(
      "peer", em.nranks_idx(), "acc", own, [&](const VarPtr& peer, const VarPtr& cur) -> ExprPtr {
        return em.IfValue(
            "acc", em.Bin(BinaryOp::kNe, peer, em.my_rank()),
            [&]() -> ExprPtr {
              em.Eval(em.Call(OpId::kPldTileRemoteLoad, {stage, peer, target, row, shape}));
              return em.Let("acc", em.Call(OpId::kPlTileAdd, {cur, stage}));
            },
            [&]() -> ExprPtr { return cur; });
      });
  // Post-reduce: no peer still reads this rank's chunk when it is replaced.
  int64_t g = em.EmitBarrier(signal);
  VarPtr stored = em.Let("reduced", em.Call(OpId::kPlTileStore, {acc, row, target}));
  em.EmitEpilogueReset(signal, em.Int32(g));
  return stored;
}

// The chunks of a static element count: `full` chunks of the UB tile budget
// and one static `tail` (0: none). A largest divisor would be 1 element for a
// prime count (65,537 FP32: 65,537 chunks, a cross-rank barrier each, ran past
// the block deadline).
struct Chunking {
  int64_t chunk = 0;
  int64_t full = 0;
  int64_t tail = 0;
  int64_t count() const { return full + (tail > 0 ? 1 : 0); }
};
Chunking ChunkStatic(int64_t numel, DataType dtype) {
  const int64_t limit = std::max<int64_t>(kUbChunkBytes / ir::DataTypeBytes(dtype), 1);
  Chunking ch;
  ch.chunk = std::max<int64_t>(std::min(numel, limit), 1);
  ch.full = numel / ch.chunk;
  ch.tail = numel % ch.chunk;
  return ch;
}

// The mesh form: every rank folds every peer's chunk, in rank order.
void EmitMeshAllReduce(Emitter& em, const ExprPtr& signal, const VarPtr& flat, int64_t numel,
                       DataType dtype, OpId reduce) {
  // Full chunks of the UB budget, then one static tail chunk.
  const auto [chunk, full, tail] = ChunkStatic(numel, dtype);
  ExprPtr shape = em.Tuple({em.Index(1), em.Index(chunk)});
  ExprPtr stage = Stage(em, shape, dtype);
  ExprPtr tail_shape = tail > 0 ? em.Tuple({em.Index(1), em.Index(tail)}) : nullptr;
  ExprPtr tail_stage = tail > 0 ? Stage(em, tail_shape, dtype) : nullptr;
  em.EmitBarrier(signal);  // ready: every rank's target is written
  // One chunk at `start` (an INDEX expression) of `shape`, whose barrier
  // generation is `gen` (INDEX).
  auto emit_chunk = [&](const ExprPtr& start, const ExprPtr& shape, const ExprPtr& stage,
                        const ExprPtr& gen) {
    ExprPtr off = em.Tuple({em.Index(0), start});
    // Fold in rank order from rank 0's chunk (ours when we are rank 0), as
    // the HOST builtin does, so every rank and both rails get the same bits
    // (a float Prod or Sum depends on the order).
    VarPtr own = em.Let("acc", em.Call(OpId::kPlTileLoad, {flat, off, shape}));
    em.Eval(em.Call(OpId::kPldTileRemoteLoad, {own, em.Index(0), flat, off, shape}));
    VarPtr acc = em.ForCarry(
        "peer", em.nranks_idx(), "acc", own, [&](const VarPtr& peer, const VarPtr& cur) -> ExprPtr {
          return em.IfValue(
              "acc", em.Bin(BinaryOp::kNe, peer, em.Index(0)),
              [&]() -> ExprPtr {
                em.Eval(em.Call(OpId::kPldTileRemoteLoad, {stage, peer, flat, off, shape}));
                return em.Let("acc", em.Call(reduce, {cur, stage}));
              },
              [&]() -> ExprPtr { return cur; });
        });
    // Per-chunk barrier (hand-rolled: generation 2 + chunk): no peer still
    // reads this chunk when it is overwritten.
    em.NotifyAndWaitAll(signal, nullptr, em.Cast(gen, DataType::kInt32),
                        /*row_is_sender=*/true);
    em.Eval(em.Call(OpId::kPlTileStore, {acc, off, flat}));
  };
  em.For("chunk", em.Index(full), [&](const VarPtr& c) {
    emit_chunk(em.Bin(BinaryOp::kMul, c, em.Index(chunk)), shape, stage,
               em.Bin(BinaryOp::kAdd, c, em.Index(2)));
  });
  if (tail > 0) emit_chunk(em.Index(full * chunk), tail_shape, tail_stage, em.Index(full + 2));
  em.EmitEpilogueReset(signal, em.Int32(1 + ChunkStatic(numel, dtype).count()));
}

// The ring form of an InCore allreduce over the flattened [1, numel] view
// `flat`, with its [2*(NR-1), NR] signal.
void EmitRingAllReduce(Emitter& em, const VarPtr& flat, const ExprPtr& signal, int64_t numel,
                       int64_t nr, DataType dtype, OpId reduce) {
  // Ring: NR balanced segments (the first numel % NR one element longer, as
  // PyPTO's); step s < NR-1 pulls segment (my_rank - s - 1) from the left
  // neighbour and reduces it, step s >= NR-1 pulls segment
  // (my_rank - (s - NR + 1)) and copies it. Each (chunk, step) is bracketed
  // by a ready and a read-complete credit round on signal row s, so every
  // rank runs the chunks of the longest segment; a short segment's last
  // chunk is one element shorter (none when it is empty).
  const int64_t base = numel / nr, rem = numel % nr;
  // Full chunks of the UB budget and one static tail, as the mesh form.
  const Chunking ch = ChunkStatic(base + (rem > 0 ? 1 : 0), dtype);
  const int64_t chunk = ch.chunk, full = ch.full, tail = ch.tail;
  const int64_t steps = 2 * (nr - 1);
  struct Piece {
    ExprPtr shape, stage;  // null: no elements
  };
  auto piece = [&](int64_t len) -> Piece {
    if (len <= 0) return {};
    ExprPtr shape = em.Tuple({em.Index(1), em.Index(len)});
    return {shape, Stage(em, shape, dtype)};
  };
  const Piece full_piece = piece(chunk);
  const Piece tail_piece = piece(tail);
  // A short segment's last chunk (only when segments differ in length).
  const Piece short_last = rem > 0 ? piece((tail > 0 ? tail : chunk) - 1) : Piece{};
  VarPtr rank_idx = em.Let("rank_idx", em.Cast(em.my_rank(), DataType::kIndex));
  VarPtr left = em.Let("left", em.Bin(BinaryOp::kFloorMod,
                                      em.Bin(BinaryOp::kAdd, rank_idx,
                                             em.Bin(BinaryOp::kSub, em.nranks_idx(), em.Index(1))),
                                      em.nranks_idx()));
  // Chunk `c` (an INDEX expression): `lng` on long segments, `shrt` on short
  // ones (`same`: the segments' chunks are alike).
  auto emit_chunk = [&](const ExprPtr& c, const Piece& lng, const Piece& shrt, bool same) {
    em.For("step", em.Index(steps), [&](const VarPtr& s) {
      ExprPtr ready =
          em.Cast(em.Bin(BinaryOp::kAdd, em.Bin(BinaryOp::kMul, c, em.Index(2)), em.Index(1)),
                  DataType::kInt32);
      em.NotifyAndWaitAll(signal, s, ready, /*row_is_sender=*/false);
      VarPtr reducing = em.Let("reducing", em.Bin(BinaryOp::kLt, s, em.Index(nr - 1)));
      // back = s + 1 while reducing, s - NR + 1 while gathering.
      VarPtr back = em.IfValue(
          "back", reducing, [&] { return em.Bin(BinaryOp::kAdd, s, em.Index(1)); },
          [&] { return em.Bin(BinaryOp::kSub, s, em.Index(nr - 1)); });
      VarPtr segment = em.Let(
          "segment", em.Bin(BinaryOp::kFloorMod,
                            em.Bin(BinaryOp::kSub,
                                   em.Bin(BinaryOp::kAdd, rank_idx,
                                          em.Bin(BinaryOp::kMul, em.nranks_idx(), em.Index(2))),
                                   back),
                            em.nranks_idx()));
      // Segment i starts at i * base + min(i, rem).
      ExprPtr seg_start = em.Bin(BinaryOp::kMul, segment, em.Index(base));
      if (rem > 0) {
        seg_start =
            em.Bin(BinaryOp::kAdd, seg_start, em.Bin(BinaryOp::kMin, segment, em.Index(rem)));
      }
      ExprPtr off = em.Tuple({em.Index(0), em.Bin(BinaryOp::kAdd, seg_start,
                                                  em.Bin(BinaryOp::kMul, c, em.Index(chunk)))});
      auto move = [&](const Piece& p) {
        em.Eval(em.Call(OpId::kPldTileRemoteLoad, {p.stage, left, flat, off, p.shape}));
        VarPtr own = em.Let("own", em.Call(OpId::kPlTileLoad, {flat, off, p.shape}));
        VarPtr value = em.IfValue(
            "value", reducing,
            [&] {
              return em.Let("acc", em.Call(reduce, {own, p.stage}));
            },
            [&]() -> ExprPtr { return p.stage; });
        em.Eval(em.Call(OpId::kPlTileStore, {value, off, flat}));
      };
      if (same) {
        move(lng);
      } else {
        em.If(em.Bin(BinaryOp::kLt, segment, em.Index(rem)), [&] { move(lng); });
        if (shrt.shape != nullptr) {
          em.If(em.Bin(BinaryOp::kGe, segment, em.Index(rem)), [&] { move(shrt); });
        }
      }
      ExprPtr done =
          em.Cast(em.Bin(BinaryOp::kMul, em.Bin(BinaryOp::kAdd, c, em.Index(1)), em.Index(2)),
                  DataType::kInt32);
      em.NotifyAndWaitAll(signal, s, done, /*row_is_sender=*/false);
    });
  };
  // With rem > 0 the last chunk (the tail, or the last full chunk) differs.
  const bool last_full_differs = rem > 0 && tail == 0;
  const int64_t alike_full = last_full_differs ? full - 1 : full;
  em.For("chunk", em.Index(alike_full),
         [&](const VarPtr& c) { emit_chunk(c, full_piece, full_piece, /*same=*/true); });
  if (last_full_differs) emit_chunk(em.Index(full - 1), full_piece, short_last, /*same=*/false);
  if (tail > 0) emit_chunk(em.Index(full), tail_piece, short_last, /*same=*/rem == 0);
  em.EmitEpilogueReset(signal, em.Int32(2 * ch.count()), steps);
}

ExprPtr LowerAllReduce(Emitter& em, const CallPtr& call) {
  const std::vector<ExprPtr>& a = call->args();
  const Span& span = call->span();
  if (a.size() != 2) {
    // Kernels have no host signal synthesis: the signal is a kernel parameter.
    em.Fail(UserError(span, "InCore pld.tensor.allreduce requires an explicit signal"));
    return nullptr;
  }
  const ExprPtr &target = a[0], &signal = a[1];
  auto tg_t = Window(target);
  if (tg_t == nullptr) {
    em.Fail(InternalError(span, "pld.tensor.allreduce target must be a DistributedTensor"));
    return nullptr;
  }
  if (absl::Status st = ops::CheckCollectiveMode(*call); !st.ok()) {
    em.Fail(std::move(st));
    return nullptr;
  }
  // The ring schedule's entry has one signal row per step.
  const bool ring = ops::FindCollective(call)->ring_signal;
  if (tg_t->tensor_view().has_value()) {
    em.Fail(UserError(span,
                      "InCore pld.tensor.allreduce supports only packed ND targets (no "
                      "stride, layout or valid_shape view)"));
    return nullptr;
  }
  int64_t numel = 1;
  for (const ExprPtr& d : tg_t->shape()) {
    std::optional<int64_t> v = ir::GetConstInt(d);
    if (!v) {
      em.Fail(UserError(span,
                        "InCore pld.tensor.allreduce requires a statically-known target "
                        "shape"));
      return nullptr;
    }
    numel *= *v;
  }
  const DataType dtype = tg_t->dtype();
  const OpId reduce = ReduceTileOp(ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0));

  em.EmitCommSetup(target);
  int64_t nr = 0;
  if (!ring) {
    if (absl::Status s = ValidateMeshSignalShape(signal, call->op()->name(), span); !s.ok()) {
      em.Fail(s);
      return nullptr;
    }
  } else {
    auto sig = Window(signal);
    std::optional<int64_t> r0 =
        sig && sig->shape().size() == 2 ? ir::GetConstInt(sig->shape()[0]) : std::nullopt;
    std::optional<int64_t> r1 =
        sig && sig->shape().size() == 2 ? ir::GetConstInt(sig->shape()[1]) : std::nullopt;
    if (!r0 || !r1 || *r1 < 2 || *r0 != 2 * (*r1 - 1)) {
      em.Fail(UserError(span,
                        "InCore pld.tensor.allreduce mode=\"ring\" requires a constant "
                        "[2*(NR-1), NR] signal"));
      return nullptr;
    }
    nr = *r1;
  }

  // Chunks address a flattened [1, numel] view of the window.
  VarPtr flat = em.Let(
      "flat", em.Call(OpId::kPlTensorReshape, {target, em.Tuple({em.Index(1), em.Index(numel)})}));
  if (!ring) {
    EmitMeshAllReduce(em, signal, flat, numel, dtype, reduce);
  } else {
    EmitRingAllReduce(em, flat, signal, numel, nr, dtype, reduce);
  }
  return target;
}

ExprPtr LowerAllToAll(Emitter& em, const CallPtr& call) {
  return LowerRowExchange(em, call, /*gather=*/false);
}
ExprPtr LowerAllGather(Emitter& em, const CallPtr& call) {
  return LowerRowExchange(em, call, /*gather=*/true);
}

// The rules, looked up by the def's pattern (what every rank holds after the
// call), so a collective with an InCore rail needs no entry here.
using Rule = ExprPtr (*)(Emitter&, const CallPtr&);
constexpr std::pair<ops::CollectivePattern, Rule> kRules[] = {
    {ops::CollectivePattern::kAllReduce, LowerAllReduce},
    {ops::CollectivePattern::kBarrier, LowerBarrier},
    {ops::CollectivePattern::kBroadcast, LowerBroadcast},
    {ops::CollectivePattern::kReduceScatter, LowerReduceScatter},
    {ops::CollectivePattern::kAllGather, LowerAllGather},
    {ops::CollectivePattern::kAllToAll, LowerAllToAll},
    {ops::CollectivePattern::kAllToAllV, LowerAllToAllV},
};

ExprPtr LowerCollective(Emitter& em, const CallPtr& call) {
  if (absl::Status st = CheckInCoreRail(call); !st.ok()) {
    em.Fail(std::move(st));
    return nullptr;
  }
  const ops::CollectiveDef* def = ops::FindCollective(call);
  for (const auto& [pattern, rule] : kRules) {
    if (def->pattern == pattern) {
      ExprPtr result = rule(em, call);
      return em.ok() ? result : nullptr;
    }
  }
  em.Fail(UserErrorF(call->span(), def->op, " has no InCore expansion for its pattern; call it "
                     "from a HOST or CHIP orchestrator"));
  return nullptr;
}

class Lowerer : public ir::IRMutator {
 public:
  const absl::Status& status() const { return status_; }

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    CallPtr call = AsCollectiveCall(stmt->value());
    if (call == nullptr || !status_.ok()) return IRMutator::MutateAssignStmt(stmt);
    std::vector<StmtPtr> out;
    ExprPtr result = Lower(call, &out);
    if (result == nullptr) return stmt;
    // The original var keeps its identity: later uses need no rewriting.
    out.push_back(std::make_shared<ir::AssignStmt>(stmt->var(), result, stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    CallPtr call = AsCollectiveCall(stmt->expr());
    if (call == nullptr || !status_.ok()) return IRMutator::MutateEvalStmt(stmt);
    std::vector<StmtPtr> out;
    if (Lower(call, &out) == nullptr) return stmt;
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& stmt) override {
    if (!status_.ok()) return stmt;
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> values;
    bool changed = false;
    for (size_t i = 0; i < stmt->value().size(); ++i) {
      const ExprPtr& v = stmt->value()[i];
      CallPtr call = AsCollectiveCall(v);
      if (call == nullptr) {
        ExprPtr n = MutateExpr(v);
        changed |= n != v;
        values.push_back(n);
        continue;
      }
      ExprPtr result = Lower(call, &out);
      if (result == nullptr) return stmt;
      VarPtr lifted =
          ir::MakeVar(pto::StrCat("ret", i, "_", ShortName(call->op()->name()), "_result"),
                      call->type(), call->span());
      out.push_back(std::make_shared<ir::AssignStmt>(lifted, result, stmt->span()));
      values.push_back(lifted);
      changed = true;
    }
    if (!changed) return stmt;
    out.push_back(std::make_shared<ir::ReturnStmt>(std::move(values), stmt->leading_comments(),
                                                   stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  // Only the three statement forms are rewrite sites.
  ExprPtr MutateCall(const CallPtr& call) override {
    if (AsCollectiveCall(call) != nullptr) {
      Fail(UserErrorF(call->span(), call->op()->name(),
                      " in a kernel body must be a direct assignment, expression statement, or "
                      "return value"));
      return call;
    }
    return IRMutator::MutateCall(call);
  }

  StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& stmt) override {
    StmtPtr out = IRMutator::MutateSeqStmts(stmt);
    if (out == stmt) return out;
    return ir::SeqStmts::Flatten(ir::As<ir::SeqStmts>(out)->stmts(), stmt->span());
  }

 private:
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  ExprPtr Lower(const CallPtr& call, std::vector<StmtPtr>* out) {
    // Operands of a direct collective are plain values; a nested collective
    // among them is rejected by MutateCall.
    for (const ExprPtr& arg : call->args()) MutateExpr(arg);
    if (!status_.ok()) return nullptr;
    Emitter em(call->op()->name(), call->span(), &counter_);
    ExprPtr result = LowerCollective(em, call);
    if (!em.ok()) {
      Fail(em.status());
      return nullptr;
    }
    for (StmtPtr& s : em.TakeStatements()) out->push_back(std::move(s));
    return result;
  }

  int64_t counter_ = 0;  // temp names, unique across the rules of a function
  absl::Status status_;
};

// S1: every orchestration body defers its collectives to a managed rail.
bool SkipsManagedCollectives(const ir::Function& f) {
  return f.func_type() == ir::FunctionType::kOrchestration || f.role() == ir::Role::kOrchestrator;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> LowerCompositeOps::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& func) -> absl::StatusOr<StmtPtr> {
    if (SkipsManagedCollectives(*func)) return func->body();
    Lowerer lowerer;
    StmtPtr body = lowerer.MutateStmt(func->body());
    RETURN_IF_ERROR(lowerer.status());
    return body;
  });
}

std::unique_ptr<Pass> CreateLowerCompositeOpsPass() {
  return std::make_unique<LowerCompositeOps>();
}

namespace lower_composite_ops_internal {
namespace {

// The public op of the barrier pattern, named in the emitter's messages.
std::string_view BarrierOp() {
  for (const ops::CollectiveDef& d : ops::Collectives()) {
    if (d.pattern == ops::CollectivePattern::kBarrier) return d.op;
  }
  return "barrier";
}

}  // namespace

absl::Status EmitBarrierInNestedBuilderForTesting() {
  int64_t counter = 0;
  Emitter em(BarrierOp(), Span(), &counter);
  auto signal = ir::MakeVar("signal", ir::DistTensorOf({2, 1}, DataType::kInt32));
  em.EmitCommSetup(signal);
  em.For("i", em.Index(2), [&](const VarPtr&) { em.EmitBarrier(signal); });
  return em.status();
}

absl::Status EmitEpilogueResetTwiceForTesting() {
  int64_t counter = 0;
  Emitter em(BarrierOp(), Span(), &counter);
  auto signal = ir::MakeVar("signal", ir::DistTensorOf({2, 1}, DataType::kInt32));
  em.EmitCommSetup(signal);
  int64_t g = em.EmitBarrier(signal);
  em.EmitEpilogueReset(signal, em.Int32(g));
  em.EmitEpilogueReset(signal, em.Int32(g));
  return em.status();
}

}  // namespace lower_composite_ops_internal
}  // namespace pto::passes
