#include "compiler/passes/expand_mixed_kernel.h"

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
#include "compiler/ops/op_registry.h"
#include "compiler/passes/cross_core.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/passes/var_cloner.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::MemorySpace;
using ir::OpId;
using cross_core::Side;

ir::CallPtr OpCallOf(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) ? call : nullptr;
}

// The side of every statement: the union of the tiles it defines and reads
// and of its operators' units.
class SideCollector : public ir::IRVisitor {
 public:
  uint8_t side = 0;

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    if (var != nullptr) side |= cross_core::TypeSide(var->type());
  }
  void VisitVar(const ir::VarPtr& var) override { side |= cross_core::TypeSide(var->type()); }
  void VisitIterArg(const ir::IterArgPtr& var) override {
    side |= cross_core::TypeSide(var->type());
    ir::IRVisitor::VisitIterArg(var);
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (!ir::Is<ir::GlobalVar>(call->op())) {
      if (const ops::OpDef* def = ops::OpRegistry::Global().Find(*call)) {
        // TPUT / TGET stream through a Vec staging tile (PyPTO: VECTOR).
        if (def->traits.unit == ops::ExecUnit::kVector || def->traits.communicates) {
          side |= Side::kVector;
        } else if (def->traits.unit == ops::ExecUnit::kCube) {
          side |= Side::kCube;
        }
      }
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

uint8_t SideOf(const ir::StmtPtr& s) {
  SideCollector c;
  c.VisitStmt(s);
  return c.side;
}

// A cross-core move `dst = pl.tile.move(src, target_memory=...)`.
struct Boundary {
  ir::VarPtr dst;
  ir::ExprPtr src;
  bool c2v = false;
  int64_t split = 0;  // 1 / 2: the AIV side holds one lane's half (pl.split_aiv)
};

std::optional<Boundary> AsBoundary(const ir::StmtPtr& stmt) {
  auto a = ir::As<ir::AssignStmt>(stmt);
  if (a == nullptr) return std::nullopt;
  ir::CallPtr call = OpCallOf(a->value());
  // The per-lane crossings LowerAutoVectorSplit leaves (PyPTO's op-driven
  // boundary): the shard pops a lane's half, the gather pushes it.
  const bool shard = ir::IsOp(call, OpId::kPlTileAivShard);
  if ((shard || ir::IsOp(call, OpId::kPlTileAicGather)) && !call->args().empty()) {
    const int64_t split = ir::GetAttr<int64_t>(call->kwargs(), "split").value_or(0);
    return Boundary{a->var(), call->args()[0], shard, split};
  }
  if (!ir::IsOp(call, OpId::kPlTileMove) || call->args().empty()) return std::nullopt;
  const uint8_t from = cross_core::TypeSide(call->args()[0]->type());
  const uint8_t to = cross_core::TypeSide(a->var()->type());
  if (from == 0 || to == 0 || from == to) return std::nullopt;
  return Boundary{a->var(), call->args()[0], from == Side::kCube};
}

// What crosses the cores in a function: the pipe directions and the largest
// tile of each (PyPTO: one slot size, the largest).
struct PipeUse {
  bool c2v = false;
  bool v2c = false;
  int64_t slot_bytes = 0;
};

ir::StmtPtr MakeSeq(std::vector<ir::StmtPtr> stmts) {
  return std::make_shared<ir::SeqStmts>(std::move(stmts));
}

ir::TypePtr IndexType() { return std::make_shared<ir::ScalarType>(ir::DataType::kIndex); }
ir::TypePtr NoneType() { return ir::UnknownType::Get(); }

// One side's body of a mixed kernel.
class SideBuilder {
 public:
  SideBuilder(uint8_t side, std::string func, PipeUse* pipes)
      : side_(side), func_(std::move(func)), pipes_(pipes) {}

  absl::StatusOr<ir::StmtPtr> Build(const ir::StmtPtr& body) {
    ASSIGN_OR_RETURN(std::vector<ir::StmtPtr> stmts, Seq(body));
    return MakeSeq(std::move(stmts));
  }

 private:
  bool aic() const { return side_ == Side::kCube; }

  absl::StatusOr<std::vector<ir::StmtPtr>> Seq(const ir::StmtPtr& body) {
    std::vector<ir::StmtPtr> in;
    if (auto seq = ir::As<ir::SeqStmts>(body)) {
      in = seq->stmts();
    } else {
      in.push_back(body);
    }
    std::vector<ir::StmtPtr> out;
    std::vector<ir::VarPtr> popped;  // tpop results of this sequence, to free
    for (const ir::StmtPtr& s : in) {
      RETURN_IF_ERROR(One(s, &out, &popped));
    }
    return WithFrees(std::move(out), popped);
  }

  absl::Status One(const ir::StmtPtr& s, std::vector<ir::StmtPtr>* out,
                   std::vector<ir::VarPtr>* popped) {
    if (std::optional<Boundary> b = AsBoundary(s)) return Cross(*b, s->span(), out, popped);
    const uint8_t side = SideOf(s);
    if (side == 0 || side == side_) {
      out->push_back(ir::Substitute(s, subst_));
      return absl::OkStatus();
    }
    if (side != Side::kMixed) return Drop(s);
    if (auto f = ir::As<ir::ForStmt>(s)) return MixedFor(f, out);
    if (auto i = ir::As<ir::IfStmt>(s); i != nullptr && i->return_vars().empty()) {
      ASSIGN_OR_RETURN(std::vector<ir::StmtPtr> then_body, Seq(i->then_body()));
      std::optional<ir::StmtPtr> else_body;
      if (i->else_body()) {
        ASSIGN_OR_RETURN(std::vector<ir::StmtPtr> e, Seq(*i->else_body()));
        else_body = MakeSeq(std::move(e));
      }
      out->push_back(std::make_shared<ir::IfStmt>(ir::Substitute(i->condition(), subst_),
                                                   MakeSeq(std::move(then_body)),
                                                   std::move(else_body),
                                                   std::vector<ir::VarPtr>{}, i->span()));
      return absl::OkStatus();
    }
    return UserErrorF(s->span(), "ExpandMixedKernel: '", func_,
                      "' mixes cube and vector work inside this statement (a branch that "
                      "yields values, or a while loop); the split supports sequences, for "
                      "loops and branches without results");
  }

  // A statement of the other core: gone from this side. A store's result
  // is the tensor it wrote; a loop's carried tensor is its init value.
  absl::Status Drop(const ir::StmtPtr& s) {
    if (auto a = ir::As<ir::AssignStmt>(s)) {
      ir::CallPtr call = OpCallOf(a->value());
      if (ir::IsOp(call, OpId::kPlTileStore) && call->args().size() >= 3) {
        subst_[a->var().get()] = ir::Substitute(call->args()[2], subst_);
      }
      dropped_.insert(a->var().get());
    } else if (auto f = ir::As<ir::ForStmt>(s)) {
      for (size_t i = 0; i < f->return_vars().size() && i < f->iter_args().size(); ++i) {
        if (cross_core::TypeSide(f->iter_args()[i]->type()) == 0) {
          subst_[f->return_vars()[i].get()] =
              ir::Substitute(f->iter_args()[i]->init_value(), subst_);
        }
      }
    } else if (auto i = ir::As<ir::IfStmt>(s); i != nullptr && !i->return_vars().empty()) {
      for (const ir::VarPtr& rv : i->return_vars()) dropped_.insert(rv.get());
    }
    return absl::OkStatus();
  }

  absl::Status Cross(const Boundary& b, const Span& span, std::vector<ir::StmtPtr>* out,
                     std::vector<ir::VarPtr>* popped) {
    auto dst = ir::As<ir::TileType>(b.dst->type());
    std::optional<int64_t> bytes = dst != nullptr ? TileBytes(*dst) : std::nullopt;
    if (!bytes) {
      return UserErrorF(span, "ExpandMixedKernel: the tile '", b.dst->name_hint(),
                        "' crosses the cores but has no static size (a pipe slot needs one)");
    }
    if (b.split != 0) RETURN_IF_ERROR(CheckSplit(b, span, &*bytes));
    (b.c2v ? pipes_->c2v : pipes_->v2c) = true;
    pipes_->slot_bytes = std::max(pipes_->slot_bytes, *bytes);
    const bool producer = (side_ == Side::kCube) == b.c2v;
    const ir::AttrList split = {{"split", b.split}};
    if (producer) {
      const OpId push = b.c2v ? OpId::kPlSystemTpushToAiv : OpId::kPlSystemTpushToAic;
      out->push_back(std::make_shared<ir::EvalStmt>(
          ir::MakeOpCall(push, {ir::Substitute(b.src, subst_)}, NoneType(), split, {}, span),
          std::vector<std::string>{}, span));
      dropped_.insert(b.dst.get());
      return absl::OkStatus();
    }
    const OpId pop = b.c2v ? OpId::kPlSystemTpopFromAic : OpId::kPlSystemTpopFromAiv;
    // a2a3: a V2C tile reaches the AIC through GM into Mat (TLOAD); a Left /
    // Right / Bias consumer gets it by a Mat move after the pop.
    if (!b.c2v && dst->Space() != MemorySpace::kL1) {
      auto mat = std::make_shared<ir::TileType>(dst->shape(), dst->dtype(), std::nullopt,
                                                dst->valid_shape(), dst->span(), MemorySpace::kL1);
      auto landed = std::make_shared<ir::Var>(b.dst->name_hint() + "_Mat", mat, span);
      out->push_back(std::make_shared<ir::AssignStmt>(
          landed, ir::MakeOpCall(pop, {}, mat, split, {}, span), span));
      out->push_back(std::make_shared<ir::AssignStmt>(
          b.dst,
          ir::MakeOpCall(OpId::kPlTileMove, {landed}, b.dst->type(),
                         {{"target_memory", std::string(ir::MemorySpacePyptoName(*dst->Space()))}},
                         {}, span),
          span));
      popped->push_back(landed);
      return absl::OkStatus();
    }
    out->push_back(std::make_shared<ir::AssignStmt>(
        b.dst, ir::MakeOpCall(pop, {}, b.dst->type(), split, {}, span), span));
    popped->push_back(b.dst);
    return absl::OkStatus();
  }

  // A split crossing (pl.aiv_shard, pl.aic_gather): the slot holds the
  // AIC's full tile, of which each lane reads or writes its half
  // (runtime/device/pipe_api.h, TPUSH_SPLIT / TPOP_SPLIT), so the full
  // tile's split extent must be even.
  absl::Status CheckSplit(const Boundary& b, const Span& span, int64_t* bytes) {
    // The full tile: the shard's operand, the gather's result.
    auto src = ir::As<ir::TileType>((b.c2v ? b.src : ir::ExprPtr(b.dst))->type());
    std::optional<int64_t> full = src != nullptr ? TileBytes(*src) : std::nullopt;
    const size_t axis = b.split == 1 ? 0 : 1;
    std::optional<int64_t> extent = src != nullptr && src->shape().size() == 2
                                        ? ir::GetConstInt(src->shape()[axis])
                                        : std::nullopt;
    if (!full || !extent || *extent % 2 != 0 || (b.split != 1 && b.split != 2)) {
      return UserErrorF(span, "ExpandMixedKernel: ", b.c2v ? "pl.aiv_shard" : "pl.aic_gather",
                        " of '", b.dst->name_hint(),
                        "' needs a static 2D tile whose ", axis == 0 ? "rows" : "columns",
                        " split evenly over the two AIV lanes (an odd extent is not supported)");
    }
    *bytes = *full;
    return absl::OkStatus();
  }

  // A loop with work of both cores: this side's part of its body; the
  // carried tiles of the other core leave (their yields with them), and a
  // yield of a value the other core computes carries the iter arg along.
  absl::Status MixedFor(const std::shared_ptr<const ir::ForStmt>& f,
                        std::vector<ir::StmtPtr>* out) {
    std::vector<bool> keep;
    std::vector<ir::IterArgPtr> iter_args;
    std::vector<ir::VarPtr> return_vars;
    for (size_t i = 0; i < f->iter_args().size(); ++i) {
      const ir::IterArgPtr& ia = f->iter_args()[i];
      const uint8_t s = cross_core::TypeSide(ia->type());
      keep.push_back(s == 0 || s == side_);
      if (!keep.back()) {
        if (i < f->return_vars().size()) dropped_.insert(f->return_vars()[i].get());
        continue;
      }
      auto fresh = std::make_shared<ir::IterArg>(ia->name_hint(), ia->type(),
                                                 ir::Substitute(ia->init_value(), subst_),
                                                 ia->span());
      subst_[ia.get()] = fresh;
      iter_args.push_back(fresh);
      if (i < f->return_vars().size()) return_vars.push_back(f->return_vars()[i]);
    }
    ASSIGN_OR_RETURN(std::vector<ir::StmtPtr> body, Seq(f->body()));
    std::shared_ptr<const ir::YieldStmt> yield =
        body.empty() ? nullptr : ir::As<ir::YieldStmt>(body.back());
    if (yield != nullptr) {
      body.pop_back();
      std::vector<ir::ExprPtr> values;
      size_t k = 0;
      for (size_t i = 0; i < keep.size() && i < yield->value().size(); ++i) {
        if (!keep[i]) continue;
        ir::ExprPtr v = yield->value()[i];
        auto var = ir::As<ir::Var>(v);
        values.push_back(var != nullptr && dropped_.contains(var.get())
                             ? ir::ExprPtr(iter_args[k])
                             : v);
        ++k;
      }
      if (!values.empty()) {
        body.push_back(std::make_shared<ir::YieldStmt>(std::move(values), yield->span()));
      }
    }
    out->push_back(std::make_shared<ir::ForStmt>(
        f->loop_var(), ir::Substitute(f->start(), subst_), ir::Substitute(f->stop(), subst_),
        ir::Substitute(f->step(), subst_), std::move(iter_args), MakeSeq(std::move(body)),
        std::move(return_vars), f->for_kind(), f->attrs(), f->span()));
    return absl::OkStatus();
  }

  // Each popped slot is freed after its tile's last use in the sequence
  // (PyPTO's FinalizeTpopTfrees), before a trailing yield.
  std::vector<ir::StmtPtr> WithFrees(std::vector<ir::StmtPtr> stmts,
                                     const std::vector<ir::VarPtr>& popped) {
    for (const ir::VarPtr& p : popped) {
      size_t last = 0;
      for (size_t i = 0; i < stmts.size(); ++i) {
        if (cross_core::Uses(stmts[i], p.get())) last = i;
      }
      if (last + 1 == stmts.size() && ir::Is<ir::YieldStmt>(stmts.back()) && last > 0) --last;
      if (last + 1 == stmts.size() && ir::Is<ir::ReturnStmt>(stmts.back()) && last > 0) --last;
      const OpId free = aic() ? OpId::kPlSystemTfreeToAiv : OpId::kPlSystemTfreeToAic;
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(last + 1),
                   std::make_shared<ir::EvalStmt>(
                       ir::MakeOpCall(free, {p}, NoneType(), {}, {}, p->span()),
                       std::vector<std::string>{}, p->span()));
    }
    return stmts;
  }

  uint8_t side_;
  std::string func_;
  PipeUse* pipes_;
  ir::VarSubstMap subst_;
  absl::flat_hash_set<const ir::Var*> dropped_;
};

// Removes the scalar definitions a side no longer reads (the other core's
// offsets, sizes, lane index): pure expressions only.
ir::StmtPtr DropDeadScalars(const ir::StmtPtr& body) {
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    std::function<ir::StmtPtr(const ir::StmtPtr&)> walk = [&](const ir::StmtPtr& s) -> ir::StmtPtr {
      auto seq = ir::As<ir::SeqStmts>(s);
      if (seq == nullptr) {
        if (auto f = ir::As<ir::ForStmt>(s)) {
          return std::make_shared<ir::ForStmt>(f->loop_var(), f->start(), f->stop(), f->step(),
                                               f->iter_args(), walk(f->body()), f->return_vars(),
                                               f->for_kind(), f->attrs(), f->span());
        }
        return s;
      }
      std::vector<ir::StmtPtr> kept;
      for (const ir::StmtPtr& x : seq->stmts()) {
        auto a = ir::As<ir::AssignStmt>(x);
        // The lane index of a split_aiv region is pure too (the AIC has none).
        if (a != nullptr && ir::Is<ir::ScalarType>(a->var()->type()) &&
            (OpCallOf(a->value()) == nullptr ||
             ir::IsOp(OpCallOf(a->value()), OpId::kPlTileGetSubblockIdx)) &&
            !cross_core::Uses(body, a->var().get())) {
          changed = true;
          continue;
        }
        kept.push_back(walk(x));
      }
      return MakeSeq(std::move(kept));
    };
    ir::StmtPtr next = walk(body);
    if (!changed) return next;
    return DropDeadScalars(next);
  }
  return body;
}

