// The "simulator PASS, board FAIL" bug classes of issue 15, each as a
// deliberately buggy kernel next to its fixed version: the simulator must
// catch the buggy one (a wrong result, a race report or a diagnostic) and
// pass the fixed one. The caught / not-caught list is in docs/simulator.md.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::Opts;
using testing::Simulate;

constexpr uint64_t kData = 256;  // bytes of payload per call

// These tests read the races themselves (RunReport.races), so races warn.
SimOptions WarnOnRaces(SimOptions o) {
  o.races = SimOptions::RacePolicy::kWarn;
  return o;
}

struct Outcome {
  int error_code = 0;
  std::string error_text;
  std::vector<int32_t> out;  // rank 1's "out" buffer
  std::vector<std::string> races;
  int64_t unfenced = 0;
};

// Domain "ep" on 2 ranks, buffers data (payload), counts, sig, out; every
// call is a group dispatch of `kernel` with t0..t3 = those buffers and
// s0 = &CommContext, s1 = the call's index (1-based), s2 = `fixed`,
// s3 = `variant` (which fix).
Outcome RunCalls(KernelEntry kernel, int calls, bool fixed, int variant = 0) {
  Outcome o;
  rt::Tensor out;
  RunReport r = Simulate(
      WarnOnRaces(Opts(2)),
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec{"ep",
                            {0, 1},
                            8192,
                            {{"data", kData}, {"counts", 64}, {"sig", 64}, {"out", 64}}};
        auto d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        out = d->ranks[1].buffers.at("out");
        for (int call = 1; call <= calls; ++call) {
          std::vector<rt::ChipArgs> args;
          for (const auto& c : d->ranks) {
            args.push_back({{c.buffers.at("data"), c.buffers.at("counts"), c.buffers.at("sig"),
                             c.buffers.at("out")},
                            {c.device_ctx.addr(), static_cast<uint64_t>(call), fixed ? 1u : 0u,
                             static_cast<uint64_t>(variant)}});
          }
          absl::Status s =
              sys.DispatchGroup({0, 1}, testing::SingleTask("k", kernel, 1, false), args);
          if (!s.ok()) return s;
        }
        return absl::OkStatus();
      },
      [&](SimSystem& sys, RunReport& rep) { testing::CaptureOutput(sys, out, "out", rep); });
  o.error_code = r.error_code();
  o.error_text = r.error_text();
  o.out = testing::OutputAs<int32_t>(r, "out");
  for (const std::string& s : r.races()) o.races.push_back(s);
  for (const CoreStat& c : r.cores()) o.unfenced += c.unfenced_notifies();
  return o;
}

struct Bufs {
  const CommContext* ctx;
  int me;
  int64_t call;
  bool fixed;
  uint8_t* data;
  int32_t* counts;
  int32_t* sig;
  int32_t* out;
};

Bufs Args(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[4]);
  return Bufs{ctx,
              static_cast<int>(ctx->rankId),
              args[5],
              args[6] != 0,
              TensorArg(args, 0)->data<uint8_t>(),
              TensorArg(args, 1)->data<int32_t>(),
              TensorArg(args, 2)->data<int32_t>(),
              TensorArg(args, 3)->data<int32_t>()};
}

// Rank 0 puts `value` as rank 1's count, fences and notifies rank 1.
void PublishCount(const Bufs& b, int32_t value) {
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TEXPANDS(t, value);
  TSTORE(GlobalTensor<int32_t>{CommRemotePtr(b.ctx, b.counts, 1), 8}, t);
  pipe_barrier(PIPE_ALL);
  TNOTIFY(CommRemotePtr(b.ctx, b.sig, 1), 1, NotifyOp::AtomicAdd);
}

// Rank 1 writes `v` to out[slot] (scalar store, written back).
void Emit(const Bufs& b, int slot, int32_t v) {
  WriteGm(b.out + slot, v);
  dcci(b.out + slot, CACHELINE_OUT);
}

// ---- 1. A missing dcci before scalar reads of a peer's counts.
// Rank 1 looked at its count slot before the exchange (the line is now in
// its data cache); after the signal it reads the count again. Without a
// dcci it reads its stale cached line.
void CountsKernel(int64_t* args) {
  const Bufs b = Args(args);
  if (b.me == 0) {
    PublishCount(b, 7);
    return;
  }
  const int32_t before = ReadGm(b.counts);
  TWAIT(b.sig, 1, WaitCmp::GE);
  if (b.fixed) dcci(b.counts, SINGLE_CACHE_LINE);
  Emit(b, 0, ReadGm(b.counts));
  Emit(b, 1, before);
}

