// Code generation of a whole lowered program: what pto-compile writes and
// what pto-run compiles.
#ifndef PTO_COMPILER_CODEGEN_PROGRAM_CODEGEN_H_
#define PTO_COMPILER_CODEGEN_PROGRAM_CODEGEN_H_

#include "absl/status/statusor.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// The bundle of `program` (after the default pipeline): rendered builtin
// kernels, HOST and chip orchestrations, kernel configs, user kernels, and
// "program.cc", all of it as one translation unit that defines
//
//   absl::Status host_orchestration_entry(pto::rt::Host&,
//       const std::map<std::string, pto::rt::ChipCallable>& callables,
//       const std::vector<pto::rt::Tensor>& <param>...);
//   std::map<std::string, pto::rt::ChipCallable> pto::generated::Callables();
//   absl::Status pto::generated::RunHost(pto::rt::Host&,
//       const std::vector<std::vector<pto::rt::Tensor>>& params);
//
// (RunHost only when the program has exactly one HOST function). Located
// user errors for constructs code generation does not support.
absl::StatusOr<Bundle> GenerateProgram(const ir::ProgramPtr& program,
                                       const TemplateSource& templates);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_PROGRAM_CODEGEN_H_
