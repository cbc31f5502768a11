#include "compiler/passes/fold_no_op_reshape.h"

#include <cstdint>
#include <optional>

#include "compiler/ir/arena.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_memrefs.h"

namespace pto::passes {
namespace {

// What code generation declares for a tile buffer (PyPTO's TileBufSignature,
// restricted to the fields our TileType has). A dimension that is not a
// constant stays unknown (-1), and an unknown valid extent is "dynamic".
struct BufSignature {
  ir::MemorySpace space = ir::MemorySpace::kUB;
  ir::DataType dtype = ir::DataType::kFP32;
  int64_t rows = -1;
  int64_t cols = -1;
  int64_t valid_rows = -1;
  int64_t valid_cols = -1;
  bool valid_rows_dynamic = false;
  bool valid_cols_dynamic = false;
  bool col_major = false;

  bool operator==(const BufSignature& o) const {
    return space == o.space && dtype == o.dtype && rows == o.rows && cols == o.cols &&
           valid_rows == o.valid_rows && valid_cols == o.valid_cols &&
           valid_rows_dynamic == o.valid_rows_dynamic &&
           valid_cols_dynamic == o.valid_cols_dynamic && col_major == o.col_major;
  }
};

int64_t ConstOr(const ir::ExprPtr& e, int64_t unknown) {
  std::optional<int64_t> v = ir::GetConstInt(e);
  return v ? *v : unknown;
}

// rows x cols of a shape: a 1-d tile is one row; an N-d tile is the product of
// its leading dims by its last (the 2-d form FlattenTileNdTo2D gives it).
void RowsCols(const std::vector<ir::ExprPtr>& shape, int64_t* rows, int64_t* cols) {
  if (shape.empty()) return;
  *cols = ConstOr(shape.back(), -1);
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    int64_t d = ConstOr(shape[i], -1);
    if (d < 0 || r < 0) {
      r = -1;
    } else {
      r *= d;
    }
  }
  *rows = r;
}

BufSignature SignatureOf(const ir::TileType& tile, const ir::MemRef& memref) {
  BufSignature sig;
  sig.space = memref.memory_space();
  sig.dtype = tile.dtype();
  RowsCols(tile.shape(), &sig.rows, &sig.cols);
  sig.valid_rows = sig.rows;
  sig.valid_cols = sig.cols;
  const std::vector<ir::ExprPtr>& valid = tile.valid_shape();
  if (valid.empty()) {
    // No view: a column vector is laid out column-major, as PyPTO declares it.
    sig.col_major = sig.cols == 1 && sig.rows > 1;
    return sig;
  }
  int64_t vr = -1, vc = -1;
  RowsCols(valid, &vr, &vc);
  sig.valid_rows = vr;
  sig.valid_cols = vc;
  sig.valid_rows_dynamic = vr < 0;
  sig.valid_cols_dynamic = vc < 0;
  return sig;
}

// The source var of `lhs = pl.tile.reshape(src, shape)` when the reshape
// changes nothing: both tiles in the same MemRef with the same signature. The
// ranks must match too (the IR's assignment keeps a var's rank); a reshape
// between ranks stays for code generation to emit as a view.
ir::VarPtr NoOpReshapeSource(const ir::AssignStmt& assign) {
  auto call = ir::As<ir::Call>(assign.value());
  if (call == nullptr || ir::Is<ir::GlobalVar>(call->op()) ||
      !ir::IsOp(call, ir::OpId::kPlTileReshape) || call->args().size() != 2) {
    return nullptr;
  }
  auto src = ir::As<ir::Var>(call->args()[0]);
  if (src == nullptr) return nullptr;
  auto lhs_tile = ir::As<ir::TileType>(assign.var()->type());
  auto src_tile = ir::As<ir::TileType>(src->type());
  if (lhs_tile == nullptr || src_tile == nullptr) return nullptr;
  ir::MemRefPtr lhs_mem = TileMemRef(lhs_tile);
  ir::MemRefPtr src_mem = TileMemRef(src_tile);
  if (lhs_mem == nullptr || lhs_mem != src_mem) return nullptr;
  if (lhs_tile->shape().size() != src_tile->shape().size()) return nullptr;
  BufSignature lhs_sig = SignatureOf(*lhs_tile, *lhs_mem);
  if (lhs_sig.rows < 0 || lhs_sig.cols < 0) return nullptr;  // not a static buffer
  if (!(lhs_sig == SignatureOf(*src_tile, *src_mem))) return nullptr;
  return src;
}

class Folder : public ir::IRMutator {
 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    ir::StmtPtr base = IRMutator::MutateAssignStmt(stmt);
    auto assign = ir::As<ir::AssignStmt>(base);
    if (assign == nullptr) return base;
    ir::VarPtr src = NoOpReshapeSource(*assign);
    if (src == nullptr) return base;
    return ir::MakeNode<ir::AssignStmt>(assign->var(), src, assign->span());
  }
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> FoldNoOpReshapePass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [](const ir::FunctionPtr& fn) -> absl::StatusOr<ir::StmtPtr> {
        if (!HoldsTiles(fn)) return fn->body();  // orchestration and opaque: unchanged
        Folder folder;
        return folder.MutateStmt(fn->body());
      });
}

std::unique_ptr<Pass> CreateFoldNoOpReshapePass() {
  return std::make_unique<FoldNoOpReshapePass>();
}

}  // namespace pto::passes
