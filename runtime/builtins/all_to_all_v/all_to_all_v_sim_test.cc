// The rendered builtin all_to_all_v kernel (runtime/builtins/all_to_all_v)
// on N simulated 910B chips against the golden model of
// testing/reference: the skew matrix on P = 2, 4, 8 for FP32 and INT8,
// the multi-block (P, L) rows of spec §4.8 that fit 48 AIVs with signal
// reuse across two calls, and the over-capacity launch. Asserts results and
// simulated time only.
#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/launch_width.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/builtins/collective_sim_test_util.h"
#include "runtime/api/orchestrator.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"

namespace pto::builtins::all_to_all_v_float {
void AllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::all_to_all_v_float
namespace pto::builtins::all_to_all_v_int8_t {
void AllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::all_to_all_v_int8_t

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;
using ::testing::HasSubstr;
using collective_test::AsPerRank;

template <typename T>
KernelEntry Kernel() {
  if constexpr (std::is_same_v<T, float>) {
    return &builtins::all_to_all_v_float::AllToAllVKernel;
  } else {
    return &builtins::all_to_all_v_int8_t::AllToAllVKernel;
  }
}

using ref::Skew;

struct Call {
  ref::PerRank<int32_t> send_counts;  // [rank][dest]
};

struct Config {
  int p = 2;
  int64_t max_recv = 4;
  int64_t size = 16;
  int64_t core_num = 1;      // L
  int64_t stride = 0;        // signal columns S; 0 = 1-D [P] signal
  bool check_stride = true;  // the §4.9 entry's S >= B admission
  int64_t shape_size = 0;    // SIZE in the tensors' shapes; 0 = size
  bool consume = true;       // a consumer task snapshots each call
  std::vector<Call> calls;   // consecutive calls on the same target/signal
  std::string platform = "a2a3";
  double quantum_ns = 1000;  // the temporal-decoupling quantum (SimOptions)
  std::function<void(platforms::Platform&)> tweak;  // SimOptions::tweak
};

struct Outcome : collective_test::CallsOutcome {
  int64_t blocks = 0;  // B as launched
};

// A consumer: copies the target into `seen` slot by slot (each slot is
// snapshotted when its copy is issued), `repeats` times to take longer.
// args: t0 = target, t1 = seen; s0 = slot bytes, s1 = repeats.
void ConsumeKernel(int64_t* args) {
  uint8_t* target = TensorArg(args, 0)->data<uint8_t>();
  uint8_t* seen = TensorArg(args, 1)->data<uint8_t>();
  const uint64_t total = TensorArg(args, 0)->bytes;
  const uint64_t slot = static_cast<uint64_t>(args[2]);
  Tile<uint8_t> stage = TASSIGN<uint8_t>(0, 64 * 1024);
  for (int64_t rep = 0; rep < args[3]; ++rep) {
    for (uint64_t off = 0; off < total; off += slot) {
      const uint64_t n = std::min(slot, total - off);
      TPUT(GlobalTensor<uint8_t>{seen + off, n}, GlobalTensor<uint8_t>{target + off, n}, stage);
    }
  }
  pipe_barrier(PIPE_ALL);
}

// The chip orchestration of the HOST entry (§4.9), hand-written: B from
// CalAllToAllVBlocks, INVALID_ARGS for L outside [1, INT32_MAX] or S < B,
// then per call: one submit with core count B and require_sync_start, and
// a consumer task.
// Tensors per call: input, target, signal, send_counts, recv_counts, shaped
// here as §4.2 lays them out, so the kernel reads MAX_RECV, SIZE and S from
// them. Scalars: CommContext*.
rt::ChipCallable AllToAllVCallable(KernelEntry kernel, const Config& c) {
  rt::ChipCallable callable;
  callable.name = "all_to_all_v";
  callable.kernels = {kernel, &ConsumeKernel};
  callable.kernel_names = {"all_to_all_v", "consume"};
  callable.entry = [c](rt::Orchestrator& orch, const rt::ChipArgs& a) {
    const int64_t l = c.core_num;
    if (l < 1 || l > std::numeric_limits<int32_t>::max()) {
      orch.report_fatal(rt::kErrorInvalidArgs,
                        absl::StrCat("all_to_all_v: core_num=", l, " outside [1, INT32_MAX]"));
      return;
    }
    const int64_t b = *CalAllToAllVBlocks(c.p, l);
    const int64_t s = c.stride == 0 ? 1 : c.stride;
    if (c.check_stride && s < b) {
      orch.report_fatal(rt::kErrorInvalidArgs, absl::StrCat("all_to_all_v: signal stride ", s,
                                                            " < launched_core_num=", b));
      return;
    }
    const int rank = orch.device_id();  // devices 0..P-1 are ranks 0..P-1
    const uint64_t p = static_cast<uint64_t>(c.p);
    const uint64_t size = static_cast<uint64_t>(c.shape_size ? c.shape_size : c.size);
    // [P * MAX_RECV, SIZE]: the rows follow from the buffer's bytes.
    auto rows = [&](const rt::Tensor& t) {
      return t.WithShape({t.bytes / t.elem_bytes / size, size});
    };
    rt::TaskId consumer = rt::kInvalidTaskId;
    for (size_t k = 0; k < c.calls.size(); ++k) {
      if (k > 0) {
        // Consume the previous call's counts and target, then stage this
        // call's counts into the same send_counts window. Peers read it
        // remotely, so a kernel that returns before its Barrier B, pulls
        // before Barrier A (the slow rank stages late), or pulls without
        // dcci sees the wrong counts.
        int32_t first = 0;
        orch.read_tensor(a.tensors[5 * (k - 1) + 4], 0, &first, 4);
        if (c.consume) {  // and after the (slow on one rank) consumer
          orch.read_tensor(a.tensors[5 * c.calls.size() + k - 1], 0, &first, 4);
        }
        const std::vector<int32_t>& counts = c.calls[k].send_counts[rank];
        orch.write_tensor(a.tensors[5 * k + 3], 0, counts.data(), counts.size() * 4);
      }
      rt::TaskArgs args;
      args.add_input(rows(a.tensors[5 * k + 0]));
      args.add_inout(rows(a.tensors[5 * k + 1]));
      // [P] (S = 1) or [P, S]
      args.add_inout(c.stride == 0
                         ? a.tensors[5 * k + 2].WithShape({p})
                         : a.tensors[5 * k + 2].WithShape({p, static_cast<uint64_t>(c.stride)}));
      args.add_input(a.tensors[5 * k + 3].WithShape({p}));
      args.add_inout(a.tensors[5 * k + 4].WithShape({p, 1}));
      for (uint64_t v : a.scalars) args.add_scalar(v);
      args.launch_spec.set_core_num(static_cast<int32_t>(b));
      args.launch_spec.set_require_sync_start(b > 1);
      // WAR: the previous call's consumer reads the target this call writes.
      if (consumer != rt::kInvalidTaskId) args.add_dep(consumer);
      orch.submit_aiv_task(0, args);
      if (!c.consume) continue;
      // The consumer task snapshots the target as soon as this rank's call
      // completes; the last rank consumes slowly. A kernel that returns
      // before every peer's payload landed, or a peer that pushes the next
      // call before this rank consumed, shows up in the snapshot.
      rt::TaskArgs cargs;
      cargs.add_input(a.tensors[5 * k + 1]);
      cargs.add_output(a.tensors[5 * c.calls.size() + k]);
      cargs.add_scalar(a.tensors[5 * k + 1].bytes / c.p);
      cargs.add_scalar(rank == c.p - 1 ? 4 : 1);
      consumer = orch.submit_aiv_task(1, cargs).task;
    }
  };
  return callable;
}

template <typename T>
std::vector<T> InputOf(const Config& c, int call, int r) {
  return ref::PayloadInput<T>(call, r, c.p, c.max_recv, c.size);
}

template <typename T>
Outcome RunAllToAllV(const Config& c) {
  Outcome out;
  const uint64_t data_bytes = c.p * c.max_recv * c.size * sizeof(T);
  const uint64_t sig_bytes = c.p * (c.stride == 0 ? 1 : c.stride) * 4;
  const uint64_t count_bytes = c.p * 4;
  SimOptions o = testing::Opts(c.p, c.platform);
  o.trace = false;
  o.quantum_ns = c.quantum_ns;
  o.tweak = c.tweak;
  std::optional<rt::Domain> dom;
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec;
        spec.name = "a2av";
        for (int r = 0; r < c.p; ++r) spec.devices.push_back(r);
        // One send_counts window for every call: the orchestration restages
        // it between calls.
        spec.buffers = {
            {"target", data_bytes}, {"signal", sig_bytes}, {"send_counts", count_bytes}};
        for (size_t k = 0; k < c.calls.size(); ++k) {
          spec.buffers.push_back({absl::StrCat("input", k), data_bytes});
          spec.buffers.push_back({absl::StrCat("recv_counts", k), count_bytes});
          spec.buffers.push_back({absl::StrCat("seen", k), data_bytes});
        }
        spec.window_size = collective_test::WindowBytes(spec);
        absl::StatusOr<rt::Domain> d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        dom = *d;
        std::vector<rt::ChipArgs> args;
        for (int r = 0; r < c.p; ++r) {
          auto buf = [&](const std::string& name, uint32_t elem) {
            return collective_test::WindowTensor(*dom, r, name, elem);
          };
          rt::ChipArgs a;
          for (size_t k = 0; k < c.calls.size(); ++k) {
            const std::vector<T> in = InputOf<T>(c, k, r);
            absl::Status st = sys.CopyTo(buf(absl::StrCat("input", k), 1), in.data(), data_bytes);
            if (!st.ok()) return st;
            if (k == 0) {
              st = sys.CopyTo(buf("send_counts", 4), c.calls[0].send_counts[r].data(), count_bytes);
              if (!st.ok()) return st;
            }
            a.tensors.push_back(buf(absl::StrCat("input", k), sizeof(T)));
            a.tensors.push_back(buf("target", sizeof(T)));
            a.tensors.push_back(buf("signal", 4));
            a.tensors.push_back(buf("send_counts", 4));
            a.tensors.push_back(buf(absl::StrCat("recv_counts", k), 4));
          }
          for (size_t k = 0; k < c.calls.size(); ++k) {
            a.tensors.push_back(buf(absl::StrCat("seen", k), 1));
          }
          a.scalars = {dom->ranks[r].device_ctx.addr()};
          args.push_back(std::move(a));
        }
        return sys.DispatchGroup(spec.devices, AllToAllVCallable(Kernel<T>(), c), args);
      },
      [&](SimSystem& sys, RunReport& r) {
        std::vector<std::map<std::string, rt::Tensor>> buffers;
        for (const rt::ChipDomainContext& rank : dom->ranks) buffers.push_back(rank.buffers);
        collective_test::CaptureRanks(sys, buffers, r);
      });
  collective_test::ReadCallOutputs(c.p, c.calls.size(), &out);
  if (c.core_num >= 1 && c.core_num <= std::numeric_limits<int32_t>::max()) {
    out.blocks = *CalAllToAllVBlocks(c.p, c.core_num);
  }
  return out;
}

