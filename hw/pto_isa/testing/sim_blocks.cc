// RunConcurrently for kernels built on the simulator's kernel API
// (runtime/device/device_api.h, whose arithmetic sim/aiv runs), on
// runtime/device's ThreadCore: blocks on threads can wait on each other.
#include <memory>
#include <vector>

#include "hw/pto_isa/testing/concurrent_blocks.h"
#include "hw/pto_isa/testing/run_threads.h"
#include "runtime/device/thread_core.h"

namespace pto::hw::testing {

std::string RunConcurrently(const std::vector<BlockLaunch>& launches) {
  return RunThreads(launches, [] { return std::make_unique<pto::testing::ThreadCore>(); });
}

const char* BackendName() { return "simulator kernel API"; }

}  // namespace pto::hw::testing
