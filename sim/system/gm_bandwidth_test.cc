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
  // (WAW on UB) and holds the MTE pipe for its per-DMA cost plus its bytes at
  // the pipe's rate (docs/simulator.md, "Per-instruction costs"; the DMA
  // cost holds the local GM round trip).
  const platforms::Platform p = *platforms::LoadPlatform("a2a3");
  const double load_ns =
      (p.mte_dma_cycles() + 65536.0 / p.mte_bytes_per_cycle()) / p.clock_ghz();
  EXPECT_NEAR(one, 64 * load_ns, 64 * 2.0);
  // Two tiles: a load is in flight while the next one issues, and the MTE
  // pipe, which holds each DMA for the same time, is the limit.
  const double pingpong = GmReadTime(1, 2) / 1e3;
  EXPECT_NEAR((4 << 20) / pingpong, 65536 / load_ns, 65536 / load_ns * 0.02);
  // 48 cores are limited by the 1.6 TB/s HBM.
  EXPECT_NEAR(48.0 * (4 << 20) / all, 1600, 1600 * 0.05);
}

}  // namespace
}  // namespace pto::sim
