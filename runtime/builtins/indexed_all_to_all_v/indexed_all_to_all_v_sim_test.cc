// The rendered builtin indexed_all_to_all_v kernel
// (runtime/builtins/indexed_all_to_all_v) on 2 and 4 simulated A5 chips
// against the golden model of testing/reference: skewed counts (zero,
// partial, over capacity, negative) with repeated indices into an input of
// any row count, FP32 and INT8, launch widths L = 1, L < P and L > P, two
// consecutive calls on one target and one signal (zero afterwards), the
// URMA PER_PEER queues it uses, the flag ordered after the rows of its queue,
// and an out-of-range index faulting. Asserts results and simulated time
// only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/builtins/collective_sim_test_util.h"
#include "runtime/api/orchestrator.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"

namespace pto::builtins::indexed_all_to_all_v_float {
void IndexedAllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::indexed_all_to_all_v_float
namespace pto::builtins::indexed_all_to_all_v_int8_t {
void IndexedAllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::indexed_all_to_all_v_int8_t

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;
using ref::Skew;
using ::testing::HasSubstr;
using collective_test::AsPerRank;

template <typename T>
KernelEntry Kernel() {
  if constexpr (std::is_same_v<T, float>) {
    return &builtins::indexed_all_to_all_v_float::IndexedAllToAllVKernel;
  } else {
    return &builtins::indexed_all_to_all_v_int8_t::IndexedAllToAllVKernel;
  }
}

constexpr char kKernelName[] = "indexed_all_to_all_v";

struct Call {
  ref::PerRank<int32_t> send_counts;  // [rank][dest]
  ref::PerRank<int32_t> index;        // [rank][dest * MAX_RECV + j]
};

struct Config {
  int p = 2;
  int64_t max_recv = 4;
  int64_t size = 24;       // 96 B FP32 rows, 24 B INT8 rows
  int64_t n_rows = 5;      // input rows N (not P * MAX_RECV)
  int64_t core_num = 1;    // L, launched exactly
  bool index_2d = false;   // index shaped [P, MAX_RECV] instead of [P*MAX_RECV]
  int slow_rank = -1;      // consumes 4 times; -1 = the last rank
  int64_t probe_rows = 0;  // rows of slot 0 rank 1's consumer probes first
  std::vector<Call> calls;
};

using Outcome = collective_test::CallsOutcome;

// A consumer: copies the target into `seen` row by row (each row is
// snapshotted when its copy is issued), `repeats` times to take longer.
// First, a scalar probe (reads GM as it is at that instant) of the last
// element of the first `probe_rows` rows of slot 0: a zero there (payloads
// are never 0, the window starts zeroed) means a row had not landed when the
// call completed, and faults the run.
// args: t0 = target, t1 = seen; s0 = row bytes, s1 = repeats,
// s2 = probe_rows.
void ConsumeKernel(int64_t* args) {
  const TensorDesc* target = TensorArg(args, 0);
  uint8_t* seen = TensorArg(args, 1)->data<uint8_t>();
  const uint64_t row = static_cast<uint64_t>(args[2]);
  dcci(target->data<uint8_t>(), ENTIRE_DATA_CACHE);
  for (int64_t j = 0; j < args[4]; ++j) {
    const uint8_t* last = target->data<uint8_t>() + (j + 1) * row - 1;
    if (ReadGm(last) == 0) {
      CurrentCore()->Fault("probe: a row had not landed when the call completed");
    }
  }
  Tile<uint8_t> stage = TASSIGN<uint8_t>(0, 64 * 1024);
  for (int64_t rep = 0; rep < args[3]; ++rep) {
    for (uint64_t off = 0; off < target->bytes; off += row) {
      const uint64_t n = std::min(row, target->bytes - off);
      TPUT(GlobalTensor<uint8_t>{seen + off, n},
           GlobalTensor<uint8_t>{target->data<uint8_t>() + off, n}, stage);
    }
  }
  pipe_barrier(PIPE_ALL);
}

// Tensors per call k (6 each): input_k, target, signal, send_counts,
// recv_counts_k, index_k; then seen_k per call. Scalar 0: CommContext*.
// Per call: one submit of L blocks (sync start when L > 1) and a consumer
// that snapshots the target as soon as this rank's call completes (slowly on
// the last rank).
rt::ChipCallable Callable(KernelEntry kernel, const Config& c) {
  rt::ChipCallable callable;
  callable.name = kKernelName;
  callable.kernels = {kernel, &ConsumeKernel};
  callable.kernel_names = {kKernelName, "consume"};
  callable.entry = [c](rt::Orchestrator& orch, const rt::ChipArgs& a) {
    const int rank = orch.device_id();
    const uint64_t p = c.p;
    const uint64_t m = c.max_recv;
    const uint64_t size = c.size;
    const size_t n = c.calls.size();
    rt::TaskId consumer = rt::kInvalidTaskId;
    for (size_t k = 0; k < n; ++k) {
      if (k > 0) {
        // This rank's previous call and its consumer are done; then stage
        // this call's counts into the same send_counts window, which peers
        // read remotely.
        int32_t first = 0;
        orch.read_tensor(a.tensors[6 * (k - 1) + 4], 0, &first, 4);
        orch.read_tensor(a.tensors[6 * n + k - 1], 0, &first, 4);
        const std::vector<int32_t>& counts = c.calls[k].send_counts[rank];
        orch.write_tensor(a.tensors[6 * k + 3], 0, counts.data(), counts.size() * 4);
      }
      rt::TaskArgs args;
      args.add_input(a.tensors[6 * k + 0].WithShape({c.n_rows + 0ull, size}));
      args.add_inout(a.tensors[6 * k + 1].WithShape({p * m, size}));
      args.add_inout(a.tensors[6 * k + 2].WithShape({p, 2}));
      args.add_input(a.tensors[6 * k + 3].WithShape({p}));
      args.add_inout(a.tensors[6 * k + 4].WithShape({p, 1}));
      args.add_input(c.index_2d ? a.tensors[6 * k + 5].WithShape({p, m})
                                : a.tensors[6 * k + 5].WithShape({p * m}));
      for (uint64_t v : a.scalars) args.add_scalar(v);
      args.launch_spec.set_core_num(static_cast<int32_t>(c.core_num));
      args.launch_spec.set_require_sync_start(c.core_num > 1);
      if (consumer != rt::kInvalidTaskId) args.add_dep(consumer);
      orch.submit_aiv_task(0, args);
      rt::TaskArgs cargs;
      cargs.add_input(a.tensors[6 * k + 1]);
      cargs.add_output(a.tensors[6 * n + k]);
      // The last rank consumes slowly: a peer that pushes the next call
      // before this rank consumed shows up in the snapshot.
      cargs.add_scalar(size * a.tensors[6 * k + 1].elem_bytes);
      cargs.add_scalar(rank == (c.slow_rank < 0 ? c.p - 1 : c.slow_rank) ? 4 : 1);
      cargs.add_scalar(rank == 1 ? c.probe_rows : 0);
      consumer = orch.submit_aiv_task(1, cargs).task;
    }
  };
  return callable;
}

// Rank r's input of call `round`: [N, SIZE], every element distinct per
// (round, rank, row) and never 0.
template <typename T>
std::vector<T> InputOf(const Config& c, int round, int r) {
  std::vector<T> in(c.n_rows * c.size);
  for (int64_t row = 0; row < c.n_rows; ++row) {
    for (int64_t col = 0; col < c.size; ++col) {
      in[row * c.size + col] = ref::Payload<T>(round, r, 0, row, col);
    }
  }
  return in;
}

template <typename T>
Outcome RunIndexed(const Config& c) {
  Outcome out;
  const uint64_t row_bytes = c.size * sizeof(T);
  const uint64_t target_bytes = c.p * c.max_recv * row_bytes;
  const uint64_t input_bytes = c.n_rows * row_bytes;
  const uint64_t index_bytes = c.p * c.max_recv * 4;
  const uint64_t count_bytes = c.p * 4;
  SimOptions o = testing::Opts(c.p, "a5");
  o.trace = false;
  std::optional<rt::Domain> dom;
  // Local (non-window) buffers per rank: name -> tensor.
  std::vector<std::map<std::string, rt::Tensor>> local(c.p);
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec;
        spec.name = "iatav";
        for (int r = 0; r < c.p; ++r) spec.devices.push_back(r);
        spec.buffers = {{"target", target_bytes},
                        {"signal", static_cast<uint64_t>(c.p) * 2 * 4},
                        {"send_counts", count_bytes}};
        spec.window_size = collective_test::WindowBytes(spec);
        absl::StatusOr<rt::Domain> d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        dom = *d;
        std::vector<rt::ChipArgs> args;
        for (int r = 0; r < c.p; ++r) {
          auto alloc = [&](const std::string& name, uint64_t bytes,
                           uint32_t elem) -> absl::StatusOr<rt::Tensor> {
            absl::StatusOr<rt::Tensor> t = sys.Alloc(r, bytes, name);
            if (!t.ok()) return t.status();
            t->elem_bytes = elem;
            local[r][name] = *t;
            return t;
          };
          auto win = [&](const std::string& name, uint32_t elem) {
            return collective_test::WindowTensor(*dom, r, name, elem);
          };
          rt::ChipArgs a;
          absl::Status st =
              sys.CopyTo(win("send_counts", 4), c.calls[0].send_counts[r].data(), count_bytes);
          if (!st.ok()) return st;
          for (size_t k = 0; k < c.calls.size(); ++k) {
            auto in = alloc(absl::StrCat("input", k), input_bytes, sizeof(T));
            auto rc = alloc(absl::StrCat("recv_counts", k), count_bytes, 4);
            auto ix = alloc(absl::StrCat("index", k), index_bytes, 4);
            if (!in.ok() || !rc.ok() || !ix.ok()) {
              return absl::InternalError("alloc");
            }
            const std::vector<T> data = InputOf<T>(c, k, r);
            st = sys.CopyTo(*in, data.data(), input_bytes);
            if (!st.ok()) return st;
            st = sys.CopyTo(*ix, c.calls[k].index[r].data(), index_bytes);
            if (!st.ok()) return st;
            a.tensors.push_back(*in);
            a.tensors.push_back(win("target", sizeof(T)));
            a.tensors.push_back(win("signal", 4));
            a.tensors.push_back(win("send_counts", 4));
            a.tensors.push_back(*rc);
            a.tensors.push_back(*ix);
          }
          for (size_t k = 0; k < c.calls.size(); ++k) {
            auto seen = alloc(absl::StrCat("seen", k), target_bytes, 1);
            if (!seen.ok()) return seen.status();
            a.tensors.push_back(*seen);
          }
          a.scalars = {dom->ranks[r].device_ctx.addr()};
          args.push_back(std::move(a));
        }
        return sys.DispatchGroup(spec.devices, Callable(Kernel<T>(), c), args);
      },
      [&](SimSystem& sys, RunReport& r) {
        std::vector<std::map<std::string, rt::Tensor>> all = local;
        for (int rk = 0; rk < c.p; ++rk) {
          all[rk].insert(dom->ranks[rk].buffers.begin(), dom->ranks[rk].buffers.end());
        }
        collective_test::CaptureRanks(sys, all, r);
      });
  collective_test::ReadCallOutputs(c.p, c.calls.size(), &out);
  return out;
}

