#include "compiler/passes/memory_reuse.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/visitor.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_liveness.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using MemRefMap = absl::flat_hash_map<const ir::Var*, ir::MemRefPtr>;

// The tiles of one MemRef and the span of program numbers they are live in.
struct Group {
  ir::MemRefPtr memref;
  std::vector<const ir::Var*> members;  // in definition order
  int def = 0;
  int end = 0;
  bool touch_ok = false;  // the first writer may reuse the buffer it last reads
  // The (pl.pipeline loop, stage) of its loads (LowerPipelineLoops' tags).
  std::vector<std::pair<int64_t, int64_t>> stages;
};

// Tiles of a kernel grouped by MemRef (each group in the order of its
// MemRef's id), with union-find over the MemRefs for the carry merges.
class Groups {
 public:
  static absl::StatusOr<Groups> Build(const TileLiveness& live, bool with_cube = false) {
    Groups g;
    std::vector<std::pair<int, const ir::Var*>> defs;
    for (const auto& [var, def] : live.defs) defs.push_back({def.pos, var});
    std::sort(defs.begin(), defs.end());
    for (const auto& [pos, var] : defs) {
      ir::MemRefPtr m = TileMemRef(live.vars.at(var)->type());
      if (m == nullptr) {
        return InternalErrorF(live.vars.at(var)->span(), "MemoryReuse: tile '",
                              live.vars.at(var)->name_hint(),
                              "' has no MemRef; InitMemRef must run first");
      }
      // Round 1 (carries) handles UB tiles; the packing also shares each
      // cube buffer (Mat, Left, Right, Acc, Bias) among its own tiles.
      if (m->memory_space() != ir::MemorySpace::kUB &&
          (!with_cube || !ir::IsCubeSpace(m->memory_space()))) {
        continue;
      }
      auto [it, fresh] = g.index_.emplace(m.get(), g.groups_.size());
      if (fresh) g.groups_.push_back(Group{m, {}, 0, 0, false});
      g.groups_[it->second].members.push_back(var);
    }
    std::sort(g.groups_.begin(), g.groups_.end(),
              [](const Group& a, const Group& b) { return a.memref->id() < b.memref->id(); });
    g.index_.clear();
    for (size_t i = 0; i < g.groups_.size(); ++i) {
      g.index_[g.groups_[i].memref.get()] = i;
      g.parent_.push_back(static_cast<int>(i));
    }
    return g;
  }

  // The group of a tile var's MemRef (its union-find root), or -1.
  int Of(const ir::Var* var, const TileLiveness& live) {
    auto v = live.vars.find(var);
    if (v == live.vars.end()) return -1;
    ir::MemRefPtr m = TileMemRef(v->second->type());
    if (m == nullptr) return -1;
    auto it = index_.find(m.get());
    return it == index_.end() ? -1 : Find(static_cast<int>(it->second));
  }
  int Find(int i) { return parent_[i] == i ? i : parent_[i] = Find(parent_[i]); }
  // Moves the tiles of group `from` into group `into`.
  void Merge(int into, int from) {
    parent_[from] = into;
    auto& dst = groups_[into].members;
    dst.insert(dst.end(), groups_[from].members.begin(), groups_[from].members.end());
    groups_[from].members.clear();
  }
  std::vector<Group>& groups() { return groups_; }

 private:
  std::vector<Group> groups_;
  absl::flat_hash_map<const ir::MemRef*, size_t> index_;
  std::vector<int> parent_;
};

int FirstDef(const Group& g, const TileLiveness& live, const ir::Var** who = nullptr) {
  int best = -1;
  for (const ir::Var* m : g.members) {
    const int p = live.defs.at(m).pos;
    if (best < 0 || p < best) {
      best = p;
      if (who != nullptr) *who = m;
    }
  }
  return best;
}