// Runs `c` and checks every call against the golden: recv_counts of each
// call exactly, the target each call's consumer saw and the final target in
// every row (the window was zeroed, so
// rows no call transferred must read exactly 0 and rows only an earlier call
// wrote keep its payload), the signal all zero, and no unfenced notify.
template <typename T>
Outcome RunAndCheck(const Config& c) {
  Outcome out = RunAllToAllV<T>(c);
  const RunReport& r = out.report;
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  if (r.error_code() != 0) return out;
  const ref::AllToAllVShape shape{c.p, c.max_recv, c.size};
  ref::PerRank<T> target(c.p, std::vector<T>(shape.elems(), T{0}));
  ref::PerRank<int32_t> recv;
  for (size_t k = 0; k < c.calls.size(); ++k) {
    ref::PerRank<T> input;
    for (int rk = 0; rk < c.p; ++rk) input.push_back(InputOf<T>(c, k, rk));
    EXPECT_TRUE(ref::AllToAllV(shape, input, c.calls[k].send_counts, &target, &recv).ok());
    EXPECT_EQ(out.recv_counts[k], recv) << "call " << k;
    if (!c.consume) continue;
    const absl::Status st =
        ref::CompareAllToAllV(shape, target, recv, AsPerRank<T>(out.seen_bytes[k]),
                              out.recv_counts[k], /*all_rows=*/true);
    EXPECT_TRUE(st.ok()) << "call " << k << " as consumed: " << st;
  }
  const absl::Status st = ref::CompareAllToAllV(shape, target, recv, AsPerRank<T>(out.target_bytes),
                                                out.recv_counts.back(), /*all_rows=*/true);
  EXPECT_TRUE(st.ok()) << "final target: " << st;
  // Self-clearing: every lane [0, B) (indeed every cell) of every row reads 0.
  for (int rk = 0; rk < c.p; ++rk) {
    for (size_t i = 0; i < out.signal[rk].size(); ++i) {
      EXPECT_EQ(out.signal[rk][i], 0) << "rank " << rk << " signal cell " << i;
    }
  }
  for (const CoreStat& core : r.cores()) {
    EXPECT_EQ(core.unfenced_notifies(), 0) << "chip " << core.chip();
  }
  int calls = 0;
  for (const TaskStat& t : r.tasks()) {
    if (t.kernel() != "all_to_all_v") continue;
    ++calls;
    EXPECT_EQ(t.blocks(), out.blocks);
  }
  EXPECT_EQ(calls, c.p * static_cast<int>(c.calls.size()));
  EXPECT_GT(r.sim_time_ps(), 0);
  return out;
}

