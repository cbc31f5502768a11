// The HOST-rail path of the builtin all_to_all_v end to end on simulated
// 910B chips: the rendered chip entry (runtime/builtins/all_to_all_v
// entry.cpp.in, spec §4.9) is dispatched once per device, as
// LowerHostTensorCollectives emits, with the TaskArgs the HOST codegen
// passes (5 shaped tensors, the `_ord` token, CommContext*, core_num L), and
// submits the rendered kernel itself. Results against testing/reference;
// admission failures latch before any kernel block starts. Asserts results
// and simulated time only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/builtins/collective_sim_test_util.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/builtins/all_to_all_v/entry_support.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/collectives.h"

// The rendered entries (no header is rendered; these are their symbols).
namespace pto::builtins::builtin_tensor_all_to_all_v__fp32 {
OrchestrationConfig aicpu_orchestration_config(const rt::ChipArgs& args);
void aicpu_orchestration_entry(rt::Orchestrator& orch, const rt::ChipArgs& args);
void builtin_tensor_all_to_all_v__fp32(rt::Orchestrator& orch, const rt::ChipArgs& args);
rt::ChipCallable MakeChipCallable();
}  // namespace pto::builtins::builtin_tensor_all_to_all_v__fp32
namespace pto::builtins::builtin_tensor_all_to_all_v__int8 {
OrchestrationConfig aicpu_orchestration_config(const rt::ChipArgs& args);
rt::ChipCallable MakeChipCallable();
}  // namespace pto::builtins::builtin_tensor_all_to_all_v__int8

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;
using collective_test::AsPerRank;
namespace fp32 = ::pto::builtins::builtin_tensor_all_to_all_v__fp32;
namespace int8 = ::pto::builtins::builtin_tensor_all_to_all_v__int8;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

struct Config {
  int p = 2;
  int64_t max_recv = 4;
  int64_t size = 24;       // 96 B FP32 rows: not a 32-byte multiple
  uint64_t core_num = 1;   // scalar 1, as a raw TaskArgs word
  int64_t stride = 0;      // signal columns S; 0 = rank-1 [P] signal
  int scalars = 2;         // how many of the two scalars to pass
  bool ord = true;         // pass the trailing `_ord` token
  bool use_alias = false;  // dispatch the `{{entry}}` alias instead
};

struct Outcome {
  RunReport report;
  ref::PerRank<uint8_t> target;
  ref::PerRank<int32_t> recv_counts;
  ref::PerRank<int32_t> signal;
  std::vector<std::string> log;  // the report's log_timing lines, in order
};

// Distinct per (rank, dest, row, col) and never 0, so a missing row differs
// from the zeroed window.
template <typename T>
T Payload(int r, int d, int64_t row, int64_t col) {
  return static_cast<T>(1 + (r * 29 + d * 13 + row * 7 + col) % 120);
}

// Mixed skew: zero, one, full, over capacity and negative counts.
int32_t SendCount(int r, int d, int32_t max_recv) {
  switch ((r + 2 * d) % 5) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return max_recv;
    case 3:
      return max_recv + 3;
    default:
      return -2;
  }
}

template <typename T>
std::vector<T> InputOf(const Config& c, int r) {
  std::vector<T> in(c.p * c.max_recv * c.size);
  for (int d = 0; d < c.p; ++d) {
    for (int64_t row = 0; row < c.max_recv; ++row) {
      for (int64_t col = 0; col < c.size; ++col) {
        in[(d * c.max_recv + row) * c.size + col] = Payload<T>(r, d, row, col);
      }
    }
  }
  return in;
}

ref::PerRank<int32_t> SendCounts(const Config& c) {
  ref::PerRank<int32_t> counts(c.p, std::vector<int32_t>(c.p));
  for (int r = 0; r < c.p; ++r) {
    for (int d = 0; d < c.p; ++d) {
      counts[r][d] = SendCount(r, d, static_cast<int32_t>(c.max_recv));
    }
  }
  return counts;
}

template <typename T>
rt::ChipCallable Callable(const Config& c) {
  if constexpr (std::is_same_v<T, float>) {
    rt::ChipCallable callable = fp32::MakeChipCallable();
    if (c.use_alias) {
      callable.entry = &fp32::builtin_tensor_all_to_all_v__fp32;
    }
    return callable;
  } else {
    return int8::MakeChipCallable();
  }
}