const ResourceStat* Queue(const RunReport& r, int from, int to) {
  for (const ResourceStat& q : r.queues()) {
    if (q.name() == absl::StrCat("urma c", from, "->c", to)) return &q;
  }
  return nullptr;
}

// Runs `c` and checks every call against the golden: recv_counts exactly,
// the target each call's consumer saw and the final target in every row
// (the window was zeroed: untransferred rows read 0, rows only an earlier
// call wrote keep its payload), the signal all zero, every block launched,
// and each URMA queue s -> d carrying exactly the rows s sent d plus one
// 4-byte flag per call. Simulated time: each call's task lasts at least one
// WQE per row and flag it owns on its busiest queue.
template <typename T>
void RunAndCheck(const Config& c) {
  Outcome out = RunIndexed<T>(c);
  const RunReport& r = out.report;
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  const ref::IndexedAllToAllVShape shape{c.p, c.max_recv, c.size, c.n_rows};
  ref::PerRank<T> target(c.p, std::vector<T>(shape.target_shape().elems(), T{0}));
  ref::PerRank<int32_t> recv;
  std::vector<std::vector<int64_t>> wqes(c.p, std::vector<int64_t>(c.p, 0));
  std::vector<std::vector<int64_t>> bytes(c.p, std::vector<int64_t>(c.p, 0));
  for (size_t k = 0; k < c.calls.size(); ++k) {
    ref::PerRank<T> input;
    for (int rk = 0; rk < c.p; ++rk) input.push_back(InputOf<T>(c, k, rk));
    ASSERT_TRUE(ref::IndexedAllToAllV(shape, input, c.calls[k].send_counts, c.calls[k].index,
                                      &target, &recv)
                    .ok());
    EXPECT_EQ(out.recv_counts[k], recv) << "call " << k;
    const absl::Status st =
        ref::CompareAllToAllV(shape.target_shape(), target, recv, AsPerRank<T>(out.seen_bytes[k]),
                              out.recv_counts[k], /*all_rows=*/true);
    EXPECT_TRUE(st.ok()) << "call " << k << " as consumed: " << st;
    for (int s = 0; s < c.p; ++s) {
      for (int d = 0; d < c.p; ++d) {
        if (s == d) continue;
        wqes[s][d] += recv[d][s] + 1;
        bytes[s][d] += recv[d][s] * c.size * sizeof(T) + 4;
      }
    }
  }
  const absl::Status st =
      ref::CompareAllToAllV(shape.target_shape(), target, recv, AsPerRank<T>(out.target_bytes),
                            out.recv_counts.back(), /*all_rows=*/true);
  EXPECT_TRUE(st.ok()) << "final target: " << st;
  for (int rk = 0; rk < c.p; ++rk) {
    ASSERT_EQ(out.signal[rk].size(), static_cast<size_t>(2 * c.p));
    for (size_t i = 0; i < out.signal[rk].size(); ++i) {
      EXPECT_EQ(out.signal[rk][i], 0) << "rank " << rk << " signal cell " << i;
    }
  }
  for (int s = 0; s < c.p; ++s) {
    for (int d = 0; d < c.p; ++d) {
      const ResourceStat* q = Queue(r, s, d);
      if (s == d) {
        EXPECT_EQ(q, nullptr) << "self rows must not use URMA";
        continue;
      }
      ASSERT_NE(q, nullptr) << s << "->" << d;
      EXPECT_EQ(q->transfers(), wqes[s][d]) << s << "->" << d;
      EXPECT_EQ(q->bytes(), bytes[s][d]) << s << "->" << d;
      EXPECT_EQ(q->errors(), 0);
    }
  }
  int calls = 0;
  const int64_t wqe_ps = 50 * 1000;  // a5.textproto urma.wqe_process_ns
  for (const TaskStat& t : r.tasks()) {
    if (t.kernel() != kKernelName) continue;
    ++calls;
    EXPECT_EQ(t.blocks(), c.core_num);
    // The task completes only when its flags' CQEs are polled: at least
    // one WQE per row and flag on the queue to one peer.
    EXPECT_GE(t.end_ps() - t.start_ps(), 2 * wqe_ps) << "chip " << t.chip();
  }
  EXPECT_EQ(calls, c.p * static_cast<int>(c.calls.size()));
}