// Whether the value yielded into carry `b` of loop `r` may be written into
// the buffer of its iter arg's group `a`: `b` is written inside the loop,
// after the last read of `a` in the iteration (at it, for an elementwise
// writer), and `a` is not read after the loop.
bool CanUpdateInPlace(const Region& r, const Group& a, const Group& b, const TileLiveness& live) {
  const ir::Var* writer = nullptr;
  const int b_def = FirstDef(b, live, &writer);
  if (b_def <= r.start) return false;
  const bool touch_ok = live.defs.at(writer).in_place_safe;
  for (const ir::Var* m : a.members) {
    auto it = live.uses.find(m);
    if (it == live.uses.end()) continue;
    for (const TileUse& u : it->second) {
      if (u.pos > r.end) return false;
      if (u.pos <= r.start) continue;
      int eff = u.pos;
      for (int li : u.loops) {
        const Region& inner = live.regions[li];
        if (inner.start > r.start && inner.end < r.end) eff = std::max(eff, inner.end);
      }
      if (eff > b_def || (eff == b_def && !touch_ok)) return false;
    }
  }
  return true;
}

// Whether every tile of `g` is defined and read within [lo, hi).
bool LocalTo(const Group& g, int lo, int hi, const TileLiveness& live,
             const ir::Var* except = nullptr) {
  for (const ir::Var* m : g.members) {
    if (m == except) continue;
    const int d = live.defs.at(m).pos;
    if (d < lo || d >= hi) return false;
    auto it = live.uses.find(m);
    if (it == live.uses.end()) continue;
    for (const TileUse& u : it->second) {
      if (u.pos < lo || u.pos >= hi) return false;
    }
  }
  return true;
}

ir::VarPtr YieldVar(const std::vector<ir::ExprPtr>& yields, size_t i) {
  if (i >= yields.size()) return nullptr;
  auto v = ir::As<ir::Var>(yields[i]);
  return v != nullptr && ir::Is<ir::TileType>(v->type()) ? v : nullptr;
}

// A copy into a loop's carried buffer before its yield.
struct Move {
  size_t index = 0;  // the yield position
  ir::MemRefPtr target;
};

struct Plan {
  MemRefMap retype;  // tile var -> its MemRef after the carry merges
  absl::flat_hash_map<const ir::Stmt*, std::vector<Move>> moves;
};

// The carry merges (and the moves where a merge is not possible).
absl::StatusOr<Plan> PlanCarries(const TileLiveness& live, Groups& groups) {
  Plan plan;
  for (const Region& r : live.regions) {
    for (size_t i = 0; i < r.return_vars.size() || i < r.iter_args.size(); ++i) {
      if (r.is_loop) {
        if (i >= r.iter_args.size() || !ir::Is<ir::TileType>(r.iter_args[i]->type())) continue;
        ir::VarPtr y = YieldVar(r.yields, i);
        if (y == nullptr) continue;
        const int a = groups.Of(r.iter_args[i].get(), live);
        const int b = groups.Of(y.get(), live);
        if (a < 0 || b < 0 || a == b) continue;
        std::vector<Group>& g = groups.groups();
        if (CanUpdateInPlace(r, g[a], g[b], live)) {
          groups.Merge(a, b);
          continue;
        }
        // The move writes the iter arg's buffer on every iteration: the init
        // value must not be needed after the loop.
        for (const ir::Var* m : g[a].members) {
          auto it = live.uses.find(m);
          if (it == live.uses.end()) continue;
          for (const TileUse& u : it->second) {
            if (u.pos > r.end) {
              const ir::VarPtr& var = live.vars.at(m);
              return UserErrorF(var->span(), "MemoryReuse: tile '", var->name_hint(),
                                "' is read after the loop that carries '",
                                r.iter_args[i]->name_hint(),
                                "' in its buffer; copy it with pl.tile.move before the loop");
            }
          }
        }
        plan.moves[r.stmt].push_back(Move{i, g[a].memref});
        if (i < r.return_vars.size() && r.return_vars[i] != nullptr) {
          plan.retype[r.return_vars[i].get()] = g[a].memref;
          // The return var leaves the yielded value's group.
          auto& mem = g[b].members;
          mem.erase(std::remove(mem.begin(), mem.end(), r.return_vars[i].get()), mem.end());
          g[a].members.push_back(r.return_vars[i].get());
        }
        continue;
      }
      // An if: the two yields share one buffer when each is computed in its
      // branch.
      if (i >= r.return_vars.size() || r.return_vars[i] == nullptr ||
          !ir::Is<ir::TileType>(r.return_vars[i]->type())) {
        continue;
      }
      ir::VarPtr t = YieldVar(r.yields, i);
      ir::VarPtr e = YieldVar(r.else_yields, i);
      if (t == nullptr || e == nullptr) continue;
      const int tg = groups.Of(t.get(), live);
      const int eg = groups.Of(e.get(), live);
      if (tg < 0 || eg < 0 || tg == eg) continue;
      std::vector<Group>& g = groups.groups();
      const ir::Var* rv = r.return_vars[i].get();
      const bool then_local = LocalTo(g[tg], r.start + 1, r.else_start, live, rv);
      const bool else_local = LocalTo(g[eg], r.else_start, r.end, live);
      if (then_local && else_local) groups.Merge(tg, eg);
      // Otherwise a yield comes from before the if: the return var names one of the two
      // buffers (code generation copies the tile handle), so both live as long
      // as it does (ExtendBranchAliases); no copy is needed.
    }
  }
  for (size_t i = 0; i < groups.groups().size(); ++i) {
    const Group& grp = groups.groups()[groups.Find(static_cast<int>(i))];
    for (const ir::Var* m : groups.groups()[i].members) {
      if (TileMemRef(live.vars.at(m)->type()) != grp.memref) plan.retype[m] = grp.memref;
    }
  }
  return plan;
}

