// System test of all_to_all_v through a compiled program: one rendering of
// testing/system/all_to_all_v_<rail>.pto.in (pto_program) run on NR
// simulated 910B chips. The program's host_orch takes every rank's payload
// and send_counts as params and makes two consecutive all_to_all_v calls on
// the same target, signal and send_counts windows, copying each call's
// target and recv_counts, and the signal after both, into Out params. Every
// rank is checked against the golden of testing/reference.
//
// Compiled once and linked with each program; the configuration (rail,
// kernel, NR, dtype, L, S, skew matrix) comes from all_to_all_v_program.h's
// Cfg().
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/launch_width.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"
#include "testing/system/all_to_all_v_program.h"

namespace pto::sim::system_test {
namespace {

// The simulator's L3 -> L2 dispatch round trip on 910B (docs/simulator.md).
constexpr int64_t kRoundTripPs = 51'000'000;

// Runs the two calls and checks both against the golden, the signal, the
// untouched rows of every Out param and the collective's launches.
template <typename Elem>
void RunAndCheck(const Counts& first) {
  const Config& cfg = Cfg();
  const int kNr = cfg.nr;
  const int kL = cfg.l;
  const int kS = cfg.s;
  const int kRankElems = RankElems();
  const std::string& kRail = cfg.rail;
  // The InCore protocol has no start barrier, so its program gives each call
  // its own target window (all_to_all_v_incore.pto.in).
  const bool kSharedTarget = kRail != "incore";
  const Counts counts[2] = {first, SecondCall()};
  const Outcome out = RunProgram(counts);
  const RunReport& r = out.report;
  ASSERT_EQ(r.error_code(), 0) << r.error_text();

  const ref::AllToAllVShape shape{kNr, kMaxRecv, kSize};
  // Target windows are zeroed at allocation, so every row of call 0 is
  // defined (untransferred rows read 0); call 1's untransferred rows keep
  // call 0's payload where both calls share the target.
  ref::PerRank<Elem> want(kNr, std::vector<Elem>(kRankElems, Elem{0}));
  for (int k = 0; k < 2; ++k) {
    SCOPED_TRACE(absl::StrCat("call ", k));
    if (!kSharedTarget) want.assign(kNr, std::vector<Elem>(kRankElems, Elem{0}));
    ref::PerRank<Elem> input;
    for (int rk = 0; rk < kNr; ++rk) {
      input.push_back(ref::PayloadInput<Elem>(k, rk, kNr, kMaxRecv, kSize));
    }
    ref::PerRank<int32_t> want_recv;
    ASSERT_TRUE(ref::AllToAllV(shape, input, counts[k], &want, &want_recv).ok());
    ref::PerRank<Elem> got;
    ref::PerRank<int32_t> got_recv;
    for (int rk = 0; rk < kNr; ++rk) {
      got.push_back(RowOf<Elem>(out, k == 0 ? kOutputs0 : kOutputs1, rk));
      got_recv.push_back(RowOf<int32_t>(out, k == 0 ? kRecvs0 : kRecvs1, rk));
    }
    const absl::Status st = ref::CompareAllToAllV(shape, want, want_recv, got, got_recv,
                                                  /*all_rows=*/true);
    EXPECT_TRUE(st.ok()) << st;
  }

  // Self-clearing: after both calls every lane [0, S) ⊇ [0, B) of every
  // peer row of every rank's signal reads 0.
  for (int rk = 0; rk < kNr; ++rk) {
    const std::vector<int32_t> sig = RowOf<int32_t>(out, kSignals, rk);
    ASSERT_EQ(sig.size(), static_cast<size_t>(kNr * kS));
    for (int i = 0; i < kNr * kS; ++i) {
      EXPECT_EQ(sig[i], 0) << "rank " << rk << " signal[" << i / kS << ", " << i % kS << "]";
    }
  }
  // Device d writes only row d of each Out param.
  for (int p : {kOutputs0, kRecvs0, kOutputs1, kRecvs1, kSignals}) {
    for (int d = 0; d < kNr; ++d) {
      const std::string& bytes = out.params[p][d];
      ASSERT_EQ(bytes.size(), kNr * RowBytes(p));
      for (size_t i = 0; i < bytes.size(); ++i) {
        if (static_cast<int>(i / RowBytes(p)) == d) continue;
        ASSERT_EQ(static_cast<uint8_t>(bytes[i]), kOutInit)
            << "param " << p << " device " << d << " byte " << i;
      }
    }
  }

  // The collective ran twice per chip, B blocks wide.
  const int64_t b = *CalAllToAllVBlocks(kNr, kL);
  int launches = 0;
  // On the HOST rail the builtin entry folded L to B at run time and logged
  // it, once per call, in the dispatch that ran the kernel (spec §4.9); the
  // other rails fold B at compile time and have no entry.
  std::vector<std::string> want_log;
  for (const TaskStat& t : r.tasks()) {
    if (t.kernel() != cfg.kernel) continue;
    ++launches;
    EXPECT_EQ(t.blocks(), b) << "chip " << t.chip();
    if (kRail == "host") want_log.push_back(EntryLogLine(t.chip(), t.run(), b));
  }
  EXPECT_EQ(launches, 2 * kNr);
  EXPECT_THAT(EntryLogLines(r), ::testing::UnorderedElementsAreArray(want_log));
  // Where the collective runs (docs/architecture.md): on the CHIP and InCore rails
  // inside the one chip dispatch per card that runs the whole pipeline; on
  // the HOST rail as a builtin chip dispatch of its own.
  std::map<std::pair<int, int>, std::set<std::string>> kernels_by_run;  // (chip, run)
  for (const TaskStat& t : r.tasks()) kernels_by_run[{t.chip(), t.run()}].insert(t.kernel());
  for (const auto& [run, kernels] : kernels_by_run) {
    SCOPED_TRACE(absl::StrCat("chip ", run.first, " dispatch ", run.second));
    if (kRail == "host") {
      if (kernels.count(cfg.kernel) > 0) {
        EXPECT_EQ(kernels.size(), 1u);
      }
    } else {
      EXPECT_EQ(run.second, 0);
    }
  }
  for (const CoreStat& core : r.cores()) {
    EXPECT_EQ(core.unfenced_notifies(), 0) << "chip " << core.chip() << " core " << core.core();
  }
  // Every chip dispatch pays the L3 -> L2 round trip and a card runs its
  // dispatches in order: 7 on the HOST rail (stage, collective, consume,
  // twice, and the signal dump), 1 on the others.
  int runs_of_chip0 = 0;
  for (const auto& [run, kernels] : kernels_by_run) runs_of_chip0 += run.first == 0;
  EXPECT_EQ(runs_of_chip0, kRail == "host" ? 7 : 1);
  EXPECT_GE(r.sim_time_ps(), runs_of_chip0 * kRoundTripPs);
  ::testing::Test::RecordProperty("sim_time_ps", std::to_string(r.sim_time_ps()));

  // Timing-only mode moves no payload and must time the same run exactly:
  // same simulated time, tasks, cores, links, GM ports, log (docs/simulator.md).
  const Outcome timing = RunProgram(counts, /*timing_only=*/true);
  EXPECT_EQ(TimingOnlyDifference(r, timing.report), "");
  EXPECT_EQ(timing.report.sim_time_ps(), r.sim_time_ps());
}

// The skews this binary runs: every case, or over_capacity only (the
// multi-block programs). Read at test registration, before main.
std::vector<ref::Skew> Skews() {
  if (Cfg().skew_matrix)
    return std::vector<ref::Skew>(std::begin(ref::kAllSkews), std::end(ref::kAllSkews));
  return {ref::Skew::kOverCapacity};
}

class AllToAllVSystemTest : public ::testing::TestWithParam<ref::Skew> {};

TEST_P(AllToAllVSystemTest, TwoCallsMatchTheGolden) {
  const Counts first = ref::SkewCounts(GetParam(), Cfg().nr, kMaxRecv);
  if (Cfg().int8) {
    RunAndCheck<int8_t>(first);
  } else {
    RunAndCheck<float>(first);
  }
}

INSTANTIATE_TEST_SUITE_P(Skew, AllToAllVSystemTest, ::testing::ValuesIn(Skews()),
                         [](const ::testing::TestParamInfo<ref::Skew>& i) {
                           return ref::SkewName(i.param);
                         });

}  // namespace
}  // namespace pto::sim::system_test