// Index entry j for destination d on rank r: consecutive pairs repeat a row
// and every row of the input is reachable.
int32_t IndexOf(int round, int r, int d, int64_t j, int64_t n_rows) {
  return static_cast<int32_t>((round * 3 + r * 2 + d * 5 + (j / 2) * 7) % n_rows);
}

Call MakeCall(int round, const ref::PerRank<int32_t>& counts, const Config& c) {
  Call call{counts, ref::PerRank<int32_t>(c.p)};
  for (int r = 0; r < c.p; ++r) {
    for (int d = 0; d < c.p; ++d) {
      for (int64_t j = 0; j < c.max_recv; ++j) {
        call.index[r].push_back(IndexOf(round, r, d, j, c.n_rows));
      }
    }
  }
  return call;
}

// ------------------------------------------------------------ skew matrix

using collective_test::SkewParam;

class SkewMatrixTest : public ::testing::TestWithParam<SkewParam> {};

TEST_P(SkewMatrixTest, MatchesTheGolden) {
  const SkewParam& sp = GetParam();
  Config c;
  c.p = sp.p;
  c.max_recv = 4;
  c.n_rows = 2 * sp.p * c.max_recv - 3;  // any N
  c.calls = {MakeCall(0, ref::SkewCounts(sp.skew, sp.p, 4), c)};
  if (sp.int8) {
    RunAndCheck<int8_t>(c);
  } else {
    RunAndCheck<float>(c);
  }
}

