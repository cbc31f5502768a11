#include "compiler/passes/split_vector_kernel.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

using ir::OpId;

constexpr char kDualAivDispatch[] = "dual_aiv_dispatch";

ir::CallPtr CallOf(const ir::ExprPtr& e) { return ir::As<ir::Call>(e); }

bool IsCrossCore(const ir::CallPtr& c) {
  for (OpId id : {OpId::kPlSystemTpushToAic, OpId::kPlSystemTpopFromAic,
                  OpId::kPlSystemTfreeToAic, OpId::kPlSystemTpushToAiv,
                  OpId::kPlSystemTpopFromAiv, OpId::kPlSystemTfreeToAiv}) {
    if (ir::IsOp(c, id)) return true;
  }
  return false;
}

// The pipe set-up both lanes run before they part (PyPTO's shared prefix).
bool IsPipeSetup(const ir::StmtPtr& s) {
  ir::CallPtr c;
  if (auto a = ir::As<ir::AssignStmt>(s)) c = CallOf(a->value());
  if (auto e = ir::As<ir::EvalStmt>(s)) c = CallOf(e->expr());
  return ir::IsOp(c, OpId::kPlSystemReserveBuffer) ||
         ir::IsOp(c, OpId::kPlSystemImportPeerBuffer) ||
         ir::IsOp(c, OpId::kPlSystemAivInitializePipe) ||
         ir::IsOp(c, OpId::kPlSystemAicInitializePipe);
}

class HasCrossCore : public ir::IRVisitor {
 public:
  bool found = false;
  bool lanes = false;  // reads its lane already (replayed, or written per lane)

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    found = found || IsCrossCore(call);
    lanes = lanes || ir::IsOp(call, OpId::kPlTileGetSubblockIdx);
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// `type` with an empty valid box: a tile that holds no data.
ir::TypePtr EmptyTile(const ir::TileType& t) {
  return std::make_shared<ir::TileType>(t.shape(), t.dtype(), t.memref(),
                                        std::vector<ir::ExprPtr>{ir::ConstIndex(0),
                                                                 ir::ConstIndex(0)},
                                        t.span(), t.memory_space());
}

// Lane 1's replay of the AIV body: the cross-core handshakes stay, every
// other tile producer becomes an empty `pl.tile.create` of its type (a popped
// tile is empty too), and a store writes nothing (its result is the tensor it
// would have written). Scalars and control flow stay, so the handshakes run
// as often as on lane 0.
class Lane1Replay : public ir::IRMutator {
 protected:
  ir::ExprPtr MutateVar(const ir::VarPtr& var) override {
    auto it = subst_.find(var.get());
    return it != subst_.end() ? it->second : ir::ExprPtr(var);
  }

  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ir::CallPtr call = CallOf(s->value());
    auto tile = ir::As<ir::TileType>(s->var()->type());
    if (ir::IsOp(call, OpId::kPlTileStore) && call->args().size() >= 3) {
      subst_[s->var().get()] = MutateExpr(call->args()[2]);
      return Nothing(s->span());
    }
    if (call == nullptr || tile == nullptr || tile->shape().size() != 2) {
      return ir::IRMutator::MutateAssignStmt(s);
    }
    auto empty = std::make_shared<ir::Var>(s->var()->name_hint(), EmptyTile(*tile),
                                           s->var()->span());
    subst_[s->var().get()] = empty;
    if (ir::IsOp(call, OpId::kPlSystemTpopFromAic)) {
      auto pop = ir::MakeOpCall(call->op()->id(), call->args(), empty->type(), call->kwargs(),
                                call->attrs(), call->span());
      return std::make_shared<ir::AssignStmt>(empty, pop, s->span());
    }
    ir::AttrList kwargs = {{"dtype", tile->dtype()}};
    if (std::optional<ir::MemorySpace> space = tile->Space()) {
      kwargs.emplace_back("target_memory", std::string(ir::MemorySpacePyptoName(*space)));
    }
    auto create = ir::MakeOpCall(OpId::kPlTileCreate,
                                 {std::make_shared<ir::MakeTuple>(tile->shape(), s->span())},
                                 empty->type(), std::move(kwargs), {}, call->span());
    return std::make_shared<ir::AssignStmt>(empty, create, s->span());
  }

  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    if (ir::IsOp(CallOf(s->expr()), OpId::kPlTileStore)) return Nothing(s->span());
    return ir::IRMutator::MutateEvalStmt(s);
  }

 private:
  static ir::StmtPtr Nothing(const Span& span) {
    return std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{}, span);
  }
  ir::VarSubstMap subst_;
};

