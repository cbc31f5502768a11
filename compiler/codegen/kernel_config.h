// The kernel config of a chip pipeline's sub-build (docs/codegen.md
// §4.11, §4.12): which orchestration entry the chip runs and which kernels it
// submits, by func_id, in protobuf text of runtime/builtins/kernel_config.proto
// (pto.builtins.KernelConfig; compiler/ only writes the text, it does not link
// the runtime's proto).
#ifndef PTO_COMPILER_CODEGEN_KERNEL_CONFIG_H_
#define PTO_COMPILER_CODEGEN_KERNEL_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// The kernel config of `pipeline` (a CHIP orchestration of `program`):
// * orchestration: orchestration/<pipeline>.cpp, aicpu_orchestration_entry,
//   the directions of its tensor params;
// * kernels: every function the body calls, once, in order of first call;
//   func_id = that position (the contract with the orchestration's submits),
//   source kernels/<aiv|aic>/<name>.cpp, core type AIC for FunctionType.AIC and
//   AIV for AIV and InCore, signature = its tensor params' directions.
// Directions are the runtime's ArgDirection: In -> IN, Out and InOut -> OUT.
// A callee that is not a kernel (an orchestration, group, ...) is a located
// user error at the call; an unknown pipeline is NotFound.
absl::StatusOr<std::string> ChipKernelConfig(const ir::ProgramPtr& program,
                                             std::string_view pipeline,
                                             std::string_view runtime = "tensormap_and_ringbuffer");

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_KERNEL_CONFIG_H_
