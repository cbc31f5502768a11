// Hand-written kernels and chip orchestrations for the sim tests and the
// benchmark (no compiler involved).
#ifndef PTO_SIM_SYSTEM_TEST_KERNELS_H_
#define PTO_SIM_SYSTEM_TEST_KERNELS_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"

namespace pto::sim::testing {

// Word j of the all-to-all chunk that rank `src` sends to rank `dst`.
inline uint32_t A2aWord(int src, int dst, uint64_t j) {
  return (static_cast<uint32_t>(src) << 26) ^ (static_cast<uint32_t>(dst) << 20) ^
         static_cast<uint32_t>(j * 2654435761u);
}

struct AllToAllSetup {
  rt::Domain domain;
  uint64_t chunk_bytes = 0;
};

// Creates the domain (buffers "send", "recv", "sig"), stages every rank's
// send buffer and group-dispatches one all-to-all task of `blocks` AIV blocks
// (require_sync_start) per chip. `stage_bytes` is each of the two UB
// staging tiles. Without `stage_payload` the send buffers keep their zeros
// (a timing-only run, whose time does not depend on them).
absl::StatusOr<AllToAllSetup> SetUpAllToAll(SimSystem& sys, uint64_t chunk_bytes, int blocks,
                                            uint64_t stage_bytes = 64 * 1024,
                                            bool stage_payload = true);
// Number of words of rank r's recv buffer that differ from the expected data.
uint64_t AllToAllErrors(SimSystem& sys, const AllToAllSetup& s);

// A chip callable that submits one AIV task of `kernel` with the given
// tensors (INOUT) and scalars and launch spec.
rt::ChipCallable SingleTask(const std::string& name, KernelEntry kernel, int core_num,
                            bool sync_start);

// Builds a system in a child process (RunIsolated), lets `setup` stage and
// dispatch, runs, then lets `collect` read results into the report.
RunReport Simulate(SimOptions o, const std::function<absl::Status(SimSystem&)>& setup,
                   const std::function<void(SimSystem&, RunReport&)>& collect = nullptr);

SimOptions Opts(int chips, const std::string& platform = "a2a3");

// For a `collect` callback: copies all of `t` into report.outputs[key]
// (nothing if the copy fails, e.g. after a fault).
void CaptureOutput(SimSystem& sys, const rt::Tensor& t, const std::string& key, RunReport& r);

// The first task of `chip` in the report (a test failure when there is none).
const TaskStat& OnlyTask(const RunReport& r, int chip);

// A kernel that does nothing.
void NopKernel(int64_t* args);

// report.outputs[key] as elements of E; empty when the key is absent.
template <typename E>
std::vector<E> OutputAs(const RunReport& r, const std::string& key) {
  std::vector<E> v;
  auto it = r.outputs().find(key);
  if (it == r.outputs().end()) return v;
  v.resize(it->second.size() / sizeof(E));
  std::memcpy(v.data(), it->second.data(), v.size() * sizeof(E));
  return v;
}

}  // namespace pto::sim::testing

#endif  // PTO_SIM_SYSTEM_TEST_KERNELS_H_
