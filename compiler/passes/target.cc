#include "compiler/passes/target.h"

#include "compiler/support/strings.h"
#include "platforms/platform.h"

namespace pto::passes {

absl::StatusOr<Target> TargetForPlatform(std::string_view platform) {
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(std::string(platform));
  if (!p.ok()) return absl::InvalidArgumentError(p.status().message());
  Target t;
  t.platform = p->name();
  t.aiv_cores = p->aiv_cores();
  t.urma = p->urma().present();
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<platforms::Platform> other = platforms::LoadPlatform(name);
    if (other.ok() && other->urma().present()) {
      t.urma_platforms.push_back(name);
    }
  }
  return t;
}

}  // namespace pto::passes
