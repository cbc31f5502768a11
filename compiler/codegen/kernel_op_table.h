// The operators a kernel can contain, by id: which emitter family of the
// kernel generator (kernel_generator.h) writes each one, with the kernel API
// call it becomes. The one place that maps operators to kernel code.
#ifndef PTO_COMPILER_CODEGEN_KERNEL_OP_TABLE_H_
#define PTO_COMPILER_CODEGEN_KERNEL_OP_TABLE_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "compiler/ir/op_id.h"

namespace pto::codegen::kernel_internal {

enum class OpFamily {
  kLoad,          // pl.tile.load
  kStore,         // pl.tile.store
  kRemoteLoad,    // pld.tile.remote_load (value form)
  kTensorRead,    // pl.tensor.read
  kTensorWrite,   // pl.tensor.write
  kTensorReshape, // pl.tensor.reshape: a descriptor over the same GM
  kTensorDim,     // pl.tensor.dim
  kCommInfo,      // pld.system.get_comm_ctx / rank / nranks
  kBlockInfo,     // get_block_idx / get_block_num: the SPMD launch's LocalContext
  kCreate,        // pl.tile.create: a tile, no code
  kFull,          // pl.tile.full: TEXPANDS
  kMove,          // pl.tile.move: TMOV
  kCast,          // pl.tile.cast: TCVT
  kUnary,         // api(dst, a)
  kComposite,     // neg / relu, composed of other calls
  kBinary,        // api(dst, a, b), or scalar_api(dst, a, s) for a scalar rhs
  kScalarBinary,  // api(dst, a, s)
  kReduce,        // TROWREDUCE / TCOLREDUCE(kind, dst, src, dims)
  kArgReduce,     // TROWARG(max, dst, src, dims)
  kExpand,        // TEXPAND(kind, by_col, dst, src, vec, dims)
  kFillPad,       // TFILLPAD(dst, src, dims, pad)
  kTranspose,     // TTRANS(dst, src, dims)
  kSlice,         // TCOPYBOX of a sub-box out of the source
  kAssemble,      // TMOV of the target, TCOPYBOX of the source into it
  kTileReshape,   // TMOV over the same elements
};

struct KernelOp {
  OpFamily family;
  // The kernel API function (e.g. "TEXP"), or the reduce / expand kind.
  std::string_view api;
  // kBinary: the scalar form; kReduce / kArgReduce / kExpand: the API
  // function or flag the kind goes with.
  std::string_view arg = {};
  // Float tiles only (an integer division of the padding's zeros is
  // undefined; the unary math has no integer form).
  bool float_only = false;
  // kBinary / kScalarBinary: the scalar is negated first (sub by a scalar is
  // an add of its negation).
  bool negate_scalar = false;
};

// The operands every call of a family has (its emitter reads them).
size_t MinOperands(OpFamily family);

// The entry of operator `id`, or nullptr when kernels cannot contain it.
const KernelOp* FindKernelOp(ir::OpId id);

// Every operator in the table, sorted by id.
std::vector<ir::OpId> KernelOpIds();

}  // namespace pto::codegen::kernel_internal

#endif  // PTO_COMPILER_CODEGEN_KERNEL_OP_TABLE_H_
