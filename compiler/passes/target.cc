#include "compiler/passes/target.h"

#include "compiler/support/strings.h"

namespace pto::passes {

absl::StatusOr<Target> TargetForPlatform(std::string_view platform) {
  if (platform == "a2a3") return Target{"a2a3", 48};
  if (platform == "a5") return Target{"a5", 72};
  return absl::InvalidArgumentError(
      pto::StrCat("unknown platform '", platform, "' (known platforms: a2a3, a5)"));
}

}  // namespace pto::passes
