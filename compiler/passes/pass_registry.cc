#include "compiler/passes/pass_registry.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "compiler/passes/pipeline.h"
#include "compiler/support/strings.h"

namespace pto::passes {

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = [] {
    auto* r = new PassRegistry();
    RegisterAllPasses(*r);
    return r;
  }();
  return *registry;
}

void PassRegistry::RegisterPass(std::string name, Factory factory) {
  passes_[std::move(name)] = [factory = std::move(factory)](const Target&) { return factory(); };
}

void PassRegistry::RegisterPass(std::string name, TargetFactory factory) {
  passes_[std::move(name)] = std::move(factory);
}

void PassRegistry::RegisterPipeline(std::string name, std::vector<PipelineEntry> entries) {
  pipelines_[std::move(name)] = std::move(entries);
}

absl::StatusOr<std::unique_ptr<Pass>> PassRegistry::Create(std::string_view name,
                                                           const Target& target) const {
  auto it = passes_.find(ToAbsl(name));
  if (it == passes_.end()) {
    std::vector<std::string> known = PassNames();
    return absl::NotFoundError(pto::StrCat("unknown pass '", name, "' (known passes: ",
                                           known.empty() ? "none" : absl::StrJoin(known, ", "),
                                           ")"));
  }
  return it->second(target);
}

absl::StatusOr<std::vector<PipelineEntry>> PassRegistry::PipelineEntries(
    std::string_view name) const {
  auto it = pipelines_.find(ToAbsl(name));
  if (it == pipelines_.end()) {
    return absl::NotFoundError(pto::StrCat("unknown pipeline '", name, "' (known pipelines: ",
                                           absl::StrJoin(PipelineNames(), ", "), ")"));
  }
  return it->second;
}

absl::StatusOr<std::vector<std::string>> PassRegistry::Pipeline(std::string_view name) const {
  auto it = pipelines_.find(ToAbsl(name));
  if (it == pipelines_.end()) return PipelineEntries(name).status();
  std::vector<std::string> names;
  for (const PipelineEntry& e : it->second) names.push_back(e.pass);
  return names;
}

std::string PassRegistry::PassNumber(std::string_view pass) const {
  auto it = pipelines_.find("default");
  if (it == pipelines_.end()) return "";
  for (const PipelineEntry& e : it->second) {
    if (e.pass == pass) return e.number;
  }
  return "";
}

std::vector<std::string> PassRegistry::PassNames() const {
  std::vector<std::string> names;
  for (const auto& [n, f] : passes_) names.push_back(n);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> PassRegistry::PipelineNames() const {
  std::vector<std::string> names;
  for (const auto& [n, p] : pipelines_) names.push_back(n);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pto::passes
