// pto-opt: parse a PTO program, verify it, run passes, print the result.
//
//   pto-opt FILE [--passes=A,B] [--pipeline=default] [--print-ir-after-all]
//           [--print-ir-after=A] [--verify-each] [--platform=a2a3|a5] [--timing]
//           [--allow-internal-ops]
//           [-o OUT]
//
// Exit status: 0 success, 1 user error (diagnostics on stderr), 2 usage or
// internal error.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/pass_registry.h"
#include "compiler/support/diagnostics.h"
#include "tools/driver_util.h"

namespace {

constexpr char kUsage[] = R"(usage: pto-opt FILE [options]

Parses a PTO program (docs/language.md), verifies it, runs the requested passes
and prints the result in the same language. FILE may be '-' for standard input.

options:
  --passes=A,B,...        run these passes in order (CamelCase names, e.g.
                          MaterializeCommDomainScopes); repeatable
  --pipeline=NAME         run a named pipeline (e.g. 'default'); combined with
                          --passes, the pipeline runs first
  --print-ir-after-all    print the program to stderr after every pass
  --print-ir-after=A      print the program to stderr after pass A; repeatable
  --verify-each           verify the IR before the first and after every pass
  --platform=NAME         compile for a2a3 (910B, 48 AIV per chip) or a5 (72):
                          passes reject what would exceed its limits (e.g. a
                          mesh allreduce whose core_num is above the AIV count)
  --timing                print per-pass wall time to stderr
  --list-passes           list the registered passes and pipelines and exit
  --allow-internal-ops    accept compiler-internal operators (builtin.tensor.*)
                          in FILE, e.g. to re-read the output of a lowering pass
  -o OUT                  write the result to OUT instead of stdout
  -h, --help              show this help and exit

exit status: 0 success; 1 the program has an error (diagnostics on stderr,
as FILE:LINE:COL: error: MESSAGE); 2 usage error or internal compiler error.
)";

struct Options {
  std::string input;
  std::string output;
  std::vector<std::string> passes;
  std::vector<std::string> pipelines;
  pto::passes::PassManagerOptions pm;
  bool list = false;
  bool allow_internal_ops = false;
};

int UsageError(const std::string& message) {
  std::cerr << "pto-opt: " << message << "\n(see pto-opt --help)\n";
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
    } else if (a.rfind("--passes=", 0) == 0) {
      for (absl::string_view p : absl::StrSplit(value("--passes="), ',', absl::SkipEmpty())) {
        opts->passes.emplace_back(p);
      }
    } else if (a.rfind("--pipeline=", 0) == 0) {
      opts->pipelines.push_back(value("--pipeline="));
    } else if (a == "--print-ir-after-all") {
      opts->pm.print_after_all = true;
    } else if (a.rfind("--print-ir-after=", 0) == 0) {
      opts->pm.print_after.insert(value("--print-ir-after="));
    } else if (a.rfind("--platform=", 0) == 0) {
      absl::StatusOr<pto::passes::Target> target =
          pto::passes::TargetForPlatform(value("--platform="));
      if (!target.ok()) return UsageError(std::string(target.status().message()));
      opts->pm.target = *target;
    } else if (a == "--verify-each") {
      opts->pm.verify_each = true;
    } else if (a == "--timing") {
      opts->pm.timing = true;
    } else if (a == "--allow-internal-ops") {
      opts->allow_internal_ops = true;
    } else if (a == "--list-passes") {
      opts->list = true;
    } else if (a == "-o") {
      if (i + 1 >= argc) return UsageError("-o needs a file name");
      opts->output = argv[++i];
    } else if (a.rfind("-o", 0) == 0 && a.size() > 2) {
      opts->output = a.substr(2);
    } else if (a != "-" && !a.empty() && a[0] == '-') {
      return UsageError("unknown option '" + a + "'");
    } else if (opts->input.empty()) {
      opts->input = a;
    } else {
      return UsageError("more than one input file ('" + opts->input + "' and '" + a + "')");
    }
  }
  if (opts->input.empty() && !opts->list) return UsageError("no input file");
  return -1;
}

using pto::tools::ReadInput;
using pto::tools::Report;

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  if (opts.list) {
    auto& reg = pto::passes::PassRegistry::Global();
    std::cout << "passes:\n";
    for (const std::string& n : reg.PassNames()) std::cout << "  " << n << "\n";
    std::cout << "pipelines:\n";
    for (const std::string& n : reg.PipelineNames()) {
      std::cout << "  " << n << ":";
      // Keep the StatusOr alive: `*reg.Pipeline(n)` in the range would dangle.
      auto pipeline = reg.Pipeline(n);
      for (const std::string& p : *pipeline) std::cout << " " << p;
      std::cout << "\n";
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

  std::string text;
  if (!ReadInput(opts.input, &text)) {
    std::cerr << "pto-opt: cannot read '" << opts.input << "'\n";
    return 2;
  }
  auto file = std::make_shared<const pto::SourceFile>(
      opts.input == "-" ? std::string("<stdin>") : opts.input, std::move(text));
  pto::parser::ParseOptions parse_options;
  parse_options.allow_internal_ops = opts.allow_internal_ops;
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgram(file, parse_options);
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
