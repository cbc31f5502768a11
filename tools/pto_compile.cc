// pto-compile: compile a PTO program to the C++ a backend links.
//
//   pto-compile FILE -o DIR [--templates=DIR] [--single-file=OUT.cc]
//               [--platform=a2a3|a5]
//
// Exit status: 0 success, 1 user error (diagnostics on stderr), 2 usage or
// internal error.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/codegen/chip_orchestration.h"
#include "compiler/codegen/host_orchestration.h"
#include "compiler/codegen/kernel_codegen.h"
#include "compiler/codegen/kernel_config.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/function.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/target.h"
#include "compiler/support/diagnostics.h"
#include "tools/driver_util.h"

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
  pto::passes::PassManagerOptions pm;
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
      opts->pm.target = *target;
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

using pto::tools::ReadInput;
using pto::tools::Report;

bool IsBuiltin(const pto::ir::FunctionPtr& f) {
  return pto::ir::FindAttr(f->attrs(), "builtin_template_dir") != nullptr;
}

bool IsUserKernel(const pto::ir::FunctionPtr& f) {
  using pto::ir::FunctionType;
  return (f->func_type() == FunctionType::kInCore || f->func_type() == FunctionType::kAIV) &&
         !IsBuiltin(f);
}

// A generated translation unit split into its #include lines and the rest.
struct Piece {
  std::vector<std::string> includes;
  std::string body;
};

Piece Split(const std::string& code) {
  Piece p;
  std::istringstream in(code);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#include", 0) == 0) {
      p.includes.push_back(line);
    } else {
      p.body += line + "\n";
    }
  }
  return p;
}

// The kernels of a kernel config, by func_id.
absl::StatusOr<std::vector<std::string>> ConfigKernels(const std::string& config) {
  std::map<int, std::string> by_id;
  static const std::regex kKernel(
      R"(kernels\s*\{\s*func_id:\s*(\d+)\s*name:\s*"([A-Za-z0-9_]+)\")");
  for (auto it = std::sregex_iterator(config.begin(), config.end(), kKernel);
       it != std::sregex_iterator(); ++it) {
    by_id[std::stoi((*it)[1])] = (*it)[2];
  }
  std::vector<std::string> names;
  for (const auto& [id, name] : by_id) {
    if (id != static_cast<int>(names.size())) {
      return absl::InternalError("kernel config func_ids are not 0..N-1");
    }
    names.push_back(name);
  }
  return names;
}

// The qualified entry `namespace N { ... void F(int64_t* args) {` of a rendered
// builtin kernel (the kernel entry ABI of runtime/device/kernel_abi.h).
absl::StatusOr<std::string> RenderedKernelSymbol(const std::string& code,
                                                 const std::string& what) {
  static const std::regex kNamespace(R"(^namespace ([A-Za-z0-9_:]+) \{)");
  static const std::regex kEntry(R"(^void ([A-Za-z0-9_]+)\(int64_t\* [A-Za-z0-9_]*\) \{)");
  std::istringstream in(code);
  std::string line;
  std::string ns;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kNamespace)) {
      ns = m[1];
    } else if (std::regex_search(line, m, kEntry)) {
      return ns.empty() ? std::string(m[1]) : ns + "::" + std::string(m[1]);
    }
  }
  return absl::InternalError("rendered builtin kernel " + what +
                             " defines no kernel entry 'void F(int64_t* args)'");
}

