#include "python/ext/kernel_config_py.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "runtime/builtins/kernel_config.pb.h"

namespace pto::python {
namespace {

// A Python string literal: the names and paths here are identifiers and
// relative paths, but quote and backslash are escaped all the same.
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// `str(_ROOT_DIR / "a" / "b.cpp")` for the relative path "a/b.cpp".
std::string RootedPath(const std::string& relative) {
  std::vector<std::string> parts;
  std::vector<std::string> pieces = absl::StrSplit(relative, '/', absl::SkipEmpty());
  for (const std::string& p : pieces) parts.push_back(Quoted(p));
  return absl::StrCat("str(_ROOT_DIR / ", absl::StrJoin(parts, " / "), ")");
}

template <typename Directions>
std::string Signature(const Directions& directions) {
  std::vector<std::string> names;
  for (int d : directions) {
    names.push_back(Quoted(pto::builtins::ArgDirection_Name(d)));
  }
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

std::string CoreType(pto::builtins::CoreType t) {
  return t == pto::builtins::AIC ? "aic" : "aiv";
}

constexpr std::string_view kTextproto = "kernel_config.textproto";

}  // namespace

absl::StatusOr<std::string> KernelConfigPy(const std::string& textproto) {
  pto::builtins::KernelConfig config;
  if (!google::protobuf::TextFormat::ParseFromString(textproto, &config)) {
    return absl::InvalidArgumentError("kernel config text does not parse as "
                                      "pto.builtins.KernelConfig");
  }
  std::string out =
      "# Kernel and orchestration configuration, rendered from kernel_config.textproto\n"
      "# beside it (pto.builtins.KernelConfig) in PyPTO's kernel_config.py layout.\n"
      "from pathlib import Path\n\n"
      "_ROOT_DIR = Path(__file__).parent\n\n";
  absl::StrAppend(&out, "RUNTIME_CONFIG = {\n",
                  "    \"runtime\": ", Quoted(config.runtime_config().runtime()), ",\n",
                  "    \"aicpu_thread_num\": ", config.runtime_config().aicpu_thread_num(),
                  ",\n}\n\n");
  const pto::builtins::Orchestration& o = config.orchestration();
  absl::StrAppend(&out, "ORCHESTRATION = {\n", "    \"source\": ", RootedPath(o.source()),
                  ",\n", "    \"function_name\": ", Quoted(o.function_name()), ",\n");
  if (o.signature_size() > 0) {
    absl::StrAppend(&out, "    \"signature\": ", Signature(o.signature()), ",\n");
  }
  absl::StrAppend(&out, "}\n\nKERNELS = [\n");
  for (const pto::builtins::Kernel& k : config.kernels()) {
    absl::StrAppend(&out, "    {\"func_id\": ", k.func_id(), ", \"name\": ", Quoted(k.name()),
                    ", \"source\": ", RootedPath(k.source()), ", \"core_type\": ",
                    Quoted(CoreType(k.core_type())));
    if (k.signature_size() > 0) {
      absl::StrAppend(&out, ", \"signature\": ", Signature(k.signature()));
    }
    absl::StrAppend(&out, "},\n");
  }
  absl::StrAppend(&out, "]\n");
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> WithKernelConfigPy(
    const std::map<std::string, std::string>& bundle) {
  std::map<std::string, std::string> out = bundle;
  for (const auto& [path, text] : bundle) {
    const std::string_view p = path;
    if (p != kTextproto && !(p.size() > kTextproto.size() &&
                             p.substr(p.size() - kTextproto.size()) == kTextproto &&
                             p[p.size() - kTextproto.size() - 1] == '/')) {
      continue;
    }
    absl::StatusOr<std::string> py = KernelConfigPy(text);
    if (!py.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", py.status().message()));
    out[std::string(p.substr(0, p.size() - kTextproto.size())) + "kernel_config.py"] = *py;
  }
  return out;
}

}  // namespace pto::python
