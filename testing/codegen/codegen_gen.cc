// Writes one generated piece of a .pto file after the default pipeline:
//   codegen_gen kernel|chip|host FILE FUNCTION OUT
// kernel: the kernel of an InCore/AIV function; chip: the orchestration of a
// CHIP pipeline; host: the orchestration of a HOST function.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/chip_orchestration.h"
#include "compiler/codegen/host_orchestration.h"
#include "compiler/codegen/kernel_codegen.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"

namespace {

absl::StatusOr<std::string> Generate(const std::string& kind, const pto::ir::ProgramPtr& program,
                                     const std::string& function) {
  if (kind == "kernel") return pto::codegen::GenerateKernel(program, function);
  if (kind == "chip") return pto::codegen::GenerateChipOrchestration(program, function);
  return pto::codegen::GenerateHostOrchestration(program, function);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc == 5 ? argv[1] : "";
  if (kind != "kernel" && kind != "chip" && kind != "host") {
    std::cerr << "usage: codegen_gen kernel|chip|host FILE FUNCTION OUT\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgramText(argv[2], text.str());
  pto::passes::PassManager pm;
  absl::Status added = pm.AddPipeline("default");
  if (!program.ok() || !added.ok()) {
    std::cerr << (program.ok() ? added : program.status()) << "\n";
    return 1;
  }
  absl::StatusOr<pto::ir::ProgramPtr> lowered = pm.Run(*program);
  if (!lowered.ok()) {
    std::cerr << lowered.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> code = Generate(kind, *lowered, argv[3]);
  if (!code.ok()) {
    std::cerr << code.status() << "\n";
    return 1;
  }
  std::ofstream(argv[4]) << *code;
  return 0;
}
