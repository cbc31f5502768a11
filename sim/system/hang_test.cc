// The hang classes of issue 15 at 16 ranks (A5): each run ends by itself in
// bounded wall time (a deadlock empties the event queue; a livelock hits the
// simulated op timeout) with a report that names the ranks and the cause.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::Opts;
using testing::SingleTask;
using testing::Simulate;

constexpr int kRanks = 16;

// t0 = this rank's "sig" buffer; s0 = &CommContext, s1 = first slot,
// s2 = second slot (-1: none), s3 = expected count, s4 = 1 to skip the
// notifies (the missing-notify bug). A counting barrier: +1 into every
// rank's slot, then wait until the own slot reaches the count.
void BarrierKernel(int64_t* args) {
  int32_t* sig = TensorArg(args, 0)->data<int32_t>();
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[1]);
  const int64_t slots[2] = {args[2], args[3]};
  const int32_t expected = static_cast<int32_t>(args[4]);
  const bool skip_notify = args[5] != 0;
  for (int64_t slot : slots) {
    if (slot < 0) continue;
    if (!skip_notify) {
      for (uint32_t p = 0; p < ctx->rankNum; ++p) {
        TNOTIFY(CommRemotePtr(ctx, sig + slot, p), 1, NotifyOp::AtomicAdd);
      }
    }
    TWAIT(sig + slot, expected, WaitCmp::GE);
  }
}

struct BarrierArgs {
  int64_t slot0 = 0;
  int64_t slot1 = -1;
  int64_t expected = kRanks;
  bool skip_notify = false;
};

// Creates domain "ep" (buffer "sig" of 16 slots) over the 16 ranks.
absl::StatusOr<rt::Domain> MakeDomain(SimSystem& sys) {
  rt::DomainSpec spec{"ep", {}, 4096, {{"sig", 16 * sizeof(int32_t)}}};
  for (int i = 0; i < kRanks; ++i) spec.devices.push_back(i);
  return sys.CreateDomain(spec);
}

rt::ChipArgs ArgsFor(const rt::ChipDomainContext& c, const BarrierArgs& b) {
  return rt::ChipArgs{{c.buffers.at("sig")},
                      {c.device_ctx.addr(), static_cast<uint64_t>(b.slot0),
                       static_cast<uint64_t>(b.slot1), static_cast<uint64_t>(b.expected),
                       b.skip_notify ? 1u : 0u}};
}

// Group-dispatches the barrier with per-rank arguments.
RunReport RunBarrier(const std::function<BarrierArgs(int rank)>& per_rank) {
  return Simulate(Opts(kRanks, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    std::vector<int> devices;
    std::vector<rt::ChipArgs> args;
    for (int r = 0; r < kRanks; ++r) {
      devices.push_back(r);
      args.push_back(ArgsFor(d->ranks[r], per_rank(r)));
    }
    return sys.DispatchGroup(devices, SingleTask("barrier", &BarrierKernel, 1, false), args);
  });
}

// The report, for failure messages and substring checks.
std::string All(const RunReport& r) {
  return absl::StrCat("cause: ", r.hang_cause(), "\nwait-for:\n", absl::StrJoin(r.wait_for(), "\n"),
                      "\nranks:\n", absl::StrJoin(r.rank_summary(), "\n"));
}

// The cause and the first few lines, to keep failure messages short.
std::string Head(const RunReport& r) {
  std::vector<std::string> w(r.wait_for().begin(),
                             r.wait_for().begin() + std::min(r.wait_for_size(), 4));
  return absl::StrCat("cause: ", r.hang_cause(), "\nwait-for (first 4):\n", absl::StrJoin(w, "\n"),
                      "\nranks:\n", absl::StrJoin(r.rank_summary(), "\n"));
}

TEST(HangTest, CorrectBarrierAt16RanksPassesWithoutAReport) {
  RunReport r = RunBarrier([](int) { return BarrierArgs{}; });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_TRUE(r.hang_cause().empty());
  EXPECT_EQ(r.wait_for_size(), 0);
}

