// Timing-only mode (SimOptions::timing_only, docs/simulator.md): no payload
// moves or is held, control bytes stay real, and the simulated time, stats
// and trace equal the full mode's. The compiled programs of testing/system
// compare both modes on the whole all_to_all_v matrix; these tests cover the
// model itself: the fabrics, the memory it holds, and the reads it refuses.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::Opts;
using testing::SetUpAllToAll;
using testing::Simulate;
using testing::SingleTask;

// Resident bytes of this process (the RunIsolated child).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// An all-to-all; values: "nonzero" = recv words that are not 0 on every
// rank, "resident" = bytes the run added to the process.
RunReport AllToAll(const std::string& platform, int chips, uint64_t chunk, int blocks,
                   bool timing_only, bool trace = true) {
  SimOptions o = Opts(chips, platform);
  o.timing_only = timing_only;
  o.trace = trace;
  o.race_detection = false;
  std::optional<testing::AllToAllSetup> setup;
  int64_t before = 0;
  return Simulate(
      o,
      [&](SimSystem& sys) {
        before = ResidentBytes();
        auto s = SetUpAllToAll(sys, chunk, blocks, 64 * 1024, /*stage_payload=*/!timing_only);
        if (!s.ok()) return s.status();
        setup = *s;
        return absl::OkStatus();
      },
      [&](SimSystem& sys, RunReport& r) {
        (*r.mutable_values())["resident"] = ResidentBytes() - before;
        std::vector<uint32_t> words(chips * chunk / 4);
        int64_t nonzero = 0;
        for (int rank = 0; rank < chips; ++rank) {
          if (!sys.CopyFrom(words.data(), setup->domain.ranks[rank].buffers.at("recv"),
                            words.size() * 4)
                   .ok()) {
            nonzero = -1;
            break;
          }
          for (uint32_t w : words) nonzero += w != 0;
        }
        (*r.mutable_values())["nonzero"] = nonzero;
      });
}

class TimingOnlyFabricTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingOnlyFabricTest, SameTimeStatsAndTraceAsTheFullMode) {
  const RunReport full = AllToAll(GetParam(), 4, 96 * 1024, 8, false);
  const RunReport timing = AllToAll(GetParam(), 4, 96 * 1024, 8, true);
  ASSERT_EQ(full.error_code(), 0) << full.error_text();
  ASSERT_EQ(timing.error_code(), 0) << timing.error_text();
  EXPECT_EQ(timing.sim_time_ps(), full.sim_time_ps());
  // The full mode moved the payload; timing-only moved none of it.
  EXPECT_GT(full.values().at("nonzero"), 0);
  EXPECT_EQ(timing.values().at("nonzero"), 0);
  // Everything else is the same (the test's own values aside).
  RunReport a = full, b = timing;
  a.clear_values();
  b.clear_values();
  EXPECT_TRUE(StatsText(a) == StatsText(b)) << "the statistics differ";
  EXPECT_TRUE(a.trace_json() == b.trace_json()) << "the traces differ";
  EXPECT_FALSE(a.trace_json().empty());
}

INSTANTIATE_TEST_SUITE_P(Platforms, TimingOnlyFabricTest, ::testing::Values("a2a3", "a5"));

TEST(TimingOnlyTest, HoldsNoPayloadMemory) {
  // 8 chips x 8 peers x 1 MiB: 64 MiB sent and 64 MiB received.
  const RunReport full = AllToAll("a2a3", 8, 1 << 20, 8, false, false);
  const RunReport timing = AllToAll("a2a3", 8, 1 << 20, 8, true, false);
  ASSERT_EQ(full.error_code(), 0) << full.error_text();
  ASSERT_EQ(timing.error_code(), 0) << timing.error_text();
  EXPECT_EQ(timing.sim_time_ps(), full.sim_time_ps());
  EXPECT_GT(full.values().at("resident"), int64_t{120} << 20);
  EXPECT_LT(timing.values().at("resident"), int64_t{16} << 20);
}

// t0 = src (host-staged with 7s, or never written), t1 = word, t2 = out.
// Moves src through UB into word with DMAs, then branches on a scalar read
// of word: control flow on bytes a DMA delivered.
void BranchOnDmaBytesKernel(int64_t* args) {
  int32_t* src = TensorArg(args, 0)->data<int32_t>();
  int32_t* word = TensorArg(args, 1)->data<int32_t>();
  int32_t* out = TensorArg(args, 2)->data<int32_t>();
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TLOAD(t, GlobalTensor<int32_t>{src, 8});
  TSTORE(GlobalTensor<int32_t>{word, 8}, t);
  pipe_barrier(PIPE_ALL);
  WriteGm(out, ReadGm(word) == 7 ? 1 : 2);
  dcci(out, SINGLE_CACHE_LINE);
}