TEST(BoardBugTest, MissingDcciBeforeReadingAPeersCountReadsStaleZero) {
  Outcome buggy = RunCalls(&CountsKernel, 1, false);
  ASSERT_EQ(buggy.error_code, 0) << buggy.error_text;
  ASSERT_GE(buggy.out.size(), 2u);
  EXPECT_EQ(buggy.out[0], 0);  // caught: the stale line, not the peer's 7
  Outcome fixed = RunCalls(&CountsKernel, 1, true);
  ASSERT_EQ(fixed.error_code, 0) << fixed.error_text;
  EXPECT_EQ(fixed.out[0], 7);
}

// ---- 2. A stale cache between two AIV tasks of one pipeline.
// Task 0 reads a GM word through the data cache; task 1 (a DMA) rewrites
// it; task 2, on the same core, reads it again. The cache outlives the
// task, so without a dcci at the start of task 2 it reads task 0's value.
void ReadWordKernel(int64_t* args) {
  int32_t* word = TensorArg(args, 0)->data<int32_t>();
  int32_t* out = TensorArg(args, 1)->data<int32_t>();
  if (args[3] != 0) dcci(word, SINGLE_CACHE_LINE);
  WriteGm(out + args[2], ReadGm(word));
  dcci(out + args[2], CACHELINE_OUT);
}

void StoreWordKernel(int64_t* args) {
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  TEXPANDS(t, 5);
  TSTORE(GlobalTensor<int32_t>{TensorArg(args, 0)->data<int32_t>(), 8}, t);
}

std::vector<int32_t> StaleAcrossTasks(bool fixed) {
  rt::Tensor out;
  RunReport r = Simulate(
      WarnOnRaces(Opts(1)),
      [&](SimSystem& sys) -> absl::Status {
        auto word = sys.Alloc(0, 64, "word");
        auto o = sys.Alloc(0, 64, "out");
        if (!word.ok() || !o.ok()) return absl::InternalError("alloc");
        out = *o;
        rt::ChipCallable c;
        c.name = "pipeline";
        c.kernels = {&ReadWordKernel, &StoreWordKernel};
        c.kernel_names = {"read_word", "store_word"};
        c.entry = [fixed](rt::Orchestrator& orch, const rt::ChipArgs& a) {
          for (int step = 0; step < 3; ++step) {
            rt::TaskArgs t;
            t.add_inout(a.tensors[0]);  // the chain of dependencies
            if (step != 1) {
              t.add_inout(a.tensors[1]);
              t.add_scalar(step == 0 ? 0 : 1);
              t.add_scalar(fixed ? 1 : 0);
            }
            orch.submit_aiv_task(step == 1 ? 1 : 0, t);
          }
        };
        return sys.Dispatch(0, c, rt::ChipArgs{{*word, *o}, {}});
      },
      [&](SimSystem& sys, RunReport& rep) { testing::CaptureOutput(sys, out, "out", rep); });
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.races_size(), 0) << absl::StrJoin(r.races(), "\n");
  return testing::OutputAs<int32_t>(r, "out");
}

TEST(BoardBugTest, StaleCacheBetweenTwoTasksOfOnePipelineReadsTheOldValue) {
  std::vector<int32_t> buggy = StaleAcrossTasks(false);
  ASSERT_GE(buggy.size(), 2u);
  EXPECT_EQ(buggy[0], 0);
  EXPECT_EQ(buggy[1], 0);  // caught: task 2 sees task 0's cached 0, not 5
  std::vector<int32_t> fixed = StaleAcrossTasks(true);
  ASSERT_GE(fixed.size(), 2u);
  EXPECT_EQ(fixed[1], 5);
}

