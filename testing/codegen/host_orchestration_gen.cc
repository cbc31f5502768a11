// Writes the host orchestration of one HOST function of a .pto file after the
// default pipeline: host_orchestration_gen FILE FUNCTION OUT.
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/status/statusor.h"
#include "compiler/codegen/host_orchestration.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: host_orchestration_gen FILE FUNCTION OUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgramText(argv[1], text.str());
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
  absl::StatusOr<std::string> code = pto::codegen::GenerateHostOrchestration(*lowered, argv[2]);
  if (!code.ok()) {
    std::cerr << code.status() << "\n";
    return 1;
  }
  std::ofstream(argv[3]) << *code;
  return 0;
}