// The same through a vector fill instead of a load: UB bytes a vector op
// computed from real operands are real.
void BranchOnComputedBytesKernel(int64_t* args) {
  int32_t* word = TensorArg(args, 1)->data<int32_t>();
  int32_t* out = TensorArg(args, 2)->data<int32_t>();
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TEXPANDS(t, 7);
  TSTORE(GlobalTensor<int32_t>{word, 8}, t);
  pipe_barrier(PIPE_ALL);
  WriteGm(out, ReadGm(word) == 7 ? 1 : 2);
  dcci(out, SINGLE_CACHE_LINE);
}

// The same, but a scalar store rewrites the word before it is read.
void BranchOnRewrittenBytesKernel(int64_t* args) {
  int32_t* src = TensorArg(args, 0)->data<int32_t>();
  int32_t* word = TensorArg(args, 1)->data<int32_t>();
  int32_t* out = TensorArg(args, 2)->data<int32_t>();
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TLOAD(t, GlobalTensor<int32_t>{src, 8});
  TSTORE(GlobalTensor<int32_t>{word, 8}, t);
  pipe_barrier(PIPE_ALL);
  WriteGm(word, 7);
  WriteGm(out, ReadGm(word) == 7 ? 1 : 2);
  dcci(out, SINGLE_CACHE_LINE);
}

RunReport RunBranch(KernelEntry kernel, bool timing_only, bool stage_src) {
  SimOptions o = Opts(1);
  o.timing_only = timing_only;
  std::optional<rt::Tensor> out;
  return Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        absl::StatusOr<rt::Tensor> src = sys.Alloc(0, 64, "src");
        absl::StatusOr<rt::Tensor> word = sys.Alloc(0, 64, "word");
        absl::StatusOr<rt::Tensor> o = sys.Alloc(0, 64, "out");
        if (!src.ok()) return src.status();
        if (!word.ok()) return word.status();
        if (!o.ok()) return o.status();
        if (stage_src) {
          const std::vector<int32_t> sevens(8, 7);
          absl::Status st = sys.CopyTo(*src, sevens.data(), 32);
          if (!st.ok()) return st;
        }
        out = *o;
        rt::ChipArgs a;
        a.tensors = {*src, *word, *o};
        return sys.Dispatch(0, SingleTask("branch", kernel, 1, false), a);
      },
      [&](SimSystem& sys, RunReport& r) {
        int32_t v = -1;
        if (sys.CopyFrom(&v, *out, 4).ok()) (*r.mutable_values())["out"] = v;
      });
}

TEST(TimingOnlyTest, RealBytesMoveThroughDmasAndSteerAsInTheFullMode) {
  for (KernelEntry k : {&BranchOnDmaBytesKernel, &BranchOnComputedBytesKernel,
                        &BranchOnRewrittenBytesKernel}) {
    const RunReport full = RunBranch(k, false, /*stage_src=*/true);
    const RunReport timing = RunBranch(k, true, /*stage_src=*/true);
    ASSERT_EQ(full.error_code(), 0) << full.error_text();
    ASSERT_EQ(timing.error_code(), 0) << timing.error_text();
    EXPECT_EQ(full.values().at("out"), 1);
    EXPECT_EQ(timing.values().at("out"), 1);
    EXPECT_EQ(timing.sim_time_ps(), full.sim_time_ps());
  }
}

TEST(TimingOnlyTest, ScalarReadOfPayloadADmaMovedIsALatchedError) {
  // Nobody wrote src: the DMAs move payload, and the branch reads it.
  const RunReport full = RunBranch(&BranchOnDmaBytesKernel, false, /*stage_src=*/false);
  ASSERT_EQ(full.error_code(), 0) << full.error_text();
  EXPECT_EQ(full.values().at("out"), 2);
  const RunReport timing = RunBranch(&BranchOnDmaBytesKernel, true, /*stage_src=*/false);
  EXPECT_EQ(timing.error_code(), rt::kErrorAicoreFault);
  EXPECT_THAT(timing.error_text(),
              HasSubstr("kernel branch block 0/1: timing-only mode: scalar GM read of 4 bytes "
                        "at c0:word+0x0 reads bytes only a DMA wrote"));
  // A scalar store before the read makes the word real again.
  const RunReport rewritten =
      RunBranch(&BranchOnRewrittenBytesKernel, true, /*stage_src=*/false);
  ASSERT_EQ(rewritten.error_code(), 0) << rewritten.error_text();
  EXPECT_EQ(rewritten.values().at("out"), 1);
}

}  // namespace
}  // namespace pto::sim
