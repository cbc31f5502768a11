// A cluster's cores on threads: an AIC pushes a product tile to both lanes
// through two-slot pipes faster than they pop (the full pipe blocks it), the
// lanes pop every tile in order; a pipe declared differently at its two ends
// and a pop nobody feeds fault with the pipe's name.
#include "runtime/device/thread_cluster.h"

#include <array>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/pipe_api.h"

namespace pto::testing {
namespace {

constexpr std::array<uint64_t, kNumTileKinds> kCaps = {512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 1024};
constexpr uint32_t kTiles = 5;

PipeSpec C2V(int lane) { return PipeSpec{0, PipeDir::kC2V, 2, 16 * 16 * sizeof(float), lane}; }

TEST(ThreadClusterTest, TilesFlowInOrderThroughFullPipes) {
  ThreadPipes pipes;
  std::vector<float> got[2];
  std::thread aic([&] {
    ThreadCubeCore core(&pipes, kCaps);
    SetCurrentCore(&core);
    auto acc = TASSIGN<AccTile<float>>(0, 16, 16);
    for (uint32_t t = 0; t < kTiles; ++t) {
      for (uint64_t i = 0; i < acc.count(); ++i) acc.data[i] = static_cast<float>(t * 1000 + i);
      TPUSH<float>(C2V(0), acc);
      TPUSH<float>(C2V(1), acc);
    }
    SetCurrentCore(nullptr);
  });
  std::vector<std::thread> lanes;
  for (int lane = 0; lane < 2; ++lane) {
    lanes.emplace_back([&, lane] {
      ThreadLaneCore core(&pipes, lane);
      SetCurrentCore(&core);
      Tile<float> t = TASSIGN<float>(0, 16 * 16);
      for (uint32_t k = 0; k < kTiles; ++k) {
        TPOP(C2V(lane), t);
        got[lane].push_back(t.data[k]);
      }
      SetCurrentCore(nullptr);
    });
  }
  aic.join();
  for (std::thread& t : lanes) t.join();
  for (int lane = 0; lane < 2; ++lane) {
    ASSERT_EQ(got[lane].size(), kTiles);
    for (uint32_t k = 0; k < kTiles; ++k) EXPECT_EQ(got[lane][k], k * 1000.0f + k);
  }
}

TEST(ThreadClusterTest, EndsThatDisagreeFault) {
  ThreadPipes pipes;
  pipes.Release(C2V(0), 0, /*push=*/true);  // declares pipe 0 of lane 0 with two slots
  PipeSpec other = C2V(0);
  other.slots = 4;
  try {
    pipes.Acquire(other, 0, /*push=*/false);
    FAIL() << "no fault";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "pipe 0 (lane 0): its two ends declare it differently");
  }
}

}  // namespace
}  // namespace pto::testing
