#include "compiler/passes/flatten_tile_nd_to_2d.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// The column-wise operators (PyPTO's col_* family but col_expand): they work
// along dim n-2, which flattening to 2D merges with the leading dims.
bool IsColumnWise(ir::OpId id) {
  using ir::OpId;
  switch (id) {
    case OpId::kPlTileColArgmax:
    case OpId::kPlTileColArgmin:
    case OpId::kPlTileColExpandAdd:
    case OpId::kPlTileColExpandDiv:
    case OpId::kPlTileColExpandExpdif:
    case OpId::kPlTileColExpandMax:
    case OpId::kPlTileColExpandMin:
    case OpId::kPlTileColExpandMul:
    case OpId::kPlTileColExpandSub:
    case OpId::kPlTileColMax:
    case OpId::kPlTileColMin:
    case OpId::kPlTileColProd:
    case OpId::kPlTileColSum:
      return true;
    default:
      return false;
  }
}

// a * b of index expressions, constants folded.
ir::ExprPtr Mul(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  std::optional<int64_t> x = ir::GetConstInt(a);
  std::optional<int64_t> y = ir::GetConstInt(b);
  if (x == 1) return b;
  if (y == 1) return a;
  if (x && y) return ir::ConstIndex(*x * *y);
  absl::StatusOr<ir::ExprPtr> m = ir::MakeBinary(ir::BinaryOp::kMul, a, b);
  return m.ok() ? *m : a;
}
ir::ExprPtr Add(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  std::optional<int64_t> x = ir::GetConstInt(a);
  std::optional<int64_t> y = ir::GetConstInt(b);
  if (x == 0) return b;
  if (y == 0) return a;
  if (x && y) return ir::ConstIndex(*x + *y);
  absl::StatusOr<ir::ExprPtr> m = ir::MakeBinary(ir::BinaryOp::kAdd, a, b);
  return m.ok() ? *m : a;
}

// [d0 * ... * d(n-2), d(n-1)] of a shape of rank n > 2.
std::vector<ir::ExprPtr> Merge(const std::vector<ir::ExprPtr>& dims) {
  ir::ExprPtr rows = ir::ConstIndex(1);
  for (size_t i = 0; i + 1 < dims.size(); ++i) rows = Mul(rows, dims[i]);
  return {rows, dims.back()};
}

std::string ShapeText(const std::vector<ir::ExprPtr>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<int64_t> d = ir::GetConstInt(dims[i]);
    pto::StrAppend(&out, i ? ", " : "", d ? std::to_string(*d) : std::string("?"));
  }
  return out + "]";
}

// Whether a `src` box of a `dst` tile (one rank) is one band of rows once
// both are flattened: over the row dims (all but the last), the box is 1 up
// to some dim k, any extent at k, and full after k. The last dim is the
// column axis and may be partial.
bool CollapsesToRowBand(const std::vector<ir::ExprPtr>& src, const std::vector<ir::ExprPtr>& dst) {
  const size_t n = dst.size();
  size_t k = 0;
  while (k + 1 < n && ir::GetConstInt(src[k]) == 1) ++k;
  for (size_t i = k + 1; i + 1 < n; ++i) {
    std::optional<int64_t> s = ir::GetConstInt(src[i]);
    if (!s || s != ir::GetConstInt(dst[i])) return false;
  }
  return true;
}

class Flattener : public ir::SpanTrackingMutator {
 public:
  absl::Status status;

 protected:

  ir::TypePtr MutateTileType(const std::shared_ptr<const ir::TileType>& type) override {
    ir::TypePtr base = ir::IRMutator::MutateTileType(type);
    auto t = std::static_pointer_cast<const ir::TileType>(base);
    if (t->shape().size() <= 2) return base;
    for (size_t i = 0; i < t->shape().size(); ++i) {
      if (!ir::GetConstInt(t->shape()[i]).has_value()) {
        Fail(UserErrorF(span(), "FlattenTileNdTo2D: the tile ", ShapeText(t->shape()),
                        " has a dynamic dim ", i,
                        ", and a tile of rank above 2 is flattened to 2D only with a static "
                        "shape; loop over the dynamic dim with pl.range so each tile is static "
                        "(the runtime extent goes in valid_shape), or reshape the tensor to 2D "
                        "before the kernel"));
        return base;
      }
    }
    std::vector<ir::ExprPtr> valid;
    if (t->valid_shape().size() == t->shape().size()) valid = Merge(t->valid_shape());
    return std::make_shared<ir::TileType>(Merge(t->shape()), t->dtype(), t->memref(),
                                          std::move(valid), t->span(), t->memory_space());
  }

