// Device error codes mapped to ours: what a backend on a physical device
// (hw/) reports when a CANN call fails, kept out of hw/ so CI tests the
// table. The numbers are CANN's documented runtime return codes (hicann/runtime:
// include/external/acl/error_codes/rt_error_codes.h, "ACL_ERROR_RT_*", and
// HCCL's HcclResult); this file needs no CANN header.
#ifndef PTO_RUNTIME_CORE_DEVICE_ERROR_H_
#define PTO_RUNTIME_CORE_DEVICE_ERROR_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace pto::rt {

struct DeviceErrorInfo {
  absl::StatusCode status;  // how the host sees it
  int runtime_error;        // our ErrorCode (runtime/api/error_codes.h) latched for the run
  const char* name;         // CANN's name of the code, e.g. "ACL_ERROR_RT_AICORE_TIMEOUT"
};

// The mapping of a CANN runtime / ACL return code; unknown codes are
// kInternal with no runtime error.
DeviceErrorInfo MapAclError(int32_t code);

// OkStatus for 0, else a status naming the call, the code and its meaning:
// "aclrtMalloc failed: 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)".
absl::Status AclStatus(const char* call, int32_t code);

// The same for HCCL's HcclResult (0 = HCCL_SUCCESS).
absl::Status HcclStatus(const char* call, int32_t code);

// The runtime error a run latches for a failed device call: the table's
// code carried by AclStatus (a status payload), else kErrorAicoreFault for
// a device fault we have no row for, kErrorSchedulerTimeout for a deadline.
int RuntimeErrorOf(const absl::Status& status);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_DEVICE_ERROR_H_
