// FlattenTileNdTo2D's batch lowerings (PyPTO:
// src/ir/transforms/flatten_tile_nd_to_2d/batch_matmul.cpp, transpose.cpp).
// A rank-3 pl.tile.transpose of the last two axes of a load, stored once by
// the next statement, is one 2D transpose per batch. The backend
// multiplies 2D tiles only, so `r = pl.tile.batch_matmul(x, y)` of rank-3
// Mat tiles, stored once by the next statement, becomes one 2D matmul per
// batch, each stored to its batch of the target. Each operand is loaded per
// batch (PyPTO's per-batch load path) from the tensor its whole load read, a
// transposed operand through a 2D pl.tile.transpose_view of its page.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/flatten_tile_nd_to_2d.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

ir::CallPtr OpCall(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

class UseCounts : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, int> uses;

 protected:
  void VisitVar(const ir::VarPtr& var) override { ++uses[var.get()]; }
};

// One operand of a batch matmul: the whole Mat load it reads (through a
// transpose_view when `trans`), and the statements that made it.
struct Operand {
  ir::CallPtr load;
  bool trans = false;
  std::vector<const ir::Var*> defs;
};

class Expander : public ir::IRMutator {
 public:
  explicit Expander(absl::flat_hash_map<const ir::Var*, int> uses) : uses_(std::move(uses)) {}
  absl::Status status;