// Applies a Plan: tile vars onto their merged MemRefs and the moves.
class CarryRewriter : public TileRetyper {
 public:
  explicit CarryRewriter(const Plan& plan) : TileRetyper(plan.retype), plan_(plan) {}
  absl::Status status() const { return status_; }

 protected:
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    ir::StmtPtr out = IRMutator::MutateForStmt(stmt);
    auto it = plan_.moves.find(stmt.get());
    if (it == plan_.moves.end()) return out;
    auto f = ir::As<ir::ForStmt>(out);
    return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                         f->iter_args(), WithMoves(f->body(), it->second),
                                         f->return_vars(), f->for_kind(), f->attrs(), f->span());
  }

  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    ir::StmtPtr out = IRMutator::MutateWhileStmt(stmt);
    auto it = plan_.moves.find(stmt.get());
    if (it == plan_.moves.end()) return out;
    auto w = ir::As<ir::WhileStmt>(out);
    return std::make_shared<ir::WhileStmt>(w->condition(), w->iter_args(),
                                           WithMoves(w->body(), it->second),
                                           w->return_vars(), w->span());
  }

  // `body` with `v = pl.tile.move(y)` before its yield for each move,
  // yielding the copies.
  ir::StmtPtr WithMoves(const ir::StmtPtr& body, const std::vector<Move>& moves) {
    std::shared_ptr<const ir::YieldStmt> yield = TrailingYield(body);
    if (yield == nullptr) return body;
    std::vector<ir::StmtPtr> stmts;
    if (auto seq = ir::As<ir::SeqStmts>(body)) {
      stmts.assign(seq->stmts().begin(), seq->stmts().end() - 1);
    }
    std::vector<ir::ExprPtr> values = yield->value();
    bool any = false;
    for (const Move& m : moves) {
      if (m.index >= values.size()) continue;
      auto y = ir::As<ir::Var>(values[m.index]);
      auto tile = y != nullptr ? ir::As<ir::TileType>(y->type()) : nullptr;
      if (tile == nullptr) continue;
      absl::StatusOr<ir::CallPtr> call = ops::OpRegistry::Global().MakeCall(
          ir::OpId::kPlTileMove, {y}, {{"target_memory", std::string("Vec")}}, {}, yield->span());
      if (!call.ok()) {
        status_ = call.status();
        return body;
      }
      auto moved = std::make_shared<ir::Var>(pto::StrCat(y->name_hint(), "_carry"),
                                             TileWithMemRef(*tile, m.target), yield->span());
      stmts.push_back(std::make_shared<ir::AssignStmt>(moved, *call, yield->span()));
      values[m.index] = moved;
      any = true;
    }
    if (!any) return body;
    stmts.push_back(std::make_shared<ir::YieldStmt>(std::move(values), yield->span()));
    return std::make_shared<ir::SeqStmts>(std::move(stmts), body->span());
  }

  const Plan& plan_;
  absl::Status status_;
};

