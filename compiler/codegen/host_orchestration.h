// The C++ orchestration of a HOST orchestrator (docs/codegen.md,
// §3.11; runtime-and-sim.md §1.10-§1.12, §2.3): what the host runs to set up
// comm domains and dispatch chip pipelines and builtin collectives per
// device. compiler/ only writes the text; it does not link runtime/api.
#ifndef PTO_COMPILER_CODEGEN_HOST_ORCHESTRATION_H_
#define PTO_COMPILER_CODEGEN_HOST_ORCHESTRATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// One translation unit defining
//
//   absl::Status host_orchestration_entry(
//       pto::rt::Host& host,
//       const std::map<std::string, pto::rt::ChipCallable>& callables,
//       const std::vector<pto::rt::Tensor>& <param>...);
//
// with, per host function param in order, one tensor per device (device d's
// copy on device d, with the param's shape): devices have separate memory, so
// `pl.tensor.index(param, [i])` on device r is row i of param[r]. A caller
// stages inputs into every copy and reads row r of an Out param from device
// r's copy. `callables` holds the chip pipelines by function name and the
// builtin variants by entry symbol (BuiltinVariant::entry); a missing one is
// NotFound at run time. World size is host.device_count(). Each CommDomainScopeStmt becomes one
// Host::CreateDomain with a buffer per slot (bytes rounded up to 32) plus the
// 32-byte per-rank `_ord` ordering token; window views become the rank's
// buffer, shaped and typed by the view type. In `for r in
// range(world_size())` loops, a pipeline call with device=r is a Dispatch
// (tensor args in order, CommCtx args as the rank's CommContext address), a
// builtin.tensor.* call a Dispatch of its variant (operands in order, `_ord`,
// then scalars CommContext address and core_num). Anything else is a located
// user error; an unknown function is NotFound.
absl::StatusOr<std::string> GenerateHostOrchestration(const ir::ProgramPtr& program,
                                                      std::string_view host_function);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_HOST_ORCHESTRATION_H_