// Everything a backend links, as one translation unit.
absl::StatusOr<std::string> ProgramTranslationUnit(const pto::ir::ProgramPtr& program,
                                                   const pto::codegen::Bundle& bundle) {
  std::vector<std::string> includes = {"#include <map>", "#include <string>",
                                       "#include <vector>", "#include \"absl/status/status.h\"",
                                       "#include \"runtime/api/orchestrator.h\""};
  std::ostringstream body;
  auto add = [&](const Piece& p) {
    for (const std::string& inc : p.includes) {
      if (std::find(includes.begin(), includes.end(), inc) == includes.end()) {
        includes.push_back(inc);
      }
    }
  };
  // User kernels: pto::kernels::<fn> with helpers in pto::kernels::internal,
  // renamed per kernel (they are repeated in every kernel).
  int kernel_index = 0;
  for (const auto& [gv, f] : program->functions()) {
    if (!IsUserKernel(f)) continue;
    Piece p = Split(bundle.at("kernels/aiv/" + f->name() + ".cpp"));
    add(p);
    body << "// ---- kernel " << f->name() << "\n#define internal internal_k" << kernel_index++
         << "\n"
         << p.body << "#undef internal\n\n";
  }
  // CHIP-rail builtin kernels: one rendering per distinct text.
  std::set<std::string> rendered;
  std::map<std::string, std::string> builtin_symbol;  // function -> symbol
  for (const auto& [gv, f] : program->functions()) {
    if (!f->IsChipOrch()) continue;
    const std::string prefix = "next_levels/" + f->name() + "/kernels/aiv/";
    for (const auto& [path, code] : bundle) {
      if (path.rfind(prefix, 0) != 0) continue;
      std::string fn = path.substr(prefix.size());
      fn = fn.substr(0, fn.size() - 4);  // ".cpp"
      absl::StatusOr<std::string> symbol = RenderedKernelSymbol(code, path);
      if (!symbol.ok()) return symbol.status();
      builtin_symbol[fn] = *symbol;
      if (!rendered.insert(code).second) continue;
      Piece p = Split(code);
      add(p);
      body << "// ---- builtin kernel " << path << "\n" << p.body << "\n";
    }
  }
  // Orchestrations: every chip orchestration in its own namespace; the HOST
  // orchestration at global scope when there is one, else each in its own.
  int host_count = 0;
  for (const auto& [gv, f] : program->functions()) host_count += f->IsHostOrch() ? 1 : 0;
  std::ostringstream registration;
  for (const auto& [gv, f] : program->functions()) {
    std::string path;
    std::string ns;
    if (f->IsChipOrch()) {
      path = "next_levels/" + f->name() + "/orchestration/" + f->name() + ".cpp";
      ns = "pto_gen::chip_" + f->name();
    } else if (f->IsHostOrch()) {
      path = "host/" + f->name() + ".cpp";
      if (host_count > 1) ns = "pto_gen::host_" + f->name();
    } else {
      continue;
    }
    Piece p = Split(bundle.at(path));
    add(p);
    if (ns.empty()) {
      body << "// ---- " << path << "\n" << p.body << "\n";
    } else {
      body << "// ---- " << path << "\nnamespace " << ns << " {\n" << p.body
           << "}  // namespace " << ns << "\n\n";
    }
    if (!f->IsChipOrch()) continue;
    absl::StatusOr<std::vector<std::string>> kernels =
        ConfigKernels(bundle.at("next_levels/" + f->name() + "/kernel_config.textproto"));
    if (!kernels.ok()) return kernels.status();
    registration << "  {\n    pto::rt::ChipCallable c;\n    c.name = \"" << f->name()
                 << "\";\n    c.entry = &" << ns << "::aicpu_orchestration_entry;\n";
    for (const std::string& k : *kernels) {
      auto it = builtin_symbol.find(k);
      const std::string symbol = it != builtin_symbol.end() ? it->second : "pto::kernels::" + k;
      registration << "    c.kernels.push_back(&" << symbol << ");\n"
                   << "    c.kernel_names.push_back(\"" << k << "\");\n";
    }
    registration << "    callables.emplace(c.name, std::move(c));\n  }\n";
  }
  // A uniform entry for drivers that know the parameters only at run time
  // (pto-run): the single HOST function's tensor params in order.
  std::ostringstream run_host;
  if (host_count == 1) {
    for (const auto& [gv, f] : program->functions()) {
      if (!f->IsHostOrch()) continue;
      const size_t n = f->params().size();
      run_host << "absl::Status RunHost(pto::rt::Host& host,\n"
               << "                     const std::vector<std::vector<pto::rt::Tensor>>& params) {\n"
               << "  if (params.size() != " << n << ") {\n"
               << "    return absl::InvalidArgumentError(\"" << f->name() << " takes " << n
               << " tensor parameters\");\n  }\n"
               << "  return ::host_orchestration_entry(host, Callables()";
      for (size_t i = 0; i < n; ++i) run_host << ", params[" << i << "]";
      run_host << ");\n}\n\n";
    }
  }
  std::ostringstream out;
  out << "// Generated by pto-compile from " << program->name()
      << ": kernels, orchestrations and the registration of the callables.\n";
  for (const std::string& inc : includes) out << inc << "\n";
  out << "\n" << body.str();
  out << "namespace pto::generated {\n\n"
      << "// Every chip pipeline by function name.\n"
      << "std::map<std::string, pto::rt::ChipCallable> Callables() {\n"
      << "  std::map<std::string, pto::rt::ChipCallable> callables;\n"
      << registration.str() << "  return callables;\n}\n\n"
      << run_host.str() << "}  // namespace pto::generated\n";
  return out.str();
}

