#include "compiler/codegen/kernel_config.h"

#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/aic_kernel.h"
#include "compiler/codegen/chip_callees.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::codegen {
namespace {

// `[IN, OUT, ...]` over the tensor params; scalars (CommCtx, sizes) are not
// tensor args of the runtime's signature.
std::string Signature(const ir::Function& f) {
  std::string out = "[";
  bool first = true;
  for (size_t i = 0; i < f.params().size(); ++i) {
    if (ir::AsTensorTypeLike(f.params()[i]->type()) == nullptr) continue;
    pto::StrAppend(&out, first ? "" : ", ",
                   f.param_directions()[i] == ir::ParamDirection::kIn ? "IN" : "OUT");
    first = false;
  }
  return out + "]";
}

}  // namespace

absl::StatusOr<std::string> ChipKernelConfig(const ir::ProgramPtr& program,
                                             std::string_view pipeline, std::string_view runtime) {
  ir::FunctionPtr orch = program->GetFunction(pipeline);
  if (orch == nullptr) {
    return absl::NotFoundError(pto::StrCat("no function '", pipeline, "' in the program"));
  }
  std::string out = pto::StrCat(
      "# proto-file: runtime/builtins/kernel_config.proto\n"
      "# proto-message: pto.builtins.KernelConfig\n"
      "# Kernel config of chip pipeline ",
      pipeline,
      ".\n"
      "runtime_config {\n  runtime: \"",
      runtime,
      "\"\n  aicpu_thread_num: 0\n}\n"
      "orchestration {\n  source: \"orchestration/",
      pipeline,
      ".cpp\"\n  function_name: \"aicpu_orchestration_entry\"\n  signature: ", Signature(*orch),
      "\n}\n");
  int func_id = 0;
  for (const ChipCallee& callee : KernelCallees(*program, *orch)) {
    const std::string& name = callee.name;
    if (name == kAssembleKernel) {
      pto::StrAppend(&out, "kernels {\n  func_id: ", func_id++, "\n  name: \"", name,
                     "\"\n  source: \"kernels/aiv/", name,
                     ".cpp\"\n  core_type: AIV\n  signature: [OUT, IN]\n}\n");
      continue;
    }
    ir::FunctionPtr f = program->GetFunction(name);
    if (f == nullptr) {
      return InternalErrorF(callee.first_call->span(), "call of '", name, "', which is not in the program");
    }
    std::string_view core;
    switch (f->func_type()) {
      case ir::FunctionType::kAIC:
        core = "AIC";
        break;
      case ir::FunctionType::kAIV:
        core = "AIV";
        break;
      case ir::FunctionType::kInCore:
        // Cube work only (its tiles in the cube buffers): an AIC kernel.
        core = IsAicKernel(*f) ? "AIC" : "AIV";
        break;
      default:
        return UserErrorF(callee.first_call->span(), "'", name, "' called from chip pipeline '", pipeline,
                          "' is not a kernel (InCore, AIC or AIV function), so the pipeline's "
                          "kernel config cannot list it");
    }
    const std::string dir = core == "AIC" ? "aic" : "aiv";
    pto::StrAppend(&out, "kernels {\n  func_id: ", func_id++, "\n  name: \"", name,
                   "\"\n  source: \"kernels/", dir, "/", name, ".cpp\"\n  core_type: ", core,
                   "\n  signature: ", Signature(*f), "\n}\n");
  }
  return out;
}

}  // namespace pto::codegen