// Stages every rank's input and send_counts into a fresh domain, then
// dispatches the entry once per device with the HOST codegen's TaskArgs.
template <typename T>
Outcome RunHostRail(const Config& c) {
  Outcome out;
  const uint64_t p = static_cast<uint64_t>(c.p);
  const uint64_t rows = p * c.max_recv;
  const uint64_t size = static_cast<uint64_t>(c.size);
  const uint64_t data_bytes = rows * size * sizeof(T);
  const uint64_t stride = c.stride == 0 ? 1 : c.stride;
  const ref::PerRank<int32_t> send_counts = SendCounts(c);
  SimOptions o = testing::Opts(c.p);
  o.trace = false;
  std::optional<rt::Domain> dom;
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec;
        spec.name = "a2av";
        for (int r = 0; r < c.p; ++r) spec.devices.push_back(r);
        spec.buffers = {{"input", data_bytes},
                        {"target", data_bytes},
                        {"signal", p * stride * 4},
                        {"send_counts", p * 4},
                        {"recv_counts", p * 4}};
        spec.window_size = collective_test::WindowBytes(spec);
        absl::StatusOr<rt::Domain> d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        dom = *d;
        const rt::ChipCallable callable = Callable<T>(c);
        for (int r = 0; r < c.p; ++r) {
          auto buf = [&](const std::string& name, uint32_t elem) {
            return collective_test::WindowTensor(*dom, r, name, elem);
          };
          const std::vector<T> in = InputOf<T>(c, r);
          absl::Status st = sys.CopyTo(buf("input", 1), in.data(), data_bytes);
          if (!st.ok()) return st;
          st = sys.CopyTo(buf("send_counts", 4), send_counts[r].data(), p * 4);
          if (!st.ok()) return st;
          absl::StatusOr<rt::Tensor> ord = sys.Alloc(r, 32, "a2av_ord");
          if (!ord.ok()) return ord.status();
          rt::ChipArgs a;
          a.tensors = {
              buf("input", sizeof(T)).WithShape({rows, size}),
              buf("target", sizeof(T)).WithShape({rows, size}),
              c.stride == 0 ? buf("signal", 4).WithShape({p})
                            : buf("signal", 4).WithShape({p, stride}),
              buf("send_counts", 4).WithShape({p}),
              buf("recv_counts", 4).WithShape({p, 1}),
          };
          if (c.ord) a.tensors.push_back(*ord);  // the per-rank `_ord` token
          const uint64_t scalars[] = {dom->ranks[r].device_ctx.addr(), c.core_num};
          a.scalars.assign(scalars, scalars + c.scalars);
          st = sys.Dispatch(r, callable, a);  // one dispatch per device
          if (!st.ok()) return st;
        }
        return absl::OkStatus();
      },
      [&](SimSystem& sys, RunReport& r) {
        if (!dom) return;
        for (int rk = 0; rk < c.p; ++rk) {
          for (const char* name : {"target", "recv_counts", "signal"}) {
            testing::CaptureOutput(sys, dom->ranks[rk].buffers.at(name),
                                   absl::StrCat(name, "@", rk), r);
          }
        }
      });
  out.target = collective_test::RankOutputs<uint8_t>(out.report, "target", c.p);
  out.recv_counts = collective_test::RankOutputs<int32_t>(out.report, "recv_counts", c.p);
  out.signal = collective_test::RankOutputs<int32_t>(out.report, "signal", c.p);
  out.log.assign(out.report.log().begin(), out.report.log().end());
  return out;
}

// No kernel block started on any chip.
void ExpectNoBlockRan(const RunReport& r) {
  for (const CoreStat& core : r.cores()) {
    EXPECT_EQ(core.blocks(), 0) << "chip " << core.chip();
  }
  for (const TaskStat& t : r.tasks()) ADD_FAILURE() << "task " << t.kernel();
}

// ------------------------------------------------------------ HOST rail

struct RailParam {
  int p;
  int64_t l;
  int64_t stride;  // 0 = rank-1 signal
  int64_t b;       // §4.8's B
  bool int8;
};

class HostRailTest : public ::testing::TestWithParam<RailParam> {};