TEST(HangTest, MissingNotifyNamesTheRankThatSkippedIt) {
  RunReport r = RunBarrier([](int rank) {
    BarrierArgs b;
    b.skip_notify = rank == 5;
    return b;
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_EQ(r.hang_cause(),
            "missing notifier: ranks 0-15 wait for signals that nobody will send: rank 5 reached "
            "the wait without notifying (a missing notify)")
      << Head(r);
  EXPECT_THAT(r.error_text(), HasSubstr("deadlock"));
  EXPECT_THAT(r.error_text(), HasSubstr("cause: missing notifier"));
  ASSERT_EQ(r.wait_for_size(), kRanks) << Head(r);
  EXPECT_THAT(r.wait_for(0),
              HasSubstr("rank 0 AIV36 task 0 block 0/1 (kernel barrier): TWAIT on window ep r0 "
                        "buffer sig slot 0 (c0:window ep r0+0x0) expects >= 16, holds 15; last "
                        "write: TNOTIFY +1 by rank "))
      << Head(r);
  EXPECT_THAT(r.wait_for(0), HasSubstr("waits for: rank 5 (reached this wait without notifying)"));
  ASSERT_EQ(r.rank_summary_size(), kRanks);
  EXPECT_EQ(r.rank_summary(5),
            "rank 5: dispatch barrier (run 0): 1 of 1 tasks pending; 1 block(s) in TWAIT on "
            "window ep r5 buffer sig slot 0 (c5:window ep r5+0x0)");
}

TEST(HangTest, WrongExpectedValueSaysEveryRankNotified) {
  RunReport r = RunBarrier([](int rank) {
    BarrierArgs b;
    if (rank == 3) b.expected = kRanks + 1;
    return b;
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_EQ(r.hang_cause(),
            "wrong expected value: rank 3 waits on window ep r3 buffer sig slot 0 (c3:window ep "
            "r3+0x0) for >= 17, but every rank of its domain notified it and it holds 16")
      << Head(r);
  ASSERT_EQ(r.wait_for_size(), 1) << Head(r);
  EXPECT_THAT(r.wait_for(0), HasSubstr("expects >= 17, holds 16; last write: TNOTIFY +1 by rank"));
  EXPECT_EQ(r.rank_summary(0), "rank 0: idle after 1 dispatch(es)");
}

TEST(HangTest, CollectivesInOppositeOrdersAreAWaitForCycle) {
  // Ranks 0-7 enter barrier A (slot 0) then B (slot 1); ranks 8-15 B then A.
  RunReport r = RunBarrier([](int rank) {
    BarrierArgs b;
    b.slot0 = rank < 8 ? 0 : 1;
    b.slot1 = rank < 8 ? 1 : 0;
    return b;
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_EQ(r.hang_cause(),
            "wait-for cycle: rank 0 (waits on window ep r0 buffer sig slot 0 (c0:window ep r0+0x0)) "
            "-> rank 8 (waits on window ep r8 buffer sig slot 1 (c8:window ep r8+0x4)) -> rank 0: "
            "the ranks wait for each other at different signals (e.g. collectives called in "
            "different orders)")
      << Head(r);
  EXPECT_THAT(r.wait_for(0), HasSubstr("expects >= 16, holds 8"));
  EXPECT_THAT(r.wait_for(0), HasSubstr("waits for: rank 8 (blocked elsewhere)"));
}

TEST(HangTest, OneRanksSuppressedSubmitNamesThatRank) {
  // Rank 7's orchestration rejects its operands at run time and submits
  // nothing (the "Current limits" case): its peers hang at the barrier.
  RunReport r = Simulate(Opts(kRanks, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    rt::ChipCallable c = SingleTask("barrier", &BarrierKernel, 1, false);
    auto submit = c.entry;
    c.entry = [submit](rt::Orchestrator& o, const rt::ChipArgs& a) {
      if (o.device_id() != 7) submit(o, a);
    };
    std::vector<int> devices;
    std::vector<rt::ChipArgs> args;
    for (int r = 0; r < kRanks; ++r) {
      devices.push_back(r);
      args.push_back(ArgsFor(d->ranks[r], BarrierArgs{}));
    }
    return sys.DispatchGroup(devices, c, args);
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_EQ(r.hang_cause(),
            "missing notifier: ranks 0-6, 8-15 wait for signals that nobody will send: rank 7 "
            "finished without notifying")
      << Head(r);
  EXPECT_EQ(r.rank_summary(7), "rank 7: idle after 1 dispatch(es)");
  EXPECT_THAT(r.wait_for(0), HasSubstr("rank 7 (finished 1 dispatch(es) without notifying)"));
}

TEST(HangTest, NeverDispatchedRankIsNamed) {
  RunReport r = Simulate(Opts(kRanks, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    for (int rank = 0; rank < kRanks; ++rank) {
      if (rank == 11) continue;
      absl::Status s = sys.Dispatch(rank, SingleTask("barrier", &BarrierKernel, 1, false),
                                    ArgsFor(d->ranks[rank], BarrierArgs{}));
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_EQ(r.hang_cause(),
            "missing notifier: ranks 0-10, 12-15 wait for signals that nobody will send: rank 11 "
            "never dispatched")
      << Head(r);
  EXPECT_EQ(r.rank_summary(11), "rank 11: never dispatched");
}

// t0 = sig, s0 = slot: waits until a later task sets the slot.
void HolderKernel(int64_t* args) {
  TWAIT(TensorArg(args, 0)->data<int32_t>() + args[1], 1, WaitCmp::GE);
}

// t0 = sig, s0 = slot: block 0 releases the holders.
void ReleaserKernel(int64_t* args) {
  if (get_block_idx(args) == 0) {
    TNOTIFY(TensorArg(args, 0)->data<int32_t>() + args[1], 1, NotifyOp::Set);
  }
}

TEST(HangTest, SyncStartLaunchWithoutFreeCoresNamesTheLaunch) {
  // On every rank a 24-block task holds cores until a sync-start task that
  // needs all 72 AIV cores at once releases it: the launch never gets them.
  RunReport r = Simulate(Opts(kRanks, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    rt::ChipCallable c;
    c.name = "hold_then_release";
    c.kernels = {&HolderKernel, &ReleaserKernel};
    c.kernel_names = {"holder", "releaser"};
    c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
      rt::TaskArgs hold;
      // No TensorMap edge between the two: the signal orders them.
      hold.add_no_dep(a.tensors[0]);
      hold.add_scalar(2);
      hold.launch_spec.set_core_num(24);
      o.submit_aiv_task(0, hold);
      rt::TaskArgs release;
      release.add_no_dep(a.tensors[0]);
      release.add_scalar(2);
      release.launch_spec.set_core_num(72);
      release.launch_spec.set_require_sync_start(true);
      o.submit_aiv_task(1, release);
    };
    std::vector<int> devices;
    std::vector<rt::ChipArgs> args;
    for (int rank = 0; rank < kRanks; ++rank) {
      devices.push_back(rank);
      args.push_back(rt::ChipArgs{{d->ranks[rank].buffers.at("sig")}, {}});
    }
    return sys.DispatchGroup(devices, c, args);
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_THAT(r.hang_cause(),
              HasSubstr("sync-start launch over capacity: rank 0 task 1 needs 72 AIV cores at "
                        "once"))
      << Head(r);
  EXPECT_THAT(All(r), HasSubstr("rank 0 task 1 (sync start, 72 blocks): waits for 72 idle AIV "
                                "cores at once; 24 are held by task(s) 0"));
  EXPECT_THAT(r.rank_summary(15), HasSubstr("1 sync-start task(s) wait for cores"));
}

// t0 = a 64 KiB GM buffer: loads it 32 times (tens of microseconds).
void BusyKernel(int64_t* args) {
  const TensorDesc* buf = TensorArg(args, 0);
  Tile<uint8_t> t = TASSIGN<uint8_t>(0, 64 * 1024);
  for (int i = 0; i < 32; ++i) {
    TLOAD(t, GlobalTensor<uint8_t>{buf->data<uint8_t>(), 64 * 1024});
  }
}

TEST(HangTest, OverCapacitySyncStartOnOneRankNamesItAndItsWaitingPeers) {
  // Rank 3 first runs other work, then launches its barrier with 73 > 72 AIV
  // blocks and require_sync_start: rejected (code 7) while its peers already
  // wait in the barrier for its notify.
  RunReport r = Simulate(Opts(kRanks, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    auto buf = sys.Alloc(3, 64 * 1024, "busy");
    if (!buf.ok()) return buf.status();
    absl::Status s =
        sys.Dispatch(3, SingleTask("busy", &BusyKernel, 1, false), rt::ChipArgs{{*buf}, {}});
    if (!s.ok()) return s;
    for (int rank = 0; rank < kRanks; ++rank) {
      s = sys.Dispatch(rank, SingleTask("barrier", &BarrierKernel, rank == 3 ? 73 : 1, rank == 3),
                       ArgsFor(d->ranks[rank], BarrierArgs{}));
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  });
  ASSERT_EQ(r.error_code(), rt::kErrorRequireSyncStartInvalid) << r.error_text();
  EXPECT_THAT(r.error_text(), HasSubstr("chip 3: "));
  EXPECT_EQ(r.hang_cause(),
            "ranks 0-2, 4-15 wait for notifies from rank 3, which stopped on the error")
      << Head(r);
  ASSERT_EQ(r.rank_summary_size(), kRanks) << Head(r);
  EXPECT_THAT(r.rank_summary(3), HasSubstr("rank 3: stopped by the error"));
  EXPECT_THAT(r.wait_for(0), HasSubstr("waits for: rank 3 (stopped by the error)"));
}

// t0 = sig: rank 0 spins on slot 3 with scalar reads (never set) before it
// would notify everyone's slot 0; the other ranks wait for that notify.
void SpinThenNotifyKernel(int64_t* args) {
  int32_t* sig = TensorArg(args, 0)->data<int32_t>();
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[1]);
  if (ctx->rankId == 0) {
    while (ReadGm(sig + 3) == 0) {
    }
    for (uint32_t p = 0; p < ctx->rankNum; ++p) {
      TNOTIFY(CommRemotePtr(ctx, sig, p), 1, NotifyOp::Set);
    }
  }
  TWAIT(sig, 1, WaitCmp::GE);
}

TEST(HangTest, LivelockEndsAtTheSimulatedTimeBudgetWithTheSameReport) {
  SimOptions o = Opts(kRanks, "a5");
  o.tweak = [](platforms::Platform& p) { p.mutable_timeouts()->set_op_timeout_ns(20000); };
  RunReport r = Simulate(o, [&](SimSystem& sys) -> absl::Status {
    auto d = MakeDomain(sys);
    if (!d.ok()) return d.status();
    std::vector<int> devices;
    std::vector<rt::ChipArgs> args;
    for (int rank = 0; rank < kRanks; ++rank) {
      devices.push_back(rank);
      args.push_back(rt::ChipArgs{{d->ranks[rank].buffers.at("sig")}, {d->ranks[rank].device_ctx.addr()}});
    }
    return sys.DispatchGroup(devices, SingleTask("spin", &SpinThenNotifyKernel, 1, false), args);
  });
  ASSERT_EQ(r.error_code(), rt::kErrorSchedulerTimeout) << r.error_text();
  EXPECT_THAT(r.error_text(), HasSubstr("past its deadline"));
  // The deadline: the floor plus 64 x its work (a 64-byte sig on 16 ranks) at
  // a5's slowest rate.
  EXPECT_EQ(r.hang_cause(),
            "livelock: rank 0 AIV36 (kernel spin) spun without progress past its deadline of "
            "20041 ns of simulated time (floor 20000 ns + 64 x 1024 bytes at 1600 GB/s)")
      << Head(r);
  EXPECT_THAT(All(r), HasSubstr("the last of window ep r0 buffer sig slot 3 (c0:window ep "
                                "r0+0xc), which holds 0"));
  EXPECT_THAT(r.wait_for(1), HasSubstr("rank 1 AIV36 task 0 block 0/1 (kernel spin): TWAIT on "
                                       "window ep r1 buffer sig slot 0"))
      << Head(r);
}

}  // namespace
}  // namespace pto::sim