  ir::ExprPtr MutateCallAt(const ir::CallPtr& call) override { return Rewrite(call); }

 private:
  void Fail(absl::Status s) {
    if (status.ok()) status = std::move(s);
  }

  static std::shared_ptr<const ir::TileType> NdTile(const ir::ExprPtr& e) {
    auto t = ir::As<ir::TileType>(e->type());
    return t != nullptr && t->shape().size() > 2 ? t : nullptr;
  }

  ir::ExprPtr Rewrite(const ir::CallPtr& call) {
    const ops::OpDef* def = ops::DefOf(*call);
    if (def == nullptr || def->category != ops::OpCategory::kTileOp) {
      return ir::IRMutator::MutateCall(call);
    }
    const std::string& op = call->op()->name();  // for messages
    const ir::OpId id = call->op()->id();
    const std::vector<ir::ExprPtr>& args = call->args();
    if ((id == ir::OpId::kPlTileRead || id == ir::OpId::kPlTileWrite ||
         id == ir::OpId::kPlTileSlice) &&
        !args.empty() && NdTile(args[0]) != nullptr) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: ", op, " of a tile of rank ",
                      NdTile(args[0])->shape().size(),
                      " is not supported; hardware tiles are 2D (reshape the tile to 2D first)"));
      return call;
    }
    // Flattened, a view of [B, N, K] is [K, B * N], not [B * K, N]: only a
    // batch matmul's operand is lowered (per batch, ExpandBatchMatmuls).
    if (id == ir::OpId::kPlTileTransposeView && !args.empty() && NdTile(args[0]) != nullptr) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.transpose_view of a tile of rank ",
                      NdTile(args[0])->shape().size(),
                      " is lowered only as an operand of pl.tile.batch_matmul"));
      return call;
    }
    if (id == ir::OpId::kPlTileTranspose && !args.empty() && NdTile(args[0]) != nullptr) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.transpose of a tile of rank ",
                      NdTile(args[0])->shape().size(),
                      " (PyPTO's per-batch transpose) is not supported here"));
      return call;
    }
    // A column reduction of a tile of rank above 2 reduces dim n-2 alone;
    // on the flattened tile it would reduce every leading dim together.
    if (IsColumnWise(id) && !args.empty() && NdTile(args[0]) != nullptr) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: ", op, " of a tile of rank ",
                      NdTile(args[0])->shape().size(),
                      " reduces a dim other than the last; a tile flattened to 2D can be "
                      "reduced only along its last dim (row reductions)"));
      return call;
    }
    if (id == ir::OpId::kPlTileAssemble) return Assemble(call);
    ir::ExprPtr base = ir::IRMutator::MutateCall(call);
    auto rebuilt = ir::As<ir::Call>(base);
    if (rebuilt == nullptr) return base;
    std::vector<ir::ExprPtr> new_args = rebuilt->args();
    bool changed = false;
    if ((id == ir::OpId::kPlTileCreate || id == ir::OpId::kPlTileFull ||
         id == ir::OpId::kPlTileReshape) &&
        ir::As<ir::TileType>(call->type()) != nullptr &&
        ir::As<ir::TileType>(call->type())->shape().size() > 2) {
      // The shape operand follows the result: create/full take it first,
      // reshape second.
      const size_t at = id == ir::OpId::kPlTileReshape ? 1 : 0;
      auto shape = new_args.size() > at ? ir::As<ir::MakeTuple>(new_args[at]) : nullptr;
      if (shape != nullptr && shape->elements().size() > 2) {
        new_args[at] = std::make_shared<ir::MakeTuple>(Merge(shape->elements()), shape->span());
        changed = true;
      }
    }
    if (id == ir::OpId::kPlTileStore && args.size() == 3) {
      auto tensor = ir::AsTensorTypeLike(args[2]->type());
      auto tile = ir::As<ir::TileType>(args[0]->type());
      if (tensor != nullptr && tile != nullptr && tensor->shape().size() > 2 &&
          tile->shape().size() <= tensor->shape().size()) {
        // The box of the store in tensor rank: the tile's own (pre-flatten)
        // dims, with leading 1s up to the tensor's rank.
        std::vector<ir::ExprPtr> box(tensor->shape().size() - tile->shape().size(),
                                     ir::ConstIndex(1));
        for (const ir::ExprPtr& d : tile->shape()) box.push_back(d);
        new_args.push_back(std::make_shared<ir::MakeTuple>(box, call->span()));
        changed = true;
      }
    }
    if (!changed) return base;
    return std::make_shared<ir::Call>(rebuilt->op(), std::move(new_args), rebuilt->kwargs(),
                                      rebuilt->attrs(), rebuilt->type(), rebuilt->span());
  }

  // assemble(target, source, offsets) into a tile of rank above 2: the
  // offset folds row-major into (row, col), as a load folds its window.
  ir::ExprPtr Assemble(const ir::CallPtr& call) {
    const std::vector<ir::ExprPtr>& args = call->args();
    auto target = args.size() == 3 ? NdTile(args[0]) : nullptr;
    if (target == nullptr) return ir::IRMutator::MutateCall(call);
    auto source = ir::As<ir::TileType>(args[1]->type());
    auto offsets = ir::As<ir::MakeTuple>(args[2]);
    const size_t rank = target->shape().size();
    if (source == nullptr || offsets == nullptr) {
      // The operator's signature admits only these.
      Fail(InternalErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.assemble into a tile of rank ",
                          rank, " needs a tile source and a literal offset list"));
      return call;
    }
    if (offsets->elements().size() != rank) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.assemble into a rank-", rank,
                      " tile has ", offsets->elements().size(),
                      " offsets; it needs one per dim of the target"));
      return call;
    }
    if (source->shape().size() != rank) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.assemble into a rank-", rank,
                      " tile has a rank-", source->shape().size(), " source ",
                      ShapeText(source->shape()),
                      "; reshape the source to the target's rank first"));
      return call;
    }
    if (!CollapsesToRowBand(source->shape(), target->shape())) {
      Fail(UserErrorF(call->span(), "FlattenTileNdTo2D: pl.tile.assemble writes a ",
                      ShapeText(source->shape()), " region of a ", ShapeText(target->shape()),
                      " tile, which is not one band of rows once the tile is 2D; assemble one "
                      "contiguous page per iteration of a loop over the outer dim"));
      return call;
    }
    ir::ExprPtr base = ir::IRMutator::MutateCall(call);
    auto rebuilt = ir::As<ir::Call>(base);
    std::vector<ir::ExprPtr> o = ir::As<ir::MakeTuple>(rebuilt->args()[2])->elements();
    ir::ExprPtr row = o[0];
    for (size_t i = 1; i + 1 < rank; ++i) row = Add(Mul(row, target->shape()[i]), o[i]);
    std::vector<ir::ExprPtr> new_args = rebuilt->args();
    new_args[2] = std::make_shared<ir::MakeTuple>(std::vector<ir::ExprPtr>{row, o.back()},
                                                  offsets->span());
    return std::make_shared<ir::Call>(rebuilt->op(), std::move(new_args), rebuilt->kwargs(),
                                      rebuilt->attrs(), rebuilt->type(), rebuilt->span());
  }
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> FlattenTileNdTo2DPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    if (f->body() == nullptr || !ir::IsInCoreType(f->func_type())) return f->body();
    ASSIGN_OR_RETURN(ir::StmtPtr expanded, ExpandBatchMatmuls(f->body()));
    Flattener flattener;
    ir::StmtPtr body = flattener.MutateStmt(expanded);
    if (!flattener.status.ok()) return flattener.status;
    return body;
  });
}

std::unique_ptr<Pass> CreateFlattenTileNdTo2DPass() {
  return std::make_unique<FlattenTileNdTo2DPass>();
}

}  // namespace pto::passes
