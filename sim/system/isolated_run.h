// SystemC elaborates once per process, so every simulation runs in a forked
// child; the child sends its RunReport back through a pipe. Tests and the
// benchmark run many simulations this way. A child that dies is reported,
// never hangs the caller.
#ifndef PTO_SIM_SYSTEM_ISOLATED_RUN_H_
#define PTO_SIM_SYSTEM_ISOLATED_RUN_H_

#include <functional>

#include "sim/trace/report.pb.h"

namespace pto::sim {

// Runs `body` in a child process and returns its report (with wall_seconds
// measured in the child). On a crash, error_code is -1 with the reason.
RunReport RunIsolated(const std::function<RunReport()>& body);

// The report without its non-deterministic parts (wall time), as text.
std::string StatsText(const RunReport& report);

}  // namespace pto::sim

#endif  // PTO_SIM_SYSTEM_ISOLATED_RUN_H_
