// Platforms as data: parses and validates sim/platforms/*.textproto.
#ifndef PTO_SIM_PLATFORMS_PLATFORM_H_
#define PTO_SIM_PLATFORMS_PLATFORM_H_

#include <string>

#include "absl/status/statusor.h"
#include "sim/platforms/platform.pb.h"

namespace pto::sim {

// Parses a Platform textproto and validates it.
absl::StatusOr<Platform> ParsePlatform(const std::string& text);
// Loads a built-in platform by name ("a2a3" or "a5").
absl::StatusOr<Platform> LoadPlatform(const std::string& name);
// Checks that every figure the model divides by or sizes with is sane.
absl::Status ValidatePlatform(const Platform& p);

}  // namespace pto::sim

#endif  // PTO_SIM_PLATFORMS_PLATFORM_H_
