// C++ source of a user InCore/AIV kernel from its tensor and tile ops, against
// the kernel API of runtime/device/device_api.h (runtime-and-sim.md §1.8).
// compiler/ only writes the text; it #includes runtime/device headers but does
// not link them.
#ifndef PTO_COMPILER_CODEGEN_KERNEL_CODEGEN_H_
#define PTO_COMPILER_CODEGEN_KERNEL_CODEGEN_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// One translation unit defining
//
//   namespace pto::kernels { void <function>(int64_t* args); }
//
// with the kernel entry ABI of kernel_abi.h: the tensor params (Tensor and
// DistributedTensor, the local window) are args[0..T-1] in param order, as
// TensorDesc pointers whose shape gives the row-major strides (a rank that
// differs from the declared one faults); the CommCtx and scalar params follow
// in param order.
//
// Supported: scalar arithmetic and casts; for loops with iter args, while
// loops (`pl.while_` with `pl.cond`, or a plain `while c:`; the condition is
// re-evaluated before every iteration and may read GM with pl.tensor.read)
// and if/else with yields; pl.tile.load/store (one TLOAD/TSTORE per
// contiguous run, through a UB tile per tile-valued assignment at the
// address AllocateMemoryAddr gave its MemRef); pl.tile.move (TMOV, the copy
// MemoryReuse puts before a yield); pl.tile.create/full; the vector
// operators of kernel_op_table.h (unary math, binary and scalar-binary
// arithmetic, row / col reductions and expansions, fillpad, transpose,
// slice, assemble, reshape; docs/codegen.md lists them); pl.tensor.dim;
// atomic-add stores; pl.tensor.read/
// write as ReadGm/WriteGm (each write is written back at once with dcci, so
// the cache model applies to reads); pl.tensor.reshape (a descriptor of the
// new shape over the same GM); pl.system.cacheinvalid (whole data cache) and
// pl.system.fence (dsb); FP16 elements as pto::half, BF16 as pto::bfloat16;
// return of tensors; a
// value op used as a statement (its result unused).
//
// The InCore collective rail: everything LowerCompositeOps expands a kernel
// collective into. pld.system.get_comm_ctx/nranks/rank read the CommContext
// param MaterializeDistTensorCtx gave each window param (rankNum/rankId);
// pld.system.notify is TNOTIFY (AtomicAdd or Set) into the peer's cell of an
// INT32 window through CommRemotePtr, pld.system.wait is TWAIT (Eq or Ge) on
// this rank's own cell; pld.tile/tensor.put and .get move a box between a
// local tensor and the peer's window through the staging tile, as one
// TPUT/TGET when the box is contiguous on both sides (so the all_to_all_v
// sends exactly its clamped rows in one transfer per peer, like the builtin
// kernel) and one per innermost row otherwise; pld.tile.remote_load is a
// TLOAD of the peer's box, pld.tile.remote_store a TSTORE of a tile into it. Peers outside [0, rankNum) and remote accesses to
// tensors outside this rank's window fault at run time.
//
// Anything else is the located user error "code generation does not support
// <construct> in a kernel yet" (e.g. a put with an atomic mode, a tile or
// tensor op written inline as an operand); an unknown function is NotFound.
absl::StatusOr<std::string> GenerateKernel(const ir::ProgramPtr& program,
                                           std::string_view function);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_KERNEL_CODEGEN_H_
