// GM/HBM (sim/gm) in the whole model: 1 to 48 cores of a chip streaming
// through its one port, with hand-written kernels. The GM alone is
// sim/gm/gm_test.cc. Simulated time, never wall-clock time.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using testing::NopKernel;
using testing::OnlyTask;
using testing::Opts;
using testing::Simulate;
using testing::SingleTask;

// ---------------------------------------------------------------- GM

// t0 = a buffer of block_num * s0 bytes; each block loads its slice in
// 64 KiB tiles, rotating over s1 tiles.
void GmReadKernel(int64_t* args) {
  const uint64_t bytes = static_cast<uint64_t>(args[1]);
  const int tiles = static_cast<int>(args[2]);
  uint8_t* base = TensorArg(args, 0)->data<uint8_t>() + bytes * get_block_idx(args);
  int k = 0;
  for (uint64_t off = 0; off < bytes; off += 64 * 1024) {
    Tile<uint8_t> t = TASSIGN<uint8_t>((k++ % tiles) * 64 * 1024, 64 * 1024);
    TLOAD(t, GlobalTensor<uint8_t>{base + off, t.count});
  }
  pipe_barrier(PIPE_ALL);
}

int64_t GmReadTime(int blocks, int tiles = 1) {
  constexpr uint64_t kBytes = 4 << 20;
  RunReport r = Simulate(Opts(1), [&](SimSystem& sys) -> absl::Status {
    auto buf = sys.Alloc(0, blocks * kBytes, "buf");
    if (!buf.ok()) return buf.status();
    return sys.Dispatch(0, SingleTask("gm_read", &GmReadKernel, blocks, true),
                        rt::ChipArgs{{*buf}, {kBytes, static_cast<uint64_t>(tiles)}});
  });
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  return OnlyTask(r, 0).end_ps() - OnlyTask(r, 0).start_ps();
}

TEST(GmBandwidthTest, CoresShareTheChipBandwidth) {
  const double one = GmReadTime(1) / 1e3;   // ns
  const double all = GmReadTime(48) / 1e3;  // ns
  // One core reusing one tile: each 64 KiB TLOAD waits for the previous one
  // (WAW on UB), streams through the MTE pipe (64 B/cycle at 1.85 GHz =
  // 118.4 GB/s) and pays the GM latency.
  const double latency_ns = platforms::LoadPlatform("a2a3")->gm().latency_ns();
  EXPECT_NEAR(one, 64 * (65536 / 118.4 + latency_ns), 64 * 2.0);
  // Two tiles: a load is in flight while the next one issues, so the MTE
  // pipe (64 B/cycle at 1.85 GHz = 118.4 GB/s) is the limit.
  const double pingpong = GmReadTime(1, 2) / 1e3;
  EXPECT_NEAR((4 << 20) / pingpong, 118.4, 118.4 * 0.02);
  // 48 cores are limited by the 1.6 TB/s HBM.
  EXPECT_NEAR(48.0 * (4 << 20) / all, 1600, 1600 * 0.05);
}

}  // namespace
}  // namespace pto::sim
