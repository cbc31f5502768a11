// pto-opt: parse a PTO program, verify it, run passes, print the result.
//
//   pto-opt FILE [--passes=A,B] [--pipeline=default] [--print-ir-before-all]
//           [--print-ir-before=A] [--print-ir-after-all] [--print-ir-after=A] [--verify-each] [--platform=a2a3|a5] [--platform-file=F] [--timing]
//           [--allow-internal-ops]
//           [-o OUT]
//
// Exit status: 0 success, 1 user error (diagnostics on stderr), 2 usage or
// internal error. `pto-opt --help` lists the flags (generated from the
// ABSL_FLAG definitions below).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/pass_registry.h"
#include "compiler/support/diagnostics.h"
#include "platforms/platform.h"
#include "tools/cli_flags.h"
#include "tools/driver_util.h"

ABSL_FLAG(std::vector<std::string>, passes, {},
          "A,B,...: run these passes in order (CamelCase names, e.g. MaterializeCommDomainScopes); "
          "repeatable");
ABSL_FLAG(std::vector<std::string>, pipeline, {},
          "NAME: run the named pipelines (e.g. 'default'); combined with --passes, the pipeline "
          "runs first");
ABSL_FLAG(bool, print_ir_before_all, false, "print the program to stderr before every pass");
ABSL_FLAG(std::vector<std::string>, print_ir_before, {},
          "A: print the program to stderr before these passes; repeatable");
ABSL_FLAG(bool, print_ir_after_all, false, "print the program to stderr after every pass");
ABSL_FLAG(std::vector<std::string>, print_ir_after, {},
          "A: print the program to stderr after these passes; repeatable");
ABSL_FLAG(bool, verify_each, false, "verify the IR before the first and after every pass");
ABSL_FLAG(std::string, platform, "",
          "NAME: compile for a2a3 (910B, 48 AIV per chip) or a5 (72): passes reject what would "
          "exceed its limits (e.g. a mesh allreduce whose core_num is above the AIV count); "
          "empty: no platform limits are checked");
ABSL_FLAG(std::string, platform_file, "",
          "FILE: compile for the platform FILE describes (a platforms/platform.proto textproto, "
          "which may extend a built-in platform); instead of --platform");
ABSL_FLAG(bool, timing, false, "print per-pass wall time to stderr");
ABSL_FLAG(bool, list_passes, false,
          "list the registered passes (with their number in PyPTO's default pipeline) and the "
          "pipelines, and exit");
ABSL_FLAG(bool, allow_internal_ops, false,
          "accept compiler-internal operators (builtin.tensor.*) in FILE, e.g. to re-read the "
          "output of a lowering pass");
ABSL_FLAG(std::vector<std::string>, bind, {},
          "NAME=[d0,d1,...]:DTYPE[,...]: the shape and dtype of a @pl.jit function's bare "
          "pl.Tensor parameter NAME (or FUNCTION.NAME), as PyPTO's JIT takes them from the call");
ABSL_FLAG(std::string, o, "", "OUT: write the result to OUT instead of stdout");

