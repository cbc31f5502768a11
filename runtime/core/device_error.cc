#include "runtime/core/device_error.h"

#include <iterator>
#include <optional>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {
namespace {

struct Row {
  int32_t code;
  DeviceErrorInfo info;
};

// rt_error_codes.h: 1xxxxx are the caller's errors, 2xxxxx resource limits,
// 5xxxxx device / driver faults.
constexpr Row kAclRows[] = {
    {100000, {absl::StatusCode::kInvalidArgument, kErrorInvalidArgs, "ACL_ERROR_INVALID_PARAM"}},
    {107000, {absl::StatusCode::kInvalidArgument, kErrorInvalidArgs, "ACL_ERROR_RT_PARAM_INVALID"}},
    {107001, {absl::StatusCode::kInvalidArgument, kErrorNone, "ACL_ERROR_RT_INVALID_DEVICEID"}},
    {107022, {absl::StatusCode::kAborted, kErrorNone, "ACL_ERROR_RT_DEVICE_TASK_ABORT"}},
    {207000, {absl::StatusCode::kUnimplemented, kErrorNone, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"}},
    {207001,
     {absl::StatusCode::kResourceExhausted, kErrorHeapRingDeadlock, "ACL_ERROR_RT_MEMORY_ALLOCATION"}},
    {207004, {absl::StatusCode::kUnavailable, kErrorNone, "ACL_ERROR_RT_NO_DEVICE"}},
    {207016, {absl::StatusCode::kInternal, kErrorAicoreFault, "ACL_ERROR_RT_AIVEC_OVER_FLOW"}},
    {507014,
     {absl::StatusCode::kDeadlineExceeded, kErrorSchedulerTimeout, "ACL_ERROR_RT_AICORE_TIMEOUT"}},
    {507015, {absl::StatusCode::kInternal, kErrorAicoreFault, "ACL_ERROR_RT_AICORE_EXCEPTION"}},
    {507016, {absl::StatusCode::kInternal, kErrorAicoreFault, "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION"}},
    {507033, {absl::StatusCode::kUnavailable, kErrorNone, "ACL_ERROR_RT_DEV_SETUP_ERROR"}},
    {507046,
     {absl::StatusCode::kDeadlineExceeded, kErrorSchedulerTimeout, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"}},
    {507053, {absl::StatusCode::kDataLoss, kErrorAicoreFault, "ACL_ERROR_RT_DEVICE_MEM_ERROR"}},
    {507056, {absl::StatusCode::kUnavailable, kErrorNone, "ACL_ERROR_RT_LINK_ERROR"}},
    {507899, {absl::StatusCode::kInternal, kErrorNone, "ACL_ERROR_RT_DRV_INTERNAL_ERROR"}},
};

// hccl_types.h (HcclResult).
constexpr const char* kHcclNames[] = {
    "HCCL_SUCCESS",   "HCCL_E_PARA",      "HCCL_E_PTR",     "HCCL_E_MEMORY",  "HCCL_E_INTERNAL",
    "HCCL_E_NOT_SUPPORT", "HCCL_E_NOT_FOUND", "HCCL_E_UNAVAIL", "HCCL_E_SYSCALL", "HCCL_E_TIMEOUT",
};

// Where AclStatus keeps the runtime error of its row.
constexpr char kRuntimeErrorPayload[] = "pto.rt/runtime_error";

}  // namespace

DeviceErrorInfo MapAclError(int32_t code) {
  if (code == 0) return {absl::StatusCode::kOk, kErrorNone, "ACL_SUCCESS"};
  for (const Row& r : kAclRows) {
    if (r.code == code) return r.info;
  }
  return {absl::StatusCode::kInternal, kErrorNone, "unknown CANN error"};
}

absl::Status AclStatus(const char* call, int32_t code) {
  if (code == 0) return absl::OkStatus();
  const DeviceErrorInfo info = MapAclError(code);
  absl::Status s(info.status, absl::StrCat(call, " failed: ", code, " (", info.name, ")"));
  if (info.runtime_error != kErrorNone) {
    s.SetPayload(kRuntimeErrorPayload, absl::Cord(absl::StrCat(info.runtime_error)));
  }
  return s;
}

absl::Status HcclStatus(const char* call, int32_t code) {
  if (code == 0) return absl::OkStatus();
  const bool known = code > 0 && code < static_cast<int32_t>(std::size(kHcclNames));
  const absl::StatusCode status = code == 9   ? absl::StatusCode::kDeadlineExceeded
                                  : code == 1 ? absl::StatusCode::kInvalidArgument
                                              : absl::StatusCode::kUnavailable;
  return absl::Status(status, absl::StrCat(call, " failed: ", code, " (",
                                           known ? kHcclNames[code] : "unknown HCCL error", ")"));
}

int RuntimeErrorOf(const absl::Status& status) {
  if (status.ok()) return kErrorNone;
  if (auto p = status.GetPayload(kRuntimeErrorPayload); p.has_value()) {
    int code = 0;
    if (absl::SimpleAtoi(std::string(*p), &code)) return code;
  }
  return status.code() == absl::StatusCode::kDeadlineExceeded ? kErrorSchedulerTimeout
                                                              : kErrorAicoreFault;
}

}  // namespace pto::rt
