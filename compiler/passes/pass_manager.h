// Runs passes in order with the instruments of MLIR/XLA pass managers:
// verification before and after each pass, IR printing after one or all
// passes, and per-pass timing. Tracks IR properties; a required property that
// no earlier pass produced is checked by its verifier on the program (as
// PyPTO's VerificationInstrument does), and the pass is refused when the
// program does not have it.
#ifndef PTO_COMPILER_PASSES_PASS_MANAGER_H_
#define PTO_COMPILER_PASSES_PASS_MANAGER_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/target.h"

namespace pto::passes {

struct PassManagerOptions {
  bool verify_each = false;         // verify the input and the output of every pass
  bool print_before_all = false;    // print the program before every pass
  absl::flat_hash_set<std::string> print_before;  // ... or before the named passes
  bool print_after_all = false;     // print the program after every pass
  absl::flat_hash_set<std::string> print_after;  // ... or after the named passes
  bool timing = false;              // record per-pass wall time
  std::ostream* dump = nullptr;     // where IR dumps go (required when printing)
  Target target;                    // passes added by name are made for it
};

struct PassTiming {
  std::string pass;
  double seconds = 0;
  bool changed = false;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(std::move(options)) {}

  void AddPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  // From the global registry (NotFound for an unknown name).
  absl::Status AddPass(std::string_view name);
  absl::Status AddPipeline(std::string_view name);

  // Runs every pass. `properties` are those the input is known to have; on
  // return they are those of the output.
  absl::StatusOr<ir::ProgramPtr> Run(ir::ProgramPtr program, IRPropertySet* properties = nullptr);

  const std::vector<PassTiming>& timings() const { return timings_; }
  // A table of the recorded timings.
  std::string TimingReport() const;

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassTiming> timings_;
};

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_PASS_MANAGER_H_