Call SkewCall(Skew s, int p, int32_t max_recv) { return Call{ref::SkewCounts(s, p, max_recv)}; }

// The kernel time of one call: first block start to last block end over
// every chip.
int64_t KernelPs(const RunReport& r) {
  int64_t start = std::numeric_limits<int64_t>::max();
  int64_t end = 0;
  for (const TaskStat& t : r.tasks()) {
    if (t.kernel() != "all_to_all_v") continue;
    start = std::min(start, t.start_ps());
    end = std::max(end, t.end_ps());
  }
  return end - start;
}

// ------------------------------------------------------------ skew matrix

using collective_test::SkewParam;

class SkewMatrixTest : public ::testing::TestWithParam<SkewParam> {};

TEST_P(SkewMatrixTest, MatchesTheGolden) {
  const SkewParam& sp = GetParam();
  Config c;
  c.p = sp.p;
  c.max_recv = 4;
  c.size = 24;  // 96 B FP32 rows, 24 B INT8 rows: not 32-byte multiples
  c.calls = {SkewCall(sp.skew, sp.p, 4)};
  if (sp.int8) {
    RunAndCheck<int8_t>(c);
  } else {
    RunAndCheck<float>(c);
  }
}

INSTANTIATE_TEST_SUITE_P(AllToAllV, SkewMatrixTest,
                         ::testing::ValuesIn(collective_test::SkewParams({2, 4, 8})),
                         collective_test::SkewParamName);

