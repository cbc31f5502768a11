// RunConcurrently for kernels built on the simulator's kernel API
// (runtime/device/device_api.h, whose arithmetic sim/aiv runs), on
// runtime/device's ThreadCore: blocks on threads can wait on each other.
#include <array>
#include <memory>
#include <vector>

#include "hw/pto_isa/testing/concurrent_blocks.h"
#include "hw/pto_isa/testing/run_threads.h"
#include "runtime/device/thread_cluster.h"
#include "runtime/device/thread_core.h"

namespace pto::hw::testing {

std::string RunConcurrently(const std::vector<BlockLaunch>& launches) {
  static constexpr std::array<uint64_t, kNumTileKinds> kCube = {PTO_DEVICE_CUBE_BYTES};
  return RunThreads(launches, [](const BlockLaunch& l) -> std::unique_ptr<DeviceCore> {
    switch (l.core) {
      case BlockCore::kAic:
        return std::make_unique<pto::testing::ThreadCubeCore>(l.pipes, kCube);
      case BlockCore::kLane:
        return std::make_unique<pto::testing::ThreadLaneCore>(l.pipes, l.lane);
      case BlockCore::kAiv:
        break;
    }
    return std::make_unique<pto::testing::ThreadCore>();
  });
}

const char* BackendName() { return "simulator kernel API"; }

}  // namespace pto::hw::testing
