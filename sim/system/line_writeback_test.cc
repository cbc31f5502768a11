// The whole-line write-back bug classes (docs/simulator.md, "Board-only bug
// classes"), each as the buggy program next to its fixed twins:
//  - packed signal cells that different chips Set in one 64-byte line
//    (pto-isa#322): on a NOTIFY_SET_LINE_WRITEBACK platform each Set's
//    write-back reverts the others' cells, the waiter hangs and the report
//    names the reverted cell and the writer whose write-back reverted it;
//  - window sub-buffers sharing a line across roles (simpler#2273): a Set
//    of a signal cell carries the counts buffer's stale bytes back over a
//    count a peer stored meanwhile, and that lost update fails the run.
#include <cstdint>
#include <string>
#include <vector>

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

constexpr int kRanks = 4;

// How the four chips hand rank 0 their values.
enum Variant : uint64_t {
  kPackedSet = 0,   // Set of cell i of one 16-byte window (the bug)
  kAtomicAdd = 1,   // AtomicAdd of the value into a zeroed cell (a delta)
  kAlignedSet = 2,  // Set of cell 16 * i: one 64-byte line per chip
  kPullCounts = 3,  // pypto PR #2828: each chip keeps its value in its own
                    // window; rank 0 pulls them after a counting barrier
};

int32_t ValueOf(int rank) { return 1000 + rank; }

// t0 = cells (rank 0's are the ones written), t1 = mine (the pull design's
// own value), t2 = ready (rank 0's barrier counter), t3 = out (rank 0 stores
// what it saw); s0 = &CommContext, s1 = the variant.
void GatherKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[4]);
  const int me = static_cast<int>(ctx->rankId);
  int32_t* cells = TensorArg(args, 0)->data<int32_t>();
  int32_t* mine = TensorArg(args, 1)->data<int32_t>();
  int32_t* ready = TensorArg(args, 2)->data<int32_t>();
  int32_t* out = TensorArg(args, 3)->data<int32_t>();
  const uint64_t variant = static_cast<uint64_t>(args[5]);
  const int stride = variant == kAlignedSet ? 16 : 1;
  if (variant == kPullCounts) {
    TNOTIFY(mine, ValueOf(me), NotifyOp::Set);  // one writer per line
    pipe_barrier(PIPE_ALL);
    if (me != 0) {
      TNOTIFY(CommRemotePtr(ctx, ready, 0), 1, NotifyOp::AtomicAdd);
      return;
    }
    TWAIT(ready, kRanks - 1, WaitCmp::GE);
    Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
    for (int q = 0; q < kRanks; ++q) {
      TLOAD(t, GlobalTensor<int32_t>{q == 0 ? mine : CommRemotePtr(ctx, mine, q), 8});
      pipe_barrier(PIPE_ALL);
      TSTORE(GlobalTensor<int32_t>{out + 8 * q, 8}, t);
    }
    pipe_barrier(PIPE_ALL);
    return;
  }
  int32_t* my_cell = cells + stride * me;
  TNOTIFY(me == 0 ? my_cell : CommRemotePtr(ctx, my_cell, 0), ValueOf(me),
          variant == kAtomicAdd ? NotifyOp::AtomicAdd : NotifyOp::Set);
  if (me != 0) return;
  for (int q = 0; q < kRanks; ++q) TWAIT(cells + stride * q, ValueOf(q), WaitCmp::EQ);
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  for (int q = 0; q < kRanks; ++q) {
    TLOAD(t, GlobalTensor<int32_t>{cells + stride * q, 8});
    pipe_barrier(PIPE_ALL);
    TSTORE(GlobalTensor<int32_t>{out + 8 * q, 8}, t);
  }
  pipe_barrier(PIPE_ALL);
}

struct Outcome {
  RunReport report;
  std::vector<int32_t> seen;  // rank 0's view of each rank's value
};