TEST_P(HostRailTest, MatchesTheGoldenAndLogsTheLaunch) {
  const RailParam& rp = GetParam();
  Config c;
  c.p = rp.p;
  c.core_num = rp.l;
  c.stride = rp.stride;
  const Outcome out = rp.int8 ? RunHostRail<int8_t>(c) : RunHostRail<float>(c);
  const RunReport& r = out.report;
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_GT(r.sim_time_ps(), 0);

  const ref::AllToAllVShape shape{c.p, c.max_recv, c.size};
  ref::PerRank<int32_t> recv;
  if (rp.int8) {
    ref::PerRank<int8_t> input, target(c.p, std::vector<int8_t>(shape.elems()));
    for (int rk = 0; rk < c.p; ++rk) input.push_back(InputOf<int8_t>(c, rk));
    ASSERT_TRUE(ref::AllToAllV(shape, input, SendCounts(c), &target, &recv).ok());
    const absl::Status st =
        ref::CompareAllToAllV(shape, target, recv, AsPerRank<int8_t>(out.target), out.recv_counts,
                              /*all_rows=*/true);
    EXPECT_TRUE(st.ok()) << st;
  } else {
    ref::PerRank<float> input, target(c.p, std::vector<float>(shape.elems()));
    for (int rk = 0; rk < c.p; ++rk) input.push_back(InputOf<float>(c, rk));
    ASSERT_TRUE(ref::AllToAllV(shape, input, SendCounts(c), &target, &recv).ok());
    const absl::Status st =
        ref::CompareAllToAllV(shape, target, recv, AsPerRank<float>(out.target), out.recv_counts,
                              /*all_rows=*/true);
    EXPECT_TRUE(st.ok()) << st;
  }
  EXPECT_EQ(out.recv_counts, recv);
  // Self-clearing: every signal cell is 0 again.
  for (int rk = 0; rk < c.p; ++rk) {
    for (int32_t cell : out.signal[rk]) EXPECT_EQ(cell, 0) << "rank " << rk;
  }
  // One kernel task of B blocks per rank, submitted by the entry.
  int tasks = 0;
  for (const TaskStat& t : r.tasks()) {
    ++tasks;
    EXPECT_EQ(t.kernel(),
              absl::StrCat("builtin_tensor_all_to_all_v__", rp.int8 ? "int8" : "fp32", "_kernel"));
    EXPECT_EQ(t.blocks(), rp.b);
  }
  EXPECT_EQ(tasks, c.p);
  // Exactly one timing line per call (one call per rank), tagged with the
  // rank's device, in device order.
  const int64_t s = rp.stride == 0 ? 1 : rp.stride;
  ASSERT_EQ(out.log.size(), static_cast<size_t>(c.p));
  for (int rk = 0; rk < c.p; ++rk) {
    EXPECT_EQ(out.log[rk], absl::StrCat("c", rk, " run0: builtin.tensor.all_to_all_v__",
                                        rp.int8 ? "int8" : "fp32", ": rank=", rk,
                                        " requested_core_num=", rp.l, " launched_core_num=", rp.b,
                                        " active_lanes=", std::min(rp.b, s), " nranks=", rp.p));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllToAllV, HostRailTest,
    ::testing::Values(RailParam{2, 1, 0, 1, false}, RailParam{2, 1, 0, 1, true},
                      RailParam{4, 1, 0, 1, false}, RailParam{4, 1, 0, 1, true},
                      // L = 5 on P = 2 launches B = 4 and fits S = 4.
                      RailParam{2, 5, 4, 4, false}, RailParam{2, 5, 4, 4, true},
                      RailParam{4, 10, 10, 8, false}, RailParam{4, 3, 3, 3, true}),
    [](const ::testing::TestParamInfo<RailParam>& i) {
      return absl::StrCat("P", i.param.p, "_L", i.param.l, "_S", i.param.stride, "_",
                          i.param.int8 ? "int8" : "fp32");
    });

TEST(HostEntryTest, AliasSymbolRunsTheSameEntry) {
  Config c;
  c.use_alias = true;
  const Outcome out = RunHostRail<float>(c);
  ASSERT_EQ(out.report.error_code(), 0) << out.report.error_text();
  EXPECT_EQ(out.report.tasks_size(), 2);
  EXPECT_EQ(out.log.size(), 2u);
}

TEST(HostEntryTest, ConfigExpectsSevenArgsAndTheCallableCarriesIt) {
  EXPECT_EQ(fp32::aicpu_orchestration_config({}).expected_arg_count, 7);
  EXPECT_EQ(int8::aicpu_orchestration_config({}).expected_arg_count, 7);
  EXPECT_EQ(fp32::MakeChipCallable().expected_arg_count, 7);
  EXPECT_EQ(int8::MakeChipCallable().expected_arg_count, 7);
}

// Exactly expected_arg_count (no `_ord`) runs like the 8-arg dispatches.
TEST(HostEntryTest, SevenArgsWithoutTheOrdTokenRun) {
  Config c;
  c.ord = false;
  const Outcome out = RunHostRail<float>(c);
  ASSERT_EQ(out.report.error_code(), 0) << out.report.error_text();
  EXPECT_EQ(out.report.tasks_size(), 2);
  EXPECT_EQ(out.log.size(), 2u);
}

// ------------------------------------------------------- launch admission

// S < B: every rank's entry rejects before submitting, so no rank's kernel
// waits in a barrier for a peer that never comes.
TEST(HostEntryAdmissionTest, NarrowSignalFailsOnEveryRankBeforeAnyKernel) {
  for (int p : {2, 4}) {
    SCOPED_TRACE(absl::StrCat("P = ", p));
    Config c;
    c.p = p;
    c.core_num = 2 * p;  // B = 2P
    c.stride = p;        // S = P < B
    const Outcome out = RunHostRail<float>(c);
    EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs) << out.report.error_text();
    EXPECT_THAT(out.report.error_text(),
                HasSubstr(absl::StrCat("signal stride ", p, " < launched_core_num=", 2 * p)));
    ExpectNoBlockRan(out.report);
    EXPECT_THAT(out.log, IsEmpty());
  }
}

