#include "runtime/api/error_codes.h"

namespace pto::rt {

const char* ErrorName(int code) {
  switch (code) {
    case kErrorNone: return "NONE";
    case kErrorScopeDeadlock: return "SCOPE_DEADLOCK";
    case kErrorHeapRingDeadlock: return "HEAP_RING_DEADLOCK";
    case kErrorFlowControlDeadlock: return "FLOW_CONTROL_DEADLOCK";
    case kErrorDepPoolOverflow: return "DEP_POOL_OVERFLOW";
    case kErrorInvalidArgs: return "INVALID_ARGS";
    case kErrorRequireSyncStartInvalid: return "REQUIRE_SYNC_START_INVALID";
    case kErrorTensorWaitTimeout: return "TENSOR_WAIT_TIMEOUT";
    case kErrorExplicitOrchFatal: return "EXPLICIT_ORCH_FATAL";
    case kErrorScopeTasksOverflow: return "SCOPE_TASKS_OVERFLOW";
    case kErrorTensorMapOverflow: return "TENSORMAP_OVERFLOW";
    case kErrorSchedulerTimeout: return "SCHEDULER_TIMEOUT";
    case kErrorAsyncCompletionInvalid: return "ASYNC_COMPLETION_INVALID";
    case kErrorAsyncWaitOverflow: return "ASYNC_WAIT_OVERFLOW";
    case kErrorAicoreFault: return "AICORE_FAULT";
  }
  return "UNKNOWN";
}

const char* ErrorDetail(int code) {
  switch (code) {
    case kErrorNone: return "no error";
    case kErrorScopeDeadlock:
      return "the task window is full of tasks of the open scope; close the "
             "scope earlier or enlarge the task window";
    case kErrorHeapRingDeadlock:
      return "the GM heap cannot hold the requested output";
    case kErrorFlowControlDeadlock:
      return "the orchestrator cannot make progress";
    case kErrorDepPoolOverflow:
      return "too many explicit dependencies on one task";
    case kErrorInvalidArgs:
      return "a TaskArgs or submit argument is invalid";
    case kErrorRequireSyncStartInvalid:
      return "a require_sync_start launch needs more cores than the chip has "
             "(deadlock guaranteed); lower core_num";
    case kErrorTensorWaitTimeout:
      return "get/set_tensor_data waited past its simulated timeout for the "
             "producer or consumers";
    case kErrorExplicitOrchFatal:
      return "the orchestration called report_fatal";
    case kErrorScopeTasksOverflow: return "too many tasks in one scope";
    case kErrorTensorMapOverflow: return "the TensorMap is full";
    case kErrorSchedulerTimeout:
      return "no progress: a deadlock (every agent waits) or a block past its "
             "deadline; see the blocked-block report";
    case kErrorAsyncCompletionInvalid:
      return "an asynchronous completion is invalid";
    case kErrorAsyncWaitOverflow:
      return "more than 64 completion conditions in one task";
    case kErrorAicoreFault:
      return "a kernel faulted (UB out of bounds or a bad GM address)";
  }
  return "unknown error code";
}

}  // namespace pto::rt
