#include "compiler/passes/auto_tile_matmul_l0.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::MemorySpace;
using ir::OpId;

constexpr int64_t kFractal = 16;  // the cube's fractal rows (pto-isa TMATMUL)

// The bytes a [rows, cols] tile takes in `space` (InitMemRef's footprint).
int64_t Bytes(MemorySpace space, int64_t rows, int64_t cols, ir::DataType dtype) {
  std::vector<ir::ExprPtr> shape = {std::make_shared<ir::ConstInt>(rows),
                                    std::make_shared<ir::ConstInt>(cols)};
  ir::TileType t(std::move(shape), dtype, std::nullopt, {}, Span(), space);
  return TileBytes(t).value_or(INT64_MAX);
}

int64_t RoundDown(int64_t v, int64_t a) { return v / a * a; }

}  // namespace

std::optional<L0Tile> ChooseL0Tile(const AutoTileMatmulL0Options& caps, int64_t m, int64_t n,
                                   int64_t k, ir::DataType operand, ir::DataType acc,
                                   bool whole_n) {
  auto acc_fits = [&](int64_t r, int64_t c) {
    return Bytes(MemorySpace::kL0C, r, c, acc) <= caps.l0c_bytes;
  };
  auto k_fits = [&](int64_t r, int64_t kk, int64_t c) {
    return Bytes(MemorySpace::kL0A, r, kk, operand) <= caps.l0a_bytes &&
           Bytes(MemorySpace::kL0B, kk, c, operand) <= caps.l0b_bytes;
  };
  if (acc_fits(m, n) && k_fits(m, k, n)) return std::nullopt;
  // The output block: whole when it fits L0C, else the fractal multiples
  // that need the fewest sub-tiles (ties: the largest block, then the wider).
  L0Tile best;
  if (acc_fits(m, n)) {
    best.m = m;
    best.n = n;
  } else {
    for (int64_t nn = n; nn >= (whole_n ? n : kFractal); nn = RoundDown(nn - 1, kFractal)) {
      int64_t mm = acc_fits(m, nn) ? m : RoundDown(m, kFractal);
      while (mm >= kFractal && !acc_fits(mm, nn)) mm -= kFractal;
      if (mm < 1 || !acc_fits(mm, nn)) continue;
      auto count = [&](int64_t bm, int64_t bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); };
      if (best.m == 0 || count(mm, nn) < count(best.m, best.n) ||
          (count(mm, nn) == count(best.m, best.n) && mm * nn > best.m * best.n)) {
        best = {mm, nn, 0};
      }
    }
    if (best.m == 0) return std::nullopt;
  }
  // Shrink the output block until some k block fits beside it.
  for (int round = 0; round < 1024; ++round) {
    if (k_fits(best.m, k, best.n)) {
      best.k = k;
      return best;
    }
    // A k below K is a multiple of the fractal, and so must K be (the blocks
    // and their tail start on fractal columns); PyPTO leaves such a matmul
    // alone too (PH-AT-007).
    if (k % kFractal != 0) return std::nullopt;
    {
      for (int64_t kk = RoundDown(k - 1, kFractal); kk >= kFractal; kk -= kFractal) {
        if (k_fits(best.m, kk, best.n)) {
          best.k = kk;
          return best;
        }
      }
    }
    if (best.m > kFractal) {
      best.m = RoundDown(best.m - 1, kFractal);
    } else if (best.n > kFractal && !whole_n) {
      best.n = RoundDown(best.n - 1, kFractal);
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

ir::CallPtr OpCallOf(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

ir::ExprPtr Int(int64_t v) { return std::make_shared<ir::ConstInt>(v); }

std::optional<std::pair<int64_t, int64_t>> Static2D(const ir::TypePtr& type) {
  auto t = ir::As<ir::TileType>(type);
  if (t == nullptr || t->shape().size() != 2 || !t->valid_shape().empty()) return std::nullopt;
  std::optional<int64_t> r = ir::GetConstInt(t->shape()[0]);
  std::optional<int64_t> c = ir::GetConstInt(t->shape()[1]);
  if (!r || !c || *r < 1 || *c < 1) return std::nullopt;
  return std::pair{*r, *c};
}

// Where each tile of a kernel is known to live before InferTileMemorySpace:
// its annotation, or the target_memory of the load / create / move that
// makes it (a transpose_view's, its source's); and how often each var is read.
class Facts : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, MemorySpace> space;
  absl::flat_hash_map<const ir::Var*, int> uses;
  // A tile's only reader, when it is a store evaluated or assigned in a
  // sequence: that statement.
  absl::flat_hash_map<const ir::Var*, const ir::Stmt*> store_of;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto tile = ir::As<ir::TileType>(s->var()->type());
    if (tile != nullptr) {
      std::optional<MemorySpace> sp = tile->Space();
      if (auto call = OpCallOf(s->value()); call != nullptr && !sp) {
        if (auto name = ir::GetAttr<std::string>(call->kwargs(), "target_memory")) {
          sp = ir::MemorySpaceFromName(*name);
        }
        // A transposed view lives where its tile does (Mat: NZ read as ZN).
        auto src = ir::IsOp(call, OpId::kPlTileTransposeView) && !call->args().empty()
                       ? ir::As<ir::Var>(call->args()[0])
                       : nullptr;
        if (src != nullptr && space.contains(src.get())) sp = space.at(src.get());
      }
      if (sp) space[s->var().get()] = *sp;
    }
    NoteStore(s.get(), s->value());
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    NoteStore(s.get(), s->expr());
    ir::IRVisitor::VisitEvalStmt(s);
  }
  void VisitVar(const ir::VarPtr& var) override { ++uses[var.get()]; }

 private:
  void NoteStore(const ir::Stmt* s, const ir::ExprPtr& value) {
    auto call = OpCallOf(value);
    if (call == nullptr || !ir::IsOp(call, OpId::kPlTileStore) || call->args().size() != 3) return;
    if (auto v = ir::As<ir::Var>(call->args()[0])) store_of[v.get()] = s;
  }
};

// One matmul to tile.
struct Site {
  ir::VarPtr out;                 // the matmul's result
  ir::VarPtr acc, lhs, rhs;       // acc: matmul_acc's accumulator
  ir::VarPtr bias;                // matmul_bias's [1, N] bias
  int64_t m = 0, n = 0, k = 0;    // the whole matmul
  L0Tile block;
  const ir::Stmt* store = nullptr;  // the store of an output grid
};

class Tiler : public ir::FlatteningMutator {
 public:
  Tiler(const AutoTileMatmulL0Options& caps, const Facts& facts) : caps_(caps), facts_(facts) {}

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (auto site = SiteOf(*s)) {
      if (site->block.m == site->m && site->block.n == site->n) {
        return ir::SeqStmts::Flatten(Chain(*site, 0, 0, site->out), s->span());
      }
      grids_[site->store] = *site;
      return std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{}, s->span());
    }
    if (auto it = grids_.find(s.get()); it != grids_.end()) return Grid(it->second, s->var(), *s);
    return ir::IRMutator::MutateAssignStmt(s);
  }
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    if (auto it = grids_.find(s.get()); it != grids_.end()) return Grid(it->second, nullptr, *s);
    return ir::IRMutator::MutateEvalStmt(s);
  }

 private:
  bool InMat(const ir::VarPtr& v) const {
    auto it = facts_.space.find(v.get());
    return it != facts_.space.end() && it->second == MemorySpace::kL1;
  }

  // The matmul `s` defines, when it needs tiling and this pass can tile it.
  std::optional<Site> SiteOf(const ir::AssignStmt& s) const {
    auto call = OpCallOf(s.value());
    if (call == nullptr) return std::nullopt;
    const bool acc = ir::IsOp(call, OpId::kPlTileMatmulAcc);
    const bool bias = ir::IsOp(call, OpId::kPlTileMatmulBias);
    if (!acc && !bias && !ir::IsOp(call, OpId::kPlTileMatmul)) return std::nullopt;
    const auto& args = call->args();
    if (args.size() != (acc || bias ? 3u : 2u)) return std::nullopt;  // init_cond: not here
    Site site;
    site.out = s.var();
    if (acc) site.acc = ir::As<ir::Var>(args[0]);
    if (bias) {
      site.bias = ir::As<ir::Var>(args[2]);
      if (site.bias == nullptr) return std::nullopt;
    }
    site.lhs = ir::As<ir::Var>(args[acc ? 1 : 0]);
    site.rhs = ir::As<ir::Var>(args[acc ? 2 : 1]);
    // The operands must be whole Mat tiles (a Left / Right operand is the
    // user's own L0 schedule); the accumulator a tile of the output's shape.
    if (site.lhs == nullptr || site.rhs == nullptr || (acc && site.acc == nullptr) ||
        !InMat(site.lhs) || !InMat(site.rhs)) {
      return std::nullopt;
    }
    auto a = Static2D(site.lhs->type());
    auto b = Static2D(site.rhs->type());
    auto c = Static2D(s.var()->type());
    if (!a || !b || !c || a->second != b->first) return std::nullopt;
    site.m = a->first;
    site.k = a->second;
    site.n = b->second;
    auto dtype = [](const ir::VarPtr& v) { return ir::As<ir::TileType>(v->type())->dtype(); };
    // A bias row is applied whole by each sub-tile's first block: the
    // output is split along m only (PyPTO's bias windows are not here).
    std::optional<L0Tile> block = ChooseL0Tile(caps_, site.m, site.n, site.k, dtype(site.lhs),
                                               dtype(site.out), /*whole_n=*/bias);
    if (!block) return std::nullopt;
    site.block = *block;
    if (block->m == site.m && block->n == site.n) return site;
    // An output over L0C is placed sub-tile by sub-tile: only a fresh matmul
    // whose one reader is a store of the whole result (PyPTO's direct-store).
    auto uses = facts_.uses.find(s.var().get());
    auto store = facts_.store_of.find(s.var().get());
    if (acc || uses == facts_.uses.end() || uses->second != 1 || store == facts_.store_of.end()) {
      return std::nullopt;
    }
    // Its offsets: a list over the tensor's dims, the last two the window's.
    auto st = OpCallOf(store->second->kind() == ir::NodeKind::kAssignStmt
                           ? static_cast<const ir::AssignStmt*>(store->second)->value()
                           : static_cast<const ir::EvalStmt*>(store->second)->expr());
    auto offsets = st != nullptr ? ir::As<ir::MakeTuple>(st->args()[1]) : nullptr;
    if (offsets == nullptr || offsets->elements().size() < 2) return std::nullopt;
    site.store = store->second;
    return site;
  }

  ir::VarPtr NewTile(const std::string& name, int64_t rows, int64_t cols, ir::DataType dtype,
                     const Span& span) {
    return std::make_shared<ir::Var>(
        name, std::make_shared<ir::TileType>(std::vector<ir::ExprPtr>{Int(rows), Int(cols)}, dtype),
        span);
  }

  // The k blocks of the output window at (mi, ni): extracts and matmuls, the
  // last defining `result` (a fresh var when null).
  std::vector<ir::StmtPtr> Chain(const Site& site, int64_t mi, int64_t ni, ir::VarPtr result) {
    const Span& span = site.out->span();
    const int64_t mw = std::min(site.block.m, site.m - mi);
    const int64_t nw = std::min(site.block.n, site.n - ni);
    const ir::DataType in = ir::As<ir::TileType>(site.lhs->type())->dtype();
    const ir::DataType c = ir::As<ir::TileType>(site.out->type())->dtype();
    const std::string base = site.out->name_hint();
    std::vector<ir::StmtPtr> out;
    ir::VarPtr prev = site.acc;
    for (int64_t ko = 0; ko < site.k; ko += site.block.k) {
      const int64_t kw = std::min(site.block.k, site.k - ko);
      const std::string tag = pto::StrCat("_", mi, "_", ni, "_", ko);
      ir::VarPtr sa = NewTile(base + "_l" + tag, mw, kw, in, span);
      ir::VarPtr sb = NewTile(base + "_r" + tag, kw, nw, in, span);
      out.push_back(std::make_shared<ir::AssignStmt>(
          sa, Extract(site.lhs, mi, ko, mw, kw, "Left", sa->type(), span), span));
      out.push_back(std::make_shared<ir::AssignStmt>(
          sb, Extract(site.rhs, ko, ni, kw, nw, "Right", sb->type(), span), span));
      const bool last = ko + site.block.k >= site.k;
      ir::VarPtr c_var = last && result != nullptr ? result
                                                   : NewTile(base + "_c" + tag, mw, nw, c, span);
      // The first block: matmul, or matmul_bias adding the bias once;
      // the others accumulate.
      std::vector<ir::ExprPtr> operands = {sa, sb};
      OpId op = OpId::kPlTileMatmulAcc;
      if (prev != nullptr) {
        operands.insert(operands.begin(), prev);
      } else if (site.bias != nullptr) {
        operands.push_back(site.bias);
        op = OpId::kPlTileMatmulBias;
      } else {
        op = OpId::kPlTileMatmul;
      }
      out.push_back(std::make_shared<ir::AssignStmt>(
          c_var, ir::MakeOpCall(op, operands, c_var->type(), {}, {}, span), span));
      prev = c_var;
    }
    last_ = prev;
    return out;
  }

  static ir::CallPtr Extract(const ir::VarPtr& src, int64_t row, int64_t col, int64_t rows,
                             int64_t cols, const char* space, const ir::TypePtr& type,
                             const Span& span) {
    return ir::MakeOpCall(
        OpId::kPlTileExtract,
        {src, Int(row), Int(col), std::make_shared<ir::MakeTuple>(std::vector<ir::ExprPtr>{
                                      Int(rows), Int(cols)}, span)},
        type, {{"target_memory", std::string(space)}}, {}, span);
  }

  // The output grid at the store `stmt` (`result = pl.tile.store(c, offsets,
  // t)` or its evaluated form): each sub-tile's chain and its store into
  // the window, the stores chained through the tensor, the last one
  // defining `result`.
  ir::StmtPtr Grid(const Site& site, const ir::VarPtr& result, const ir::Stmt& stmt) {
    const Span& span = stmt.span();
    ir::CallPtr store = OpCallOf(result != nullptr
                                     ? static_cast<const ir::AssignStmt&>(stmt).value()
                                     : static_cast<const ir::EvalStmt&>(stmt).expr());
    const auto offsets = ir::As<ir::MakeTuple>(store->args()[1]);
    std::vector<ir::StmtPtr> out;
    ir::ExprPtr tensor = store->args()[2];
    for (int64_t mi = 0; mi < site.m; mi += site.block.m) {
      for (int64_t ni = 0; ni < site.n; ni += site.block.n) {
        std::vector<ir::StmtPtr> chain = Chain(site, mi, ni, nullptr);
        out.insert(out.end(), chain.begin(), chain.end());
        const bool last = mi + site.block.m >= site.m && ni + site.block.n >= site.n;
        std::vector<ir::ExprPtr> at = offsets->elements();
        const size_t rank = at.size();
        at[rank - 2] = Offset(at[rank - 2], mi, span);
        at[rank - 1] = Offset(at[rank - 1], ni, span);
        ir::CallPtr call =
            ir::MakeOpCall(OpId::kPlTileStore,
                           {last_, std::make_shared<ir::MakeTuple>(std::move(at), span), tensor},
                           tensor->type(), {}, {}, span);
        if (last && result == nullptr) {
          out.push_back(std::make_shared<ir::EvalStmt>(call, std::vector<std::string>{}, span));
          continue;
        }
        ir::VarPtr t = last ? result
                            : std::make_shared<ir::Var>(
                                  pto::StrCat(site.out->name_hint(), "_out_", mi, "_", ni),
                                  tensor->type(), span);
        out.push_back(std::make_shared<ir::AssignStmt>(t, call, span));
        tensor = t;
      }
    }
    return ir::SeqStmts::Flatten(out, span);
  }

  // base + d.
  static ir::ExprPtr Offset(const ir::ExprPtr& base, int64_t d, const Span& span) {
    if (d == 0) return base;
    if (auto c = ir::GetConstInt(base)) return Int(*c + d);
    absl::StatusOr<ir::ExprPtr> sum = ir::MakeBinary(ir::BinaryOp::kAdd, base, Int(d), span);
    return sum.ok() ? *sum : base;
  }

  const AutoTileMatmulL0Options& caps_;
  const Facts& facts_;
  absl::flat_hash_map<const ir::Stmt*, Site> grids_;
  ir::VarPtr last_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> AutoTileMatmulL0Pass::Run(const ir::ProgramPtr& program) {
  if (options_.l0a_bytes <= 0 || options_.l0b_bytes <= 0 || options_.l0c_bytes <= 0) {
    return program;
  }
  return RewriteFunctionBodies(program, [&](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    if (!ir::IsInCoreType(f->func_type()) || f->body() == nullptr) return f->body();
    Facts facts;
    facts.VisitStmt(f->body());
    Tiler tiler(options_, facts);
    return tiler.MutateStmt(f->body());
  });
}

std::unique_ptr<Pass> CreateAutoTileMatmulL0Pass(AutoTileMatmulL0Options options) {
  return std::make_unique<AutoTileMatmulL0Pass>(options);
}

}  // namespace pto::passes
