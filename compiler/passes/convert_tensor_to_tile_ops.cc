#include "compiler/passes/convert_tensor_to_tile_ops.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

bool IsTensor(const ir::ExprPtr& e) { return ir::Is<ir::TensorType>(e->type()); }

// The tile.* operator a tensor.* operator converts to (kUnknown for none):
// the same name when it is registered, the scalar form (`adds`) for a scalar
// operand (OpTraits::tile_form / tile_scalar_form).
ir::OpId TileOpFor(const ir::Call& tensor_call, bool scalar_rhs) {
  const ops::OpTraits& t = ops::TraitsOf(tensor_call);
  if (scalar_rhs && t.tile_scalar_form != ir::OpId::kUnknown) return t.tile_scalar_form;
  return t.tile_form;
}

ir::ExprPtr ZeroOffsets(size_t rank, const Span& span) {
  std::vector<ir::ExprPtr> zeros;
  for (size_t i = 0; i < rank; ++i) zeros.push_back(std::make_shared<ir::ConstInt>(0));
  return std::make_shared<ir::MakeTuple>(zeros, span);
}

bool IsTensorMatmul(const ir::CallPtr& call) {
  return call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
         (ir::IsOp(call, ir::OpId::kPlTensorMatmul) || ir::IsOp(call, ir::OpId::kPlTensorMatmulAcc));
}

// PyPTO's MatmulSlice pre-scan: the vars a tensor-level matmul reads as its
// lhs or rhs. Their slices load into Mat (the cube's L1), not Vec.
class MatmulOperands : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> vars;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (IsTensorMatmul(call)) {
      const size_t lhs = ir::IsOp(call, ir::OpId::kPlTensorMatmulAcc) ? 1 : 0;
      for (size_t i = lhs; i < lhs + 2 && i < call->args().size(); ++i) {
        if (auto v = ir::As<ir::Var>(call->args()[i])) vars.insert(v.get());
      }
    }
    ir::IRVisitor::VisitCall(call);
  }
};

// A static tensor type of `rank` (the operands the matmul conversion handles).
bool StaticOfRank(const ir::TypePtr& type, size_t rank) {
  auto t = ir::As<ir::ShapedType>(type);
  if (t == nullptr || t->shape().size() != rank) return false;
  for (const ir::ExprPtr& d : t->shape()) {
    if (!ir::GetConstInt(d).has_value()) return false;
  }
  return true;
}
bool Static2D(const ir::TypePtr& type) { return StaticOfRank(type, 2); }

class Converter : public ir::FlatteningMutator {
 public:
  Converter(const absl::flat_hash_set<const ir::Var*>& blocked,
            const absl::flat_hash_set<const ir::Var*>& mat_operands)
      : blocked_(blocked), mat_operands_(mat_operands) {}
  absl::Status status;
  // Converted values used where a GM tensor is needed (returned, yielded,
  // passed to an operator that is not converted): they stay tensors.
  absl::flat_hash_set<const ir::Var*> escaped;
  void BlockOrigins(absl::flat_hash_set<const ir::Var*>* blocked) const {
    for (const auto& [origin, tile] : tiles_) {
      if (escaped.contains(origin)) blocked->insert(origin);
    }
  }

