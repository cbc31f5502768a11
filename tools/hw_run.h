// pto-run --backend=hw (docs/hw.md): the HOST orchestration of a built
// program on physical devices through hw/host's rt::Host, its report in the
// simulator's RunReport shape so the outputs, --record-golden and the
// summary line need no second path. Linked with the hw backend only in a
// --config=ascend build; otherwise HwBackendBuiltIn() is false and RunOnHw
// reports why.
#ifndef PTO_TOOLS_HW_RUN_H_
#define PTO_TOOLS_HW_RUN_H_

#include <string>
#include <vector>

#include "platforms/platform.pb.h"
#include "sim/trace/report.pb.h"
#include "tools/program_build.h"
#include "tools/run_params.h"

namespace pto::tools {

// Whether this binary has the hw backend (a --config=ascend build).
bool HwBackendBuiltIn();
// What to do to get it; the message of a run without it.
inline constexpr char kHwBackendMissing[] =
    "--backend=hw: this pto-run was built without the hw backend; on a machine with the "
    "CANN toolkit, source its set_env.sh and build with bazel build --config=ascend "
    "//tools:pto-run (docs/hw.md)";

struct HwRunOptions {
  platforms::Platform platform;
  int ranks = 0;
  // <kernel_dir>/<kernel name>.o is the AIV ELF of each kernel.
  std::string kernel_dir;
};

// Stages every param on every device, runs `entry`, waits for every
// dispatch and copies the outputs back (keys "<param>@<device>"). Task
// times are the measured kernel times, laid end to end per device in
// completion order (one stream per device).
sim::RunReport RunOnHw(const HwRunOptions& options, EntryFn entry,
                       const std::vector<run::Param>& params);

}  // namespace pto::tools

#endif  // PTO_TOOLS_HW_RUN_H_
