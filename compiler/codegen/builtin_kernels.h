// Builtin kernels by template rendering (docs/codegen.md;
// seed 000 "Kernel 源码：一份实现，两条通路"). Both rails render the same
// kernel.cpp.in with the same values, so their kernels are byte-identical.
#ifndef PTO_COMPILER_CODEGEN_BUILTIN_KERNELS_H_
#define PTO_COMPILER_CODEGEN_BUILTIN_KERNELS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/template_render.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// Generated files: path relative to the build root -> text.
using Bundle = std::map<std::string, std::string>;

struct BuiltinRenderOptions {
  // The `{{runtime}}` of HOST-rail templates: the runtime kind (§4.11).
  std::string runtime = "tensormap_and_ringbuffer";
};

// A HOST-rail builtin dispatch variant (§3.11 BuiltinNextLevelSpec).
struct BuiltinVariant {
  std::string op_name;       // "builtin.tensor.all_to_all_v"
  std::string variant;       // "builtin.tensor.all_to_all_v__fp32"
  std::string entry;         // variant with non-[A-Za-z0-9_] -> '_'
  std::string kernel_name;   // entry + "_kernel"
  std::string template_dir;  // the op's package handle
  TemplateVars vars;         // the op's template vars (dtype_cpp, ...)
};

// Every character outside [A-Za-z0-9_] replaced by '_'.
std::string SanitizeSymbol(std::string_view name);

// The C++ element type `{{dtype_cpp}}` stands for ("float", "int8_t", ...);
// nullopt for a dtype no kernel template handles.
std::optional<std::string_view> DTypeCpp(ir::DataType dtype);

// The variant of a builtin.tensor.* call (§3.11 "Codegen of a lowered builtin
// call"). Located user error at the call for a dtype without a C++ type, an
// internal error for a call that is not a registered builtin.
absl::StatusOr<BuiltinVariant> HostBuiltinVariant(const ir::CallPtr& call);

// Renders the builtin kernels of a lowered program:
// * CHIP rail: every function with `builtin_template_dir` gets its package's
//   kernel.cpp.in, rendered with `builtin_template_vars` (comma-separated
//   key=value) and `template_package`, at
//   next_levels/<caller>/kernels/aiv/<function>.cpp for each function that
//   calls it (the calling chip pipeline's sub-build).
// * HOST rail: every builtin.tensor.* variant (once) gets every *.in file of
//   its package under next_levels/<variant>/: entry.cpp.in ->
//   orchestration/<entry>.cpp, kernel.cpp.in -> kernels/aiv/<kernel_name>.cpp,
//   other X.in -> X (so kernel_config.*.in -> kernel_config.*).
// Template errors are located user errors at the function (CHIP) or the
// call (HOST).
absl::StatusOr<Bundle> RenderBuiltinKernels(const ir::ProgramPtr& program,
                                            const TemplateSource& templates,
                                            const BuiltinRenderOptions& options = {});

// Writes every file of `bundle` under `dir`, creating directories. A path
// that is absolute or climbs out with ".." is InvalidArgument.
absl::Status WriteBundle(const Bundle& bundle, const std::string& dir);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_BUILTIN_KERNELS_H_