INSTANTIATE_TEST_SUITE_P(IndexedAllToAllV, SkewMatrixTest,
                         ::testing::ValuesIn(collective_test::SkewParams({2, 4})),
                         collective_test::SkewParamName);

// ------------------------------------------------------------ launch widths

struct WidthParam {
  int p;
  int64_t l;
  bool int8;
};

class LaunchWidthTest : public ::testing::TestWithParam<WidthParam> {};

// Two consecutive calls on one target and one signal with different
// counts, indices and inputs: the second call's zero-count pairs leave the
// first call's rows in place, and the signal is zero after both.
TEST_P(LaunchWidthTest, TwoConsecutiveCallsMatchTheGolden) {
  const WidthParam& wp = GetParam();
  Config c;
  c.p = wp.p;
  c.core_num = wp.l;
  c.max_recv = 5;
  c.size = 40;
  c.n_rows = 7;
  c.index_2d = wp.l % 2 == 0;
  c.calls = {MakeCall(0, ref::SkewCounts(Skew::kOverCapacity, wp.p, 5), c),
             MakeCall(1, ref::SkewCounts(Skew::kNegative, wp.p, 5), c)};
  if (wp.int8) {
    RunAndCheck<int8_t>(c);
  } else {
    RunAndCheck<float>(c);
  }
}

