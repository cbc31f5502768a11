// Writes one generated piece of a .pto file after the default pipeline:
//   codegen_gen kernel|chip|host FILE FUNCTION OUT [PLATFORM]
// PLATFORM (a built-in one, e.g. a2a3) gives the passes its capacities
// (AutoTileMatmulL0's L0 buffers); without it the pipeline has no target.
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
#include "compiler/passes/target.h"

namespace {

absl::StatusOr<std::string> Generate(const std::string& kind, const pto::ir::ProgramPtr& program,
                                     const std::string& function) {
  if (kind == "kernel") return pto::codegen::GenerateKernel(program, function);
  if (kind == "chip") return pto::codegen::GenerateChipOrchestration(program, function);
  return pto::codegen::GenerateHostOrchestration(program, function);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc == 5 || argc == 6 ? argv[1] : "";
  if (kind != "kernel" && kind != "chip" && kind != "host") {
    std::cerr << "usage: codegen_gen kernel|chip|host FILE FUNCTION OUT [PLATFORM]\n";
    return 2;
  }
  pto::passes::PassManagerOptions options;
  if (argc == 6) {
    absl::StatusOr<pto::passes::Target> target = pto::passes::TargetForPlatform(argv[5]);
    if (!target.ok()) {
      std::cerr << target.status() << "\n";
      return 2;
    }
    options.target = *target;
  }
  std::ifstream in(argv[2]);
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgramText(argv[2], text.str());
  pto::passes::PassManager pm(options);
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
