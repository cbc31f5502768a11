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
  void RegisterPipeline(std::string name, std::vector<std::string> passes);

  // NotFound error naming the unknown pass / pipeline and listing the known ones.
  absl::StatusOr<std::unique_ptr<Pass>> Create(std::string_view name,
                                               const Target& target = {}) const;
  absl::StatusOr<std::vector<std::string>> Pipeline(std::string_view name) const;

  std::vector<std::string> PassNames() const;      // sorted
  std::vector<std::string> PipelineNames() const;  // sorted

 private:
  absl::flat_hash_map<std::string, TargetFactory> passes_;
  absl::flat_hash_map<std::string, std::vector<std::string>> pipelines_;
};

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PASS_REGISTRY_H_
