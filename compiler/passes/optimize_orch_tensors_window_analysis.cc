// OptimizeOrchTensors pattern 5, the analysis: which windows of a
// windowize=True kernel's tensor params are provable from its body (PyPTO's
// FinalStore, AggregateWindowLoop and PureInputWindowConsumer shapes). The
// rewrite is optimize_orch_tensors_windows.cc; the rules are in
// docs/passes/OptimizeOrchTensors.md.
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/passes/optimize_orch_tensors_internal.h"

namespace pto::passes::orch_tensors {

// ---- Linear forms ----------------------------------------------------------

int64_t Linear::Coeff(const ir::Var* v) const {
  for (const auto& [var, c] : terms) {
    if (var.get() == v) return c;
  }
  return 0;
}

bool Linear::operator==(const Linear& o) const {
  if (constant != o.constant || terms.size() != o.terms.size()) return false;
  for (const auto& [var, c] : terms) {
    if (o.Coeff(var.get()) != c) return false;
  }
  return true;
}

std::optional<Linear> AddLinear(const Linear& a, const Linear& b, int64_t scale_b) {
  Linear out = a;
  int64_t scaled = 0;
  if (__builtin_mul_overflow(b.constant, scale_b, &scaled) ||
      __builtin_add_overflow(out.constant, scaled, &out.constant)) {
    return std::nullopt;
  }
  for (const auto& [var, c] : b.terms) {
    if (__builtin_mul_overflow(c, scale_b, &scaled)) return std::nullopt;
    auto it = std::find_if(out.terms.begin(), out.terms.end(),
                           [&](const auto& t) { return t.first == var; });
    if (it == out.terms.end()) {
      out.terms.emplace_back(var, scaled);
    } else if (__builtin_add_overflow(it->second, scaled, &it->second)) {
      return std::nullopt;
    }
  }
  out.terms.erase(std::remove_if(out.terms.begin(), out.terms.end(),
                                 [](const auto& t) { return t.second == 0; }),
                  out.terms.end());
  return out;
}

std::optional<Linear> ParseLinear(const ir::ExprPtr& e, const ir::VarSubstMap& defs) {
  if (std::optional<int64_t> c = ir::GetConstInt(e)) return Linear{{}, *c};
  if (auto v = ir::As<ir::Var>(e)) {
    if (auto it = defs.find(v.get()); it != defs.end()) return ParseLinear(it->second, defs);
    if (!ir::Is<ir::ScalarType>(v->type())) return std::nullopt;
    return Linear{{{v, 1}}, 0};
  }
  auto b = ir::As<ir::BinaryExpr>(e);
  if (b == nullptr) return std::nullopt;
  std::optional<Linear> l = ParseLinear(b->lhs(), defs);
  std::optional<Linear> r = ParseLinear(b->rhs(), defs);
  if (!l || !r) return std::nullopt;
  switch (b->op()) {
    case ir::BinaryOp::kAdd:
      return AddLinear(*l, *r);
    case ir::BinaryOp::kSub:
      return AddLinear(*l, *r, -1);
    case ir::BinaryOp::kMul:
      if (r->terms.empty()) return AddLinear(Linear{}, *l, r->constant);
      if (l->terms.empty()) return AddLinear(Linear{}, *r, l->constant);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

ir::ExprPtr LinearExpr(const Linear& l, const Span& span) {
  // Positive terms first, then the negative ones subtracted: `c - col`.
  ir::ExprPtr out;
  auto combine = [&](ir::BinaryOp op, ir::ExprPtr term) {
    if (out == nullptr && op == ir::BinaryOp::kAdd) {
      out = std::move(term);
      return;
    }
    if (out == nullptr) out = ir::ConstIndex(0, span);
    if (auto e = ir::MakeBinary(op, out, std::move(term), span); e.ok()) out = *e;
  };
  auto term = [&](const ir::VarPtr& var, int64_t c) -> ir::ExprPtr {
    if (c == 1) return var;
    auto e = ir::MakeBinary(ir::BinaryOp::kMul, var, ir::ConstIndex(c, span), span);
    return e.ok() ? *e : ir::ExprPtr(var);
  };
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();  // has no negation
  for (const auto& [var, c] : l.terms) {
    if (c > 0 || c == kMin) combine(ir::BinaryOp::kAdd, term(var, c));
  }
  for (const auto& [var, c] : l.terms) {
    if (c < 0 && c != kMin) combine(ir::BinaryOp::kSub, term(var, -c));
  }
  if (l.constant > 0 || l.constant == kMin || out == nullptr) {
    combine(ir::BinaryOp::kAdd, ir::ConstIndex(l.constant, span));
  } else if (l.constant < 0) {
    combine(ir::BinaryOp::kSub, ir::ConstIndex(-l.constant, span));
  }
  return out;
}

namespace {

// ---- Shared checks -----------------------------------------------------------

bool Windowize(const ir::FunctionPtr& f) {
  return ir::GetAttr<bool>(f->attrs(), "windowize").value_or(false);
}

std::optional<std::vector<int64_t>> ConstShape(const std::vector<ir::ExprPtr>& shape) {
  std::vector<int64_t> out;
  for (const ir::ExprPtr& d : shape) {
    std::optional<int64_t> v = ir::GetConstInt(d);
    if (!v || *v <= 0) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// The offsets, or nullopt unless each is linear in `params` (scalars
// defined in the body read through `defs`).
std::optional<std::vector<Linear>> ParamOffsets(const ir::ExprPtr& offsets,
                                                const absl::flat_hash_set<const ir::Var*>& params,
                                                const ir::VarSubstMap& defs = {}) {
  auto t = ir::As<ir::MakeTuple>(offsets);
  if (t == nullptr) return std::nullopt;
  std::vector<Linear> out;
  for (const ir::ExprPtr& e : t->elements()) {
    std::optional<Linear> l = ParseLinear(e, defs);
    if (!l) return std::nullopt;
    for (const auto& [var, c] : l->terms) {
      if (!params.contains(var.get())) return std::nullopt;
    }
    out.push_back(*l);
  }
  return out;
}

// The offsets, or nullopt unless they read only the kernel's scalar params
// (the call site substitutes its arguments for them).
std::optional<std::vector<ir::ExprPtr>> ParamOnly(
    const ir::ExprPtr& offsets, const absl::flat_hash_set<const ir::Var*>& params) {
  auto t = ir::As<ir::MakeTuple>(offsets);
  if (t == nullptr) return std::nullopt;
  VarCollector used;
  used.VisitExpr(t);
  for (const ir::Var* v : used.vars) {
    if (!params.contains(v)) return std::nullopt;
  }
  return t->elements();
}

// The same expression over the same vars (StructuralEqual would pair up
// distinct free vars).
bool SameExpr(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  if (a == b) return true;
  std::optional<int64_t> x = ir::GetConstInt(a);
  if (x || ir::GetConstInt(b)) return x == ir::GetConstInt(b);
  auto p = ir::As<ir::BinaryExpr>(a);
  auto q = ir::As<ir::BinaryExpr>(b);
  return p != nullptr && q != nullptr && p->op() == q->op() && SameExpr(p->lhs(), q->lhs()) &&
         SameExpr(p->rhs(), q->rhs());
}

bool SameExprs(const std::vector<ir::ExprPtr>& a, const std::vector<ir::ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpr(a[i], b[i])) return false;
  }
  return true;
}

// A window narrower than the whole tensor at offset 0 exposes a narrower
// dependency; the whole tensor does not.
bool Whole(const std::vector<int64_t>& box, const std::vector<ir::ExprPtr>& base,
           const std::vector<int64_t>& shape) {
  for (size_t d = 0; d < box.size(); ++d) {
    if (box[d] != shape[d] || ir::GetConstInt(base[d]) != 0) return false;
  }
  return true;
}

Linear WithoutVar(Linear l, const ir::Var* v) {
  l.terms.erase(std::remove_if(l.terms.begin(), l.terms.end(),
                               [&](const auto& t) { return t.first.get() == v; }),
                l.terms.end());
  return l;
}

std::vector<ir::ExprPtr> Exprs(const std::vector<Linear>& ls, const Span& span) {
  std::vector<ir::ExprPtr> out;
  for (const Linear& l : ls) out.push_back(LinearExpr(l, span));
  return out;
}

ir::ExprPtr Zeros(size_t rank, const Span& span) {
  return std::make_shared<ir::MakeTuple>(
      std::vector<ir::ExprPtr>(rank, ir::ConstIndex(0, span)), span);
}

struct Kernel {
  const ir::FunctionPtr& f;
  std::vector<ir::StmtPtr> stmts;
  std::shared_ptr<const ir::ReturnStmt> ret;
  absl::flat_hash_set<const ir::Var*> scalars;  // scalar params
  UseCounter uses;
};

// ---- FinalStore: `r = pl.tile.store(t, offsets, out)` returned --------------

// An InOut param may also be read, by top-level loads of exactly the stored
// window (PyPTO's same-region InOut access); they read the window at 0 in the
// clone. The number of such loads, or nullopt if another read is there.
std::optional<int> SameRegionLoads(const Kernel& k, const ir::VarPtr& param, const OutWindow& w,
                                   std::vector<std::pair<const ir::Call*, ir::ExprPtr>>* loads) {
  int n = 0;
  for (const ir::StmtPtr& s : k.stmts) {
    auto a = ir::As<ir::AssignStmt>(s);
    if (a == nullptr || !ir::IsOp(a->value(), ir::OpId::kPlTileLoad)) continue;
    auto call = ir::As<ir::Call>(a->value());
    if (call->args().size() != 3 || call->args()[0] != param) continue;
    auto tile = ir::As<ir::TileType>(call->type());
    auto offsets = ir::As<ir::MakeTuple>(call->args()[1]);
    if (tile == nullptr || offsets == nullptr || !tile->valid_shape().empty() ||
        ConstShape(tile->shape()) != w.box || !SameExprs(offsets->elements(), w.base)) {
      return std::nullopt;
    }
    loads->emplace_back(call.get(), Zeros(w.box.size(), call->span()));
    ++n;
  }
  return n;
}

std::optional<OutWindow> FinalStoreWindow(const Kernel& k, size_t p) {
  const ir::VarPtr& param = k.f->params()[p];
  auto tensor = ir::As<ir::TensorType>(param->type());
  std::optional<std::vector<int64_t>> shape =
      tensor ? ConstShape(tensor->shape()) : std::nullopt;
  const bool inout = k.f->param_directions()[p] == ir::ParamDirection::kInOut;
  if (!shape || (!inout && k.uses.Uses(param.get()) != 1)) return std::nullopt;
  for (const ir::StmtPtr& s : k.stmts) {
    auto a = ir::As<ir::AssignStmt>(s);
    if (a == nullptr || !ir::IsOp(a->value(), ir::OpId::kPlTileStore)) continue;
    auto call = ir::As<ir::Call>(a->value());
    if (call->args().size() != 3 || call->args()[2] != param) continue;
    size_t ret = k.ret->value().size();
    for (size_t i = 0; i < k.ret->value().size(); ++i) {
      if (k.ret->value()[i] == a->var()) ret = i;
    }
    auto tile = ir::As<ir::TileType>(call->args()[0]->type());
    std::optional<std::vector<int64_t>> tshape = tile ? ConstShape(tile->shape()) : std::nullopt;
    std::optional<std::vector<ir::ExprPtr>> base = ParamOnly(call->args()[1], k.scalars);
    if (ret == k.ret->value().size() || k.uses.Uses(a->var().get()) != 1 || !tshape || !base ||
        tshape->size() > shape->size() || base->size() != shape->size()) {
      return std::nullopt;
    }
    // A tile of lower rank stores into the innermost dims.
    OutWindow w{p, ret, std::vector<int64_t>(shape->size() - tshape->size(), 1), {}, {}, {}, false};
    w.box.insert(w.box.end(), tshape->begin(), tshape->end());
    if (Whole(w.box, *base, *shape)) return std::nullopt;
    w.base = *base;
    w.accesses.emplace_back(call.get(), Zeros(shape->size(), call->span()));
    w.carriers.push_back(a->var().get());
    if (inout) {
      std::optional<int> loads = SameRegionLoads(k, param, w, &w.accesses);
      if (!loads || k.uses.Uses(param.get()) != 1 + *loads) return std::nullopt;
    }
    return w;
  }
  return std::nullopt;
}

// ---- AggregateWindowLoop: an Out param carried through one loop -------------

// A window-sized access to the carrier in one trip: box and offsets.
struct Access {
  const ir::Call* call = nullptr;
  ir::ExprPtr offsets;
  std::vector<int64_t> box;
  std::vector<Linear> at;  // offsets, linear in the loop var and scalar params
};

// The accesses of the tensor a loop carries from iter arg `it`: stores into
// it advance it, loads read it. Every use of each carried var is one of them
// (nothing nested reads or writes it), the last store's result is yielded,
// and every load reads exactly a region a store of the same trip writes.
struct Chain {
  std::vector<Access> stores, loads;
  std::vector<const ir::Var*> carriers;
};

std::optional<Chain> CarrierChain(const Kernel& k, const ir::ForStmt& loop, size_t it,
                                  size_t rank) {
  std::vector<ir::StmtPtr> body = TopLevel(loop.body());
  auto yield = body.empty() ? nullptr : ir::As<ir::YieldStmt>(body.back());
  if (yield == nullptr || yield->value().size() != loop.iter_args().size()) return std::nullopt;
  absl::flat_hash_set<const ir::Var*> allowed = k.scalars;
  allowed.insert(loop.loop_var().get());
  ir::VarSubstMap defs;  // scalars defined in the body, read through
  const ir::Var* tail = loop.iter_args()[it].get();
  Chain chain{{}, {}, {tail}};
  absl::flat_hash_map<const ir::Var*, int> expected;  // recognised uses per carrier
  for (const ir::StmtPtr& b : body) {
    auto a = ir::As<ir::AssignStmt>(b);
    if (a == nullptr) continue;
    auto call = ir::As<ir::Call>(a->value());
    bool store = ir::IsOp(a->value(), ir::OpId::kPlTileStore) && call->args().size() == 3 &&
                 call->args()[2].get() == tail;
    bool load = ir::IsOp(a->value(), ir::OpId::kPlTileLoad) && call->args().size() == 3 &&
                call->args()[0].get() == tail;
    if (!store && !load) {
      if (ir::Is<ir::ScalarType>(a->var()->type())) defs[a->var().get()] = a->value();
      continue;
    }
    auto tile = ir::As<ir::TileType>(store ? call->args()[0]->type() : call->type());
    std::optional<std::vector<int64_t>> box = tile ? ConstShape(tile->shape()) : std::nullopt;
    std::optional<std::vector<Linear>> at = ParamOffsets(call->args()[1], allowed, defs);
    if (!box || box->size() != rank || !at) return std::nullopt;
    ++expected[tail];
    (store ? chain.stores : chain.loads).push_back(Access{call.get(), call->args()[1], *box, *at});
    if (store) {
      tail = a->var().get();
      chain.carriers.push_back(tail);
    }
  }
  if (chain.stores.empty() || yield->value()[it].get() != tail) return std::nullopt;
  ++expected[tail];  // the yield
  for (const ir::Var* c : chain.carriers) {
    if (k.uses.Uses(c) != expected[c]) return std::nullopt;
  }
  for (const Access& l : chain.loads) {
    bool matched = false;
    for (const Access& st : chain.stores) matched = matched || (st.box == l.box && st.at == l.at);
    if (!matched) return std::nullopt;
  }
  return chain;
}

// The one dense box the stores cover over `trips` trips of loop var `iv`
// (from `start` by `step`): its shape and origin (linear in the params).
struct DenseBox {
  std::vector<int64_t> box;
  std::vector<Linear> base;
};

std::optional<DenseBox> UnionOfTrips(const std::vector<Access>& stores, const ir::Var* iv,
                                     const Linear& start, int64_t step, int64_t trips,
                                     size_t rank) {
  // Per dim, every store has the same part over params, so the bounds are
  // constants apart; the loop var moves at most one dim. first[u][d]: store
  // u's constant offset in dim d on the first trip.
  std::vector<Linear> base(rank);
  std::vector<int64_t> lo(rank), hi(rank), first_lo(rank), first_hi(rank);
  std::vector<std::vector<int64_t>> first(stores.size(), std::vector<int64_t>(rank));
  int varying = -1;
  for (size_t d = 0; d < rank; ++d) {
    std::optional<Linear> common;
    for (size_t u = 0; u < stores.size(); ++u) {
      const Linear& l = stores[u].at[d];
      const int64_t c = l.Coeff(iv);
      std::optional<Linear> rest = AddLinear(WithoutVar(l, iv), start, c);  // loop var := start
      if (!rest) return std::nullopt;
      const int64_t off = rest->constant;
      rest->constant = 0;
      if (common && !(*rest == *common)) return std::nullopt;
      common = rest;
      if (c != 0) {
        if (varying >= 0 && varying != static_cast<int>(d)) return std::nullopt;
        varying = static_cast<int>(d);
      }
      int64_t last = 0;
      if (__builtin_mul_overflow(c, (trips - 1) * step, &last) ||
          __builtin_add_overflow(last, off, &last)) {
        return std::nullopt;
      }
      first[u][d] = off;
      const int64_t size = stores[u].box[d];
      lo[d] = u == 0 ? std::min(off, last) : std::min({lo[d], off, last});
      hi[d] = u == 0 ? std::max(off, last) + size : std::max(hi[d], std::max(off, last) + size);
      first_lo[d] = u == 0 ? off : std::min(first_lo[d], off);
      first_hi[d] = u == 0 ? off + size : std::max(first_hi[d], off + size);
    }
    base[d] = *common;
    base[d].constant = lo[d];
  }
  // The first trip's stores tile their bounding box exactly (disjoint, no
  // holes), and the trips tile the moving dim end to end.
  int64_t volume = 1, covered = 0;
  for (size_t d = 0; d < rank; ++d) volume *= first_hi[d] - first_lo[d];
  for (size_t u = 0; u < stores.size(); ++u) {
    int64_t v = 1;
    for (size_t d = 0; d < rank; ++d) v *= stores[u].box[d];
    covered += v;
    for (size_t o = 0; o < u; ++o) {
      bool apart = false;
      for (size_t d = 0; d < rank; ++d) {
        apart = apart || first[u][d] + stores[u].box[d] <= first[o][d] ||
                first[o][d] + stores[o].box[d] <= first[u][d];
      }
      if (!apart) return std::nullopt;
    }
  }
  if (covered != volume) return std::nullopt;
  DenseBox out{{}, std::move(base)};
  for (size_t d = 0; d < rank; ++d) {
    out.box.push_back(hi[d] - lo[d]);
    const int64_t span = first_hi[d] - first_lo[d];
    if (static_cast<int>(d) == varying ? out.box[d] != span * trips : out.box[d] != span) {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<OutWindow> AggregateWindow(const Kernel& k, size_t p) {
  const ir::VarPtr& param = k.f->params()[p];
  auto tensor = ir::As<ir::TensorType>(param->type());
  std::optional<std::vector<int64_t>> shape =
      tensor ? ConstShape(tensor->shape()) : std::nullopt;
  if (!shape || k.uses.Uses(param.get()) != 1) return std::nullopt;
  const size_t rank = shape->size();
  for (const ir::StmtPtr& s : k.stmts) {
    auto loop = ir::As<ir::ForStmt>(s);
    if (loop == nullptr) continue;
    size_t it = loop->iter_args().size();
    for (size_t i = 0; i < loop->iter_args().size(); ++i) {
      if (loop->iter_args()[i]->init_value() == param) it = i;
    }
    if (it == loop->iter_args().size()) continue;
    if (loop->return_vars().size() != loop->iter_args().size()) return std::nullopt;
    const ir::VarPtr& result = loop->return_vars()[it];
    size_t ret = k.ret->value().size();
    for (size_t i = 0; i < k.ret->value().size(); ++i) {
      if (k.ret->value()[i] == result) ret = i;
    }
    // A static trip count (start linear in the kernel's scalar params, stop
    // a constant past it, a positive constant step): the window is the union
    // over every trip.
    std::optional<Linear> start = ParseLinear(loop->start());
    std::optional<Linear> stop = ParseLinear(loop->stop());
    std::optional<int64_t> step = ir::GetConstInt(loop->step());
    std::optional<Linear> extent = start && stop ? AddLinear(*stop, *start, -1) : std::nullopt;
    if (ret == k.ret->value().size() || k.uses.Uses(result.get()) != 1 || !extent ||
        !extent->terms.empty() || extent->constant <= 0 || !step || *step <= 0) {
      return std::nullopt;
    }
    for (const auto& [var, c] : start->terms) {
      if (!k.scalars.contains(var.get())) return std::nullopt;
    }
    const int64_t trips = (extent->constant + *step - 1) / *step;
    std::optional<Chain> chain = CarrierChain(k, *loop, it, rank);
    std::optional<DenseBox> dense =
        chain ? UnionOfTrips(chain->stores, loop->loop_var().get(), *start, *step, trips, rank)
              : std::nullopt;
    if (!dense) return std::nullopt;
    for (size_t d = 0; d < rank; ++d) {
      if (dense->box[d] > (*shape)[d]) return std::nullopt;
    }
    OutWindow w{p, ret, dense->box, Exprs(dense->base, k.f->span()), {}, chain->carriers, true};
    if (Whole(w.box, w.base, *shape)) return std::nullopt;
    w.carriers.push_back(result.get());
    // In the clone each access moves by -base (dims whose base is 0 keep
    // their offset expressions).
    for (const std::vector<Access>* group : {&chain->stores, &chain->loads}) {
      for (const Access& x : *group) {
        auto t = ir::As<ir::MakeTuple>(x.offsets);
        std::vector<ir::ExprPtr> local;
        for (size_t d = 0; d < rank; ++d) {
          std::optional<Linear> rel = AddLinear(x.at[d], dense->base[d], -1);
          if (!rel) return std::nullopt;
          local.push_back(dense->base[d] == Linear{} ? t->elements()[d]
                                                     : LinearExpr(*rel, t->span()));
        }
        w.accesses.emplace_back(x.call, std::make_shared<ir::MakeTuple>(local, t->span()));
      }
    }
    return w;
  }
  return std::nullopt;
}

// ---- PureInputWindowConsumer: an In param read through one window -----------

class ParamReads : public ir::IRVisitor {
 public:
  explicit ParamReads(const ir::Var* param) : param_(param) {}
  std::vector<Access> reads;
  bool other = false;  // a read that is not a plain window load or slice

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    const auto& args = call->args();
    if (!args.empty() && args[0].get() == param_) {
      std::optional<std::vector<int64_t>> box;
      ir::ExprPtr offsets;
      if (ir::IsOp(call, ir::OpId::kPlTileLoad) && (args.size() == 3 || args.size() == 4) &&
          !ir::GetAttr<bool>(call->kwargs(), "transpose").value_or(false)) {
        // The read box is the tile (no valid_shape narrower than it).
        auto tile = ir::As<ir::TileType>(call->type());
        box = tile && tile->valid_shape().empty() ? ConstShape(tile->shape()) : std::nullopt;
        auto read = ir::As<ir::MakeTuple>(args[2]);
        if (box && (read == nullptr || ConstShape(read->elements()) != box)) box.reset();
        offsets = args[1];
      } else if (ir::IsOp(call, ir::OpId::kPlTensorSlice) && args.size() == 3) {
        auto t = ir::As<ir::TensorType>(call->type());
        box = t ? ConstShape(t->shape()) : std::nullopt;
        offsets = args[2];
      }
      if (box) {
        reads.push_back(Access{call.get(), offsets, *box, {}});
        for (size_t i = 1; i < args.size(); ++i) VisitExpr(args[i]);
        return;
      }
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitVar(const ir::VarPtr& var) override { other = other || var.get() == param_; }

 private:
  const ir::Var* param_;
};

std::optional<InWindow> InputWindow(const Kernel& k, size_t p) {
  const ir::VarPtr& param = k.f->params()[p];
  auto tensor = ir::As<ir::TensorType>(param->type());
  std::optional<std::vector<int64_t>> shape =
      tensor ? ConstShape(tensor->shape()) : std::nullopt;
  if (!shape || k.f->param_directions()[p] != ir::ParamDirection::kIn) return std::nullopt;
  ParamReads reads(param.get());
  reads.VisitStmt(k.f->body());
  if (reads.other || reads.reads.empty()) return std::nullopt;
  std::optional<std::vector<ir::ExprPtr>> base;
  InWindow w{p, reads.reads[0].box, {}, {}};
  for (const Access& r : reads.reads) {
    std::optional<std::vector<ir::ExprPtr>> at = ParamOnly(r.offsets, k.scalars);
    if (!at || r.box != w.box || at->size() != shape->size() || (base && !SameExprs(*at, *base))) {
      return std::nullopt;
    }
    base = at;
    w.accesses.emplace_back(r.call, Zeros(shape->size(), r.offsets->span()));
  }
  if (w.box.size() != shape->size() || Whole(w.box, *base, *shape)) return std::nullopt;
  w.base = *base;
  return w;
}

// An Out param written whole at offset 0 by a returned final store.
bool WholeFinalStore(const Kernel& k, size_t p) {
  const ir::VarPtr& param = k.f->params()[p];
  for (const ir::StmtPtr& s : k.stmts) {
    auto a = ir::As<ir::AssignStmt>(s);
    if (a == nullptr || !ir::IsOp(a->value(), ir::OpId::kPlTileStore)) continue;
    auto call = ir::As<ir::Call>(a->value());
    auto tile = ir::As<ir::TileType>(call->args()[0]->type());
    auto tensor = ir::As<ir::TensorType>(param->type());
    std::optional<std::vector<ir::ExprPtr>> at = ParamOnly(call->args()[1], k.scalars);
    if (call->args()[2] != param || tile == nullptr || tensor == nullptr || !at) continue;
    std::optional<std::vector<int64_t>> box = ConstShape(tile->shape());
    std::optional<std::vector<int64_t>> shape = ConstShape(tensor->shape());
    return box && shape && box->size() == shape->size() && Whole(*box, *at, *shape);
  }
  return false;
}

}  // namespace

std::optional<WindowPlan> PlanWindows(const ir::FunctionPtr& f) {
  if (f->body() == nullptr || !ir::IsInCoreType(f->func_type()) || !Windowize(f)) {
    return std::nullopt;
  }
  Kernel k{f, TopLevel(f->body()), nullptr, {}, {}};
  k.ret = k.stmts.empty() ? nullptr : ir::As<ir::ReturnStmt>(k.stmts.back());
  if (k.ret == nullptr) return std::nullopt;
  for (const ir::VarPtr& p : f->params()) {
    if (ir::Is<ir::ScalarType>(p->type())) k.scalars.insert(p.get());
  }
  k.uses.VisitFunction(f);
  WindowPlan plan{f->name() + "__windowed", {}, {}};
  bool outs_whole = true;  // every Out param is written whole at offset 0
  for (size_t p = 0; p < f->params().size(); ++p) {
    // As PyPTO: InOut params are outputs too.
    if (f->param_directions()[p] != ir::ParamDirection::kOut &&
        f->param_directions()[p] != ir::ParamDirection::kInOut) {
      continue;
    }
    std::optional<OutWindow> w = FinalStoreWindow(k, p);
    if (!w) w = AggregateWindow(k, p);
    if (w) {
      plan.outs.push_back(std::move(*w));
    } else {
      outs_whole = outs_whole && WholeFinalStore(k, p);
    }
  }
  // Input windows ride along with output windows, or stand alone when the
  // outputs are written whole, and only in a kernel that returns data (one
  // that does not may be a fence whose wide input is the point).
  if (!f->return_types().empty() && (!plan.outs.empty() || outs_whole)) {
    for (size_t p = 0; p < f->params().size(); ++p) {
      if (std::optional<InWindow> w = InputWindow(k, p)) plan.ins.push_back(std::move(*w));
    }
  }
  if (plan.outs.empty() && plan.ins.empty()) return std::nullopt;
  return plan;
}

}  // namespace pto::passes::orch_tensors
