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
// Supported: scalar arithmetic and casts; for loops with iter args and if/else
// with yields; pl.tile.load/store (one TLOAD/TSTORE per contiguous run, through
// a UB tile per tile-valued assignment, bump-allocated); pl.tile.create/full;
// pl.tile.add/sub/mul/maximum (tile or scalar rhs where the API has it), neg
// and relu; pl.tensor.read/write as ReadGm/WriteGm (each write is written back
// at once with dcci, so the cache model applies to reads);
// pl.system.cacheinvalid (whole data cache) and pl.system.fence (dsb); return
// of tensors. Tensor-valued variables (params, store/write results, iter args,
// yields) are TensorDesc pointers: every one aliases the GM buffer of the
// param it derives from, so a tensor iter arg updates that buffer in place.
// Anything else is the located user error "code generation does not support
// <construct> in a kernel yet"; an unknown function is NotFound.
absl::StatusOr<std::string> GenerateKernel(const ir::ProgramPtr& program,
                                           std::string_view function);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_KERNEL_CODEGEN_H_
