// One case per point of a sweep grid (sweep.bzl): a collective of a size on
// a number of ranks of a platform, simulated in timing-only mode. Each case
// checks the run (no error, every byte over the fabric accounted for, time
// above the links' bound) and records its row (sim_us, algbw_GBps,
// busbw_GBps) as test properties, which merge_sweep.py joins across shards.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

struct Point {
  std::string collective;
  uint64_t bytes = 0;  // per peer
  int ranks = 0;
  std::string platform;
};

std::vector<std::string> List(const char* var) {
  const char* v = std::getenv(var);
  if (v == nullptr) {
    std::cerr << "sweep_test: " << var << " is not set; run it through its collective_sweep\n";
    std::exit(2);
  }
  return absl::StrSplit(v, ',', absl::SkipEmpty());
}

std::vector<Point> Grid() {
  std::vector<Point> g;
  for (const std::string& c : List("SWEEP_COLLECTIVES")) {
    for (const std::string& s : List("SWEEP_SIZES")) {
      for (const std::string& r : List("SWEEP_RANKS")) {
        for (const std::string& p : List("SWEEP_PLATFORMS")) {
          Point pt{c, 0, 0, p};
          if (!absl::SimpleAtoi(s, &pt.bytes) || !absl::SimpleAtoi(r, &pt.ranks)) {
            std::cerr << "sweep_test: bad size '" << s << "' or ranks '" << r << "'\n";
            std::exit(2);
          }
          g.push_back(pt);
        }
      }
    }
  }
  return g;
}

// args: t0 = src (root's), t1 = dst window, t2 = sig window; s0 = &CommContext,
// s1 = bytes. The root (rank 0) puts its buffer into every peer's window
// and notifies it; the peers wait.
void BroadcastKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[3]);
  const uint64_t bytes = static_cast<uint64_t>(args[4]);
  const int me = static_cast<int>(ctx->rankId);
  const int n = static_cast<int>(ctx->rankNum);
  const int b = get_block_idx(args);
  const int nb = get_block_num(args);
  int32_t* sig = TensorArg(args, 2)->data<int32_t>();
  if (me == 0) {
    uint8_t* src = TensorArg(args, 0)->data<uint8_t>();
    uint8_t* dst = TensorArg(args, 1)->data<uint8_t>();
    Tile<uint8_t> stage = TASSIGN<uint8_t>(0, 64 * 1024);
    for (int peer = 1 + b; peer < n; peer += nb) {
      TPUT(GlobalTensor<uint8_t>{CommRemotePtr(ctx, dst, peer), bytes},
           GlobalTensor<uint8_t>{src, bytes}, stage);
      pipe_barrier(PIPE_ALL);
      TNOTIFY(CommRemotePtr(ctx, sig, peer), 1, NotifyOp::AtomicAdd);
    }
  } else if (b == 0) {
    TWAIT(sig, 1, WaitCmp::GE);
  }
}

absl::Status SetUpBroadcast(SimSystem& sys, uint64_t bytes, int blocks) {
  const int n = sys.device_count();
  rt::DomainSpec spec{"bcast", {}, bytes + 4096 + 64, {{"dst", bytes}, {"sig", 64}}};
  for (int i = 0; i < n; ++i) spec.devices.push_back(i);
  absl::StatusOr<rt::Domain> dom = sys.CreateDomain(spec);
  if (!dom.ok()) return dom.status();
  std::vector<rt::ChipArgs> args;
  std::vector<int> devices;
  for (int r = 0; r < n; ++r) {
    // Every rank gets a local source; only the root's is read.
    absl::StatusOr<rt::Tensor> src = sys.Alloc(r, bytes, "src");
    if (!src.ok()) return src.status();
    const rt::ChipDomainContext& c = dom->ranks[r];
    rt::ChipArgs a;
    a.tensors = {*src, c.buffers.at("dst"), c.buffers.at("sig")};
    a.scalars = {c.device_ctx.addr(), bytes};
    args.push_back(a);
    devices.push_back(r);
  }
  return sys.DispatchGroup(devices,
                           testing::SingleTask("broadcast", &BroadcastKernel, blocks, true), args);
}

class SweepTest : public ::testing::TestWithParam<Point> {};

TEST_P(SweepTest, RunsAndRecordsItsRow) {
  const Point& pt = GetParam();
  SimOptions o = testing::Opts(pt.ranks, pt.platform);
  o.trace = false;
  o.race_detection = false;
  o.timing_only = true;
  const int blocks = 16;
  const RunReport r = testing::Simulate(o, [&](SimSystem& sys) -> absl::Status {
    if (pt.collective == "all_to_all") {
      return testing::SetUpAllToAll(sys, pt.bytes, blocks, 64 * 1024, /*stage_payload=*/false)
          .status();
    }
    if (pt.collective == "broadcast") return SetUpBroadcast(sys, pt.bytes, blocks);
    return absl::InvalidArgumentError(absl::StrCat("unknown collective '", pt.collective, "'"));
  });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  // The kernel's span: first block start to last block end.
  int64_t start = INT64_MAX, end = 0;
  for (const TaskStat& t : r.tasks()) {
    start = std::min(start, t.start_ps());
    end = std::max(end, t.end_ps());
  }
  ASSERT_GT(end, start);
  const double seconds = (end - start) * 1e-12;
  // Every transfer chip 0 makes crosses exactly one of its first-hop links
  // (an HCCS link, or its port on the lowest switch tier), and chip 0 sends
  // `peers` x bytes in both collectives (it is the broadcast's root).
  const double peers = pt.ranks - 1;
  int64_t sent = 0;
  for (const ResourceStat& l : r.links()) {
    const std::string& n = l.name();
    if (absl::StartsWith(n, "link c0->") || absl::EndsWith(n, " port c0->switch") ||
        n == "port c0->switch") {
      sent += l.bytes();
    }
  }
  EXPECT_EQ(sent, static_cast<int64_t>(peers * ((pt.bytes + 31) / 32 * 32)));
  // nccl-tests' definitions: all-to-all busbw = (n-1)/n x n x bytes / t
  // (= what one rank sends per second); broadcast algbw = busbw = bytes / t.
  const double busbw = pt.bytes * (pt.collective == "all_to_all" ? peers : 1.0) / seconds;
  const double algbw = pt.collective == "all_to_all" ? busbw * pt.ranks / peers : busbw;
  RecordProperty("collective", pt.collective);
  RecordProperty("bytes", std::to_string(pt.bytes));
  RecordProperty("ranks", std::to_string(pt.ranks));
  RecordProperty("platform", pt.platform);
  RecordProperty("sim_us", absl::StrCat(seconds * 1e6));
  RecordProperty("algbw_GBps", absl::StrCat(algbw / 1e9));
  RecordProperty("busbw_GBps", absl::StrCat(busbw / 1e9));
}

INSTANTIATE_TEST_SUITE_P(Grid, SweepTest, ::testing::ValuesIn(Grid()),
                         [](const ::testing::TestParamInfo<Point>& i) {
                           return absl::StrCat(i.param.collective, "_", i.param.bytes, "B_",
                                               i.param.ranks, "r_", i.param.platform);
                         });

}  // namespace
}  // namespace pto::sim
