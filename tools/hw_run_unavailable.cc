// The hw half of pto-run in a build without --config=ascend: no backend.
#include "tools/hw_run.h"

namespace pto::tools {

bool HwBackendBuiltIn() { return false; }

sim::RunReport RunOnHw(const HwRunOptions&, EntryFn, const std::vector<run::Param>&) {
  sim::RunReport r;
  r.set_error_code(-2);
  r.set_error_text(kHwBackendMissing);
  return r;
}

}  // namespace pto::tools
