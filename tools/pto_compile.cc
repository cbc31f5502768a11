// pto-compile: compile a PTO program to the C++ a backend links.
//
//   pto-compile FILE -o DIR [--templates=DIR] [--single-file=OUT.cc]
//               [--platform=a2a3|a5] [--world-size=N]
// (`pto-compile --help`, generated from the ABSL_FLAG definitions below)
//
// Exit status: 0 success, 1 user error (diagnostics on stderr), 2 usage or
// internal error.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/builtin_kernels.h"
#include "absl/strings/str_cat.h"
#include "compiler/passes/target.h"
#include "runtime/device/comm_context.h"
#include "tools/cli_flags.h"
#include "tools/compile_program.h"
#include "tools/dyn_dims.h"

ABSL_FLAG(std::string, o, "", "DIR: write the bundle under DIR (created)");
ABSL_FLAG(std::string, single_file, "",
          "OUT.cc: also write program.cc to OUT.cc (for build rules whose outputs must be "
          "known in advance)");
ABSL_FLAG(std::string, templates, "runtime/builtins",
          "DIR: root of the builtin template packages");
ABSL_FLAG(std::string, platform, "",
          "NAME: compile for a2a3 (910B) or a5 (950): passes reject what would exceed its "
          "limits; empty: no platform limits are checked (the pto_program rule passes "
          "a2a3 unless told otherwise)");

ABSL_FLAG(int32_t, world_size, 0,
          "N: compile for N ranks, as pto-run --ranks=N does: every pld.world_size() but the "
          "bound of the HOST dispatch loop becomes N, so shapes written with it are static; "
          "0: the world size stays a run-time value");

namespace {

constexpr char kAbout[] = R"(Parses a PTO program (docs/language.md), runs the default pipeline with the IR
verified before and after every pass, and writes the generated C++ bundle
under DIR:

  host/<host_fn>.cpp                      HOST orchestration
                                          (host_orchestration_entry)
  next_levels/<pipeline>/orchestration/<pipeline>.cpp
                                          chip orchestration of each chip
                                          pipeline (aicpu_orchestration_entry)
  next_levels/<pipeline>/kernel_config.textproto
                                          its kernel config (func_id order)
  next_levels/<pipeline>/kernels/aiv/<builtin>.cpp
                                          CHIP-rail builtin kernels, rendered
  next_levels/<variant>/...               HOST-rail builtin entries, kernels
                                          and kernel configs, rendered
  kernels/aiv/<kernel>.cpp                user InCore/AIV kernels
                                          (pto::kernels::<kernel>)
  program.cc                              everything above that a backend
                                          links, as one translation unit, plus
                                          the registration of the callables

program.cc defines

  absl::Status host_orchestration_entry(pto::rt::Host&,
      const std::map<std::string, pto::rt::ChipCallable>& callables,
      const std::vector<pto::rt::Tensor>& <param>...);   (at global scope when
      the program has one HOST function, else in pto_gen::host_<fn>)
  std::map<std::string, pto::rt::ChipCallable> pto::generated::Callables();
  absl::Status pto::generated::RunHost(pto::rt::Host&,
      const std::vector<std::vector<pto::rt::Tensor>>& params);
                                          (one HOST function only: its params
                                          in order, each one tensor per device)

Callables() holds every chip pipeline by function name (entry + kernels in
its kernel config's func_id order); HOST-rail builtin variants are not in it
(link their runtime/builtins entries and add them by entry symbol). Each
chip orchestration keeps its symbols in its own namespace
pto_gen::chip_<pipeline>, and each user kernel's helpers get their own
namespace, so the pieces never collide.
)";

const pto::tools::ToolInfo& Info() {
  static const pto::tools::ToolInfo* info = new pto::tools::ToolInfo{
      "pto-compile", "FILE -o DIR [flags]", kAbout,
      "exit status: 0 success; 1 the program has an error or cannot be read (diagnostics\n"
      "on stderr, as FILE:LINE:COL: error: MESSAGE); 2 usage error or internal compiler\n"
      "error (docs/errors.md).\n",
      __FILE__};
  return *info;
}

struct Options {
  std::string input;
  std::string output_dir;
  std::string single_file;
  std::string templates;
  pto::passes::Target target;
  int world_size = 0;
};

// Returns -1 to continue, or an exit status.
int ParseArgs(int argc, char** argv, Options* opts) {
  std::vector<std::string> positional;
  if (int rc = pto::tools::ParseCommandLine(argc, argv, Info(), &positional); rc >= 0) return rc;
  if (positional.empty()) return pto::tools::UsageError(Info(), "no input file");
  opts->input = positional[0];
  opts->output_dir = absl::GetFlag(FLAGS_o);
  opts->single_file = absl::GetFlag(FLAGS_single_file);
  opts->templates = absl::GetFlag(FLAGS_templates);
  if (const std::string platform = absl::GetFlag(FLAGS_platform); !platform.empty()) {
    absl::StatusOr<pto::passes::Target> target = pto::passes::TargetForPlatform(platform);
    if (!target.ok()) return pto::tools::UsageError(Info(), target.status().message());
    opts->target = *target;
  }
  opts->world_size = absl::GetFlag(FLAGS_world_size);
  if (opts->world_size < 0 || opts->world_size > pto::kCommMaxDomainRanks) {
    return pto::tools::UsageError(
        Info(), absl::StrCat("--world-size=", opts->world_size, ": a domain holds 1 to ",
                             pto::kCommMaxDomainRanks, " ranks (0: decided at run time)"));
  }
  if (opts->output_dir.empty() && opts->single_file.empty()) {
    return pto::tools::UsageError(Info(), "no output (-o DIR or --single-file=OUT.cc)");
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  pto::tools::CompiledProgram compiled;
  pto::tools::Specialize specialize = nullptr;
  if (opts.world_size > 0) {
    specialize = [n = opts.world_size](const pto::ir::ProgramPtr& p) {
      return pto::tools::run::SpecializeDynDims(p, {}, n);
    };
  }
  if (int rc = pto::tools::CompileProgram("pto-compile", opts.input, opts.target, opts.templates,
                                          &compiled, specialize);
      rc != 0) {
    return rc;
  }
  const pto::codegen::Bundle& bundle = compiled.bundle;
  if (!opts.output_dir.empty()) {
    if (absl::Status s = pto::codegen::WriteBundle(bundle, opts.output_dir); !s.ok()) {
      std::cerr << "pto-compile: " << s.message() << "\n";
      return 2;
    }
  }
  if (!opts.single_file.empty()) {
    std::ofstream f(opts.single_file, std::ios::binary);
    f << bundle.at("program.cc");
    if (!f) {
      std::cerr << "pto-compile: cannot write '" << opts.single_file << "'\n";
      return 2;
    }
  }
  return 0;
}
