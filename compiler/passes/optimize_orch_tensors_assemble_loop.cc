// OptimizeOrchTensors pattern 3, assemble-loop rewrite (PyPTO's
// AssembleLoopRewriter). In an InCore kernel,
//
//   buf = pl.tile.create(...)
//   for i, (acc,) in pl.range(n, init_values=(buf,)):
//       ...
//       acc2 = pl.tile.assemble(acc, chunk, offsets)
//       res = pl.yield_(acc2)
//   r = pl.tile.store(res, [0, ...], out)      # out: an Out param
//   return r
//
// builds the result in a tile and copies it out at the end. The loop is
// rewritten to store each chunk straight into `out` (the iter arg now carries
// the Out tensor), the tile.create and the final store go and the kernel
// returns the loop's result. See docs/passes/OptimizeOrchTensors.md for the
// shapes accepted and the ones left as they are.
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/optimize_orch_tensors_internal.h"
#include "compiler/support/status_macros.h"

namespace pto::passes::orch_tensors {
namespace {

// One matched loop and what the rewrite replaces.
struct AssembleLoop {
  std::shared_ptr<const ir::ForStmt> loop;
  std::shared_ptr<const ir::AssignStmt> assemble;  // acc2 = pl.tile.assemble(acc, ...)
  std::shared_ptr<const ir::AssignStmt> create;    // buf = pl.tile.create(...)
  std::shared_ptr<const ir::AssignStmt> store;     // r = pl.tile.store(res, offsets, out)
  ir::VarPtr out;                                  // the Out param
};

bool AllZero(const ir::ExprPtr& offsets) {
  auto t = ir::As<ir::MakeTuple>(offsets);
  if (t == nullptr) return false;
  for (const ir::ExprPtr& e : t->elements()) {
    if (ir::GetConstInt(e) != 0) return false;
  }
  return true;
}

// The loop whose single result `store` copies out, if it has the shape.
std::optional<AssembleLoop> Match(const std::vector<ir::StmtPtr>& stmts,
                                  const std::shared_ptr<const ir::AssignStmt>& store,
                                  const UseCounter& uses) {
  auto call = ir::As<ir::Call>(store->value());
  const auto& args = call->args();
  auto res = ir::As<ir::Var>(args[0]);
  auto out = ir::As<ir::Var>(args[2]);
  // Stores keep the assembles' offsets, so the final store must be at the
  // tensor's origin; a fourth (flattened shapes) argument is not there yet.
  if (args.size() != 3 || res == nullptr || out == nullptr || !AllZero(args[1]) ||
      uses.Uses(res.get()) != 1) {
    return std::nullopt;
  }
  for (const ir::StmtPtr& s : stmts) {
    auto loop = ir::As<ir::ForStmt>(s);
    if (loop == nullptr || loop->iter_args().size() != 1 || loop->return_vars().size() != 1 ||
        loop->return_vars()[0] != res) {
      continue;
    }
    const ir::IterArgPtr& acc = loop->iter_args()[0];
    std::vector<ir::StmtPtr> body = TopLevel(loop->body());
    auto yield = body.empty() ? nullptr : ir::As<ir::YieldStmt>(body.back());
    if (yield == nullptr || yield->value().size() != 1) return std::nullopt;
    AssembleLoop m{loop, nullptr, nullptr, store, out};
    for (const ir::StmtPtr& b : body) {
      auto a = ir::As<ir::AssignStmt>(b);
      if (a != nullptr && ir::IsOp(a->value(), ir::OpId::kPlTileAssemble) &&
          ir::As<ir::Call>(a->value())->args().size() == 3 &&
          ir::As<ir::Call>(a->value())->args()[0] == acc) {
        m.assemble = a;
        break;
      }
    }
    // The accumulator is read by the assemble alone (it becomes a tensor) and
    // the assemble's result is what the loop carries on.
    if (m.assemble == nullptr || yield->value()[0] != m.assemble->var() ||
        uses.Uses(acc.get()) != 1 || uses.Uses(m.assemble->var().get()) != 1) {
      return std::nullopt;
    }
    // The accumulator starts as an uninitialised tile used for nothing else:
    // starting from `out` instead changes only bytes no assemble writes.
    auto init = ir::As<ir::Var>(acc->init_value());
    if (init == nullptr || uses.Uses(init.get()) != 1) return std::nullopt;
    for (const ir::StmtPtr& t : stmts) {
      auto a = ir::As<ir::AssignStmt>(t);
      if (a != nullptr && a->var() == init && ir::IsOp(a->value(), ir::OpId::kPlTileCreate))
        m.create = a;
    }
    if (m.create == nullptr) return std::nullopt;
    return m;
  }
  return std::nullopt;
}

ir::FunctionPtr Rewrite(const ir::FunctionPtr& f, const std::vector<AssembleLoop>& loops) {
  absl::flat_hash_set<const ir::Stmt*> dropped;
  absl::flat_hash_map<const ir::Stmt*, ir::StmtPtr> replaced;
  ir::VarSubstMap results;  // each final store's result -> its loop's result
  for (const AssembleLoop& m : loops) {
    const ir::ForStmt& loop = *m.loop;
    const ir::TypePtr& type = m.out->type();
    const ir::IterArgPtr& old_acc = loop.iter_args()[0];
    auto acc = std::make_shared<ir::IterArg>(old_acc->name_hint(), type, m.out, old_acc->span());
    auto asm_call = ir::As<ir::Call>(m.assemble->value());
    auto stored = std::make_shared<ir::Var>(m.assemble->var()->name_hint(), type,
                                            m.assemble->var()->span());
    std::vector<ir::StmtPtr> body;
    for (const ir::StmtPtr& b : TopLevel(loop.body())) {
      if (b == m.assemble) {
        body.push_back(std::make_shared<ir::AssignStmt>(
            stored,
            ir::MakeOpCall(ir::OpId::kPlTileStore, {asm_call->args()[1], asm_call->args()[2], acc},
                           type, {}, {}, asm_call->span()),
            b->span()));
      } else if (auto y = ir::As<ir::YieldStmt>(b)) {
        body.push_back(std::make_shared<ir::YieldStmt>(std::vector<ir::ExprPtr>{stored},
                                                       y->span()));
      } else {
        body.push_back(b);
      }
    }
    const ir::VarPtr& old_res = loop.return_vars()[0];
    auto res = std::make_shared<ir::Var>(old_res->name_hint(), type, old_res->span());
    replaced[m.loop.get()] = std::make_shared<ir::ForStmt>(
        loop.loop_var(), loop.start(), loop.stop(), loop.step(), std::vector<ir::IterArgPtr>{acc},
        ir::SeqStmts::Flatten(body, loop.body()->span()), std::vector<ir::VarPtr>{res},
        loop.for_kind(), loop.attrs(), loop.span());
    dropped.insert(m.create.get());
    dropped.insert(m.store.get());
    results[m.store->var().get()] = res;
  }
  std::vector<ir::StmtPtr> stmts;
  for (const ir::StmtPtr& s : TopLevel(f->body())) {
    if (dropped.contains(s.get())) continue;
    auto it = replaced.find(s.get());
    stmts.push_back(it != replaced.end() ? it->second : ir::Substitute(s, results));
  }
  return f->WithBody(ir::SeqStmts::Flatten(stmts, f->body()->span()));
}

// The matched loops of one kernel: one per returned final store into an Out
// param whose tile is such a loop's result.
std::vector<AssembleLoop> FindLoops(const ir::FunctionPtr& f) {
  std::vector<ir::StmtPtr> stmts = TopLevel(f->body());
  auto ret = stmts.empty() ? nullptr : ir::As<ir::ReturnStmt>(stmts.back());
  if (ret == nullptr) return {};
  absl::flat_hash_set<const ir::Var*> outs;
  for (size_t i = 0; i < f->params().size(); ++i) {
    if (f->param_directions()[i] == ir::ParamDirection::kOut) outs.insert(f->params()[i].get());
  }
  absl::flat_hash_map<const ir::Var*, std::shared_ptr<const ir::AssignStmt>> stores;
  for (const ir::StmtPtr& s : stmts) {
    auto a = ir::As<ir::AssignStmt>(s);
    if (a == nullptr || !ir::IsOp(a->value(), ir::OpId::kPlTileStore)) continue;
    const auto& args = ir::As<ir::Call>(a->value())->args();
    if (args.size() >= 3 && ir::Is<ir::Var>(args[2]) &&
        outs.contains(ir::As<ir::Var>(args[2]).get())) {
      stores[a->var().get()] = a;
    }
  }
  UseCounter uses;
  uses.VisitFunction(f);
  std::vector<AssembleLoop> loops;
  absl::flat_hash_set<const ir::Stmt*> seen;
  absl::flat_hash_set<const ir::Var*> outs_done;  // one loop per Out param
  for (const ir::ExprPtr& v : ret->value()) {
    auto r = ir::As<ir::Var>(v);
    auto it = r != nullptr ? stores.find(r.get()) : stores.end();
    if (it == stores.end() || !seen.insert(it->second.get()).second) continue;
    if (std::optional<AssembleLoop> m = Match(stmts, it->second, uses)) {
      if (outs_done.insert(m->out.get()).second) loops.push_back(*m);
    }
  }
  return loops;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> RewriteAssembleLoops(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> funcs;
  bool changed = false;
  for (const auto& [gv, f] : program->functions()) {
    // As PyPTO: InCore kernels only (not AIC/AIV ones).
    std::vector<AssembleLoop> loops;
    if (f->body() != nullptr && f->func_type() == ir::FunctionType::kInCore) loops = FindLoops(f);
    if (loops.empty()) {
      funcs.push_back(f);
      continue;
    }
    funcs.push_back(Rewrite(f, loops));
    changed = true;
  }
  if (!changed) return program;
  return Rebuild(program, std::move(funcs));
}

}  // namespace pto::passes::orch_tensors