// ---- 4. A signal reused across calls without self-clearing, and
// ---- 5. windows reused across epochs with fixed-value waits.
// Each call rank 0 puts a payload tagged with the call's index into rank 1's
// data buffer and adds 1 to rank 1's signal; rank 1 waits and copies the
// first word to out[call]. The buggy consumer waits for a fixed value (>= 1)
// and never clears the signal, so call 2's wait is satisfied by call 1's
// notify. Fixed (class 4): rank 1 clears the signal after its wait. Fixed
// (class 5): the wait expects the epoch's count (>= call).
void PayloadKernel(int64_t* args) {
  const Bufs b = Args(args);
  Tile<int32_t> t = TASSIGN<int32_t>(0, kData / 4);
  if (b.me == 0) {
    TEXPANDS(t, static_cast<int32_t>(100 + b.call));
    GlobalTensor<int32_t> remote{reinterpret_cast<int32_t*>(CommRemotePtr(b.ctx, b.data, 1)),
                                 kData / 4};
    TSTORE(remote, t);
    pipe_barrier(PIPE_ALL);
    TNOTIFY(CommRemotePtr(b.ctx, b.sig, 1), 1, NotifyOp::AtomicAdd);
    return;
  }
  const bool self_clear = b.fixed && args[7] == 4;
  const bool epoch_wait = b.fixed && args[7] == 5;
  TWAIT(b.sig, epoch_wait ? static_cast<int32_t>(b.call) : 1, WaitCmp::GE);
  if (self_clear) TNOTIFY(b.sig, 0, NotifyOp::Set);
  TLOAD(t, GlobalTensor<int32_t>{reinterpret_cast<int32_t*>(b.data), kData / 4});
  pipe_barrier(PIPE_ALL);
  TSTORE(GlobalTensor<int32_t>{b.out + b.call, 1}, Tile<int32_t>{t.data, 1});
}

TEST(BoardBugTest, SignalReusedAcrossCallsWithoutSelfClearingIsARace) {
  Outcome buggy = RunCalls(&PayloadKernel, 2, false);
  ASSERT_EQ(buggy.error_code, 0) << buggy.error_text;
  // Caught: call 2's read of the payload is ordered after call 1's notify
  // only, not after call 2's put (on the board it reads call 1's payload).
  ASSERT_FALSE(buggy.races.empty());
  EXPECT_THAT(buggy.races[0], HasSubstr("c1:window ep r1+0x0"));
  EXPECT_THAT(buggy.races[0], HasSubstr("by rank 0 AIV24 task 0 block 0 (kernel k)"));
  EXPECT_THAT(buggy.races[0], HasSubstr("by rank 1 AIV24 task 0 block 0 (kernel k)"));
  Outcome fixed = RunCalls(&PayloadKernel, 2, true, /*variant=*/4);
  ASSERT_EQ(fixed.error_code, 0) << fixed.error_text;
  EXPECT_TRUE(fixed.races.empty()) << absl::StrJoin(fixed.races, "\n");
  ASSERT_GE(fixed.out.size(), 3u);
  EXPECT_EQ(fixed.out[1], 101);
  EXPECT_EQ(fixed.out[2], 102);
}

TEST(BoardBugTest, FixedValueWaitOnAWindowReusedAcrossEpochsIsARace) {
  Outcome buggy = RunCalls(&PayloadKernel, 3, false);
  ASSERT_EQ(buggy.error_code, 0) << buggy.error_text;
  ASSERT_FALSE(buggy.races.empty());
  Outcome fixed = RunCalls(&PayloadKernel, 3, true, /*variant=*/5);
  ASSERT_EQ(fixed.error_code, 0) << fixed.error_text;
  EXPECT_TRUE(fixed.races.empty()) << absl::StrJoin(fixed.races, "\n");
  ASSERT_GE(fixed.out.size(), 4u);
  EXPECT_EQ(fixed.out[3], 103);
}

// ---- 3. A missing fence between the publishing write and the notify.
// The model copies DMA data at issue, so the data is right either way; the
// simulator catches the bug as a diagnostic: CoreStat.unfenced_notifies.
void UnfencedKernel(int64_t* args) {
  const Bufs b = Args(args);
  if (b.me != 0) {
    TWAIT(b.sig, 1, WaitCmp::GE);
    return;
  }
  Tile<int32_t> t = TASSIGN<int32_t>(0, kData / 4);
  TEXPANDS(t, 9);
  TSTORE(GlobalTensor<int32_t>{reinterpret_cast<int32_t*>(CommRemotePtr(b.ctx, b.data, 1)),
                               kData / 4},
         t);
  if (b.fixed) pipe_barrier(PIPE_ALL);
  TNOTIFY(CommRemotePtr(b.ctx, b.sig, 1), 1, NotifyOp::AtomicAdd);
}

TEST(BoardBugTest, MissingFenceBeforeTheNotifyIsCounted) {
  Outcome buggy = RunCalls(&UnfencedKernel, 1, false);
  ASSERT_EQ(buggy.error_code, 0) << buggy.error_text;
  EXPECT_EQ(buggy.unfenced, 1);
  Outcome fixed = RunCalls(&UnfencedKernel, 1, true);
  ASSERT_EQ(fixed.error_code, 0) << fixed.error_text;
  EXPECT_EQ(fixed.unfenced, 0);
}

}  // namespace
}  // namespace pto::sim
