// The kernels a chip orchestration submits, in func_id order: what its
// orchestration code (chip_orchestration.cc) and its kernel config
// (kernel_config.cc) must agree on.
#ifndef PTO_COMPILER_CODEGEN_CHIP_CALLEES_H_
#define PTO_COMPILER_CODEGEN_CHIP_CALLEES_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// The kernel that runs `pl.tensor.assemble` of a chip orchestration: a copy
// of the source into a box of the target (a pl.tensor.slice view aliases the
// box instead: FuseCreateAssembleToSlice makes one of a create assembled once).
inline constexpr char kAssembleKernel[] = "builtin_tensor_assemble";

struct ChipCallee {
  std::string name;
  ir::CallPtr first_call;  // where diagnostics about the callee point
};

// The functions `orch`'s body calls, first call first, with kAssembleKernel
// at the place of the first pl.tensor.assemble.
std::vector<ChipCallee> ChipCallees(const ir::Function& orch);

// The two kernels of a mixed kernel's Group (ExpandMixedKernel, pass 21),
// which one MIX task runs on a cluster's AIC and an AIV lane.
struct MixMembers {
  ir::FunctionPtr aic;
  ir::FunctionPtr aiv;
};

// The AIC and AIV functions `group`'s body calls; nullopt unless it calls
// exactly one of each.
std::optional<MixMembers> MixMembersOf(const ir::Program& program, const ir::Function& group);

// ChipCallees with each Group replaced by its AIC and AIV members: the
// kernels of the pipeline's kernel config, in func_id order.
std::vector<ChipCallee> KernelCallees(const ir::Program& program, const ir::Function& orch);

// The kernel source of kAssembleKernel: an include of the runtime's
// runtime/builtins/tensor_assemble/kernel.h, which defines
// `void pto::kernels::builtin_tensor_assemble(int64_t*)` (args[0] the target,
// args[1] the source, args[2 ..] the element offset of the box per target
// dim). The compiler carries no runtime code.
std::string AssembleKernelSource();

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_CHIP_CALLEES_H_
