// What generated HOST orchestrations call besides the Host interface
// (compiler/codegen/host_orchestration.cc writes the calls, unqualified):
// typing a window view as a kernel sees it, a device's rank in a comm
// domain, a chip callable by name, and Python's // and % on scalars. Kept
// here, as the kernels' helpers are in runtime/device/kernel_support.h, so
// the generated code only includes it instead of carrying a copy of each.
// Only generated orchestrations include this header: it puts those names
// in the global namespace for them.
#ifndef PTO_RUNTIME_API_HOST_ORCHESTRATION_SUPPORT_H_
#define PTO_RUNTIME_API_HOST_ORCHESTRATION_SUPPORT_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "common/floor_div.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

namespace pto::rt::host_support {

// `t` typed and shaped as a kernel sees it.
inline Tensor Typed(Tensor t, uint32_t elem_bytes, std::initializer_list<uint64_t> dims) {
  t.elem_bytes = elem_bytes;
  return t.WithShape(dims);
}

// The rank of `device` in `domain`; nullptr if it is not a member.
inline const ChipDomainContext* RankOf(const Domain& domain, int device) {
  for (const ChipDomainContext& rank : domain.ranks) {
    if (rank.device == device) return &rank;
  }
  return nullptr;
}

// The callable named `name` (a chip pipeline or a builtin variant's entry
// symbol); nullptr if the program has none.
inline const ChipCallable* Find(const std::map<std::string, ChipCallable>& callables,
                                const std::string& name) {
  auto it = callables.find(name);
  return it == callables.end() ? nullptr : &it->second;
}

}  // namespace pto::rt::host_support

using ::pto::FloorDiv;  // Python's // and % for scalars such as `(r + 1) % world_size`
using ::pto::FloorMod;
using ::pto::rt::host_support::Find;
using ::pto::rt::host_support::RankOf;
using ::pto::rt::host_support::Typed;

#endif  // PTO_RUNTIME_API_HOST_ORCHESTRATION_SUPPORT_H_
