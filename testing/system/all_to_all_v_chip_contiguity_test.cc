// The CHIP rail's runtime contiguity backstop (spec §3.4) through the
// compiled all_to_all_v_chip_contiguity.pto on 2 simulated chips. The
// pipeline hands its param `inp` straight to the collective; a param passes
// the compile-time whitelist, so only the generated orchestration's
// is_contiguous check before the submit can catch a tensor whose bytes
// exceed its shape. It must latch INVALID_ARGS on the rank that got one, and
// the run must end there, not hang its peers at the barrier.
//
// host_orch slices exact rows of its params, so RunHost cannot carry such a
// tensor: the violating runs dispatch the generated chip_pipeline callable
// the way host_orch does (same windows, same argument order), with one
// operand oversized.
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;
using ::testing::HasSubstr;

// The constants of all_to_all_v_chip_contiguity.pto.
constexpr int kNr = 2;
constexpr int kMaxRecv = 4;
constexpr int kSize = 24;
constexpr int kRankElems = kNr * kMaxRecv * kSize;
constexpr uint64_t kRankBytes = kRankElems * sizeof(float);
constexpr uint64_t kCountBytes = kNr * sizeof(int32_t);

const ref::PerRank<int32_t>& Counts() {
  static const auto* counts =
      new ref::PerRank<int32_t>(ref::SkewCounts(ref::Skew::kOneAndFull, kNr, kMaxRecv));
  return *counts;
}

SimOptions Options() {
  SimOptions o = testing::Opts(kNr);
  o.trace = false;
  return o;
}

absl::StatusOr<rt::Tensor> AllocWith(SimSystem& sys, int device, const std::string& label,
                                     const void* data, uint64_t bytes, uint32_t elem_bytes) {
  absl::StatusOr<rt::Tensor> t = sys.Alloc(device, bytes, label);
  if (!t.ok()) return t.status();
  t->elem_bytes = elem_bytes;
  if (absl::Status st = sys.CopyTo(*t, data, bytes); !st.ok()) return st;
  return t;
}

// Positive control: through RunHost every operand is an exact row, the
// backstop stays quiet and every rank matches the golden.
TEST(AllToAllVChipContiguityTest, ExactRowsPassTheBackstop) {
  std::vector<std::vector<rt::Tensor>> params(3);
  const RunReport report = testing::Simulate(
      Options(),
      [&](SimSystem& sys) -> absl::Status {
        for (int d = 0; d < kNr; ++d) {
          std::vector<float> payloads;
          std::vector<int32_t> counts;
          for (int r = 0; r < kNr; ++r) {
            const std::vector<float> in = ref::PayloadInput<float>(0, r, kNr, kMaxRecv, kSize);
            payloads.insert(payloads.end(), in.begin(), in.end());
            counts.insert(counts.end(), Counts()[r].begin(), Counts()[r].end());
          }
          const std::vector<float> outputs(kNr * kRankElems, -1.0f);
          for (auto [p, data, bytes, elem] : {std::tuple<int, const void*, uint64_t, uint32_t>{
                                                  0, payloads.data(), kNr * kRankBytes, 4},
                                              {1, counts.data(), kNr * kCountBytes, 4},
                                              {2, outputs.data(), kNr * kRankBytes, 4}}) {
            absl::StatusOr<rt::Tensor> t =
                AllocWith(sys, d, absl::StrCat("param", p), data, bytes, elem);
            if (!t.ok()) return t.status();
            params[p].push_back(*t);
          }
        }
        return generated::RunHost(sys, params);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int d = 0; d < kNr; ++d) {
          std::string bytes(kRankBytes, '\0');
          if (sys.CopyFrom(bytes.data(), params[2][d].View(d * kRankBytes, kRankBytes), kRankBytes)
                  .ok()) {
            (*r.mutable_outputs())[absl::StrCat("out@", d)] = bytes;
          }
        }
      });
  ASSERT_EQ(report.error_code(), 0) << report.error_text();
  const ref::AllToAllVShape shape{kNr, kMaxRecv, kSize};
  ref::PerRank<float> input;
  for (int r = 0; r < kNr; ++r) {
    input.push_back(ref::PayloadInput<float>(0, r, kNr, kMaxRecv, kSize));
  }
  ref::PerRank<float> want(kNr, std::vector<float>(kRankElems, 0.0f));
  ref::PerRank<int32_t> want_recv;
  ASSERT_TRUE(ref::AllToAllV(shape, input, Counts(), &want, &want_recv).ok());
  ref::PerRank<float> got(kNr, std::vector<float>(kRankElems));
  for (int d = 0; d < kNr; ++d) {
    const std::string& bytes = report.outputs().at(absl::StrCat("out@", d));
    ASSERT_EQ(bytes.size(), kRankBytes);
    std::memcpy(got[d].data(), bytes.data(), kRankBytes);
  }
  // recv_counts stay in the program's window; the golden's are the only
  // ones the target can be checked against here.
  const absl::Status st =
      ref::CompareAllToAllV(shape, want, want_recv, got, want_recv, /*all_rows=*/true);
  EXPECT_TRUE(st.ok()) << st;
}