TEST(HostEntryAdmissionTest, RankOneSignalAdmitsOneBlockOnly) {
  Config c;
  c.core_num = 2;  // B = 2 > S = 1
  const Outcome out = RunHostRail<int8_t>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs);
  EXPECT_THAT(out.report.error_text(), HasSubstr("signal stride 1 < launched_core_num=2"));
  ExpectNoBlockRan(out.report);
}

TEST(HostEntryAdmissionTest, CoreNumOutsideTheInt32RangeIsRejected) {
  for (int64_t l : {int64_t{0}, int64_t{1} << 31, int64_t{-3}}) {
    SCOPED_TRACE(l);
    Config c;
    c.core_num = static_cast<uint64_t>(l);
    c.stride = 4;
    const Outcome out = RunHostRail<float>(c);
    EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs);
    EXPECT_THAT(out.report.error_text(),
                HasSubstr(absl::StrCat("builtin.tensor.all_to_all_v__fp32: "
                                       "core_num=",
                                       l, " outside [1, INT32_MAX]")));
    ExpectNoBlockRan(out.report);
    EXPECT_THAT(out.log, IsEmpty());
  }
}

// B = 50 > 48 AIVs: the runtime refuses the sync-start launch at submit
// (code 7), naming the launched B, never the requested L.
TEST(HostEntryAdmissionTest, OverCapacityFailsWithCode7NamingB) {
  Config c;
  c.core_num = 51;
  c.stride = 51;
  const Outcome out = RunHostRail<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorRequireSyncStartInvalid) << out.report.error_text();
  EXPECT_THAT(out.report.error_text(), HasSubstr("block_num=50"));
  EXPECT_THAT(out.report.error_text(), Not(HasSubstr("51")));
  ExpectNoBlockRan(out.report);
  for (const auto& t : out.target) {
    for (uint8_t byte : t) ASSERT_EQ(byte, 0);
  }
  ASSERT_FALSE(out.log.empty());
  EXPECT_THAT(out.log[0], HasSubstr("requested_core_num=51 "
                                    "launched_core_num=50 active_lanes=50 "
                                    "nranks=2"));
}

// 5 tensors + 1 scalar = 6 < 7: the runtime refuses before the entry runs.
TEST(HostEntryAdmissionTest, FewerThanExpectedArgCountFailsInTheRuntime) {
  Config c;
  c.ord = false;
  c.scalars = 1;
  const Outcome out = RunHostRail<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs);
  EXPECT_THAT(out.report.error_text(),
              HasSubstr("chip callable builtin.tensor.all_to_all_v__fp32 "
                        "expects expected_arg_count=7 args, dispatch has 6 "
                        "(5 tensors + 1 scalars)"));
  ExpectNoBlockRan(out.report);
  EXPECT_THAT(out.log, IsEmpty());
}

// 6 tensors (with `_ord`) + 1 scalar pass the runtime's count; the entry
// still needs core_num.
TEST(HostEntryAdmissionTest, MissingCoreNumIsInvalidInTheEntry) {
  Config c;
  c.scalars = 1;
  const Outcome out = RunHostRail<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs);
  EXPECT_THAT(out.report.error_text(),
              HasSubstr("expected 5 tensors and 2 scalars "
                        "(expected_arg_count=7), got 6 tensors and 1 scalars"));
  ExpectNoBlockRan(out.report);
  EXPECT_THAT(out.log, IsEmpty());
}

}  // namespace
}  // namespace pto::sim