absl::StatusOr<pto::codegen::Bundle> Generate(const pto::ir::ProgramPtr& program,
                                              const std::string& templates) {
  pto::codegen::DirectoryTemplateSource source(templates);
  absl::StatusOr<pto::codegen::Bundle> bundle =
      pto::codegen::RenderBuiltinKernels(program, source);
  if (!bundle.ok()) return bundle.status();
  for (const auto& [gv, f] : program->functions()) {
    const std::string& name = f->name();
    if (f->IsHostOrch()) {
      absl::StatusOr<std::string> code = pto::codegen::GenerateHostOrchestration(program, name);
      if (!code.ok()) return code.status();
      (*bundle)["host/" + name + ".cpp"] = *code;
    } else if (f->IsChipOrch()) {
      absl::StatusOr<std::string> code = pto::codegen::GenerateChipOrchestration(program, name);
      if (!code.ok()) return code.status();
      absl::StatusOr<std::string> config = pto::codegen::ChipKernelConfig(program, name);
      if (!config.ok()) return config.status();
      (*bundle)["next_levels/" + name + "/orchestration/" + name + ".cpp"] = *code;
      (*bundle)["next_levels/" + name + "/kernel_config.textproto"] = *config;
    } else if (IsUserKernel(f)) {
      absl::StatusOr<std::string> code = pto::codegen::GenerateKernel(program, name);
      if (!code.ok()) return code.status();
      (*bundle)["kernels/aiv/" + name + ".cpp"] = *code;
    }
  }
  absl::StatusOr<std::string> unit = ProgramTranslationUnit(program, *bundle);
  if (!unit.ok()) return unit.status();
  (*bundle)["program.cc"] = *unit;
  return bundle;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  opts.pm.verify_each = true;
  opts.pm.dump = &std::cerr;
  pto::passes::PassManager pm(opts.pm);
  if (absl::Status s = pm.AddPipeline("default"); !s.ok()) {
    std::cerr << "pto-compile: " << s.message() << "\n";
    return 2;
  }

  std::string text;
  if (!ReadInput(opts.input, &text)) {
    std::cerr << "pto-compile: cannot read '" << opts.input << "'\n";
    return 2;
  }
  auto file = std::make_shared<const pto::SourceFile>(
      opts.input == "-" ? std::string("<stdin>") : opts.input, std::move(text));
  absl::StatusOr<pto::ir::ProgramPtr> program = pto::parser::ParseProgram(file, {});
  if (!program.ok()) return Report(program.status(), file.get());
  if (absl::Status s = pto::ir::VerifyProgram(*program); !s.ok()) return Report(s, file.get());
  absl::StatusOr<pto::ir::ProgramPtr> lowered = pm.Run(*program);
  if (!lowered.ok()) return Report(lowered.status(), file.get());

  absl::StatusOr<pto::codegen::Bundle> bundle = Generate(*lowered, opts.templates);
  if (!bundle.ok()) return Report(bundle.status(), file.get());
  if (!opts.output_dir.empty()) {
    if (absl::Status s = pto::codegen::WriteBundle(*bundle, opts.output_dir); !s.ok()) {
      std::cerr << "pto-compile: " << s.message() << "\n";
      return 2;
    }
  }
  if (!opts.single_file.empty()) {
    std::ofstream f(opts.single_file, std::ios::binary);
    f << bundle->at("program.cc");
    if (!f) {
      std::cerr << "pto-compile: cannot write '" << opts.single_file << "'\n";
      return 2;
    }
  }
  return 0;
}
