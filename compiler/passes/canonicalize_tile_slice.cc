#include "compiler/passes/canonicalize_tile_slice.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;
using ir::MemorySpace;
using ir::OpId;
using ir::StmtPtr;
using ir::VarPtr;

// L0C holds an [M, N] accumulator as 16-column fractal blocks (NZ).
constexpr int64_t kAccBlockCols = 16;

ir::CallPtr OpCall(const ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

// A plain window `v = pl.tile.slice(src, shape, [r, c])`, peeled down to the
// tile that is not itself such a window.
struct Window {
  VarPtr base;
  ExprPtr row, col;
  ExprPtr shape;                       // the slice's shape operand
  std::shared_ptr<const ir::TileType> type;  // the slice's
  Span span;
};

ExprPtr Add(const ExprPtr& a, const ExprPtr& b, const Span& span) {
  std::optional<int64_t> x = ir::GetConstInt(a), y = ir::GetConstInt(b);
  if (x && *x == 0) return b;
  if (y && *y == 0) return a;
  if (x && y) return ir::ConstIndex(*x + *y, span);
  absl::StatusOr<ExprPtr> sum = ir::MakeBinary(ir::BinaryOp::kAdd, a, b, span);
  return sum.ok() ? *sum : nullptr;
}

// The slices of a kernel and the memory space each tile is known to have
// before InferTileMemorySpace: its type's, the target_memory of the call
// making it, Acc for a matmul's result, its base's for a window.
class Facts : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, Window> windows;
  absl::flat_hash_map<const ir::Var*, MemorySpace> space;

  std::optional<MemorySpace> SpaceOf(const ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    auto it = v ? space.find(v.get()) : space.end();
    return it == space.end() ? std::nullopt : std::optional<MemorySpace>(it->second);
  }

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto tile = ir::As<ir::TileType>(s->var()->type());
    auto call = OpCall(s->value());
    if (tile != nullptr) {
      std::optional<MemorySpace> sp = tile->Space();
      if (!sp && call != nullptr) {
        if (auto name = ir::GetAttr<std::string>(call->kwargs(), "target_memory")) {
          sp = ir::MemorySpaceFromName(*name);
        } else if (IsMatmul(*call)) {
          sp = MemorySpace::kL0C;
        }
      }
      if (call != nullptr && ir::IsOp(call, OpId::kPlTileSlice)) Note(s, *call, tile, &sp);
      if (sp) space[s->var().get()] = *sp;
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }

 public:
  static bool IsMatmul(const ir::Call& c) {
    for (OpId id : {OpId::kPlTileMatmul, OpId::kPlTileMatmulAcc, OpId::kPlTileMatmulBias,
                    OpId::kPlTileGemv, OpId::kPlTileGemvAcc, OpId::kPlTileGemvBias,
                    OpId::kPlTileMatmulMx, OpId::kPlTileMatmulMxAcc, OpId::kPlTileMatmulMxBias}) {
      if (ir::IsOp(c, id)) return true;
    }
    return false;
  }

 private:
  // Records a 3-operand 2D slice (valid_shape / pad windows are not plain).
  void Note(const std::shared_ptr<const ir::AssignStmt>& s, const ir::Call& call,
            const std::shared_ptr<const ir::TileType>& tile, std::optional<MemorySpace>* sp) {
    auto src = ir::As<ir::Var>(call.args()[0]);
    auto off = call.args().size() == 3 ? ir::As<ir::MakeTuple>(call.args()[2]) : nullptr;
    if (src == nullptr || off == nullptr || off->elements().size() != 2 ||
        !call.kwargs().empty() || tile->shape().size() != 2 || !tile->valid_shape().empty()) {
      return;
    }
    Window w{src, off->elements()[0], off->elements()[1], call.args()[1], tile, s->span()};
    if (auto inner = windows.find(src.get()); inner != windows.end()) {
      w.base = inner->second.base;
      w.row = Add(inner->second.row, w.row, s->span());
      w.col = Add(inner->second.col, w.col, s->span());
      if (w.row == nullptr || w.col == nullptr) return;
    }
    if (!*sp) *sp = SpaceOf(w.base);
    windows[s->var().get()] = std::move(w);
  }
};