// The pipe set-up a side starts with (PyPTO's automatic set-up): the
// consumer reserves the slots of each direction it pops, the producer
// imports them, and both initialise the pipe.
std::vector<ir::StmtPtr> PipeSetup(bool aic, const std::string& func, const PipeUse& use,
                                   const Span& span) {
  std::vector<ir::StmtPtr> out;
  const int64_t slot_num = cross_core::kSlotNum;
  ir::AttrList init = {{"dir_mask", int64_t{(use.c2v ? 1 : 0) | (use.v2c ? 2 : 0)}},
                       {"slot_size", use.slot_bytes},
                       {"slot_num", slot_num}};
  std::vector<ir::ExprPtr> bufs = {ir::ConstIndex(0, span), ir::ConstIndex(0, span)};
  auto add = [&](bool c2v) {
    const std::string name = func + (c2v ? "_c2v_slot_buffer" : "_v2c_slot_buffer");
    const bool consumer = aic != c2v;
    auto var = std::make_shared<ir::Var>(c2v ? "c2v_slot_buffer" : "v2c_slot_buffer",
                                         IndexType(), span);
    ir::CallPtr call =
        consumer ? ir::MakeOpCall(OpId::kPlSystemReserveBuffer, {}, IndexType(),
                                  {{"name", name}, {"size", slot_num * use.slot_bytes}}, {}, span)
                 : ir::MakeOpCall(OpId::kPlSystemImportPeerBuffer, {}, IndexType(),
                                  {{"name", name},
                                   {"peer_func", func + (aic ? "_aiv" : "_aic")}},
                                  {}, span);
    out.push_back(std::make_shared<ir::AssignStmt>(var, call, span));
    bufs[c2v ? 0 : 1] = var;
  };
  if (use.c2v) add(true);
  if (use.v2c) add(false);
  out.push_back(std::make_shared<ir::EvalStmt>(
      ir::MakeOpCall(aic ? OpId::kPlSystemAicInitializePipe : OpId::kPlSystemAivInitializePipe,
                     bufs, NoneType(), init, {}, span),
      std::vector<std::string>{}, span));
  return out;
}

