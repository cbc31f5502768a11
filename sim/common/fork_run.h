// Runs a function in a forked child and hands back the bytes it returns:
// SystemC elaborates once per process, so every simulation (a whole system,
// sim/system/isolated_run.h, or one module, sim/testing/module_harness.h)
// runs in a child of its own. A child that dies is reported, never hangs the
// caller.
#ifndef PTO_SIM_COMMON_FORK_RUN_H_
#define PTO_SIM_COMMON_FORK_RUN_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace pto::sim {

// The bytes `body` returned in the child, or an error naming `who` ("the
// simulation process") and how it ended.
absl::StatusOr<std::string> RunInChild(const std::function<std::string()>& body,
                                       const std::string& who);

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_FORK_RUN_H_