namespace {

const pto::tools::ToolInfo& Info() {
  static const pto::tools::ToolInfo* info = new pto::tools::ToolInfo{
      "pto-opt", "FILE [flags]",
      "Parses a PTO program (docs/language.md), verifies it, runs the requested passes\n"
      "and prints the result in the same language. FILE may be '-' for standard input.\n",
      "exit status: 0 success; 1 the program has an error or cannot be read (diagnostics\n"
      "on stderr, as FILE:LINE:COL: error: MESSAGE); 2 usage error or internal compiler\n"
      "error (docs/errors.md).\n",
      __FILE__};
  return *info;
}

struct Options {
  std::string input;
  std::string output;
  std::vector<std::string> passes;
  std::vector<std::string> pipelines;
  pto::passes::PassManagerOptions pm;
  bool list = false;
  bool allow_internal_ops = false;
  pto::parser::JitBindings bindings;
};

// Returns -1 to continue, or an exit status.
int ParseArgs(int argc, char** argv, Options* opts) {
  std::vector<std::string> positional;
  if (int rc = pto::tools::ParseCommandLine(argc, argv, Info(), &positional); rc >= 0) return rc;
  if (!positional.empty()) opts->input = positional[0];
  opts->passes = absl::GetFlag(FLAGS_passes);
  opts->pipelines = absl::GetFlag(FLAGS_pipeline);
  opts->pm.print_before_all = absl::GetFlag(FLAGS_print_ir_before_all);
  for (const std::string& p : absl::GetFlag(FLAGS_print_ir_before)) {
    opts->pm.print_before.insert(p);
  }
  opts->pm.print_after_all = absl::GetFlag(FLAGS_print_ir_after_all);
  for (const std::string& p : absl::GetFlag(FLAGS_print_ir_after)) opts->pm.print_after.insert(p);
  if (const std::string platform = absl::GetFlag(FLAGS_platform); !platform.empty()) {
    absl::StatusOr<pto::passes::Target> target = pto::passes::TargetForPlatform(platform);
    if (!target.ok()) return pto::tools::UsageError(Info(), target.status().message());
    opts->pm.target = *target;
  }
  if (const std::string file = absl::GetFlag(FLAGS_platform_file); !file.empty()) {
    if (!absl::GetFlag(FLAGS_platform).empty()) {
      return pto::tools::UsageError(Info(), "--platform and --platform-file exclude each other");
    }
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return pto::tools::UsageError(Info(), "--platform-file=" + file + ": cannot read");
    absl::StatusOr<pto::platforms::Platform> p = pto::platforms::ParsePlatform(text.str());
    if (!p.ok()) {
      return pto::tools::UsageError(Info(), "--platform-file=" + file + ": " +
                                                std::string(p.status().message()));
    }
    opts->pm.target = pto::passes::TargetFromPlatform(*p);
  }
  opts->pm.verify_each = absl::GetFlag(FLAGS_verify_each);
  opts->pm.timing = absl::GetFlag(FLAGS_timing);
  opts->allow_internal_ops = absl::GetFlag(FLAGS_allow_internal_ops);
  opts->list = absl::GetFlag(FLAGS_list_passes);
  // A binding's shape holds commas, so the comma-split flag values are rejoined
  // up to each closing ']' (and its dtype).
  std::string pending;
  for (const std::string& piece : absl::GetFlag(FLAGS_bind)) {
    pending += pending.empty() ? piece : "," + piece;
    if (pending.find(']') == std::string::npos && pending.find('[') != std::string::npos) continue;
    if (absl::Status s = pto::parser::AddJitBinding(pending, &opts->bindings); !s.ok()) {
      return pto::tools::UsageError(Info(), "--bind: " + std::string(s.message()));
    }
    pending.clear();
  }
  if (!pending.empty()) {
    if (absl::Status s = pto::parser::AddJitBinding(pending, &opts->bindings); !s.ok()) {
      return pto::tools::UsageError(Info(), "--bind: " + std::string(s.message()));
    }
  }
  opts->output = absl::GetFlag(FLAGS_o);
  if (opts->input.empty() && !opts->list) return pto::tools::UsageError(Info(), "no input file");
  return -1;
}

int UsageError(const std::string& message) { return pto::tools::UsageError(Info(), message); }

using pto::tools::ReadSource;
using pto::tools::Report;

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  if (opts.list) {
    auto& reg = pto::passes::PassRegistry::Global();
    // "NN Name": the number of the pass in PyPTO's default pipeline ("--" for
    // a pass PyPTO does not number).
    auto numbered = [](const std::string& number, const std::string& pass) {
      return (number.empty() ? std::string("--") : number) + " " + pass;
    };
    // In PyPTO's order; the passes it does not number last, by name.
    std::vector<std::pair<std::string, std::string>> passes;
    for (const std::string& n : reg.PassNames()) {
      std::string number = reg.PassNumber(n);
      passes.emplace_back(number.empty() ? "~" : number, n);
    }
    std::sort(passes.begin(), passes.end());
    std::cout << "passes:\n";
    for (const auto& [number, n] : passes) {
      std::cout << "  " << numbered(number == "~" ? "" : number, n) << "\n";
    }
    std::cout << "pipelines:\n";
    for (const std::string& n : reg.PipelineNames()) {
      std::cout << "  " << n << ":\n";
      // Keep the StatusOr alive: `*reg.PipelineEntries(n)` in the range would dangle.
      auto pipeline = reg.PipelineEntries(n);
      for (const pto::passes::PipelineEntry& e : *pipeline) {
        std::cout << "    " << numbered(e.number, e.pass) << "\n";
      }
    }
    return 0;
  }

  pto::passes::PassManager pm([&] {
    pto::passes::PassManagerOptions o = opts.pm;
    o.dump = &std::cerr;
    return o;
  }());
  for (const std::string& p : opts.pipelines) {
    if (absl::Status s = pm.AddPipeline(p); !s.ok()) return UsageError(std::string(s.message()));
  }
  for (const std::string& p : opts.passes) {
    if (absl::Status s = pm.AddPass(p); !s.ok()) return UsageError(std::string(s.message()));
  }

  absl::StatusOr<std::shared_ptr<const pto::SourceFile>> read = ReadSource(opts.input);
  if (!read.ok()) return Report("pto-opt", read.status());
  std::shared_ptr<const pto::SourceFile> file = *std::move(read);
  pto::parser::ParseOptions parse_options;
  parse_options.allow_internal_ops = opts.allow_internal_ops;
  parse_options.jit_bindings = opts.bindings;
  std::vector<absl::Status> warnings;
  parse_options.warnings = &warnings;
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgram(file, parse_options);
  for (const absl::Status& w : warnings) {
    std::string text = pto::FormatDiagnostic(w, file.get());
    if (size_t at = text.find(": error: "); at != std::string::npos) {
      text.replace(at, 9, ": warning: ");
    }
    std::cerr << text << (text.empty() || text.back() != '\n' ? "\n" : "");
  }
  if (!program.ok()) return Report(program.status(), file.get());
  if (absl::Status s = pto::ir::VerifyProgram(*program); !s.ok()) return Report(s, file.get());

  absl::StatusOr<pto::ir::ProgramPtr> result = pm.Run(*program);
  if (opts.pm.timing) std::cerr << pm.TimingReport();
  if (!result.ok()) return Report(result.status(), file.get());

  std::string out = pto::ir::PrintProgram(*result);
  if (opts.output.empty() || opts.output == "-") {
    std::cout << out;
    std::cout.flush();
    return std::cout ? 0 : 2;
  }
  std::ofstream f(opts.output, std::ios::binary);
  f << out;
  if (!f) {
    std::cerr << "pto-opt: cannot write '" << opts.output << "'\n";
    return 2;
  }
  return 0;
}