Outcome Gather(Variant v, SimOptions o = Opts(kRanks)) {
  rt::Tensor out;
  Outcome res;
  res.report = Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        const uint64_t cell_bytes = v == kAlignedSet ? 64 * kRanks : 16;
        rt::DomainSpec spec{"sig",
                            {0, 1, 2, 3},
                            8192,
                            {{"mine", 64}, {"ready", 64}, {"out", 32 * kRanks}, {"cells", cell_bytes}}};
        auto d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        out = d->ranks[0].buffers.at("out");
        std::vector<rt::ChipArgs> args;
        for (const auto& c : d->ranks) {
          args.push_back({{c.buffers.at("cells"), c.buffers.at("mine"), c.buffers.at("ready"),
                           c.buffers.at("out")},
                          {c.device_ctx.addr(), static_cast<uint64_t>(v)}});
        }
        return sys.DispatchGroup({0, 1, 2, 3}, testing::SingleTask("gather", &GatherKernel, 1, false),
                                 args);
      },
      [&](SimSystem& sys, RunReport& rep) { testing::CaptureOutput(sys, out, "out", rep); });
  const std::vector<int32_t> words = testing::OutputAs<int32_t>(res.report, "out");
  for (size_t q = 0; q * 8 < words.size(); ++q) res.seen.push_back(words[q * 8]);
  return res;
}

void ExpectClean(const Outcome& o, const std::string& what) {
  const RunReport& r = o.report;
  EXPECT_EQ(r.error_code(), 0) << what << ": " << r.error_text();
  EXPECT_EQ(r.line_clobbers_size(), 0) << what << ": " << absl::StrJoin(r.line_clobbers(), "\n");
  EXPECT_EQ(r.shared_lines_size(), 0) << what << ": " << absl::StrJoin(r.shared_lines(), "\n");
  EXPECT_EQ(r.races_size(), 0) << what << ": " << absl::StrJoin(r.races(), "\n");
  ASSERT_EQ(o.seen.size(), static_cast<size_t>(kRanks)) << what;
  for (int q = 0; q < kRanks; ++q) EXPECT_EQ(o.seen[q], ValueOf(q)) << what << " rank " << q;
}

// The program of pto-isa#322: four chips Set their own cells of one 16-byte
// window on rank 0 at the same time. Each write-back carries the line as
// its chip filled it, so it reverts the cells the others set in between;
// rank 0 waits for a value that never comes back.
TEST(LineWriteBackTest, PackedSetsOfOneLineByFourChipsLoseUpdatesAndHang) {
  const Outcome o = Gather(kPackedSet);
  const RunReport& r = o.report;
  ASSERT_NE(r.error_code(), 0) << "the packed Sets passed";
  EXPECT_THAT(r.error_text(), HasSubstr("deadlock"));
  EXPECT_THAT(r.hang_cause(), HasSubstr("lost update: rank 0 waits on window sig r0 buffer cells slot "));
  EXPECT_THAT(r.hang_cause(), HasSubstr("the whole-line write-back of a TNOTIFY Set to window sig r0 "
                                        "buffer cells slot "));
  EXPECT_THAT(r.hang_cause(), HasSubstr("pto-isa#322"));
  ASSERT_EQ(r.wait_for_size(), 1) << absl::StrJoin(r.wait_for(), "\n");
  EXPECT_THAT(r.wait_for(0), HasSubstr("last write: the whole-line write-back of a TNOTIFY Set"));
  ASSERT_GT(r.line_clobbers_size(), 0);
  EXPECT_THAT(r.line_clobbers(0), HasSubstr("window sig r0 buffer cells slot "));
  EXPECT_THAT(r.line_clobbers(0), HasSubstr(" over 10"));  // a 100x value was lost
  // Which writer reverts which cell is a matter of the model's order of
  // simultaneous events; name one and check the report is consistent.
  EXPECT_THAT(r.line_clobbers(0), HasSubstr("restored the stale 0"));
}