struct Lanes {
  std::vector<ir::StmtPtr> setup, work;
  std::vector<ir::ExprPtr> results;
};

absl::StatusOr<Lanes> PartBody(const ir::Function& fn) {
  Lanes l;
  auto seq = ir::As<ir::SeqStmts>(fn.body());
  std::vector<ir::StmtPtr> stmts = seq ? seq->stmts() : std::vector<ir::StmtPtr>{fn.body()};
  if (!stmts.empty() && ir::As<ir::ReturnStmt>(stmts.back()) != nullptr) {
    l.results = ir::As<ir::ReturnStmt>(stmts.back())->value();
    stmts.pop_back();
  } else if (!fn.return_types().empty()) {
    return UserErrorF(fn.span(), "SplitVectorKernel: the AIV function '", fn.name(),
                      "' must end with its return to be dispatched on both AIV lanes");
  }
  size_t i = 0;
  while (i < stmts.size() && IsPipeSetup(stmts[i])) l.setup.push_back(stmts[i++]);
  l.work.assign(stmts.begin() + static_cast<std::ptrdiff_t>(i), stmts.end());
  return l;
}

// PyPTO's no-split dual-AIV dispatch: `if subblock_idx == 0: body else: replay`.
absl::StatusOr<ir::StmtPtr> DualDispatchBody(const ir::Function& fn) {
  ASSIGN_OR_RETURN(Lanes l, PartBody(fn));
  const Span& span = fn.span();
  std::vector<ir::StmtPtr> out = std::move(l.setup);
  auto lane = std::make_shared<ir::Var>("subblock_idx", ir::ScalarOf(ir::DataType::kIndex), span);
  out.push_back(std::make_shared<ir::AssignStmt>(
      lane, ir::MakeOpCall(OpId::kPlTileGetSubblockIdx, {}, lane->type(), {}, {}, span), span));
  ir::StmtPtr work = ir::SeqStmts::Flatten(l.work, span);
  std::vector<ir::ExprPtr> replayed = l.results;
  ir::StmtPtr replay;
  {
    // The replay and its results are substituted together, then given fresh
    // vars so that lane 1 defines none of lane 0's.
    std::vector<ir::StmtPtr> seq = l.work;
    if (!l.results.empty()) seq.push_back(std::make_shared<ir::YieldStmt>(l.results, span));
    Lane1Replay r;
    ir::StmtPtr body = r.MutateStmt(ir::SeqStmts::Flatten(seq, span));
    replay = CloneWithFreshVars(body, {}, "_l1");
  }
  std::vector<ir::VarPtr> rvs;
  std::vector<ir::StmtPtr> then_stmts = l.work;
  if (!l.results.empty()) {
    then_stmts.push_back(std::make_shared<ir::YieldStmt>(l.results, span));
    for (const ir::ExprPtr& r : l.results) {
      auto v = ir::As<ir::Var>(r);
      rvs.push_back(std::make_shared<ir::Var>(v ? v->name_hint() : "result", r->type(), span));
    }
  }
  ASSIGN_OR_RETURN(ir::ExprPtr cond, ir::MakeBinary(ir::BinaryOp::kEq, lane,
                                                    ir::ConstIndex(0, span), span));
  out.push_back(std::make_shared<ir::IfStmt>(cond, ir::SeqStmts::Flatten(then_stmts, span),
                                             replay, rvs, span));
  if (!fn.return_types().empty()) {
    out.push_back(std::make_shared<ir::ReturnStmt>(
        std::vector<ir::ExprPtr>(rvs.begin(), rvs.end())));
  }
  return ir::SeqStmts::Flatten(out, span);
}