// ------------------------------------------------------------ multi-block

struct BlockParam {
  int p;
  int64_t l;
  int64_t b;  // §4.8's B, checked against the launch
  bool int8;
};

class MultiBlockTest : public ::testing::TestWithParam<BlockParam> {};

// Two consecutive calls on one target and one [P, L] signal: the first sends
// full (over-capacity) blocks, the second a ragged mix with round-distinct
// payloads; lanes [0, B) read zero after both.
TEST_P(MultiBlockTest, TwoCallsReuseTheSignal) {
  const BlockParam& bp = GetParam();
  Config c;
  c.p = bp.p;
  c.max_recv = 3;
  c.size = 64;  // FP32: one row = 256 B, as the p2-l6-b6-ragged-k3 ST case
  c.core_num = bp.l;
  c.stride = bp.l;
  Call second = SkewCall(Skew::kOneAndFull, bp.p, 3);
  for (int r = 0; r < bp.p; ++r) second.send_counts[r][(r + 1) % bp.p] = 2;
  c.calls = {SkewCall(Skew::kOverCapacity, bp.p, 3), second};
  const Outcome out = bp.int8 ? RunAndCheck<int8_t>(c) : RunAndCheck<float>(c);
  EXPECT_EQ(out.blocks, bp.b);
}

