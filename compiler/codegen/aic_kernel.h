// Which kernels run on the AIC (the cube core): an InCore function whose
// tiles are all in the cube buffers (InferTileMemorySpace gave them Mat,
// Left, Right, Acc or Bias), or one declared FunctionType.AIC.
#ifndef PTO_COMPILER_CODEGEN_AIC_KERNEL_H_
#define PTO_COMPILER_CODEGEN_AIC_KERNEL_H_

#include "compiler/ir/function.h"

namespace pto::codegen {

bool IsAicKernel(const ir::Function& fn);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_AIC_KERNEL_H_