// Uses of each var (for dropping the slices nobody reads any more).
class UseCounter : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, int> uses;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitVar(const VarPtr& v) override { ++uses[v.get()]; }
  void VisitVarDef(const VarPtr&) override {}
};

class Canonicalizer : public ir::FlatteningMutator {
 public:
  explicit Canonicalizer(const Facts& facts) : facts_(facts) {}
  absl::Status status;

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = OpCall(s->value());
    if (call == nullptr) return ir::IRMutator::MutateAssignStmt(s);
    if (ir::IsOp(call, OpId::kPlTileExtract)) {
      if (ExprPtr folded = FoldExtract(*call)) {
        return std::make_shared<ir::AssignStmt>(s->var(), folded, s->span());
      }
    }
    if (!Facts::IsMatmul(*call)) return ir::IRMutator::MutateAssignStmt(s);
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> args = call->args();
    const bool acc = ir::IsOp(call, OpId::kPlTileMatmulAcc) ||
                     ir::IsOp(call, OpId::kPlTileGemvAcc) ||
                     ir::IsOp(call, OpId::kPlTileMatmulMxAcc);
    const bool mx = ir::IsOp(call, OpId::kPlTileMatmulMx) ||
                    ir::IsOp(call, OpId::kPlTileMatmulMxAcc) ||
                    ir::IsOp(call, OpId::kPlTileMatmulMxBias);
    if (acc && !args.empty()) CheckAccumulator(args[0], call->span());
    // The data operands (an mx matmul's scales stay as they are).
    const size_t lhs = acc ? 1 : 0, rhs = lhs + (mx ? 2 : 1);
    bool changed = false;
    for (auto [index, space] : {std::pair{lhs, "Left"}, std::pair{rhs, "Right"}}) {
      if (index >= args.size()) continue;
      const Window* w = MatWindow(args[index]);
      if (w == nullptr) continue;
      auto var = ir::MakeVar(pto::StrCat(ir::As<ir::Var>(args[index])->name_hint(), "_", space),
                             std::make_shared<ir::TileType>(w->type->shape(), w->type->dtype()),
                             w->span);
      out.push_back(std::make_shared<ir::AssignStmt>(var, Extract(*w, w->row, w->col, space), w->span));
      args[index] = var;
      changed = true;
    }
    if (!changed) return ir::IRMutator::MutateAssignStmt(s);
    out.push_back(std::make_shared<ir::AssignStmt>(
        s->var(),
        std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(), call->attrs(),
                                   call->type(), call->span()),
        s->span()));
    return ir::SeqStmts::Flatten(out, s->span());
  }

 private:
  const Window* MatWindow(const ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    auto it = v ? facts_.windows.find(v.get()) : facts_.windows.end();
    if (it == facts_.windows.end() || facts_.SpaceOf(it->second.base) != MemorySpace::kL1) {
      return nullptr;
    }
    return &it->second;
  }

  ExprPtr Extract(const Window& w, ExprPtr row, ExprPtr col, const char* space) const {
    return ir::MakeOpCall(OpId::kPlTileExtract, {w.base, std::move(row), std::move(col), w.shape},
                          std::make_shared<ir::TileType>(w.type->shape(), w.type->dtype()),
                          {{"target_memory", std::string(space)}}, {}, w.span);
  }

  // extract(window, r, c, ...) reads the window's base at the summed offset.
  ExprPtr FoldExtract(const ir::Call& call) {
    auto v = call.args().size() >= 3 ? ir::As<ir::Var>(call.args()[0]) : nullptr;
    auto it = v ? facts_.windows.find(v.get()) : facts_.windows.end();
    if (it == facts_.windows.end()) return nullptr;
    const Window& w = it->second;
    ExprPtr row = Add(call.args()[1], w.row, call.span());
    ExprPtr col = Add(call.args()[2], w.col, call.span());
    if (row == nullptr || col == nullptr) return nullptr;
    std::vector<ExprPtr> args = call.args();
    args[0] = w.base;
    args[1] = row;
    args[2] = col;
    return std::make_shared<ir::Call>(call.op(), std::move(args), call.kwargs(), call.attrs(),
                                      call.type(), call.span());
  }

  // The MAD writes its accumulator densely, without a destination stride: a
  // window of an Acc tile is only right when it is contiguous in L0C's NZ
  // layout (all the rows, or inside one 16-column block). Silent when the
  // extents or the column offset are not known.
  void CheckAccumulator(const ExprPtr& e, const Span& span) {
    auto v = ir::As<ir::Var>(e);
    auto it = v ? facts_.windows.find(v.get()) : facts_.windows.end();
    if (it == facts_.windows.end() || facts_.SpaceOf(it->second.base) != MemorySpace::kL0C) return;
    const Window& w = it->second;
    auto parent = ir::As<ir::TileType>(w.base->type());
    if (parent == nullptr || parent->shape().size() != 2) return;
    std::optional<int64_t> prows = ir::GetConstInt(parent->shape()[0]);
    std::optional<int64_t> pcols = ir::GetConstInt(parent->shape()[1]);
    std::optional<int64_t> rows = ir::GetConstInt(w.type->shape()[0]);
    std::optional<int64_t> cols = ir::GetConstInt(w.type->shape()[1]);
    if (!prows || !pcols || !rows || !cols) return;
    if (*rows == *prows || *pcols <= kAccBlockCols) return;
    std::optional<int64_t> c0 = ir::GetConstInt(w.col);
    if (!c0) return;
    if (*c0 % kAccBlockCols + *cols <= kAccBlockCols) return;
    if (status.ok()) {
      status = UserErrorF(span, "CanonicalizeTileSlice: the accumulator '", v->name_hint(),
                          "' is a window of ", *rows, " of the ", *prows, " rows of the Acc tile '",
                          w.base->name_hint(), "' across more than one 16-column block, which "
                          "the matmul would write in the wrong rows (L0C is NZ and the MAD "
                          "has no destination stride); keep the rows whole and slice columns "
                          "(an accumulator of [", *rows, ", N * tiles])");
    }
  }

  const Facts& facts_;
};