TEST(LineWriteBackTest, TheFixedTwinsOfThePackedSetPass) {
  ExpectClean(Gather(kAtomicAdd), "atomic add of the value (a delta)");
  ExpectClean(Gather(kAlignedSet), "one 64-byte line per cell");
  ExpectClean(Gather(kPullCounts), "pull counts (pypto PR #2828)");
}

// pto-isa#323 makes Set word-safe (an uncached read and an atomic add of
// the difference); a platform built against it says so, and the packed
// program passes there.
TEST(LineWriteBackTest, PackedSetsPassWhereSetIsWordSafe) {
  SimOptions o = Opts(kRanks);
  o.tweak = [](platforms::Platform& p) { p.set_notify_set(platforms::NOTIFY_SET_ATOMIC_DELTA); };
  ExpectClean(Gather(kPackedSet, o), "packed Set, pto-isa#323 Set");
}

// A5 runs the same Set code as a2a3 (platforms/a5.textproto cites it), so
// the packed program fails there too, and its fix passes.
TEST(LineWriteBackTest, A5LosesPackedSetsTheSameWay) {
  const Outcome o = Gather(kPackedSet, Opts(kRanks, "a5"));
  ASSERT_NE(o.report.error_code(), 0);
  EXPECT_THAT(o.report.hang_cause(), HasSubstr("lost update"));
  ExpectClean(Gather(kAlignedSet, Opts(kRanks, "a5")), "a5, aligned");
}

// ---- Window sub-buffers sharing a line across roles (simpler#2273).
// Domain "ep" on 2 ranks: sig (rank 0's phase word), counts (rank 1 pushes
// rank 0's receive count there), ready (the counting barrier), out. With
// 16-byte sig and counts the 32-byte layout puts both in one line; rank 0
// Sets its phase word while rank 1's count lands, and a write-back carries
// the stale counts back. Padded to 64 bytes each, they cannot meet.
constexpr int32_t kCount = 7;
constexpr int kPhases = 8;

void PhaseKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[4]);
  const int me = static_cast<int>(ctx->rankId);
  int32_t* sig = TensorArg(args, 0)->data<int32_t>();
  int32_t* counts = TensorArg(args, 1)->data<int32_t>();
  int32_t* ready = TensorArg(args, 2)->data<int32_t>();
  int32_t* out = TensorArg(args, 3)->data<int32_t>();
  if (me == 1) {
    TWAIT(ready, 1, WaitCmp::GE);  // rank 0 is running
    Tile<int32_t> t = TASSIGN<int32_t>(0, 4);
    TEXPANDS(t, kCount);
    TSTORE(GlobalTensor<int32_t>{CommRemotePtr(ctx, counts, 0), 4}, t);
    pipe_barrier(PIPE_ALL);
    TNOTIFY(CommRemotePtr(ctx, ready, 0), 1, NotifyOp::AtomicAdd);
    return;
  }
  TNOTIFY(CommRemotePtr(ctx, ready, 1), 1, NotifyOp::AtomicAdd);
  for (int k = 1; k <= kPhases; ++k) TNOTIFY(sig, k, NotifyOp::Set);
  TWAIT(ready, 1, WaitCmp::GE);
  dcci(counts, SINGLE_CACHE_LINE);
  WriteGm(out, ReadGm(counts));
  dcci(out, CACHELINE_OUT);
}

RunReport Phases(uint64_t buffer_bytes, rt::Tensor* out_t, SimOptions o = Opts(2)) {
  return Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec{"ep",
                            {0, 1},
                            8192,
                            {{"sig", buffer_bytes}, {"counts", buffer_bytes}, {"ready", 64},
                             {"out", 64}}};
        auto d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        *out_t = d->ranks[0].buffers.at("out");
        std::vector<rt::ChipArgs> args;
        for (const auto& c : d->ranks) {
          args.push_back({{c.buffers.at("sig"), c.buffers.at("counts"), c.buffers.at("ready"),
                           c.buffers.at("out")},
                          {c.device_ctx.addr()}});
        }
        return sys.DispatchGroup({0, 1}, testing::SingleTask("phase", &PhaseKernel, 1, false),
                                 args);
      },
      [&](SimSystem& sys, RunReport& rep) { testing::CaptureOutput(sys, *out_t, "out", rep); });
}

