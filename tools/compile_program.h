// The front half of the drivers that generate code (pto-compile's pipeline,
// reused by pto-run): read the program, parse, verify, run the default
// pipeline with every pass verified, generate the C++ bundle.
#ifndef PTO_TOOLS_COMPILE_PROGRAM_H_
#define PTO_TOOLS_COMPILE_PROGRAM_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/ir/function.h"
#include "compiler/passes/target.h"
#include "compiler/support/source.h"

namespace pto::tools {

struct CompiledProgram {
  std::shared_ptr<const SourceFile> file;
  ir::ProgramPtr lowered;  // after the default pipeline
  codegen::Bundle bundle;  // incl. "program.cc"
};

// Compiles `input` ("-" = stdin) for `target` with the builtin templates
// under `templates`. On failure prints the located diagnostic (or
// "<tool>: message") to stderr and returns the exit status (1 user error, 2
// internal or unreadable input); 0 on success.
// `specialize`, when given, rewrites the parsed and verified program before the
// pipeline (pto-run binds the dynamic dimensions there); its error is reported
// like a parse error.
using Specialize = std::function<absl::StatusOr<ir::ProgramPtr>(const ir::ProgramPtr&)>;
int CompileProgram(const std::string& tool, const std::string& input, const passes::Target& target,
                   const std::string& templates, CompiledProgram* out,
                   const Specialize& specialize = nullptr);

// The program in `path`, read, parsed and verified (no pipeline): for a
// driver that looks at a program before it compiles it (the Python door's
// choice among a program's CHIP orchestrations).
absl::StatusOr<ir::ProgramPtr> ParseProgramFile(const std::string& path);

}  // namespace pto::tools

#endif  // PTO_TOOLS_COMPILE_PROGRAM_H_
