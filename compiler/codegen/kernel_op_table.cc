#include "compiler/codegen/kernel_op_table.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace pto::codegen::kernel_internal {
namespace {

using F = OpFamily;

// Keyed by PyPTO's canonical operator names (the registry's, compiler/ops).
const absl::flat_hash_map<std::string_view, KernelOp>& Table() {
  static const auto* table = new absl::flat_hash_map<std::string_view, KernelOp>{
      // GM and tile memory.
      {"pl.tile.load", {F::kLoad, ""}},
      {"pl.tile.store", {F::kStore, ""}},
      {"pld.tile.remote_load", {F::kRemoteLoad, ""}},
      {"pl.tensor.read", {F::kTensorRead, ""}},
      {"pl.tensor.write", {F::kTensorWrite, ""}},
      {"pl.tensor.reshape", {F::kTensorReshape, ""}},
      {"pl.tensor.dim", {F::kTensorDim, ""}},
      {"pld.system.get_comm_ctx", {F::kCommInfo, ""}},
      {"pld.system.rank", {F::kCommInfo, "->rankId"}},
      {"pld.system.nranks", {F::kCommInfo, "->rankNum"}},
      {"pl.tensor.get_block_idx", {F::kBlockInfo, "get_block_idx"}},
      {"pl.tile.get_block_idx", {F::kBlockInfo, "get_block_idx"}},
      {"pl.tensor.get_block_num", {F::kBlockInfo, "get_block_num"}},
      {"pl.tile.get_block_num", {F::kBlockInfo, "get_block_num"}},
      {"pl.tile.create", {F::kCreate, ""}},
      {"pl.tile.full", {F::kFull, "TEXPANDS"}},
      {"pl.tile.move", {F::kMove, "TMOV"}},
      {"pl.tile.cast", {F::kCast, "TCVT"}},
      // Unary.
      {"pl.tile.exp", {F::kUnary, "TEXP", {}, true}},
      {"pl.tile.log", {F::kUnary, "TLOG", {}, true}},
      {"pl.tile.sqrt", {F::kUnary, "TSQRT", {}, true}},
      {"pl.tile.rsqrt", {F::kUnary, "TRSQRT", {}, true}},
      {"pl.tile.sin", {F::kUnary, "TSIN", {}, true}},
      {"pl.tile.cos", {F::kUnary, "TCOS", {}, true}},
      {"pl.tile.recip", {F::kUnary, "TRECIP", {}, true}},
      {"pl.tile.abs", {F::kUnary, "TABS"}},
      {"pl.tile.not_", {F::kUnary, "TNOT"}},
      {"pl.tile.neg", {F::kComposite, "neg"}},
      {"pl.tile.relu", {F::kComposite, "relu"}},
      // Binary, with the scalar form a scalar rhs takes.
      {"pl.tile.add", {F::kBinary, "TADD", "TADDS"}},
      {"pl.tile.sub", {F::kBinary, "TSUB", "TADDS", false, true}},
      {"pl.tile.mul", {F::kBinary, "TMUL", "TMULS"}},
      {"pl.tile.div", {F::kBinary, "TDIV", "TDIVS", true}},
      {"pl.tile.fmod", {F::kBinary, "TFMOD", "TFMODS", true}},
      {"pl.tile.maximum", {F::kBinary, "TMAX", "TMAXS"}},
      {"pl.tile.minimum", {F::kBinary, "TMIN", "TMINS"}},
      {"pl.tile.adds", {F::kScalarBinary, "TADDS"}},
      {"pl.tile.subs", {F::kScalarBinary, "TADDS", {}, false, true}},
      {"pl.tile.muls", {F::kScalarBinary, "TMULS"}},
      {"pl.tile.divs", {F::kScalarBinary, "TDIVS", {}, true}},
      {"pl.tile.fmods", {F::kScalarBinary, "TFMODS", {}, true}},
      {"pl.tile.maximums", {F::kScalarBinary, "TMAXS"}},
      {"pl.tile.minimums", {F::kScalarBinary, "TMINS"}},
      // Reductions.
      {"pl.tile.row_sum", {F::kReduce, "kSum", "TROWREDUCE"}},
      {"pl.tile.row_max", {F::kReduce, "kMax", "TROWREDUCE"}},
      {"pl.tile.row_min", {F::kReduce, "kMin", "TROWREDUCE"}},
      {"pl.tile.row_prod", {F::kReduce, "kProd", "TROWREDUCE"}},
      {"pl.tile.col_sum", {F::kReduce, "kSum", "TCOLREDUCE"}},
      {"pl.tile.col_max", {F::kReduce, "kMax", "TCOLREDUCE"}},
      {"pl.tile.col_min", {F::kReduce, "kMin", "TCOLREDUCE"}},
      {"pl.tile.col_prod", {F::kReduce, "kProd", "TCOLREDUCE"}},
      {"pl.tile.row_argmax", {F::kArgReduce, "true"}},
      {"pl.tile.row_argmin", {F::kArgReduce, "false"}},
      // Row / col expansion.
      {"pl.tile.row_expand", {F::kExpand, "kCopy", "false"}},
      {"pl.tile.row_expand_add", {F::kExpand, "kAdd", "false"}},
      {"pl.tile.row_expand_sub", {F::kExpand, "kSub", "false"}},
      {"pl.tile.row_expand_mul", {F::kExpand, "kMul", "false"}},
      {"pl.tile.row_expand_div", {F::kExpand, "kDiv", "false", true}},
      {"pl.tile.row_expand_max", {F::kExpand, "kMax", "false"}},
      {"pl.tile.row_expand_min", {F::kExpand, "kMin", "false"}},
      {"pl.tile.row_expand_expdif", {F::kExpand, "kExpDif", "false", true}},
      {"pl.tile.col_expand", {F::kExpand, "kCopy", "true"}},
      {"pl.tile.col_expand_add", {F::kExpand, "kAdd", "true"}},
      {"pl.tile.col_expand_sub", {F::kExpand, "kSub", "true"}},
      {"pl.tile.col_expand_mul", {F::kExpand, "kMul", "true"}},
      {"pl.tile.col_expand_div", {F::kExpand, "kDiv", "true", true}},
      {"pl.tile.col_expand_max", {F::kExpand, "kMax", "true"}},
      {"pl.tile.col_expand_min", {F::kExpand, "kMin", "true"}},
      {"pl.tile.col_expand_expdif", {F::kExpand, "kExpDif", "true", true}},
      // Layout.
      {"pl.tile.fillpad", {F::kFillPad, "TFILLPAD"}},
      {"pl.tile.transpose", {F::kTranspose, "TTRANS"}},
      {"pl.tile.slice", {F::kSlice, "TCOPYBOX"}},
      {"pl.tile.assemble", {F::kAssemble, "TCOPYBOX"}},
      {"pl.tile.reshape", {F::kTileReshape, "TMOV"}},
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

const KernelOp* FindKernelOp(std::string_view op_name) {
  auto it = Table().find(op_name);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string_view> KernelOpNames() {
  std::vector<std::string_view> names;
  for (const auto& [name, op] : Table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pto::codegen::kernel_internal
