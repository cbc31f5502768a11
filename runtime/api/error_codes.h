// Runtime error codes (runtime-and-sim.md §4.1), kept numerically identical to
// simpler's PTO2_ERROR_* so users searching its documentation find them.
#ifndef PTO_RUNTIME_API_ERROR_CODES_H_
#define PTO_RUNTIME_API_ERROR_CODES_H_

namespace pto::rt {

enum ErrorCode : int {
  kErrorNone = 0,
  kErrorScopeDeadlock = 1,            // task window full inside an open scope
  kErrorHeapRingDeadlock = 2,         // GM heap exhausted
  kErrorFlowControlDeadlock = 3,
  kErrorDepPoolOverflow = 4,          // too many explicit dependencies
  kErrorInvalidArgs = 5,              // TaskArgs construction or submit error
  kErrorRequireSyncStartInvalid = 7,  // sync-start launch above the core count
  kErrorTensorWaitTimeout = 8,        // get/set_tensor_data timed out
  kErrorExplicitOrchFatal = 9,        // report_fatal
  kErrorScopeTasksOverflow = 10,
  kErrorTensorMapOverflow = 11,
  kErrorSchedulerTimeout = 100,       // deadlock or a block past the op timeout
  kErrorAsyncCompletionInvalid = 101,
  kErrorAsyncWaitOverflow = 102,
  kErrorAicoreFault = 110,            // kernel fault (UB bounds, bad address)
};

// "PTO2_ERROR_..."-style name, e.g. "REQUIRE_SYNC_START_INVALID".
const char* ErrorName(int code);
// One line: what the code means and what to look at.
const char* ErrorDetail(int code);

}  // namespace pto::rt

#endif  // PTO_RUNTIME_API_ERROR_CODES_H_
