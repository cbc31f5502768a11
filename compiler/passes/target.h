// What the compiler knows of the machine it compiles for. Pure IR use has no
// target; `pto-opt --platform=a2a3|a5` gives passes the platform's limits so
// that a program which would hang there (e.g. a sync-start launch above the
// chip's AIV count) is rejected at compile time.
#ifndef PTO_COMPILER_PASSES_TARGET_H_
#define PTO_COMPILER_PASSES_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pto::passes {

struct Target {
  std::string platform;                // empty: no target (pure IR)
  std::optional<int64_t> aiv_cores;    // AIV cores per device id
};

// "a2a3" (910B/910C: 48 AIV per device id) or "a5" (950: 72), from
// spec/runtime-and-sim.md §3.4; InvalidArgument naming the known platforms
// otherwise.
absl::StatusOr<Target> TargetForPlatform(std::string_view platform);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TARGET_H_
