// The headers every program pto-run builds includes, precompiled once by
// Bazel (//tools:pto_run_prelude, g++ with pto_run_cxxflags.txt) and forced
// in front of the generated program with -include (docs/pto-run.md). Parsing
// them took most of the C++ compiler's time on every run. The list only
// affects speed: a header a program needs that is missing here is still
// included by the program itself, and the include guards make the second
// inclusion of any header below a no-op.
#ifndef PTO_TOOLS_PTO_RUN_PRELUDE_H_
#define PTO_TOOLS_PTO_RUN_PRELUDE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/launch_width.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/host_orchestration_support.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"
#include "runtime/builtins/all_to_all_v/entry_support.h"
#include "runtime/builtins/collective_entry.h"
#include "runtime/builtins/collective_kernel.h"
#include "runtime/device/comm_context.h"
#include "runtime/device/device_api.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/kernel_support.h"

#endif  // PTO_TOOLS_PTO_RUN_PRELUDE_H_