std::vector<BlockParam> BlockParams() {
  // The §4.8 rows with P <= 8 (a2a3 has 8 chips) and B <= 48.
  const std::vector<BlockParam> rows = {{8, 1, 1},   {8, 7, 7}, {8, 8, 8},  {8, 10, 8}, {8, 15, 8},
                                        {8, 16, 16}, {4, 2, 2}, {4, 10, 8}, {8, 2, 2},  {8, 4, 4},
                                        {2, 5, 4},   {2, 6, 6}, {4, 16, 16}};
  std::vector<BlockParam> v;
  for (const BlockParam& r : rows) {
    v.push_back(r);
    v.push_back({r.p, r.l, r.b, true});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllToAllV, MultiBlockTest, ::testing::ValuesIn(BlockParams()),
                         [](const ::testing::TestParamInfo<BlockParam>& i) {
                           return absl::StrCat("P", i.param.p, "_L", i.param.l, "_B", i.param.b,
                                               "_", i.param.int8 ? "int8" : "fp32");
                         });

// ------------------------------------------------------- launch admission

TEST(AllToAllVAdmissionTest, OverCapacityFailsAtSubmitWithCode7) {
  Config c;
  c.p = 2;
  c.core_num = 51;  // B = 50 > 48 AIVs
  c.stride = 51;
  c.calls = {SkewCall(Skew::kOverCapacity, 2, 4)};
  const Outcome out = RunAllToAllV<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorRequireSyncStartInvalid) << out.report.error_text();
  EXPECT_THAT(out.report.error_text(), HasSubstr("require_sync_start block_num=50 > limit=48"));
  // Refused before any block started: no task ran, nothing was moved.
  for (const CoreStat& core : out.report.cores()) EXPECT_EQ(core.blocks(), 0);
  for (const auto& t : out.target_bytes) {
    for (uint8_t byte : t) ASSERT_EQ(byte, 0);
  }
}

TEST(AllToAllVAdmissionTest, CoreNumOutsideTheInt32RangeIsRejected) {
  for (int64_t l : {int64_t{0}, int64_t{-3}, int64_t{1} << 31}) {
    Config c;
    c.p = 2;
    c.core_num = l;
    c.calls = {SkewCall(Skew::kOverCapacity, 2, 4)};
    const Outcome out = RunAllToAllV<float>(c);
    EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs) << l;
    EXPECT_THAT(out.report.error_text(),
                HasSubstr(absl::StrCat("core_num=", l, " outside [1, INT32_MAX]")));
    for (const CoreStat& core : out.report.cores()) EXPECT_EQ(core.blocks(), 0);
  }
}

TEST(AllToAllVAdmissionTest, NarrowSignalIsRejectedBeforeSubmit) {
  Config c;
  c.p = 2;
  c.core_num = 6;  // B = 6
  c.stride = 4;
  c.calls = {SkewCall(Skew::kOverCapacity, 2, 4)};
  const Outcome out = RunAllToAllV<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorInvalidArgs);
  EXPECT_THAT(out.report.error_text(), HasSubstr("signal stride 4 < launched_core_num=6"));
  for (const CoreStat& core : out.report.cores()) EXPECT_EQ(core.blocks(), 0);
}

// ------------------------------------------------------- kernel behaviours

// A CHIP-rail caller that skips the S >= B admission: blocks at or past the
// stride retire without touching the signal (a lane past S would count into
// the next row, or past the signal into send_counts, which follows it in
// this window), the remaining min(B, S) lanes still move everything.
TEST(AllToAllVKernelTest, BlocksPastTheSignalStrideRetire) {
  // B = 8 on P = 4. S = 4: lanes 0-3 own a peer each, 4-7 retire (the
  // [4, 4] INT32 signal is exactly 64 B, so send_counts follows it
  // directly). S = 6: lanes 4-5 own nothing but join, 6-7 retire.
  for (int64_t stride : {4, 6}) {
    SCOPED_TRACE(absl::StrCat("S = ", stride));
    Config c;
    c.p = 4;
    c.core_num = 8;
    c.stride = stride;
    c.check_stride = false;
    c.calls = {SkewCall(Skew::kOneAndFull, 4, 4), SkewCall(Skew::kNegative, 4, 4)};
    RunAndCheck<float>(c);
  }
}

