// Shared by every rendered all_to_all_v HOST entry (entry.cpp.in): the type
// aicpu_orchestration_config returns (spec §4.9).
#ifndef PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_
#define PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_

namespace pto::builtins {

// The runtime rejects dispatches with fewer args (tensors + scalars) than
// expected_arg_count; extra trailing args (the `_ord` token) are accepted.
// MakeChipCallable copies it into rt::ChipCallable::expected_arg_count.
struct OrchestrationConfig {
  int expected_arg_count = 0;
};

}  // namespace pto::builtins

#endif  // PTO_RUNTIME_BUILTINS_ALL_TO_ALL_V_ENTRY_SUPPORT_H_