  ir::StmtPtr MutateStmt(const ir::StmtPtr& stmt) override {
    if (stmt != nullptr) current_span_ = stmt->span();
    return ir::IRMutator::MutateStmt(stmt);
  }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    // A copy of a converted value is a copy of its tile.
    if (Converted(stmt->value()) && !blocked_.contains(stmt->var().get())) {
      ir::VarPtr from = tiles_.at(ir::As<ir::Var>(stmt->value()).get());
      auto tile = std::make_shared<ir::Var>(stmt->var()->name_hint(), from->type(),
                                            stmt->var()->span());
      tiles_[stmt->var().get()] = tile;
      if (mat_tiles_.contains(from.get())) mat_tiles_.insert(tile.get());
      return std::make_shared<ir::AssignStmt>(tile, from, stmt->span());
    }
    auto call = ir::As<ir::Call>(stmt->value());
    const ops::OpDef* def = call == nullptr ? nullptr : ops::DefOf(*call);
    if (def == nullptr || !status.ok() || def->category != ops::OpCategory::kTensorOp) {
      return ir::IRMutator::MutateAssignStmt(stmt);
    }
    const auto& args = call->args();
    std::vector<ir::StmtPtr> pre;
    if (blocked_.contains(stmt->var().get())) return ir::IRMutator::MutateAssignStmt(stmt);
    if (ir::IsOp(call, ir::OpId::kPlTensorSlice) && args.size() >= 3 && IsTensor(args[0]) &&
        !Converted(args[0])) {
      auto type = ir::As<ir::TensorType>(stmt->var()->type());
      if (type == nullptr) return ir::IRMutator::MutateAssignStmt(stmt);
      auto tile = std::make_shared<ir::Var>(stmt->var()->name_hint(), TileTypeOf(*type),
                                            stmt->var()->span());
      tiles_[stmt->var().get()] = tile;
      ir::AttrList kwargs;
      if (mat_operands_.contains(stmt->var().get())) {
        kwargs = MatKwargs();
        mat_tiles_.insert(tile.get());
      }
      return std::make_shared<ir::AssignStmt>(
          tile,
          ir::MakeOpCall(ir::OpId::kPlTileLoad,
                         {MutateExpr(args[0]), MutateExpr(args[2]), MutateExpr(args[1])},
                         tile->type(), std::move(kwargs), {}, call->span()),
          stmt->span());
    }
    if (IsTensorMatmul(call)) {
      if (ir::StmtPtr out = ConvertMatmul(stmt, *call)) return out;
      return ir::IRMutator::MutateAssignStmt(stmt);
    }
    if (ir::IsOp(call, ir::OpId::kPlTensorAssemble) && args.size() >= 3 && Converted(args[1])) {
      return std::make_shared<ir::AssignStmt>(
          stmt->var(),
          ir::MakeOpCall(
              ir::OpId::kPlTileStore,
              {TileOf(args[1], &pre, call->span()), MutateExpr(args[2]), MutateExpr(args[0])},
              stmt->var()->type(), {}, {}, call->span()),
          stmt->span());
    }
    // Elementwise: every tensor operand has the result's shape.
    auto type = ir::As<ir::TensorType>(stmt->var()->type());
    if (type == nullptr || args.empty() || !IsTensor(args[0])) {
      return ir::IRMutator::MutateAssignStmt(stmt);
    }
    bool scalar_rhs = args.size() == 2 && ir::Is<ir::ScalarType>(args[1]->type());
    const ir::OpId tile_op = TileOpFor(*call, scalar_rhs);
    // A keyword operand (PyPTO's gather / scatter mask forms) is not an
    // elementwise operand: such a call stays a tensor operator.
    bool keyword_operand = false;
    for (const auto& kv : call->kwargs()) {
      keyword_operand |= std::holds_alternative<ir::ExprPtr>(kv.second);
    }
    if (tile_op == ir::OpId::kUnknown || keyword_operand || !Elementwise(args, *type))
      return ir::IRMutator::MutateAssignStmt(stmt);
    std::vector<ir::ExprPtr> new_args;
    for (const ir::ExprPtr& a : args) {
      new_args.push_back(IsTensor(a) ? TileOf(a, &pre, call->span()) : MutateExpr(a));
    }
    auto tile = std::make_shared<ir::Var>(stmt->var()->name_hint(), TileTypeOf(*type),
                                          stmt->var()->span());
    tiles_[stmt->var().get()] = tile;
    pre.push_back(std::make_shared<ir::AssignStmt>(
        tile, ir::MakeOpCall(tile_op, new_args, tile->type(), call->kwargs(), {}, call->span()),
        stmt->span()));
    return ir::SeqStmts::Flatten(pre, stmt->span());
  }

  ir::ExprPtr MutateVar(const ir::VarPtr& var) override {
    if (tiles_.contains(var.get())) escaped.insert(var.get());
    return ir::IRMutator::MutateVar(var);
  }
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    auto call = ir::As<ir::Call>(stmt->expr());
    if (call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
        ir::IsOp(call, ir::OpId::kPlTensorAssemble) && call->args().size() >= 3 &&
        Converted(call->args()[1])) {
      std::vector<ir::StmtPtr> pre;
      const auto& args = call->args();
      ir::ExprPtr store = ir::MakeOpCall(
          ir::OpId::kPlTileStore,
          {TileOf(args[1], &pre, call->span()), MutateExpr(args[2]), MutateExpr(args[0])},
          args[0]->type(), {}, {}, call->span());
      return std::make_shared<ir::EvalStmt>(store, stmt->leading_comments(), stmt->span());
    }
    return ir::IRMutator::MutateEvalStmt(stmt);
  }
  // A whole load made in a loop or branch body is not visible after it.
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    auto saved = loads_;
    auto saved_mat = mat_loads_;
    ir::StmtPtr out = ir::IRMutator::MutateForStmt(stmt);
    loads_ = std::move(saved);
    mat_loads_ = std::move(saved_mat);
    return out;
  }
  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    auto saved = loads_;
    auto saved_mat = mat_loads_;
    ir::StmtPtr out = ir::IRMutator::MutateWhileStmt(stmt);
    loads_ = std::move(saved);
    mat_loads_ = std::move(saved_mat);
    return out;
  }
  ir::StmtPtr MutateIfStmt(const std::shared_ptr<const ir::IfStmt>& stmt) override {
    auto saved = loads_;
    auto saved_mat = mat_loads_;
    ir::StmtPtr out = ir::IRMutator::MutateIfStmt(stmt);
    loads_ = std::move(saved);
    mat_loads_ = std::move(saved_mat);
    return out;
  }

 private:
  bool Converted(const ir::ExprPtr& e) const {
    auto v = ir::As<ir::Var>(e);
    return v != nullptr && tiles_.contains(v.get());
  }
  static bool Elementwise(const std::vector<ir::ExprPtr>& args, const ir::TensorType& result) {
    for (const ir::ExprPtr& a : args) {
      if (ir::Is<ir::ScalarType>(a->type())) continue;
      auto t = ir::As<ir::TensorType>(a->type());
      if (t == nullptr || t->shape().size() != result.shape().size()) return false;
      for (size_t i = 0; i < t->shape().size(); ++i) {
        if (ir::GetConstInt(t->shape()[i]) != ir::GetConstInt(result.shape()[i]) ||
            !ir::GetConstInt(t->shape()[i]).has_value()) {
          return false;
        }
      }
    }
    return true;
  }
  static ir::AttrList MatKwargs() { return {{"target_memory", std::string("Mat")}}; }
  // `c = pl.tensor.matmul(a, b)` / `pl.tensor.matmul_acc(acc, a, b)` of
  // static 2D operands: the operands in Mat (a GM tensor loaded whole, a
  // slice loaded by the pre-scan), `pl.tile.matmul(_acc)` with the
  // accumulator's dtype (FIXPIPE converts to the tensor's out_dtype at the
  // store). nullptr: not this form (transposed, batched, init_cond, an
  // accumulator that is not a converted tile); the matmul stays a tensor
  // operator and the pass manager reports it.
  ir::StmtPtr ConvertMatmul(const std::shared_ptr<const ir::AssignStmt>& stmt,
                            const ir::Call& call) {
    const bool acc = ir::IsOp(call, ir::OpId::kPlTensorMatmulAcc);
    const size_t lhs = acc ? 1 : 0;
    const auto& args = call.args();
    if (args.size() != lhs + 2 || ir::HasAttr(call.kwargs(), "init_cond") ||
        (acc && !Converted(args[0]))) {
      return nullptr;
    }
    // Rank 3 on both sides: a batch matmul (FlattenTileNdTo2D, 13, makes it
    // one 2D matmul per batch).
    const size_t rank = StaticOfRank(stmt->var()->type(), 3) && !acc ? 3 : 2;
    if (!StaticOfRank(stmt->var()->type(), rank) || !StaticOfRank(args[lhs]->type(), rank) ||
        !StaticOfRank(args[lhs + 1]->type(), rank)) {
      return nullptr;
    }
    const ir::DataType in = ir::As<ir::ShapedType>(args[lhs]->type())->dtype();
    const ir::DataType c = in == ir::DataType::kInt8 ? ir::DataType::kInt32 : ir::DataType::kFP32;
    std::vector<ir::StmtPtr> pre;
    std::vector<ir::ExprPtr> operands;
    if (acc) operands.push_back(tiles_.at(ir::As<ir::Var>(args[0]).get()));
    const bool trans[2] = {ir::GetAttr<bool>(call.kwargs(), "a_trans").value_or(false),
                           ir::GetAttr<bool>(call.kwargs(), "b_trans").value_or(false)};
    for (size_t i = lhs; i < lhs + 2; ++i) {
      ir::ExprPtr t = MatTileOf(args[i], &pre, call.span());
      operands.push_back(trans[i - lhs] ? TransposeView(t, &pre, call.span()) : t);
    }
    auto type = ir::As<ir::TensorType>(stmt->var()->type());
    auto tile = std::make_shared<ir::Var>(stmt->var()->name_hint(),
                                          std::make_shared<ir::TileType>(type->shape(), c),
                                          stmt->var()->span());
    tiles_[stmt->var().get()] = tile;
    pre.push_back(std::make_shared<ir::AssignStmt>(
        tile,
        ir::MakeOpCall(rank == 3 ? ir::OpId::kPlTileBatchMatmul
                       : acc     ? ir::OpId::kPlTileMatmulAcc
                                 : ir::OpId::kPlTileMatmul,
                       operands,
                       tile->type(), {}, {}, call.span()),
        stmt->span()));
    return ir::SeqStmts::Flatten(pre, stmt->span());
  }
  // A transposed operand (a_trans / b_trans), as PyPTO realises it: the
  // natural tile in Mat read through a zero-copy `pl.tile.transpose_view`
  // (NZ read as ZN); a converted Vec tile moves to Mat first (the view is of
  // a Mat tile only).
  ir::ExprPtr TransposeView(const ir::ExprPtr& e, std::vector<ir::StmtPtr>* pre,
                            const Span& span) {
    auto v = ir::As<ir::Var>(e);
    auto type = ir::As<ir::TileType>(e->type());
    ir::ExprPtr mat = e;
    if (!mat_tiles_.contains(v.get())) {
      auto moved = std::make_shared<ir::Var>(v->name_hint() + "_mat", e->type(), span);
      pre->push_back(std::make_shared<ir::AssignStmt>(
          moved, ir::MakeOpCall(ir::OpId::kPlTileMove, {e}, e->type(), MatKwargs(), {}, span),
          span));
      mat = moved;
    }
    std::vector<ir::ExprPtr> shape = type->shape();
    std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
    auto view = std::make_shared<ir::Var>(ir::As<ir::Var>(mat)->name_hint() + "_t",
                                          std::make_shared<ir::TileType>(shape, type->dtype()),
                                          span);
    pre->push_back(std::make_shared<ir::AssignStmt>(
        view, ir::MakeOpCall(ir::OpId::kPlTileTransposeView, {mat}, view->type(), {}, {}, span),
        span));
    return view;
  }
  // A matmul operand: its conversion (a Mat slice, or a Vec tile that
  // InferTileMemorySpace moves), or a whole Mat load of a GM tensor.
  ir::ExprPtr MatTileOf(const ir::ExprPtr& e, std::vector<ir::StmtPtr>* pre, const Span& span) {
    auto v = ir::As<ir::Var>(e);
    if (v != nullptr) {
      if (auto it = tiles_.find(v.get()); it != tiles_.end()) return it->second;
      if (auto it = mat_loads_.find(v.get()); it != mat_loads_.end()) return it->second;
    }
    auto type = ir::As<ir::TensorType>(e->type());
    auto tile = std::make_shared<ir::Var>((v != nullptr ? v->name_hint() : "t") + "_mat",
                                          TileTypeOf(*type), span);
    pre->push_back(std::make_shared<ir::AssignStmt>(
        tile,
        ir::MakeOpCall(ir::OpId::kPlTileLoad,
                       {MutateExpr(e), ZeroOffsets(type->shape().size(), span),
                        std::make_shared<ir::MakeTuple>(type->shape(), span)},
                       tile->type(), MatKwargs(), {}, span),
        span));
    if (v != nullptr) mat_loads_[v.get()] = tile;
    mat_tiles_.insert(tile.get());
    return tile;
  }
  static ir::TypePtr TileTypeOf(const ir::TensorType& t) {
    return std::make_shared<ir::TileType>(t.shape(), t.dtype());
  }
  // The tile holding tensor value `e`: its conversion, or a whole load of a
  // GM tensor (made once, before the first statement that needs it).
  ir::ExprPtr TileOf(const ir::ExprPtr& e, std::vector<ir::StmtPtr>* pre, const Span& span) {
    auto v = ir::As<ir::Var>(e);
    if (v != nullptr) {
      if (auto it = tiles_.find(v.get()); it != tiles_.end()) return it->second;
      if (auto it = loads_.find(v.get()); it != loads_.end()) return it->second;
    }
    auto type = ir::As<ir::TensorType>(e->type());
    auto tile = std::make_shared<ir::Var>((v != nullptr ? v->name_hint() : "t") + "_tile",
                                          TileTypeOf(*type), span);
    pre->push_back(std::make_shared<ir::AssignStmt>(
        tile,
        ir::MakeOpCall(ir::OpId::kPlTileLoad,
                       {MutateExpr(e), ZeroOffsets(type->shape().size(), span),
                        std::make_shared<ir::MakeTuple>(type->shape(), span)},
                       tile->type(), {}, {}, span),
        span));
    if (v != nullptr) loads_[v.get()] = tile;
    return tile;
  }

  const absl::flat_hash_set<const ir::Var*>& blocked_;
  const absl::flat_hash_set<const ir::Var*>& mat_operands_;
  absl::flat_hash_map<const ir::Var*, ir::VarPtr> tiles_;
  absl::flat_hash_map<const ir::Var*, ir::VarPtr> loads_;
  absl::flat_hash_map<const ir::Var*, ir::VarPtr> mat_loads_;
  absl::flat_hash_set<const ir::Var*> mat_tiles_;  // tiles loaded into Mat
  Span current_span_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> ConvertTensorToTileOpsPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    if (!ir::IsInCoreType(f->func_type()) || f->body() == nullptr) return f->body();
    // A value that escapes as a GM tensor is left unconverted; repeat until
    // no converted value escapes (each round blocks at least one more value).
    absl::flat_hash_set<const ir::Var*> blocked;
    MatmulOperands mat;
    mat.VisitStmt(f->body());
    while (true) {
      Converter converter(blocked, mat.vars);
      ir::StmtPtr body = converter.MutateStmt(f->body());
      if (!converter.status.ok()) return converter.status;
      if (converter.escaped.empty()) return body;
      // Escaped tile vars map back to the tensor vars they replace.
      size_t before = blocked.size();
      converter.BlockOrigins(&blocked);
      if (blocked.size() == before) return f->body();
    }
  });
}