// Dispatches chip_pipeline on every chip with host_orch's windows and
// argument order; the devices in `oversized` get an `inp` of twice the
// bytes its [TOTAL, SIZE] shape covers.
RunReport RunWithOversizedInput(const std::vector<int>& oversized) {
  return testing::Simulate(Options(), [&](SimSystem& sys) -> absl::Status {
    rt::DomainSpec spec;
    spec.name = "comm_d0";
    for (int d = 0; d < kNr; ++d) spec.devices.push_back(d);
    spec.buffers = {{"data_buf", kRankBytes},
                    {"signal_buf", kNr * 4},
                    {"counts_buf", kCountBytes},
                    {"recv_buf", kCountBytes}};
    spec.window_size = 0;
    for (const rt::CommBufferSpec& b : spec.buffers) spec.window_size += (b.bytes + 31) / 32 * 32;
    absl::StatusOr<rt::Domain> dom = sys.CreateDomain(spec);
    if (!dom.ok()) return dom.status();
    const std::map<std::string, rt::ChipCallable> callables = generated::Callables();
    for (int d = 0; d < kNr; ++d) {
      const bool bad = absl::c_linear_search(oversized, d);
      const std::vector<float> in = ref::PayloadInput<float>(0, d, kNr, kMaxRecv, kSize);
      std::vector<float> padded(in);
      padded.resize(2 * in.size(), 7.0f);
      absl::StatusOr<rt::Tensor> inp =
          AllocWith(sys, d, "inp", padded.data(), (bad ? 2 : 1) * kRankBytes, 4);
      absl::StatusOr<rt::Tensor> cin = AllocWith(sys, d, "cin", Counts()[d].data(), kCountBytes, 4);
      const std::vector<float> init(kRankElems, -1.0f);
      absl::StatusOr<rt::Tensor> out = AllocWith(sys, d, "out", init.data(), kRankBytes, 4);
      for (const auto* t : {&inp, &cin, &out}) {
        if (!t->ok()) return t->status();
      }
      const rt::ChipDomainContext& rank = dom->ranks[d];
      auto window = [&](const std::string& name, std::initializer_list<uint64_t> dims) {
        rt::Tensor t = rank.buffers.at(name);
        t.elem_bytes = 4;
        uint64_t n = 4;
        for (uint64_t dim : dims) n *= dim;
        return t.View(0, n).WithShape(dims);
      };
      rt::ChipArgs args;
      // The shape says [TOTAL, SIZE]; the bytes say twice that when bad.
      args.tensors.push_back(inp->WithShape({kNr * kMaxRecv, kSize}));
      args.tensors.push_back(cin->WithShape({kNr}));
      args.tensors.push_back(out->WithShape({kNr * kMaxRecv, kSize}));
      args.tensors.push_back(window("data_buf", {kNr * kMaxRecv, kSize}));
      args.tensors.push_back(window("signal_buf", {kNr, 1}));
      args.tensors.push_back(window("counts_buf", {kNr}));
      args.tensors.push_back(window("recv_buf", {kNr, 1}));
      for (int i = 0; i < 4; ++i) args.scalars.push_back(rank.device_ctx.addr());
      if (absl::Status st = sys.Dispatch(d, callables.at("chip_pipeline"), args); !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  });
}

// Every rank carries the backstop: whichever rank gets the bad operand
// latches INVALID_ARGS, naming the operand, and the run ends on it rather
// than on a deadlock of the rank that entered the kernel.
TEST(AllToAllVChipContiguityTest, EachRankLatchesInvalidArgs) {
  for (int bad = 0; bad < kNr; ++bad) {
    SCOPED_TRACE(absl::StrCat("oversized on chip ", bad));
    const RunReport r = RunWithOversizedInput({bad});
    EXPECT_EQ(r.error_code(), rt::kErrorInvalidArgs) << r.error_text();
    EXPECT_THAT(r.error_text(),
                HasSubstr(absl::StrCat("chip ", bad,
                                       ": code=5 INVALID_ARGS: "
                                       "__builtin_all_to_all_v__fp32: operand 0 (inp) is "
                                       "not contiguous")));
    // The bad rank never submitted the collective.
    for (const TaskStat& t : r.tasks()) {
      if (t.chip() == bad) {
        EXPECT_NE(t.kernel(), "__builtin_all_to_all_v__fp32");
      }
    }
  }
}

TEST(AllToAllVChipContiguityTest, EveryRankOversizedRunsNoCollective) {
  const RunReport r = RunWithOversizedInput({0, 1});
  EXPECT_EQ(r.error_code(), rt::kErrorInvalidArgs) << r.error_text();
  EXPECT_THAT(r.error_text(), HasSubstr("operand 0 (inp) is not contiguous"));
  EXPECT_THAT(r.error_text(), ::testing::Not(HasSubstr("no agent can make progress")));
  for (const TaskStat& t : r.tasks()) {
    EXPECT_NE(t.kernel(), "__builtin_all_to_all_v__fp32") << "chip " << t.chip();
    EXPECT_NE(t.kernel(), "consume_step") << "chip " << t.chip();
  }
  // Nobody is left waiting on a barrier cell.
  for (const std::string& line : r.blocked()) {
    EXPECT_THAT(line, ::testing::Not(HasSubstr("TWAIT"))) << line;
  }
}

}  // namespace
}  // namespace pto::sim