// Drops each slice no statement reads any more, until none is left to drop
// (a window of a window dies after the outer one).
class DeadSliceDropper : public ir::FlatteningMutator {
 public:
  DeadSliceDropper(const Facts& facts, const absl::flat_hash_map<const ir::Var*, int>& uses)
      : facts_(facts), uses_(uses) {}
  bool dropped = false;

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (facts_.windows.contains(s->var().get()) && !uses_.contains(s->var().get())) {
      dropped = true;
      return nullptr;
    }
    return s;
  }

 private:
  const Facts& facts_;
  const absl::flat_hash_map<const ir::Var*, int>& uses_;
};

absl::StatusOr<StmtPtr> Canonicalize(const ir::FunctionPtr& fn) {
  if (fn->body() == nullptr || !ir::IsInCoreType(fn->func_type())) return fn->body();
  Facts facts;
  facts.VisitStmt(fn->body());
  if (facts.windows.empty()) return fn->body();
  Canonicalizer canon(facts);
  StmtPtr body = canon.MutateStmt(fn->body());
  RETURN_IF_ERROR(canon.status);
  if (body == fn->body()) return body;
  for (size_t round = 0; round <= facts.windows.size(); ++round) {
    UseCounter uses;
    uses.VisitStmt(body);
    DeadSliceDropper dropper(facts, uses.uses);
    StmtPtr next = dropper.MutateStmt(body);
    if (!dropper.dropped) break;
    body = next != nullptr ? next : std::make_shared<ir::SeqStmts>(std::vector<StmtPtr>{});
  }
  return body;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> CanonicalizeTileSlicePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, Canonicalize);
}

std::unique_ptr<Pass> CreateCanonicalizeTileSlicePass() {
  return std::make_unique<CanonicalizeTileSlicePass>();
}

}  // namespace pto::passes