namespace {

// The first tensor-level matmul of a function body.
class TensorMatmulFinder : public ir::IRVisitor {
 public:
  ir::CallPtr found;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (found == nullptr && IsTensorMatmul(call)) found = call;
    ir::IRVisitor::VisitCall(call);
  }
};

// Why the conversion left `call` (in a function of kind `kernel`) alone.
std::string Unconverted(const ir::Call& call, bool kernel) {
  if (!kernel) return "outside a kernel (pl.at(level=pl.Level.CORE_GROUP) or an InCore function)";
  if (ir::HasAttr(call.kwargs(), "init_cond")) return "with init_cond";
  bool batched = false, all_rank3 = true, dynamic = false;
  for (const ir::ExprPtr& a : call.args()) {
    auto t = ir::As<ir::ShapedType>(a->type());
    if (t == nullptr) continue;
    batched |= t->shape().size() > 2;
    all_rank3 &= t->shape().size() == 3;
    for (const ir::ExprPtr& d : t->shape()) dynamic |= !ir::GetConstInt(d).has_value();
  }
  if (dynamic) return "with a dynamic shape";
  if (batched && (!all_rank3 || ir::IsOp(call, ir::OpId::kPlTensorMatmulAcc))) {
    return "of rank above 2 (a batch matmul) other than a pl.tensor.matmul of rank 3 on both sides";
  }
  return "whose accumulator or result is a GM tensor (carried through a loop or branch, "
         "returned, or read by an operator that is not converted)";
}

}  // namespace

absl::Status CheckNoTensorMatmul(const ir::ProgramPtr& program) {
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() == nullptr) continue;
    TensorMatmulFinder finder;
    finder.VisitStmt(f->body());
    if (finder.found == nullptr) continue;
    return UserError(
        finder.found->span(),
        pto::StrCat("'", finder.found->op()->name(), "' (a tensor-level matmul) ",
                    Unconverted(*finder.found, ir::IsInCoreType(f->func_type())),
                    " is not converted to tile operators by pass 10 ConvertTensorToTileOps "
                    "here; write the tile form (pl.load(..., target_memory=pl.MemorySpace.Mat), "
                    "pl.matmul of the tiles) (docs/passes/ConvertTensorToTileOps.md)"));
  }
  return absl::OkStatus();
}

std::unique_ptr<Pass> CreateConvertTensorToTileOpsPass() {
  return std::make_unique<ConvertTensorToTileOpsPass>();
}

}  // namespace pto::passes
