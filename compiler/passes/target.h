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
#include <vector>

#include "absl/status/statusor.h"

namespace pto::platforms {
class Platform;
}  // namespace pto::platforms

namespace pto::passes {

struct Target {
  std::string platform;                // empty: no target (pure IR)
  std::optional<int64_t> aiv_cores;    // AIV cores per device id
  bool urma = false;                   // the platform has URMA PER_PEER queues
  // The built-in platforms that have URMA (what a diagnostic suggests).
  std::vector<std::string> urma_platforms;
  std::optional<int64_t> ub_bytes;     // UB capacity of one AIV core
  // The AIC's cube buffers (platform `cube`); unset when the platform has no
  // cube model.
  struct CubeBuffers {
    int64_t l1_bytes = 0;    // Mat
    int64_t l0a_bytes = 0;   // Left
    int64_t l0b_bytes = 0;   // Right
    int64_t l0c_bytes = 0;   // Acc
    int64_t bias_bytes = 0;  // Bias
  };
  std::optional<CubeBuffers> cube;
  // Tiles start at multiples of this. With no target: the coarsest UB block
  // of the built-in platforms, so a placement suits every one of them.
  int64_t ub_block_bytes = 0;
  // The AICores' architecture as PyPTO names it ("Ascend910B", "Ascend950");
  // empty when the platform file gives none.
  std::string arch;
};

// The Target of a built-in platform, read from platforms/<name>.textproto
// (the one source of platform facts); InvalidArgument naming the known
// platforms otherwise.
absl::StatusOr<Target> TargetForPlatform(std::string_view platform);

// The Target of a parsed platform (a built-in one or a user's file, its
// `extends` resolved by platforms::ParsePlatform).
Target TargetFromPlatform(const platforms::Platform& p);

// PyPTO's name of a platforms::Arch value; empty for ARCH_UNSPECIFIED.
std::string ArchName(int arch);

// The UB block size tiles are aligned to: the target's, or with no target the
// coarsest of the built-in platforms.
int64_t UbBlockBytes(const Target& target);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TARGET_H_