// Live span of each group (a read inside a loop the group was defined outside
// of lasts to the loop's end; an iter arg's buffer lives through its loop).
void ComputeSpans(std::vector<Group>& groups, const TileLiveness& live) {
  absl::flat_hash_map<const ir::Var*, int> carried_until;
  for (const Region& r : live.regions) {
    for (const ir::IterArgPtr& ia : r.iter_args) carried_until[ia.get()] = r.end;
  }
  for (Group& g : groups) {
    const ir::Var* writer = nullptr;
    g.def = FirstDef(g, live, &writer);
    g.touch_ok = writer != nullptr && live.defs.at(writer).in_place_safe;
    g.end = g.def;
    for (const ir::Var* m : g.members) {
      if (auto c = carried_until.find(m); c != carried_until.end()) g.end = std::max(g.end, c->second);
      auto it = live.uses.find(m);
      if (it == live.uses.end()) continue;
      for (const TileUse& u : it->second) {
        int eff = u.pos;
        for (int li : u.loops) {
          if (live.regions[li].start > g.def) eff = std::max(eff, live.regions[li].end);
        }
        g.end = std::max(g.end, eff);
      }
    }
  }
}

// An if's return var that names a branch's yield without sharing its MemRef
// (both yields from before the if): that yield's buffer lives as long as the
// return var's.
void ExtendBranchAliases(Groups& groups, const TileLiveness& live) {
  for (size_t round = 0; round <= live.regions.size(); ++round) {
    bool changed = false;
    for (const Region& r : live.regions) {
      if (r.is_loop) continue;
      for (size_t i = 0; i < r.return_vars.size(); ++i) {
        const ir::VarPtr& rv = r.return_vars[i];
        if (rv == nullptr || !ir::Is<ir::TileType>(rv->type())) continue;
        const int g_rv = groups.Of(rv.get(), live);
        for (const auto* yields : {&r.yields, &r.else_yields}) {
          ir::VarPtr y = YieldVar(*yields, i);
          const int g_y = y != nullptr ? groups.Of(y.get(), live) : -1;
          if (g_rv < 0 || g_y < 0 || g_y == g_rv) continue;
          Group& target = groups.groups()[g_y];
          const int end = groups.groups()[g_rv].end;
          if (end > target.end) {
            target.end = end;
            changed = true;
          }
        }
      }
    }
    if (!changed) return;
  }
}

// Loads of one pipeline loop's different stages (PyPTO's cross-stage rule):
// sharing a buffer would serialise the stages the loop double-buffers.
bool StagesConflict(const Group& a, const Group& b) {
  for (const auto& [loop_a, stage_a] : a.stages) {
    for (const auto& [loop_b, stage_b] : b.stages) {
      if (loop_a == loop_b && stage_a != stage_b) return true;
    }
  }
  return false;
}

// The pipeline stages of each tagged pl.tile.load's tile.
class StageCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, std::vector<std::pair<int64_t, int64_t>>> stages;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    std::optional<std::string> tag =
        call != nullptr ? ir::GetAttr<std::string>(call->attrs(), ir::kAttrPipelineMembership)
                        : std::nullopt;
    const std::string text = tag.value_or("");
    for (absl::string_view pair : absl::StrSplit(text, ';', absl::SkipEmpty())) {
      std::vector<absl::string_view> parts = absl::StrSplit(pair, ':');
      int64_t loop = 0, stage = 0;
      if (parts.size() == 2 && absl::SimpleAtoi(parts[0], &loop) &&
          absl::SimpleAtoi(parts[1], &stage)) {
        stages[s->var().get()].push_back({loop, stage});
      }
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitType(const ir::TypePtr&) override {}
};

