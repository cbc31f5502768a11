// The inter-chip link (sim/link) in the whole model: puts of hand-written
// kernels saturate it at the platform bandwidth and pay one hop. The link
// alone is sim/link/link_test.cc. Simulated time, never wall-clock time.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/common/time.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using testing::NopKernel;
using testing::OnlyTask;
using testing::Opts;
using testing::Simulate;
using testing::SingleTask;

// ---------------------------------------------------------------- links

// t0 = src (local), t1 = dst (window); s0 = &CommContext, s1 = bytes per
// block, s2 = peer. Each block puts its slice to the peer.
void PushKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[2]);
  const uint64_t bytes = static_cast<uint64_t>(args[3]);
  const uint32_t peer = static_cast<uint32_t>(args[4]);
  const uint64_t off = bytes * get_block_idx(args);
  uint8_t* src = TensorArg(args, 0)->data<uint8_t>() + off;
  uint8_t* dst = TensorArg(args, 1)->data<uint8_t>() + off;
  Tile<uint8_t> stage = TASSIGN<uint8_t>(0, 64 * 1024);
  TPUT(GlobalTensor<uint8_t>{CommRemotePtr(ctx, dst, peer), bytes},
       GlobalTensor<uint8_t>{src, bytes}, stage);
}

RunReport Push(int blocks, uint64_t bytes_per_block, uint32_t peer) {
  return Simulate(Opts(2), [&](SimSystem& sys) -> absl::Status {
    const uint64_t total = blocks * bytes_per_block;
    rt::DomainSpec spec{"push", {0, 1}, total + 4096, {{"dst", total}}};
    auto d = sys.CreateDomain(spec);
    if (!d.ok()) return d.status();
    auto src = sys.Alloc(0, total, "src");
    if (!src.ok()) return src.status();
    const auto& c = d->ranks[0];
    return sys.Dispatch(
        0, SingleTask("push", &PushKernel, blocks, true),
        rt::ChipArgs{{*src, c.buffers.at("dst")},
                     {c.device_ctx.addr(), bytes_per_block, peer}});
  });
}

TEST(LinkBandwidthTest, SaturatedLinkRunsAtThePlatformBandwidth) {
  constexpr uint64_t kPerBlock = 1 << 20;
  RunReport r = Push(8, kPerBlock, 1);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  const ResourceStat* link = nullptr;
  for (const ResourceStat& l : r.links()) {
    if (l.name() == "link c0->c1") link = &l;
  }
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->bytes(), 8 * kPerBlock);
  // 56 GB/s: 8 MiB occupy the link for 149.796 us.
  EXPECT_NEAR(link->busy_ps(), 149796571, 1000);
  const TaskStat& t = OnlyTask(r, 0);
  const double gbps = 8.0 * kPerBlock / ((t.end_ps() - t.start_ps()) / 1e3);
  EXPECT_GT(gbps, 0.95 * 56) << gbps;
  EXPECT_LE(gbps, 56.0) << gbps;
}

TEST(LinkBandwidthTest, RemotePutPaysOneHopLatency) {
  RunReport local = Push(1, 32, 0);
  RunReport remote = Push(1, 32, 1);
  ASSERT_EQ(local.error_code(), 0) << local.error_text();
  ASSERT_EQ(remote.error_code(), 0) << remote.error_text();
  const TaskStat& l = OnlyTask(local, 0);
  const TaskStat& m = OnlyTask(remote, 0);
  const int64_t extra = (m.end_ps() - m.start_ps()) - (l.end_ps() - l.start_ps());
  // One HCCS hop (+ < 1 ns of serialisation on the link).
  const int64_t hop = NsToPs(platforms::LoadPlatform("a2a3")->fabric().hop_latency_ns());
  EXPECT_GE(extra, hop);
  EXPECT_LE(extra, hop + 1000);
}

}  // namespace
}  // namespace pto::sim
