// pto-compile: compile a PTO program to the C++ a backend links.
//
//   pto-compile FILE -o DIR [--templates=DIR] [--single-file=OUT.cc]
//               [--platform=a2a3|a5]
//
// Exit status: 0 success, 1 user error (diagnostics on stderr), 2 usage or
// internal error.
#include <fstream>
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/passes/target.h"
#include "tools/compile_program.h"

namespace {

constexpr char kUsage[] = R"(usage: pto-compile FILE -o DIR [options]

Parses a PTO program (docs/language.md), runs the default pipeline with the IR
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

options:
  -o DIR                  write the bundle under DIR (created)
  --single-file=OUT.cc    also write program.cc to OUT.cc (for build rules
                          whose outputs must be known in advance)
  --templates=DIR         root of the builtin template packages
                          (default: runtime/builtins)
  --platform=NAME         compile for a2a3 (910B, default) or a5
  -h, --help              show this help and exit

exit status: 0 success; 1 the program has an error (diagnostics on stderr,
as FILE:LINE:COL: error: MESSAGE); 2 usage error or internal compiler error.
)";

struct Options {
  std::string input;
  std::string output_dir;
  std::string single_file;
  std::string templates = "runtime/builtins";
  pto::passes::Target target;
};

int UsageError(const std::string& message) {
  std::cerr << "pto-compile: " << message << "\n(see pto-compile --help)\n";
  return 2;
}

// Returns -1 to continue, or an exit status.
int ParseArgs(int argc, char** argv, Options* opts) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag) { return a.substr(flag.size()); };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a.rfind("--templates=", 0) == 0) {
      opts->templates = value("--templates=");
    } else if (a.rfind("--single-file=", 0) == 0) {
      opts->single_file = value("--single-file=");
    } else if (a.rfind("--platform=", 0) == 0) {
      absl::StatusOr<pto::passes::Target> target =
          pto::passes::TargetForPlatform(value("--platform="));
      if (!target.ok()) return UsageError(std::string(target.status().message()));
      opts->target = *target;
    } else if (a == "-o") {
      if (i + 1 >= argc) return UsageError("-o needs a directory");
      opts->output_dir = argv[++i];
    } else if (a.rfind("-o", 0) == 0 && a.size() > 2) {
      opts->output_dir = a.substr(2);
    } else if (a != "-" && !a.empty() && a[0] == '-') {
      return UsageError("unknown option '" + a + "'");
    } else if (opts->input.empty()) {
      opts->input = a;
    } else {
      return UsageError("more than one input file ('" + opts->input + "' and '" + a + "')");
    }
  }
  if (opts->input.empty()) return UsageError("no input file");
  if (opts->output_dir.empty() && opts->single_file.empty()) {
    return UsageError("no output (-o DIR or --single-file=OUT.cc)");
  }
  return -1;
}


}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  pto::tools::CompiledProgram compiled;
  if (int rc = pto::tools::CompileProgram("pto-compile", opts.input, opts.target, opts.templates,
                                          &compiled);
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
