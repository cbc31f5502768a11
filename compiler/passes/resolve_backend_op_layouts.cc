#include "compiler/passes/resolve_backend_op_layouts.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;
using ir::OpId;
using ir::StmtPtr;

// The operators whose pto-isa instruction reads and writes row-major tiles
// (PyPTO's backend layout specs, src/backend/common/pto_ops_elementwise.cpp).
constexpr OpId kRowMajorOps[] = {
    OpId::kPlTileAdd,      OpId::kPlTileAnd,      OpId::kPlTileFmod,     OpId::kPlTileMaximum,
    OpId::kPlTileMinimum,  OpId::kPlTileMul,      OpId::kPlTileOr,       OpId::kPlTilePartAdd,
    OpId::kPlTilePartMax,  OpId::kPlTilePartMin,  OpId::kPlTilePartMul,  OpId::kPlTileRem,
    OpId::kPlTileShl,      OpId::kPlTileShr,      OpId::kPlTileSub,      OpId::kPlTileXor,
    OpId::kPlTileAbs,      OpId::kPlTileExp,      OpId::kPlTileSqrt,     OpId::kPlTileNot,
    OpId::kPlTilePrelu,    OpId::kPlTileRelu,     OpId::kPlTileAdds,     OpId::kPlTileSubs,
    OpId::kPlTileMuls,     OpId::kPlTileDivs,     OpId::kPlTileFmods,    OpId::kPlTileMaximums,
    OpId::kPlTileLrelu,    OpId::kPlTileSels,     OpId::kPlTileGatherb,  OpId::kPlTileAddsc,
    OpId::kPlTileSubsc,    OpId::kPlTileDiv,      OpId::kPlTileLog,      OpId::kPlTileRecip,
    OpId::kPlTileRsqrt,    OpId::kPlTileSel,      OpId::kPlTileCmps,     OpId::kPlTileCast,
};

bool NeedsRowMajor(const ir::Call& call) {
  if (ir::Is<ir::GlobalVar>(call.op())) return false;
  for (OpId id : kRowMajorOps) {
    if (ir::IsOp(call, id)) return true;
  }
  return false;
}

// Tiles laid out other than row-major (PyPTO reads the block layout only): a
// pl.tile.move with blayout=col_major, and plain aliases of one. Every other tile here is
// row-major (the tile type has no layout; loads, creates and operators make
// row-major tiles).
class LayoutFacts : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> not_row_major;

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (auto src = ir::As<ir::Var>(s->value()); src != nullptr && not_row_major.contains(src.get())) {
      not_row_major.insert(s->var().get());
    }
    auto call = ir::As<ir::Call>(s->value());
    if (call != nullptr && ir::IsOp(call, OpId::kPlTileMove)) {
      auto b = ir::GetAttr<std::string>(call->kwargs(), "blayout");
      if (b && *b == "col_major") {
        not_row_major.insert(s->var().get());
      }
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
};

class Resolver : public ir::FlatteningMutator {
 public:
  explicit Resolver(const LayoutFacts& facts) : facts_(facts) {}

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    std::vector<StmtPtr> out;
    ExprPtr value = Repair(s->value(), s->var()->name_hint(), &out);
    if (out.empty()) return ir::IRMutator::MutateAssignStmt(s);
    out.push_back(std::make_shared<ir::AssignStmt>(s->var(), value, s->span()));
    return ir::SeqStmts::Flatten(out, s->span());
  }
  StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    std::vector<StmtPtr> out;
    ExprPtr value = Repair(s->expr(), "layout_fix", &out);
    if (out.empty()) return ir::IRMutator::MutateEvalStmt(s);
    out.push_back(std::make_shared<ir::EvalStmt>(value, s->leading_comments(), s->span()));
    return ir::SeqStmts::Flatten(out, s->span());
  }

 private:
  // The call with each non-row-major tile operand replaced by a row-major
  // move of it (appended to `out`); `e` itself when none needs one.
  ExprPtr Repair(const ExprPtr& e, const std::string& base, std::vector<StmtPtr>* out) {
    auto call = ir::As<ir::Call>(e);
    if (call == nullptr || !NeedsRowMajor(*call)) return e;
    std::vector<ExprPtr> args = call->args();
    for (size_t i = 0; i < args.size(); ++i) {
      auto v = ir::As<ir::Var>(args[i]);
      auto tile = v ? ir::As<ir::TileType>(v->type()) : nullptr;
      if (tile == nullptr || !facts_.not_row_major.contains(v.get())) continue;
      ir::AttrList kwargs = {{"blayout", std::string("row_major")},
                             {"slayout", std::string("none_box")}};
      if (auto space = tile->Space()) {
        kwargs.insert(kwargs.begin(),
                      {"target_memory", std::string(ir::MemorySpacePyptoName(*space))});
      }
      auto fixed = ir::MakeVar(pto::StrCat(base, "_row_major_arg", i),
                               std::make_shared<ir::TileType>(tile->shape(), tile->dtype(),
                                                              std::nullopt, tile->valid_shape(),
                                                              tile->span(), tile->memory_space()),
                               call->span());
      out->push_back(std::make_shared<ir::AssignStmt>(
          fixed, ir::MakeOpCall(OpId::kPlTileMove, {v}, fixed->type(), std::move(kwargs), {},
                                call->span()),
          call->span()));
      args[i] = fixed;
    }
    if (out->empty()) return e;
    return std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(), call->attrs(),
                                      call->type(), call->span());
  }

  const LayoutFacts& facts_;
};

absl::StatusOr<StmtPtr> Resolve(const ir::FunctionPtr& fn) {
  if (fn->body() == nullptr || !ir::IsInCoreType(fn->func_type())) return fn->body();
  LayoutFacts facts;
  facts.VisitStmt(fn->body());
  if (facts.not_row_major.empty()) return fn->body();
  Resolver resolver(facts);
  return resolver.MutateStmt(fn->body());
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> ResolveBackendOpLayoutsPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, Resolve);
}

std::unique_ptr<Pass> CreateResolveBackendOpLayoutsPass() {
  return std::make_unique<ResolveBackendOpLayoutsPass>();
}

}  // namespace pto::passes