bool IsMixed(const ir::FunctionPtr& fn) {
  if (fn->func_type() != ir::FunctionType::kInCore || fn->body() == nullptr) return false;
  return SideOf(fn->body()) == Side::kMixed;
}

struct Split {
  ir::FunctionPtr aic, aiv, group;
};

absl::StatusOr<ir::FunctionPtr> SideFunction(const ir::FunctionPtr& fn, uint8_t side,
                                             const ir::StmtPtr& body) {
  const bool aic = side == Side::kCube;
  std::vector<ir::VarPtr> params;
  ir::VarSubstMap subst;
  for (const ir::VarPtr& p : fn->params()) {
    auto fresh = std::make_shared<ir::Var>(p->name_hint(), p->type(), p->span());
    subst[p.get()] = fresh;
    params.push_back(fresh);
  }
  return ir::Function::Create(fn->name() + (aic ? "_aic" : "_aiv"), std::move(params),
                              fn->param_directions(), fn->return_types(),
                              CloneWithFreshVars(body, subst, ""),
                              aic ? ir::FunctionType::kAIC : ir::FunctionType::kAIV,
                              std::nullopt, std::nullopt, fn->attrs(), false, fn->span());
}

absl::StatusOr<Split> Expand(const ir::FunctionPtr& fn) {
  PipeUse use;
  SideBuilder cube(Side::kCube, fn->name(), &use);
  SideBuilder vec(Side::kVector, fn->name(), &use);
  ASSIGN_OR_RETURN(ir::StmtPtr aic_body, cube.Build(fn->body()));
  ASSIGN_OR_RETURN(ir::StmtPtr aiv_body, vec.Build(fn->body()));
  auto with_setup = [&](bool aic, const ir::StmtPtr& body) {
    std::vector<ir::StmtPtr> stmts = PipeSetup(aic, fn->name(), use, fn->span());
    auto seq = ir::As<ir::SeqStmts>(body);
    for (const ir::StmtPtr& s : seq != nullptr ? seq->stmts() : std::vector<ir::StmtPtr>{body}) {
      stmts.push_back(s);
    }
    return DropDeadScalars(MakeSeq(std::move(stmts)));
  };
  Split out;
  ASSIGN_OR_RETURN(out.aic, SideFunction(fn, Side::kCube, with_setup(true, aic_body)));
  ASSIGN_OR_RETURN(out.aiv, SideFunction(fn, Side::kVector, with_setup(false, aiv_body)));
  // The Group keeps the name, so callers are unchanged: the AIC, then the
  // AIV whose result (the tensors it stored) is the Group's.
  std::vector<ir::VarPtr> params;
  std::vector<ir::ExprPtr> args;
  for (const ir::VarPtr& p : fn->params()) {
    auto fresh = std::make_shared<ir::Var>(p->name_hint(), p->type(), p->span());
    params.push_back(fresh);
    args.push_back(fresh);
  }
  std::vector<ir::StmtPtr> body;
  body.push_back(std::make_shared<ir::EvalStmt>(ir::MakeFunctionCall(out.aic, args),
                                                std::vector<std::string>{}, fn->span()));
  ir::CallPtr aiv_call = ir::MakeFunctionCall(out.aiv, args);
  if (fn->return_types().empty()) {
    body.push_back(std::make_shared<ir::EvalStmt>(aiv_call, std::vector<std::string>{},
                                                  fn->span()));
    body.push_back(std::make_shared<ir::ReturnStmt>(std::vector<ir::ExprPtr>{}));
  } else {
    auto result = std::make_shared<ir::Var>("result", aiv_call->type(), fn->span());
    body.push_back(std::make_shared<ir::AssignStmt>(result, aiv_call, fn->span()));
    std::vector<ir::ExprPtr> values = {result};
    if (fn->return_types().size() > 1) {
      // Several results: the Group returns each element of the AIV's tuple.
      values.clear();
      for (size_t i = 0; i < fn->return_types().size(); ++i) {
        auto item = std::make_shared<ir::Var>(pto::StrCat("result_", i), fn->return_types()[i],
                                              fn->span());
        body.push_back(std::make_shared<ir::AssignStmt>(
            item,
            std::make_shared<ir::TupleGetItem>(result, static_cast<int>(i),
                                               fn->return_types()[i], fn->span()),
            fn->span()));
        values.push_back(item);
      }
    }
    body.push_back(std::make_shared<ir::ReturnStmt>(std::move(values)));
  }
  ASSIGN_OR_RETURN(out.group,
                   ir::Function::Create(fn->name(), std::move(params), fn->param_directions(),
                                        fn->return_types(), MakeSeq(std::move(body)),
                                        ir::FunctionType::kGroup, std::nullopt, std::nullopt,
                                        fn->attrs(), false, fn->span()));
  return out;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> ExpandMixedKernelPass::Run(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& [gv, fn] : program->functions()) {
    if (!IsMixed(fn)) {
      functions.push_back(fn);
      continue;
    }
    ASSIGN_OR_RETURN(Split split, Expand(fn));
    functions.push_back(split.aic);
    functions.push_back(split.aiv);
    functions.push_back(split.group);
    changed = true;
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateExpandMixedKernelPass() {
  return std::make_unique<ExpandMixedKernelPass>();
}

absl::Status VerifyMixedKernelExpanded(const ir::ProgramPtr& program) {
  for (const auto& [gv, fn] : program->functions()) {
    if (IsMixed(fn)) {
      return InternalErrorF(fn->span(), "MixedKernelExpanded: InCore function '", fn->name(),
                            "' holds tiles of both the AIC and the AIV (run ExpandMixedKernel)");
    }
    if (fn->body() == nullptr || !ir::IsInCoreType(fn->func_type())) continue;
    RETURN_IF_ERROR(cross_core::VerifyPipes(*fn));
  }
  return absl::OkStatus();
}

}  // namespace pto::passes