 protected:
  ir::StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& seq) override {
    std::vector<ir::StmtPtr> out;
    absl::flat_hash_map<const ir::Var*, size_t> at;  // var -> its def's index in `out`
    absl::flat_hash_set<size_t> dropped;
    const auto& stmts = seq->stmts();
    for (size_t i = 0; i < stmts.size(); ++i) {
      ir::StmtPtr s = MutateStmt(stmts[i]);
      auto a = ir::As<ir::AssignStmt>(s);
      ir::CallPtr call = a != nullptr ? OpCall(a->value()) : nullptr;
      const bool bmm = call != nullptr && ir::IsOp(call, ir::OpId::kPlTileBatchMatmul);
      const bool trans = call != nullptr && ir::IsOp(call, ir::OpId::kPlTileTranspose) &&
                         PerBatchTranspose(*call);
      if ((bmm || trans) && status.ok()) {
        const ir::StmtPtr next = i + 1 < stmts.size() ? stmts[i + 1] : nullptr;
        std::optional<std::vector<ir::StmtPtr>> expanded =
            bmm ? Expand(a, *call, next, at, &dropped, out)
                : ExpandTranspose(a, *call, next, at, &dropped, out);
        if (!expanded) return seq;  // status says why
        if (expanded->empty()) {  // not this form: left to the flattener
          at[a->var().get()] = out.size();
          out.push_back(std::move(s));
          continue;
        }
        for (ir::StmtPtr& e : *expanded) out.push_back(std::move(e));
        ++i;  // the store is part of the expansion
        continue;
      }
      if (a != nullptr) at[a->var().get()] = out.size();
      out.push_back(std::move(s));
    }
    std::vector<ir::StmtPtr> kept;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!dropped.contains(i)) kept.push_back(out[i]);
    }
    return ir::SeqStmts::Flatten(kept, seq->span());
  }

 private:
  void Fail(const Span& span, const std::string& why) {
    if (status.ok()) {
      status = UserErrorF(span, "FlattenTileNdTo2D: pl.tile.batch_matmul ", why,
                          "; it is lowered here when both operands are rank-3 Mat loads "
                          "(pl.load(..., target_memory=pl.MemorySpace.Mat), or a "
                          "pl.tile.transpose_view of one) of static shape and its result is "
                          "stored once by the next statement (pl.store)");
    }
  }

  std::optional<Operand> OperandOf(const ir::ExprPtr& e,
                                   const absl::flat_hash_map<const ir::Var*, size_t>& at,
                                   const std::vector<ir::StmtPtr>& out, bool mat = true) {
    Operand op;
    ir::ExprPtr cur = e;
    for (int depth = 0; depth < 2; ++depth) {
      auto v = ir::As<ir::Var>(cur);
      if (v == nullptr || !at.contains(v.get())) return std::nullopt;
      auto def = ir::As<ir::AssignStmt>(out[at.at(v.get())]);
      ir::CallPtr call = OpCall(def->value());
      if (call == nullptr) return std::nullopt;
      op.defs.push_back(v.get());
      if (mat && ir::IsOp(call, ir::OpId::kPlTileTransposeView) && !op.trans &&
          !call->args().empty()) {
        op.trans = true;
        cur = call->args()[0];
        continue;
      }
      auto space = ir::GetAttr<std::string>(call->kwargs(), "target_memory");
      auto shape = call->args().size() == 3 ? ir::As<ir::MakeTuple>(call->args()[2]) : nullptr;
      auto offs = call->args().size() == 3 ? ir::As<ir::MakeTuple>(call->args()[1]) : nullptr;
      if (!ir::IsOp(call, ir::OpId::kPlTileLoad) || (mat && space != "Mat") || shape == nullptr ||
          offs == nullptr || shape->elements().size() != 3) {
        return std::nullopt;
      }
      for (const ir::ExprPtr& d : shape->elements()) {
        if (!ir::GetConstInt(d)) return std::nullopt;
      }
      op.load = call;
      return op;
    }
    return std::nullopt;
  }

  // Batch `b`'s 2D page of `op` (a Mat tile; its transposed view when trans).
  ir::ExprPtr Page(const Operand& op, int64_t b, const std::string& name,
                   std::vector<ir::StmtPtr>* stmts, const Span& span) {
    const auto& offs = ir::As<ir::MakeTuple>(op.load->args()[1])->elements();
    const auto& shape = ir::As<ir::MakeTuple>(op.load->args()[2])->elements();
    const int64_t batches = *ir::GetConstInt(shape[0]);
    ir::ExprPtr o0 = offs[0];
    const int64_t at = batches == 1 ? 0 : b;  // a batch of 1 broadcasts
    if (at != 0) {
      absl::StatusOr<ir::ExprPtr> sum = ir::MakeBinary(ir::BinaryOp::kAdd, o0, ir::ConstIndex(at));
      o0 = sum.ok() ? *sum : o0;
      if (auto c = ir::GetConstInt(offs[0])) o0 = ir::ConstIndex(*c + at);
    }
    const ir::DataType dtype = ir::As<ir::TileType>(op.load->type())->dtype();
    auto page = std::make_shared<ir::Var>(
        pto::StrCat(name, "_b", b), std::make_shared<ir::TileType>(
                                        std::vector<ir::ExprPtr>{shape[1], shape[2]}, dtype),
        span);
    stmts->push_back(std::make_shared<ir::AssignStmt>(
        page,
        ir::MakeOpCall(ir::OpId::kPlTileLoad,
                       {op.load->args()[0],
                        std::make_shared<ir::MakeTuple>(
                            std::vector<ir::ExprPtr>{o0, offs[1], offs[2]}, span),
                        std::make_shared<ir::MakeTuple>(
                            std::vector<ir::ExprPtr>{ir::ConstIndex(1), shape[1], shape[2]}, span)},
                       page->type(), op.load->kwargs(), {}, span),
        span));
    if (!op.trans) return page;
    auto view = std::make_shared<ir::Var>(
        pto::StrCat(name, "_b", b, "_t"),
        std::make_shared<ir::TileType>(std::vector<ir::ExprPtr>{shape[2], shape[1]}, dtype), span);
    stmts->push_back(std::make_shared<ir::AssignStmt>(
        view, ir::MakeOpCall(ir::OpId::kPlTileTransposeView, {page}, view->type(), {}, {}, span),
        span));
    return view;
  }

  std::optional<std::vector<ir::StmtPtr>> Expand(
      const std::shared_ptr<const ir::AssignStmt>& a, const ir::Call& call,
      const ir::StmtPtr& next, const absl::flat_hash_map<const ir::Var*, size_t>& at,
      absl::flat_hash_set<size_t>* dropped, const std::vector<ir::StmtPtr>& out) {
    const Span& span = call.span();
    auto result = ir::As<ir::TileType>(a->var()->type());
    std::optional<Operand> x, y;
    if (call.args().size() == 2) {
      x = OperandOf(call.args()[0], at, out);
      y = OperandOf(call.args()[1], at, out);
    }
    if (!x || !y || result == nullptr || result->shape().size() != 3) {
      Fail(span, "of operands that are not rank-3 Mat loads");
      return std::nullopt;
    }
    std::shared_ptr<const ir::AssignStmt> st = StoreOf(a, next);
    if (st == nullptr) {
      Fail(span, "whose result is not stored once by the next statement");
      return std::nullopt;
    }
    ir::CallPtr store = OpCall(st->value());
    auto offs = ir::As<ir::MakeTuple>(store->args()[1]);
    const int64_t bx = *ir::GetConstInt(ir::As<ir::MakeTuple>(x->load->args()[2])->elements()[0]);
    const int64_t by = *ir::GetConstInt(ir::As<ir::MakeTuple>(y->load->args()[2])->elements()[0]);
    std::optional<int64_t> batches = std::max(bx, by);
    if ((bx != *batches && bx != 1) || (by != *batches && by != 1) ||
        ir::GetConstInt(result->shape()[0]) != batches) {
      Fail(span, pto::StrCat("of batches ", bx, " and ", by, " (each must be the other or 1)"));
      return std::nullopt;
    }
    std::vector<ir::StmtPtr> stmts;
    ir::ExprPtr target = store->args()[2];
    for (int64_t b = 0; b < *batches; ++b) {
      ir::ExprPtr lhs = Page(*x, b, a->var()->name_hint() + "_l", &stmts, span);
      ir::ExprPtr rhs = Page(*y, b, a->var()->name_hint() + "_r", &stmts, span);
      auto c = std::make_shared<ir::Var>(
          pto::StrCat(a->var()->name_hint(), "_b", b),
          std::make_shared<ir::TileType>(
              std::vector<ir::ExprPtr>{result->shape()[1], result->shape()[2]}, result->dtype()),
          span);
      stmts.push_back(std::make_shared<ir::AssignStmt>(
          c, ir::MakeOpCall(ir::OpId::kPlTileMatmul, {lhs, rhs}, c->type(), {}, {}, span), span));
      target = StoreBatch(c, *st, b, b + 1 == *batches, target, &stmts);
    }
    Drop(*x, at, dropped);
    Drop(*y, at, dropped);
    return stmts;
  }

  // `o = pl.tile.store(r, offsets, t)` of rank-3 offsets, the next statement
  // and r's only reader, else nullptr.
  std::shared_ptr<const ir::AssignStmt> StoreOf(const std::shared_ptr<const ir::AssignStmt>& a,
                                                const ir::StmtPtr& next) {
    auto st = ir::As<ir::AssignStmt>(next);
    ir::CallPtr store = st != nullptr ? OpCall(st->value()) : nullptr;
    auto offs = store != nullptr && store->args().size() == 3
                    ? ir::As<ir::MakeTuple>(store->args()[1])
                    : nullptr;
    auto r = store != nullptr ? ir::As<ir::Var>(store->args()[0]) : nullptr;
    if (store == nullptr || !ir::IsOp(store, ir::OpId::kPlTileStore) || offs == nullptr ||
        offs->elements().size() != 3 || r.get() != a->var().get() || uses_[r.get()] != 1) {
      return nullptr;
    }
    return st;
  }

  // Batch b's page `c` stored to batch b of the store's target (the stores
  // chained through the tensor; the last defines the store's var).
  ir::ExprPtr StoreBatch(const ir::VarPtr& c, const ir::AssignStmt& st, int64_t b, bool last,
                         const ir::ExprPtr& target, std::vector<ir::StmtPtr>* stmts) {
    ir::CallPtr store = OpCall(st.value());
    auto offs = ir::As<ir::MakeTuple>(store->args()[1]);
    const auto& o = offs->elements();
    ir::ExprPtr o0 = o[0];
    if (b != 0) {
      std::optional<int64_t> c0 = ir::GetConstInt(o[0]);
      absl::StatusOr<ir::ExprPtr> sum = ir::MakeBinary(ir::BinaryOp::kAdd, o[0], ir::ConstIndex(b));
      o0 = c0 ? ir::ConstIndex(*c0 + b) : sum.ok() ? *sum : o[0];
    }
    ir::VarPtr dst = last ? st.var()
                          : std::make_shared<ir::Var>(pto::StrCat(st.var()->name_hint(), "_b", b),
                                                      st.var()->type(), c->span());
    stmts->push_back(std::make_shared<ir::AssignStmt>(
        dst,
        ir::MakeOpCall(ir::OpId::kPlTileStore,
                       {c, std::make_shared<ir::MakeTuple>(
                               std::vector<ir::ExprPtr>{o0, o[1], o[2]}, offs->span()),
                        target},
                       dst->type(), store->kwargs(), {}, c->span()),
        st.span()));
    return dst;
  }

  // The whole loads (and views) the pages replace, when nothing else reads them.
  void Drop(const Operand& op, const absl::flat_hash_map<const ir::Var*, size_t>& at,
            absl::flat_hash_set<size_t>* dropped) {
    for (const ir::Var* v : op.defs) {
      if (uses_[v] != 1) break;
      dropped->insert(at.at(v));
    }
  }

  // pl.tile.transpose of the last two axes of a rank-3 tile.
  static bool PerBatchTranspose(const ir::Call& call) {
    auto t = call.args().empty() ? nullptr : ir::As<ir::TileType>(call.args()[0]->type());
    if (t == nullptr || t->shape().size() != 3 || call.args().size() < 3) return false;
    std::optional<int64_t> x = ir::GetConstInt(call.args()[1]);
    std::optional<int64_t> y = ir::GetConstInt(call.args()[2]);
    return x && y && ((*x == 1 && *y == 2) || (*x == 2 && *y == 1));
  }

  // PyPTO's per-batch transpose: `r = pl.tile.transpose(x, 1, 2)` of a
  // rank-3 load, stored once by the next statement, as one 2D transpose of
  // each batch's page, stored to its batch.
  std::optional<std::vector<ir::StmtPtr>> ExpandTranspose(
      const std::shared_ptr<const ir::AssignStmt>& a, const ir::Call& call,
      const ir::StmtPtr& next, const absl::flat_hash_map<const ir::Var*, size_t>& at,
      absl::flat_hash_set<size_t>* dropped, const std::vector<ir::StmtPtr>& out) {
    std::optional<Operand> x = OperandOf(call.args()[0], at, out, /*mat=*/false);
    std::shared_ptr<const ir::AssignStmt> st = StoreOf(a, next);
    if (!x || x->trans || st == nullptr) return std::vector<ir::StmtPtr>{};  // not this form
    const auto& shape = ir::As<ir::MakeTuple>(x->load->args()[2])->elements();
    const int64_t batches = *ir::GetConstInt(shape[0]);
    const ir::DataType dtype = ir::As<ir::TileType>(a->var()->type())->dtype();
    std::vector<ir::StmtPtr> stmts;
    ir::ExprPtr target = OpCall(st->value())->args()[2];
    for (int64_t b = 0; b < batches; ++b) {
      ir::ExprPtr page = Page(*x, b, a->var()->name_hint() + "_in", &stmts, call.span());
      auto t = std::make_shared<ir::Var>(
          pto::StrCat(a->var()->name_hint(), "_b", b),
          std::make_shared<ir::TileType>(std::vector<ir::ExprPtr>{shape[2], shape[1]}, dtype),
          call.span());
      stmts.push_back(std::make_shared<ir::AssignStmt>(
          t,
          ir::MakeOpCall(ir::OpId::kPlTileTranspose, {page, ir::ConstIndex(0), ir::ConstIndex(1)},
                         t->type(), {}, {}, call.span()),
          a->span()));
      target = StoreBatch(t, *st, b, b + 1 == batches, target, &stmts);
    }
    Drop(*x, at, dropped);
    return stmts;
  }

  absl::flat_hash_map<const ir::Var*, int> uses_;
};

}  // namespace

absl::StatusOr<ir::StmtPtr> ExpandBatchMatmuls(const ir::StmtPtr& body) {
  UseCounts counts;
  counts.VisitStmt(body);
  Expander expander(std::move(counts.uses));
  ir::StmtPtr out = expander.MutateStmt(body);
  if (!expander.status.ok()) return expander.status;
  return out;
}

}  // namespace pto::passes