void AddStages(std::vector<Group>& groups, const ir::StmtPtr& body) {
  StageCollector c;
  c.VisitStmt(body);
  if (c.stages.empty()) return;
  for (Group& g : groups) {
    for (const ir::Var* m : g.members) {
      auto it = c.stages.find(m);
      if (it != c.stages.end()) g.stages.insert(g.stages.end(), it->second.begin(), it->second.end());
    }
  }
}

bool Disjoint(const Group& a, const Group& b) {
  if (StagesConflict(a, b)) return false;
  return a.end < b.def || b.end < a.def || (a.end == b.def && b.touch_ok) ||
         (b.end == a.def && a.touch_ok);
}

// First-fit-decreasing: every group joins the first buffer all of whose
// groups it is disjoint from; a buffer is its largest (first) group's MemRef.
MemRefMap Pack(std::vector<Group>& groups) {
  std::vector<Group*> order;
  for (Group& g : groups) order.push_back(&g);
  std::sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
    if (a->memref->size() != b->memref->size()) return a->memref->size() > b->memref->size();
    if (a->def != b->def) return a->def < b->def;
    return a->memref->id() < b->memref->id();
  });
  std::vector<std::vector<const Group*>> buffers;
  MemRefMap retype;
  for (const Group* g : order) {
    size_t b = 0;
    for (; b < buffers.size(); ++b) {
      bool fits = buffers[b].front()->memref->memory_space() == g->memref->memory_space();
      for (const Group* other : buffers[b]) fits = fits && Disjoint(*g, *other);
      if (fits) break;
    }
    if (b == buffers.size()) buffers.emplace_back();
    buffers[b].push_back(g);
    const ir::MemRefPtr& rep = buffers[b].front()->memref;
    if (rep == g->memref) continue;
    for (const ir::Var* m : g->members) retype[m] = rep;
  }
  return retype;
}

}  // namespace

absl::StatusOr<ir::StmtPtr> MaterializeCarries(const ir::FunctionPtr& fn) {
  if (!HoldsTiles(fn)) return fn->body();
  TileLiveness live = AnalyzeTileLiveness(fn->body());
  ASSIGN_OR_RETURN(Groups groups, Groups::Build(live));
  ASSIGN_OR_RETURN(Plan plan, PlanCarries(live, groups));
  if (plan.retype.empty() && plan.moves.empty()) return fn->body();
  CarryRewriter rewriter(plan);
  ir::StmtPtr body = rewriter.MutateStmt(fn->body());
  RETURN_IF_ERROR(rewriter.status());
  return body;
}

namespace {

absl::StatusOr<ir::StmtPtr> ReuseInKernel(const ir::FunctionPtr& fn) {
  if (!HoldsTiles(fn)) return fn->body();
  // Round 1: loop and branch carries (MaterializeSemanticAliases, 32; a
  // no-op after it, which makes a list without 32 right as well).
  ASSIGN_OR_RETURN(ir::StmtPtr body, MaterializeCarries(fn));
  // Round 2: lifetimes of the buffers that are left, then packing.
  TileLiveness after = AnalyzeTileLiveness(body);
  ASSIGN_OR_RETURN(Groups packed, Groups::Build(after, /*with_cube=*/true));
  ComputeSpans(packed.groups(), after);
  ExtendBranchAliases(packed, after);
  AddStages(packed.groups(), body);
  return RetypeTileVars(body, Pack(packed.groups()));
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> MemoryReusePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, ReuseInKernel);
}

std::unique_ptr<Pass> CreateMemoryReusePass() { return std::make_unique<MemoryReusePass>(); }

}  // namespace pto::passes