INSTANTIATE_TEST_SUITE_P(IndexedAllToAllV, LaunchWidthTest,
                         ::testing::Values(WidthParam{2, 1, false}, WidthParam{2, 2, true},
                                           WidthParam{2, 5, false}, WidthParam{4, 1, true},
                                           WidthParam{4, 3, false}, WidthParam{4, 6, true}),
                         [](const ::testing::TestParamInfo<WidthParam>& i) {
                           return absl::StrCat("P", i.param.p, "_L", i.param.l, "_",
                                               i.param.int8 ? "int8" : "fp32");
                         });

// One-sided traffic with rows that take microseconds on the queue: rank 0
// sends four 4 MiB rows to rank 1, which sends nothing. Rank 1's call
// completes as soon as rank 0's flag landed, and its consumer probes the
// rows at once: they are there only if the flag is ordered after them on
// the queue.
TEST(IndexedAllToAllVOrderTest, TheFlagLandsAfterTheRowsOfItsQueue) {
  Config c;
  c.p = 2;
  c.max_recv = 4;
  c.size = 1024 * 1024;  // 4 MiB FP32 rows
  c.n_rows = 5;
  c.slow_rank = 0;  // rank 1 snapshots once, right after its call
  c.probe_rows = 4;
  c.calls = {MakeCall(0, {{0, 4}, {0, 0}}, c)};
  RunAndCheck<float>(c);
}

// ------------------------------------------------------------ failures

TEST(IndexedAllToAllVFaultTest, AnIndexOutsideTheInputFaultsTheKernel) {
  Config c;
  c.p = 2;
  c.n_rows = 5;
  c.calls = {MakeCall(0, {{4, 4}, {4, 4}}, c)};
  c.calls[0].index[1][2] = 5;  // rank 1, destination 0, row 2
  Outcome out = RunIndexed<float>(c);
  EXPECT_EQ(out.report.error_code(), rt::kErrorAicoreFault) << out.report.error_text();
  EXPECT_THAT(out.report.error_text(), HasSubstr("indexed_all_to_all_v: rank 1: index[2] = 5 is "
                                                 "outside the input rows [0, 5)"));
}

TEST(IndexedAllToAllVFaultTest, AnIndexPastTheCountIsNotRead) {
  Config c;
  c.p = 2;
  c.n_rows = 5;
  c.calls = {MakeCall(0, {{4, 2}, {1, 4}}, c)};
  c.calls[0].index[0][6] = -1;  // rank 0, destination 1, row 2 >= count 2
  c.calls[0].index[1][3] = 99;  // rank 1, destination 0, row 3 >= count 1
  RunAndCheck<float>(c);
}

}  // namespace
}  // namespace pto::sim