// Ranks with very different work (one sends nothing while the others send
// full blocks to it, then the roles swap): the fast rank must still wait in
// Barrier B for every payload into it, and must not push the next call into
// a peer before that peer consumed the previous one.
TEST(AllToAllVKernelTest, LopsidedRanksStayInStep) {
  Config c;
  c.p = 4;
  c.max_recv = 8;
  c.size = 32 * 1024;  // 1 MiB per full FP32 block: longer than a completion
  auto lopsided = [&](int idle) {
    Call call;
    call.send_counts.assign(4, std::vector<int32_t>(4, 8));
    for (int d = 0; d < 4; ++d) call.send_counts[idle][d] = 0;
    return call;
  };
  // The slow consumer is rank 3: its counts change every call.
  c.calls = {lopsided(0), lopsided(1), lopsided(3), lopsided(0)};
  RunAndCheck<float>(c);
  c.core_num = 8;
  c.stride = 8;
  RunAndCheck<int8_t>(c);
}

// A target with fewer rows than ranks gives MAX_RECV = 0: every rank returns
// at the entry guard (before any barrier), nothing moves, nobody hangs.
TEST(AllToAllVKernelTest, ZeroCapacityReturnsOnEveryRank) {
  Config c;
  c.p = 4;
  c.max_recv = 1;
  c.size = 8;
  c.shape_size = 16;  // the kernel sees a [2, 16] target: 2 rows < P = 4
  c.calls = {SkewCall(Skew::kOverCapacity, 4, 1)};
  const Outcome out = RunAllToAllV<float>(c);
  ASSERT_EQ(out.report.error_code(), 0) << out.report.error_text();
  for (int r = 0; r < 4; ++r) {
    for (uint8_t byte : out.target_bytes[r]) ASSERT_EQ(byte, 0);
    for (int32_t v : out.recv_counts[0][r]) EXPECT_EQ(v, 0);
    for (int32_t v : out.signal[r]) EXPECT_EQ(v, 0);
  }
}

// Spec §4.7's ragged example (p2-l6-b6-ragged-k3): FP32, SIZE = 64, one
// row per peer split over K = 3 lanes is [0,24) [24,48) [48,64), i.e. TPUTs
// of 96, 96 and 64 bytes, every one starting 32-byte aligned (an even
// element split, 22/22/20, would start lanes mid-burst).
TEST(AllToAllVKernelTest, LaneBoundariesAre32ByteAligned) {
  Config c;
  c.p = 2;
  c.max_recv = 1;
  c.size = 64;
  c.core_num = 6;
  c.stride = 6;
  c.consume = false;  // only the kernel's blocks move bytes
  c.calls = {SkewCall(Skew::kOverCapacity, 2, 1)};
  const Outcome out = RunAndCheck<float>(c);
  for (int chip = 0; chip < 2; ++chip) {
    std::vector<int64_t> lane_bytes;
    for (const CoreStat& core : out.report.cores()) {
      if (core.chip() == chip && core.blocks() > 0) {
        lane_bytes.push_back(core.mte2_bytes());
      }
    }
    std::sort(lane_bytes.begin(), lane_bytes.end());
    EXPECT_THAT(lane_bytes, ::testing::ElementsAre(64, 64, 96, 96, 96, 96)) << "chip " << chip;
  }
}

// The kernel's rank cap is the domain's (kCommMaxDomainRanks): 65 ranks on
// A3, past the 16 of PyPTO's kernel and the 64 of the HcclDeviceContext
// mirror (the context's wide layout), exchange every skew row correctly.
TEST(AllToAllVKernelTest, RunsPastSixtyFourRanksOnA3) {
  Config c;
  c.p = 65;
  c.max_recv = 2;
  c.size = 8;
  c.consume = false;
  c.platform = "a3";
  c.calls = {SkewCall(Skew::kZeroAndFull, 65, 2), SkewCall(Skew::kNegative, 65, 2)};
  RunAndCheck<float>(c);
}

// Same program, inputs and platform: same simulated time and statistics.
TEST(AllToAllVKernelTest, RunsAreDeterministic) {
  Config c;
  c.p = 4;
  c.core_num = 8;
  c.stride = 8;
  c.calls = {SkewCall(Skew::kOneAndFull, 4, 4), SkewCall(Skew::kNegative, 4, 4)};
  const RunReport a = RunAndCheck<int8_t>(c).report;
  const RunReport b = RunAndCheck<int8_t>(c).report;
  EXPECT_EQ(a.sim_time_ps(), b.sim_time_ps());
  EXPECT_EQ(StatsText(a), StatsText(b));
}

