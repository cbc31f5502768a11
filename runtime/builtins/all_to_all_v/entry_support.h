// Shared by every rendered all_to_all_v HOST entry (entry.cpp.in): the
// orchestration config type and the DFX timing log. The chip Orchestrator
// API has no log channel yet, so the entry's LOG_TIMING line (spec §4.9)
// goes through a process-wide sink that tests can redirect.
#ifndef PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_
#define PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_

#include <functional>
#include <string>

namespace pto::builtins {

// What aicpu_orchestration_config returns: the runtime rejects dispatches
// with fewer args (tensors + scalars) than expected_arg_count; extra
// trailing args (the `_ord` token) are accepted.
struct OrchestrationConfig {
  int expected_arg_count = 0;
};

using TimingLogSink = std::function<void(const std::string& line)>;

// Emits one timing line; the default sink writes it to stderr.
void LogTiming(const std::string& line);

// Replaces the sink (nullptr restores stderr) and returns the previous one.
TimingLogSink SetTimingLogSink(TimingLogSink sink);

}  // namespace pto::builtins

#endif  // PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_
