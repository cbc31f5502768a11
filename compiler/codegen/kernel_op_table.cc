#include "compiler/codegen/kernel_op_table.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace pto::codegen::kernel_internal {
namespace {

using F = OpFamily;

using ir::OpId;

// Keyed by operator id (compiler/ir/op_list.inc names each operator once).
// A new kernel operator is one row here.
const absl::flat_hash_map<OpId, KernelOp>& Table() {
  static const auto* table = new absl::flat_hash_map<OpId, KernelOp>{
      // GM and tile memory.
      {OpId::kPlTileLoad, {F::kLoad, ""}},
      {OpId::kPlTileStore, {F::kStore, ""}},
      {OpId::kPldTileRemoteLoad, {F::kRemoteLoad, ""}},
      {OpId::kPlTensorRead, {F::kTensorRead, ""}},
      {OpId::kPlTensorWrite, {F::kTensorWrite, ""}},
      {OpId::kPlTensorReshape, {F::kTensorReshape, ""}},
      {OpId::kPlTensorDim, {F::kTensorDim, ""}},
      {OpId::kPldSystemGetCommCtx, {F::kCommInfo, ""}},
      {OpId::kPldSystemRank, {F::kCommInfo, "->rankId"}},
      {OpId::kPldSystemNranks, {F::kCommInfo, "->rankNum"}},
      {OpId::kPlTensorGetBlockIdx, {F::kBlockInfo, "get_block_idx"}},
      {OpId::kPlTileGetBlockIdx, {F::kBlockInfo, "get_block_idx"}},
      {OpId::kPlTensorGetBlockNum, {F::kBlockInfo, "get_block_num"}},
      {OpId::kPlTileGetBlockNum, {F::kBlockInfo, "get_block_num"}},
      {OpId::kPlTileGetSubblockIdx, {F::kBlockInfo, "get_subblockid"}},
      {OpId::kPlTileCreate, {F::kCreate, ""}},
      {OpId::kPlTileFull, {F::kFull, "TEXPANDS"}},
      {OpId::kPlTileMove, {F::kMove, "TMOV"}},
      {OpId::kPlTileCast, {F::kCast, "TCVT"}},
      // Unary.
      {OpId::kPlTileExp, {F::kUnary, "TEXP", {}, true}},
      {OpId::kPlTileLog, {F::kUnary, "TLOG", {}, true}},
      {OpId::kPlTileSqrt, {F::kUnary, "TSQRT", {}, true}},
      {OpId::kPlTileRsqrt, {F::kUnary, "TRSQRT", {}, true}},
      {OpId::kPlTileSin, {F::kUnary, "TSIN", {}, true}},
      {OpId::kPlTileCos, {F::kUnary, "TCOS", {}, true}},
      {OpId::kPlTileRecip, {F::kUnary, "TRECIP", {}, true}},
      {OpId::kPlTileAbs, {F::kUnary, "TABS"}},
      {OpId::kPlTileNot, {F::kUnary, "TNOT"}},
      {OpId::kPlTileNeg, {F::kComposite, "neg"}},
      {OpId::kPlTileRelu, {F::kComposite, "relu"}},
      // Binary, with the scalar form a scalar rhs takes.
      {OpId::kPlTileAdd, {F::kBinary, "TADD", "TADDS"}},
      {OpId::kPlTileSub, {F::kBinary, "TSUB", "TADDS", false, true}},
      {OpId::kPlTileMul, {F::kBinary, "TMUL", "TMULS"}},
      {OpId::kPlTileDiv, {F::kBinary, "TDIV", "TDIVS", true}},
      {OpId::kPlTileFmod, {F::kBinary, "TFMOD", "TFMODS", true}},
      {OpId::kPlTileMaximum, {F::kBinary, "TMAX", "TMAXS"}},
      {OpId::kPlTileMinimum, {F::kBinary, "TMIN", "TMINS"}},
      {OpId::kPlTileAdds, {F::kScalarBinary, "TADDS"}},
      {OpId::kPlTileSubs, {F::kScalarBinary, "TADDS", {}, false, true}},
      {OpId::kPlTileMuls, {F::kScalarBinary, "TMULS"}},
      {OpId::kPlTileDivs, {F::kScalarBinary, "TDIVS", {}, true}},
      {OpId::kPlTileFmods, {F::kScalarBinary, "TFMODS", {}, true}},
      {OpId::kPlTileMaximums, {F::kScalarBinary, "TMAXS"}},
      {OpId::kPlTileMinimums, {F::kScalarBinary, "TMINS"}},
      // Reductions.
      {OpId::kPlTileRowSum, {F::kReduce, "kSum", "TROWREDUCE"}},
      {OpId::kPlTileRowMax, {F::kReduce, "kMax", "TROWREDUCE"}},
      {OpId::kPlTileRowMin, {F::kReduce, "kMin", "TROWREDUCE"}},
      {OpId::kPlTileRowProd, {F::kReduce, "kProd", "TROWREDUCE"}},
      {OpId::kPlTileColSum, {F::kReduce, "kSum", "TCOLREDUCE"}},
      {OpId::kPlTileColMax, {F::kReduce, "kMax", "TCOLREDUCE"}},
      {OpId::kPlTileColMin, {F::kReduce, "kMin", "TCOLREDUCE"}},
      {OpId::kPlTileColProd, {F::kReduce, "kProd", "TCOLREDUCE"}},
      {OpId::kPlTileRowArgmax, {F::kArgReduce, "true"}},
      {OpId::kPlTileRowArgmin, {F::kArgReduce, "false"}},
      // Row / col expansion.
      {OpId::kPlTileRowExpand, {F::kExpand, "kCopy", "false"}},
      {OpId::kPlTileRowExpandAdd, {F::kExpand, "kAdd", "false"}},
      {OpId::kPlTileRowExpandSub, {F::kExpand, "kSub", "false"}},
      {OpId::kPlTileRowExpandMul, {F::kExpand, "kMul", "false"}},
      {OpId::kPlTileRowExpandDiv, {F::kExpand, "kDiv", "false", true}},
      {OpId::kPlTileRowExpandMax, {F::kExpand, "kMax", "false"}},
      {OpId::kPlTileRowExpandMin, {F::kExpand, "kMin", "false"}},
      {OpId::kPlTileRowExpandExpdif, {F::kExpand, "kExpDif", "false", true}},
      {OpId::kPlTileColExpand, {F::kExpand, "kCopy", "true"}},
      {OpId::kPlTileColExpandAdd, {F::kExpand, "kAdd", "true"}},
      {OpId::kPlTileColExpandSub, {F::kExpand, "kSub", "true"}},
      {OpId::kPlTileColExpandMul, {F::kExpand, "kMul", "true"}},
      {OpId::kPlTileColExpandDiv, {F::kExpand, "kDiv", "true", true}},
      {OpId::kPlTileColExpandMax, {F::kExpand, "kMax", "true"}},
      {OpId::kPlTileColExpandMin, {F::kExpand, "kMin", "true"}},
      {OpId::kPlTileColExpandExpdif, {F::kExpand, "kExpDif", "true", true}},
      // Layout.
      {OpId::kPlTileFillpad, {F::kFillPad, "TFILLPAD"}},
      {OpId::kPlTileTranspose, {F::kTranspose, "TTRANS"}},
      {OpId::kPlTileSlice, {F::kSlice, "TCOPYBOX"}},
      {OpId::kPlTileAssemble, {F::kAssemble, "TCOPYBOX"}},
      {OpId::kPlTileReshape, {F::kTileReshape, "TMOV"}},
  };
  return *table;
}

}  // namespace

size_t MinOperands(OpFamily family) {
  switch (family) {
    case F::kCreate:
    case F::kBlockInfo:
      return 0;
    case F::kCommInfo:
    case F::kMove:
    case F::kCast:
    case F::kUnary:
    case F::kComposite:
    case F::kReduce:
    case F::kArgReduce:
    case F::kFillPad:
    case F::kTileReshape:
      return 1;
    case F::kTensorRead:
    case F::kTensorReshape:
    case F::kTensorDim:
    case F::kFull:
    case F::kBinary:
    case F::kScalarBinary:
    case F::kExpand:
      return 2;
    case F::kLoad:
    case F::kStore:
    case F::kTensorWrite:
    case F::kTranspose:
    case F::kSlice:
    case F::kAssemble:
      return 3;
    case F::kRemoteLoad:
      return 4;
  }
  return 0;
}

const KernelOp* FindKernelOp(ir::OpId id) {
  auto it = Table().find(id);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<ir::OpId> KernelOpIds() {
  std::vector<ir::OpId> ids;
  for (const auto& [id, op] : Table()) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace pto::codegen::kernel_internal