// Spreading a full payload over more lanes per peer shortens the kernel in
// simulated time (one lane's TPUT is serial through its staging tile; four
// lanes share the link), with the same result. The two barriers' 2 x 7
// serial remote notifies (~1.1 us each) bound the gain at P = 8. The gain is
// on the links: a2a3's chip egress cap (79.7 GB/s) bounds both at ~92 us, so
// it is lifted here; with it, the lanes no longer pay (checked last).
TEST(AllToAllVKernelTest, MoreLanesAreFasterInSimulatedTime) {
  Config c;
  c.tweak = [](platforms::Platform& p) { p.mutable_fabric()->clear_chip_egress_gbps(); };
  c.p = 8;
  c.max_recv = 16;
  c.size = 16 * 1024;  // 1 MiB per peer
  c.consume = false;
  c.calls = {SkewCall(Skew::kOverCapacity, 8, 16)};
  c.core_num = 8;
  c.stride = 8;
  const int64_t one_lane = KernelPs(RunAndCheck<float>(c).report);
  c.core_num = 32;
  c.stride = 32;
  const int64_t four_lanes = KernelPs(RunAndCheck<float>(c).report);
  RecordProperty("kernel_ns_B8", std::to_string(one_lane / 1000));
  RecordProperty("kernel_ns_B32", std::to_string(four_lanes / 1000));
  EXPECT_LT(four_lanes * 10, one_lane * 9);
  c.tweak = nullptr;
  const int64_t capped = KernelPs(RunAndCheck<float>(c).report);
  EXPECT_GT(capped, 7.0 * (1 << 20) / 79.7 * 1000);  // 7 MiB out of a chip at 79.7 GB/s, in ps
}

// Quantum independence (docs/simulator.md, "Determinism"): a cheap subset of
// the matrix (ragged and over-capacity calls, one and several lanes, P = 2,
// 4, 8, both dtypes) at the default 1 us quantum and at 100 ns gives the
// same bytes and counts, and simulated times within kQuantumBoundPs of each
// other. Temporal decoupling lets a core run ahead by up to a quantum
// before it synchronises, so the bound is one default quantum.
constexpr int64_t kQuantumBoundPs = 1000000;

template <typename T>
void ExpectQuantumIndependent(Config c) {
  c.quantum_ns = 1000;
  const Outcome coarse = RunAndCheck<T>(c);
  c.quantum_ns = 100;
  const Outcome fine = RunAndCheck<T>(c);
  ASSERT_EQ(coarse.report.error_code(), 0);
  ASSERT_EQ(fine.report.error_code(), 0);
  EXPECT_EQ(coarse.target_bytes, fine.target_bytes);
  EXPECT_EQ(coarse.recv_counts, fine.recv_counts);
  EXPECT_EQ(coarse.seen_bytes, fine.seen_bytes);
  EXPECT_EQ(coarse.signal, fine.signal);
  EXPECT_LE(std::abs(coarse.report.sim_time_ps() - fine.report.sim_time_ps()), kQuantumBoundPs)
      << "1 us quantum: " << coarse.report.sim_time_ps() << " ps, 100 ns: "
      << fine.report.sim_time_ps() << " ps";
  EXPECT_LE(std::abs(KernelPs(coarse.report) - KernelPs(fine.report)), kQuantumBoundPs)
      << "kernel time, 1 us quantum: " << KernelPs(coarse.report) << " ps, 100 ns: "
      << KernelPs(fine.report) << " ps";
}

TEST(AllToAllVQuantumTest, ResultsAndTimesDoNotDependOnTheQuantum) {
  for (const auto& [p, l] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {8, 1}, {8, 8}}) {
    SCOPED_TRACE(absl::StrCat("P", p, " L", l));
    Config c;
    c.p = p;
    c.max_recv = 3;
    c.size = 64;
    c.core_num = l;
    c.stride = l;
    Call second = SkewCall(Skew::kOneAndFull, p, 3);
    for (int r = 0; r < p; ++r) second.send_counts[r][(r + 1) % p] = 2;
    c.calls = {SkewCall(Skew::kOverCapacity, p, 3), second};
    ExpectQuantumIndependent<float>(c);
    ExpectQuantumIndependent<int8_t>(c);
  }
}

}  // namespace
}  // namespace pto::sim
