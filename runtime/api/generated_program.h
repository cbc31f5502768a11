// What a compiled program defines (pto-compile's program.cc, pto_program in
// tools/build_defs/pto.bzl, the .so pto-run builds; docs/codegen.md): the
// entry points a driver calls. program.cc includes this header, so the
// definitions cannot drift from these declarations.
#ifndef PTO_RUNTIME_API_GENERATED_PROGRAM_H_
#define PTO_RUNTIME_API_GENERATED_PROGRAM_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

namespace pto::generated {

// Every chip pipeline by function name, every HOST-rail builtin variant by
// entry symbol.
std::map<std::string, rt::ChipCallable> Callables();

// The program's HOST orchestrator (programs with exactly one) with its tensor
// params in order, each one tensor per device (device d's copy on device d).
absl::Status RunHost(rt::Host& host, const std::vector<std::vector<rt::Tensor>>& params);

}  // namespace pto::generated

#endif  // PTO_RUNTIME_API_GENERATED_PROGRAM_H_
