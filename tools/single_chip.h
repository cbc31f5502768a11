// pto-run's single-chip mode (docs/pto-run.md, "Programs without a HOST
// orchestrator"): which function of a program without a HOST orchestrator is
// the entry, and the program made runnable on one chip. The rule follows
// PyPTO's compiled program (python/pypto/ir/compiled_program.py,
// _extract_param_infos): the orchestration when there is one, else the sole
// kernel, whose orchestration PyPTO's codegen generates.
#ifndef PTO_TOOLS_SINGLE_CHIP_H_
#define PTO_TOOLS_SINGLE_CHIP_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::tools::run {

// True when the program has a HOST orchestrator (pto-run's multi-chip mode).
bool HasHostOrchestrator(const ir::ProgramPtr& program);

// The entry of a program without a HOST orchestrator, chosen from the parsed
// program (before the pipeline outlines scopes into new functions):
//   * `requested` non-empty: the CHIP orchestration or user kernel of that
//     name (anything else is an error listing the candidates);
//   * else the program's one CHIP orchestration (several: an error listing
//     them);
//   * else its one user kernel (InCore / AIV / AIC; several: an error listing
//     them; none: an error).
// Errors are user errors located at the program.
struct ChipEntry {
  std::string name;
  bool kernel = false;  // a kernel: WrapKernel gives it an orchestration
};
absl::StatusOr<ChipEntry> ChooseChipEntry(const ir::ProgramPtr& program,
                                          std::string_view requested);

// The orchestration pto-run adds to run a lone kernel: named
// "<kernel>_entry" (with a numeric suffix if taken), same params, param
// directions and return types as the kernel, calling it once and returning
// its results.
absl::StatusOr<ir::ProgramPtr> WrapKernel(const ir::ProgramPtr& program, const std::string& kernel,
                                          std::string* orchestration);

// ChooseChipEntry then, for a kernel, WrapKernel: the program to compile and
// the name of the CHIP orchestration to dispatch on the chip.
// `chosen`, when given, receives the entry ChooseChipEntry chose.
absl::StatusOr<ir::ProgramPtr> PrepareSingleChip(const ir::ProgramPtr& program,
                                                 std::string_view requested,
                                                 std::string* orchestration,
                                                 ChipEntry* chosen = nullptr);

}  // namespace pto::tools::run

#endif  // PTO_TOOLS_SINGLE_CHIP_H_