// The count rank 1 stores lands while rank 0 holds the shared line between
// a Set's fill and its write-back; the write-back puts the stale 0 back.
// That lost update fails the run (kLostUpdateErrorCode), as the wrong count
// fails the program on the board; the text names the lost word and the
// write-back that reverted it.
void ExpectTheCountLost(const RunReport& r) {
  ASSERT_EQ(r.error_code(), kLostUpdateErrorCode) << r.error_text();
  EXPECT_THAT(r.error_text(), HasSubstr("lost update"));
  EXPECT_THAT(r.error_text(),
              HasSubstr("window ep r0 buffer counts slot 0 (c0:window ep r0+0x20): the whole-line "
                        "write-back of a TNOTIFY Set to window ep r0 buffer sig slot 0"));
  EXPECT_THAT(r.error_text(), HasSubstr("restored the stale 0 over 7"));
  ASSERT_GT(r.line_clobbers_size(), 0);
  const std::vector<int32_t> o = testing::OutputAs<int32_t>(r, "out");
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o[0], 0) << "the count survived";
  // The layout report says why, whatever the timing.
  ASSERT_EQ(r.shared_lines_size(), 1) << absl::StrJoin(r.shared_lines(), "\n");
  EXPECT_THAT(r.shared_lines(0),
              HasSubstr("window ep r0: buffers sig and counts share the 64-byte line at "
                        "c0:window ep r0+0x0; a write-back of sig (first: a TNOTIFY Set to "
                        "window ep r0 buffer sig slot 0"));
  EXPECT_THAT(r.shared_lines(0), HasSubstr("simpler#2273"));
}

void ExpectTheCountKept(const RunReport& r) {
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.shared_lines_size(), 0) << absl::StrJoin(r.shared_lines(), "\n");
  EXPECT_EQ(r.line_clobbers_size(), 0) << absl::StrJoin(r.line_clobbers(), "\n");
  EXPECT_EQ(r.races_size(), 0) << absl::StrJoin(r.races(), "\n");
  const std::vector<int32_t> o = testing::OutputAs<int32_t>(r, "out");
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o[0], kCount);
}

TEST(LineWriteBackTest, SubBuffersSharingALineLoseTheCountAndFailTheRun) {
  rt::Tensor out;
  ExpectTheCountLost(Phases(16, &out));
}

TEST(LineWriteBackTest, SubBuffersAlignedToTheLineKeepTheCount) {
  rt::Tensor out;
  ExpectTheCountKept(Phases(64, &out));
}

// A5's Set is a2a3's (pto-isa include/pto/comm/a5/TNotify.hpp includes the
// a2a3 one), and so is its 64-byte line: the same class, the same twin.
TEST(LineWriteBackTest, A5SubBuffersSharingALineLoseTheCountTheSameWay) {
  rt::Tensor out;
  ExpectTheCountLost(Phases(16, &out, Opts(2, "a5")));
  ExpectTheCountKept(Phases(64, &out, Opts(2, "a5")));
}

// LostUpdatePolicy::kWarn lists the lost word and lets the run end; the
// output is as wrong as on the board.
TEST(LineWriteBackTest, LostUpdatesOnlyWarnUnderTheWarnPolicy) {
  rt::Tensor out;
  SimOptions o = Opts(2);
  o.lost_updates = SimOptions::LostUpdatePolicy::kWarn;
  const RunReport r = Phases(16, &out, o);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ASSERT_GT(r.line_clobbers_size(), 0);
  const std::vector<int32_t> words = testing::OutputAs<int32_t>(r, "out");
  ASSERT_FALSE(words.empty());
  EXPECT_EQ(words[0], 0);
}

}  // namespace
}  // namespace pto::sim
