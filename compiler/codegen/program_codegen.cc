// The whole generated program: every piece of the bundle plus program.cc,
// the one translation unit a backend links (see program_codegen.h).
#include "compiler/codegen/program_codegen.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/aic_kernel.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/codegen/chip_callees.h"
#include "compiler/codegen/cpp_names.h"
#include "compiler/codegen/chip_orchestration.h"
#include "compiler/codegen/host_orchestration.h"
#include "compiler/codegen/kernel_codegen.h"
#include "compiler/codegen/kernel_config.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/function.h"

namespace pto::codegen {
namespace {

bool IsBuiltin(const ir::FunctionPtr& f) {
  return ir::FindAttr(f->attrs(), "builtin_template_dir") != nullptr;
}

bool IsUserKernel(const ir::FunctionPtr& f) {
  using ir::FunctionType;
  return (f->func_type() == FunctionType::kInCore || f->func_type() == FunctionType::kAIV ||
          f->func_type() == FunctionType::kAIC) &&
         !IsBuiltin(f);
}

// Where a user kernel's source goes: kernels/aic/ for an AIC kernel, as its
// kernel config entry names it (kernel_config.cc), else kernels/aiv/.
std::string KernelPath(const ir::Function& f) {
  return std::string(IsAicKernel(f) ? "kernels/aic/" : "kernels/aiv/") + f.name() + ".cpp";
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
absl::StatusOr<std::string> ProgramTranslationUnit(const ir::ProgramPtr& program,
                                                   const Bundle& bundle) {
  std::vector<std::string> includes = {"#include <map>", "#include <string>",
                                       "#include <vector>", "#include \"absl/status/status.h\"",
                                       "#include \"runtime/api/generated_program.h\"",
                                       "#include \"runtime/api/orchestrator.h\""};
  std::ostringstream body;
  auto add = [&](const Piece& p) {
    for (const std::string& inc : p.includes) {
      if (std::find(includes.begin(), includes.end(), inc) == includes.end()) {
        includes.push_back(inc);
      }
    }
  };
  // User kernels: pto::kernels::<fn>; their helpers come from the included
  // runtime/device/kernel_support.h.
  for (const auto& [gv, f] : program->functions()) {
    if (!IsUserKernel(f)) continue;
    Piece p = Split(bundle.at(KernelPath(*f)));
    add(p);
    body << "// ---- kernel " << f->name() << "\n" << p.body << "\n";
  }
  if (auto it = bundle.find(std::string("kernels/aiv/") + kAssembleKernel + ".cpp");
      it != bundle.end()) {
    Piece p = Split(it->second);
    add(p);
    body << "// ---- kernel " << kAssembleKernel << "\n" << p.body << "\n";
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
  // HOST-rail builtin variants: entry (in its own pto::builtins::<entry>
  // namespace, with MakeChipCallable) and kernel, registered by entry symbol.
  std::ostringstream registration;
  static const std::regex kVariantEntry(R"(^next_levels/([^/]+)/orchestration/([A-Za-z0-9_]+)\.cpp$)");
  for (const auto& [path, code] : bundle) {
    std::smatch m;
    if (!std::regex_match(path, m, kVariantEntry)) continue;
    const std::string dir = m[1];
    const std::string entry = m[2];
    if (ir::FunctionPtr f = program->GetFunction(dir); f != nullptr && f->IsChipOrch()) continue;
    if (code.find("namespace pto::builtins::" + entry + " {") == std::string::npos ||
        code.find("rt::ChipCallable MakeChipCallable()") == std::string::npos) {
      return absl::InternalError("rendered HOST-rail entry " + path +
                                 " does not define pto::builtins::" + entry +
                                 "::MakeChipCallable()");
    }
    const std::string kernels = "next_levels/" + dir + "/kernels/aiv/";
    for (auto it = bundle.lower_bound(kernels);
         it != bundle.end() && it->first.rfind(kernels, 0) == 0; ++it) {
      if (!rendered.insert(it->second).second) continue;
      Piece p = Split(it->second);
      add(p);
      body << "// ---- builtin kernel " << it->first << "\n" << p.body << "\n";
    }
    Piece p = Split(code);
    add(p);
    body << "// ---- HOST-rail builtin entry " << path << "\n" << p.body << "\n";
    registration << "  callables.emplace(\"" << entry << "\", pto::builtins::" << entry
                 << "::MakeChipCallable());\n";
  }
  // Orchestrations: every chip orchestration in its own namespace; the HOST
  // orchestration at global scope when there is one, else each in its own.
  int host_count = 0;
  for (const auto& [gv, f] : program->functions()) host_count += f->IsHostOrch() ? 1 : 0;
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
                 << "\";\n    c.entry = &" << ns << "::aicpu_orchestration_entry;\n"
                 << "    c.expected_arg_count = " << f->params().size() << ";\n";
    for (const std::string& k : *kernels) {
      auto it = builtin_symbol.find(k);
      const std::string symbol =
          it != builtin_symbol.end() ? it->second : "pto::kernels::" + CppIdentifier(k);
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
      << "// Every chip pipeline by function name, every HOST-rail builtin variant by\n"
      << "// entry symbol.\n"
      << "std::map<std::string, pto::rt::ChipCallable> Callables() {\n"
      << "  std::map<std::string, pto::rt::ChipCallable> callables;\n"
      << registration.str() << "  return callables;\n}\n\n"
      << run_host.str() << "}  // namespace pto::generated\n";
  return out.str();
}

}  // namespace

absl::StatusOr<Bundle> GenerateProgram(const ir::ProgramPtr& program,
                                       const TemplateSource& source) {
  absl::StatusOr<Bundle> bundle =
      RenderBuiltinKernels(program, source);
  if (!bundle.ok()) return bundle.status();
  for (const auto& [gv, f] : program->functions()) {
    const std::string& name = f->name();
    if (f->IsHostOrch()) {
      absl::StatusOr<std::string> code = GenerateHostOrchestration(program, name);
      if (!code.ok()) return code.status();
      (*bundle)["host/" + name + ".cpp"] = *code;
    } else if (f->IsChipOrch()) {
      absl::StatusOr<std::string> code = GenerateChipOrchestration(program, name);
      if (!code.ok()) return code.status();
      absl::StatusOr<std::string> config = ChipKernelConfig(program, name);
      if (!config.ok()) return config.status();
      (*bundle)["next_levels/" + name + "/orchestration/" + name + ".cpp"] = *code;
      (*bundle)["next_levels/" + name + "/kernel_config.textproto"] = *config;
      for (const ChipCallee& callee : ChipCallees(*f)) {
        if (callee.name == kAssembleKernel) {
          (*bundle)[std::string("kernels/aiv/") + kAssembleKernel + ".cpp"] =
              AssembleKernelSource();
        }
      }
    } else if (IsUserKernel(f)) {
      absl::StatusOr<std::string> code = GenerateKernel(program, name);
      if (!code.ok()) return code.status();
      (*bundle)[KernelPath(*f)] = *code;
    }
  }
  absl::StatusOr<std::string> unit = ProgramTranslationUnit(program, *bundle);
  if (!unit.ok()) return unit.status();
  (*bundle)["program.cc"] = *unit;
  return bundle;
}

}  // namespace pto::codegen
