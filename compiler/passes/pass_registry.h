// Passes and pipelines by name, for pto-opt and the driver.
#ifndef PTO_COMPILER_PASSES_PASS_REGISTRY_H_
#define PTO_COMPILER_PASSES_PASS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/target.h"

namespace pto::passes {

// One step of a pipeline: the pass and its number in PyPTO's default pipeline
// ("01".."47"; empty for a pass PyPTO's numbering does not have).
struct PipelineEntry {
  std::string number;
  std::string pass;
};

class PassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pass>()>;
  // For passes that use the target's limits.
  using TargetFactory = std::function<std::unique_ptr<Pass>(const Target&)>;

  // The process-wide registry holding every pass of the project and the
  // "default" pipeline.
  static PassRegistry& Global();

  void RegisterPass(std::string name, Factory factory);
  void RegisterPass(std::string name, TargetFactory factory);
  void RegisterPipeline(std::string name, std::vector<PipelineEntry> entries);

  // NotFound error naming the unknown pass / pipeline and listing the known ones.
  absl::StatusOr<std::unique_ptr<Pass>> Create(std::string_view name,
                                               const Target& target = {}) const;
  absl::StatusOr<std::vector<std::string>> Pipeline(std::string_view name) const;
  absl::StatusOr<std::vector<PipelineEntry>> PipelineEntries(std::string_view name) const;
  // The PyPTO number of `pass` at its first step of the default pipeline;
  // empty when the pass is not numbered there.
  std::string PassNumber(std::string_view pass) const;

  std::vector<std::string> PassNames() const;      // sorted
  std::vector<std::string> PipelineNames() const;  // sorted

 private:
  absl::flat_hash_map<std::string, TargetFactory> passes_;
  absl::flat_hash_map<std::string, std::vector<PipelineEntry>> pipelines_;
};

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PASS_REGISTRY_H_