// The AIC and AIV functions the Groups call (the halves of MIX tasks).
absl::flat_hash_set<std::string> MixMembers(const ir::Program& program) {
  absl::flat_hash_set<std::string> out;
  for (const auto& [gv, fn] : program.functions()) {
    if (fn->func_type() != ir::FunctionType::kGroup || fn->body() == nullptr) continue;
    auto seq = ir::As<ir::SeqStmts>(fn->body());
    for (const ir::StmtPtr& s : seq ? seq->stmts() : std::vector<ir::StmtPtr>{fn->body()}) {
      ir::CallPtr c;
      if (auto a = ir::As<ir::AssignStmt>(s)) c = CallOf(a->value());
      if (auto e = ir::As<ir::EvalStmt>(s)) c = CallOf(e->expr());
      if (c != nullptr && program.GetFunction(c->op()->name()) != nullptr) {
        out.insert(c->op()->name());
      }
    }
  }
  return out;
}

absl::StatusOr<ir::FunctionPtr> WithBody(const ir::FunctionPtr& fn, ir::StmtPtr body,
                                         ir::AttrList attrs) {
  return ir::Function::Create(fn->name(), fn->params(), fn->param_directions(),
                              fn->return_types(), std::move(body), fn->func_type(), fn->level(),
                              fn->role(), std::move(attrs), fn->requires_runtime_binding(),
                              fn->span());
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> SplitVectorKernelPass::Run(const ir::ProgramPtr& program) {
  const absl::flat_hash_set<std::string> members = MixMembers(*program);
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& [gv, fn] : program->functions()) {
    const bool aic = fn->func_type() == ir::FunctionType::kAIC;
    const bool aiv = fn->func_type() == ir::FunctionType::kAIV;
    ir::AttrList attrs = fn->attrs();
    if ((aic || aiv) && ir::GetAttr<bool>(attrs, "split_aiv").value_or(false)) {
      // Already in per-lane form (pl.split_aiv, pass 20): stamp the split.
      const int64_t mode = ir::GetAttr<int64_t>(attrs, "split").value_or(0);
      if (mode != 1 && mode != 2) {
        return UserErrorF(fn->span(), "SplitVectorKernel: '", fn->name(),
                          "' is a split_aiv kernel without a split mode; give it "
                          "attrs={\"split\": pl.SplitMode.UP_DOWN} or LEFT_RIGHT");
      }
      // Both halves: the AIC's code generation serves a pipe per lane.
      if (!ir::GetAttr<bool>(attrs, kDualAivDispatch).value_or(false)) {
        attrs = ir::WithAttr(std::move(attrs), kDualAivDispatch, true);
        ASSIGN_OR_RETURN(ir::FunctionPtr f, WithBody(fn, fn->body(), std::move(attrs)));
        functions.push_back(std::move(f));
        changed = true;
        continue;
      }
      functions.push_back(fn);
      continue;
    }
    HasCrossCore cross;
    if (fn->body() != nullptr) cross.VisitStmt(fn->body());
    // PyPTO's trigger is the dual_aiv_dispatch mark (a hand-written AIV
    // function may carry it); here a MIX half is marked by this pass.
    const bool marked = ir::GetAttr<bool>(attrs, kDualAivDispatch).value_or(false);
    if (!options_.dual_aiv_dispatch || !(aic || aiv) || !cross.found || cross.lanes ||
        !(marked || members.contains(fn->name())) || (aic && marked)) {
      functions.push_back(fn);
      continue;
    }
    // A no-split MIX half on a dual-dispatch platform. The AIC is marked too:
    // its code generation hands each slot to lane 1 as well (an empty one).
    ir::StmtPtr body = fn->body();
    if (aiv) {
      ASSIGN_OR_RETURN(body, DualDispatchBody(*fn));
    }
    if (!marked) attrs = ir::WithAttr(std::move(attrs), kDualAivDispatch, true);
    ASSIGN_OR_RETURN(ir::FunctionPtr f, WithBody(fn, std::move(body), std::move(attrs)));
    functions.push_back(std::move(f));
    changed = true;
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateSplitVectorKernelPass(SplitVectorKernelOptions options) {
  return std::make_unique<SplitVectorKernelPass>(options);
}

}  // namespace pto::passes
