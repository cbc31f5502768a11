#include "compiler/passes/target.h"

#include <algorithm>

#include "compiler/support/strings.h"
#include "platforms/platform.h"

namespace pto::passes {

absl::StatusOr<Target> TargetForPlatform(std::string_view platform) {
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(std::string(platform));
  if (!p.ok()) return absl::InvalidArgumentError(p.status().message());
  return TargetFromPlatform(*p);
}

Target TargetFromPlatform(const platforms::Platform& p) {
  Target t;
  t.platform = p.name();
  t.aiv_cores = p.aiv_cores();
  t.urma = p.urma().present();
  t.ub_bytes = static_cast<int64_t>(p.ub_bytes());
  t.ub_block_bytes = p.ub_block_bytes();
  if (p.has_cube()) {
    t.cube = Target::CubeBuffers{static_cast<int64_t>(p.cube().l1_bytes()),
                                 static_cast<int64_t>(p.cube().l0a_bytes()),
                                 static_cast<int64_t>(p.cube().l0b_bytes()),
                                 static_cast<int64_t>(p.cube().l0c_bytes()),
                                 static_cast<int64_t>(p.cube().bias_bytes())};
  }
  t.arch = ArchName(p.arch());
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<platforms::Platform> other = platforms::LoadPlatform(name);
    if (other.ok() && other->urma().present()) {
      t.urma_platforms.push_back(name);
    }
  }
  return t;
}

std::string ArchName(int arch) {
  switch (arch) {
    case platforms::ASCEND910B:
      return "Ascend910B";
    case platforms::ASCEND950:
      return "Ascend950";
    default:
      return "";
  }
}

int64_t UbBlockBytes(const Target& target) {
  if (target.ub_block_bytes > 0) return target.ub_block_bytes;
  int64_t coarsest = 1;
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(name);
    if (p.ok()) coarsest = std::max<int64_t>(coarsest, p->ub_block_bytes());
  }
  return coarsest;
}

}  // namespace pto::passes
