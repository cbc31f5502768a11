#include "tools/compile_program.h"

#include <iostream>
#include <utility>

#include "absl/status/statusor.h"
#include "compiler/codegen/program_codegen.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "tools/driver_util.h"

namespace pto::tools {

int CompileProgram(const std::string& tool, const std::string& input, const passes::Target& target,
                   const std::string& templates, CompiledProgram* out,
                   const Specialize& specialize) {
  passes::PassManagerOptions pm_options;
  pm_options.verify_each = true;
  pm_options.dump = &std::cerr;
  pm_options.target = target;
  passes::PassManager pm(pm_options);
  if (absl::Status s = pm.AddPipeline("default"); !s.ok()) {
    std::cerr << tool << ": " << s.message() << "\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<const SourceFile>> file = ReadSource(input);
  if (!file.ok()) return Report(tool, file.status());
  out->file = *std::move(file);
  absl::StatusOr<ir::ProgramPtr> program = parser::ParseProgram(out->file, {});
  if (!program.ok()) return Report(program.status(), out->file.get());
  if (absl::Status s = ir::VerifyProgram(*program); !s.ok()) return Report(s, out->file.get());
  if (specialize != nullptr) {
    program = specialize(*program);
    if (!program.ok()) return Report(program.status(), out->file.get());
  }
  absl::StatusOr<ir::ProgramPtr> lowered = pm.Run(*program);
  if (!lowered.ok()) return Report(lowered.status(), out->file.get());
  out->lowered = *lowered;
  codegen::DirectoryTemplateSource source(templates);
  absl::StatusOr<codegen::Bundle> bundle = codegen::GenerateProgram(*lowered, source);
  if (!bundle.ok()) return Report(bundle.status(), out->file.get());
  out->bundle = *std::move(bundle);
  return 0;
}

absl::StatusOr<ir::ProgramPtr> ParseProgramFile(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const SourceFile>> file = ReadSource(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<ir::ProgramPtr> program = parser::ParseProgram(*file, {});
  if (!program.ok()) return program.status();
  if (absl::Status s = ir::VerifyProgram(*program); !s.ok()) return s;
  return program;
}

}  // namespace pto::tools
