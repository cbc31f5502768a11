// Launch-width admission through compiled programs (spec §4.8, §4.9):
// core_num L = 51 on P = 2 gives B = 50, more blocks than the 48 AIVs of a
// 910B chip.
//
// CHIP rail (A2AV_RAIL "chip", signal [2, 51]): B is folded at compile time
// and the sync-start launch must be refused at submit with the admission
// error (code 7, naming B, not L).
// HOST rail: the builtin entry computes B = 50 at run time and checks the
// signal stride S against it. With S >= B (A2AV_S 50) it logs the launch
// and submits, and the runtime refuses the launch like on the CHIP rail;
// with S < B (A2AV_S 49) it rejects the call with INVALID_ARGS before
// submitting.
// Either way no block of the collective starts, and the run ends on the
// error instead of hanging at the barrier.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/launch_width.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/system/all_to_all_v_program.h"

namespace pto::sim::system_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kB = 50;

TEST(AllToAllVAdmissionTest, OverCapacityLaunchFailsBeforeAnyBlockStarts) {
  const Config& cfg = Cfg();
  const int kNr = cfg.nr;
  const int kS = cfg.s;
  const std::string& kRail = cfg.rail;
  ASSERT_TRUE(kNr == 2 && cfg.l == 51) << "built for the P=2, L=51 row of spec §4.8";
  ASSERT_EQ(*CalAllToAllVBlocks(kNr, cfg.l), kB);
  // The launch reaches the runtime's admission check: always on the CHIP rail
  // (the compiler checked S >= B), on the HOST rail when the signal is wide
  // enough for the entry.
  const bool kSubmitted = kRail == "chip" || kS >= kB;
  const Counts counts[2] = {ref::SkewCounts(ref::Skew::kOverCapacity, kNr, kMaxRecv), SecondCall()};
  const Outcome out = RunProgram(counts);
  const RunReport& r = out.report;
  // The error ends a timing-only run at the same point with the same report.
  EXPECT_EQ(TimingOnlyDifference(r, RunProgram(counts, /*timing_only=*/true).report), "");
  if (kSubmitted) {
    EXPECT_EQ(r.error_code(), rt::kErrorRequireSyncStartInvalid) << r.error_text();
    EXPECT_THAT(r.error_text(), HasSubstr("require_sync_start block_num=50 > limit=48"));
  } else {
    EXPECT_EQ(r.error_code(), rt::kErrorInvalidArgs) << r.error_text();
    EXPECT_THAT(r.error_text(), HasSubstr(absl::StrCat(
                                    "signal stride ", kS,
                                    " < launched_core_num=50 (requested_core_num=51 nranks=2)")));
  }
  // The HOST entry logs the launch only once it has admitted the stride, in
  // the collective's dispatch (run 1, after the stage pipeline); the CHIP
  // rail has no entry.
  const std::vector<std::string> logged = EntryLogLines(r);
  if (kRail == "host" && kSubmitted) {
    // At least the chip whose submit failed logged; a peer may not have
    // reached its entry before the run ended.
    std::vector<std::string> may_log;
    for (int chip = 0; chip < kNr; ++chip) may_log.push_back(EntryLogLine(chip, 1, kB));
    EXPECT_THAT(logged, ::testing::Not(::testing::IsEmpty()));
    EXPECT_THAT(logged, ::testing::IsSubsetOf(may_log));
  } else {
    EXPECT_THAT(logged, ::testing::IsEmpty());
  }
  // Not the simulator's deadlock report: the run ended on the admission
  // error.
  EXPECT_THAT(r.error_text(), ::testing::Not(HasSubstr("no agent can make progress")));
  // No block of the collective ran: the staging task is the only task that
  // started, on any chip.
  for (const TaskStat& t : r.tasks()) {
    EXPECT_EQ(t.kernel(), "stage_step") << "chip " << t.chip();
  }
  // Nothing reached a consumer: every row of every Out param keeps its
  // initial bytes.
  for (int p : {kOutputs0, kRecvs0, kOutputs1, kRecvs1, kSignals}) {
    for (int d = 0; d < kNr; ++d) {
      for (char byte : out.params[p][d]) {
        ASSERT_EQ(static_cast<uint8_t>(byte), kOutInit) << "param " << p << " device " << d;
      }
    }
  }
}

}  // namespace
}  // namespace pto::sim::system_test
