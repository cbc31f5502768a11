// Generated kernels on one simulated 910B chip with hand-made inputs, checked
// element by element: the seed pipeline's own kernels
// (examples/all_to_all_v_chip.pto: stage_step, consume_step), scaled_add of
// examples/kernels.pto in FP32, FP16 and BF16 and its while loop (countdown).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"
#include "runtime/device/device_api.h"
#include "runtime/device/kernel_abi.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::kernels {
void stage_step(int64_t* args);
void consume_step(int64_t* args);
void scaled_add(int64_t* args);
void countdown(int64_t* args);
void scaled_add_fp16(int64_t* args);
void scaled_add_bf16(int64_t* args);
}  // namespace pto::kernels

namespace pto::sim {
namespace {

constexpr int kNr = 2;
constexpr int kMaxRecv = 4;
constexpr int kSize = 64;
constexpr int kTotal = kNr * kMaxRecv;
constexpr int kElems = kTotal * kSize;

float In(int i) { return 0.5f * static_cast<float>(i % 977) - 100.0f; }
float Data(int i) { return 1000.0f + static_cast<float>(i); }
constexpr float kUntouched = -7.0f;

// Tensors: inp, stage, counts, data, recv, out. stage_step(inp, stage,
// counts) and consume_step(data, recv, out, ctx, ctx) as two tasks. The run
// is in a child process: the report's values count the elements of stage,
// counts and out that differ from the expected ones ("*_errors", with the
// first bad index in "*_first").
RunReport RunKernels(const std::vector<int32_t>& recv_counts) {
  std::vector<rt::Tensor> t;
  return testing::Simulate(
      testing::Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        const struct {
          uint64_t bytes;
          std::vector<uint64_t> shape;
        } specs[] = {{kElems * 4, {kTotal, kSize}},
                     {kElems * 4, {kTotal, kSize}},
                     {kNr * 4, {kNr}},
                     {kElems * 4, {kTotal, kSize}},
                     {kNr * 4, {kNr, 1}},
                     {kElems * 4, {kTotal, kSize}}};
        for (const auto& s : specs) {
          absl::StatusOr<rt::Tensor> a = sys.Alloc(0, s.bytes, "t");
          if (!a.ok()) return a.status();
          a->elem_bytes = 4;
          t.push_back(s.shape.size() == 1 ? a->WithShape({s.shape[0]})
                                          : a->WithShape({s.shape[0], s.shape[1]}));
        }
        std::vector<float> inp(kElems), data(kElems), out(kElems, kUntouched);
        std::vector<int32_t> counts(kNr, -1);
        for (int i = 0; i < kElems; ++i) {
          inp[i] = In(i);
          data[i] = Data(i);
        }
        for (const absl::Status& st :
             {sys.CopyTo(t[0], inp.data(), kElems * 4), sys.CopyTo(t[1], out.data(), kElems * 4),
              sys.CopyTo(t[2], counts.data(), kNr * 4), sys.CopyTo(t[3], data.data(), kElems * 4),
              sys.CopyTo(t[4], recv_counts.data(), kNr * 4),
              sys.CopyTo(t[5], out.data(), kElems * 4)}) {
          if (!st.ok()) return st;
        }
        rt::ChipCallable c;
        c.name = "seed_kernels";
        c.kernels = {&kernels::stage_step, &kernels::consume_step};
        c.kernel_names = {"stage_step", "consume_step"};
        c.entry = [](rt::Orchestrator& orch, const rt::ChipArgs& a) {
          rt::TaskArgs stage;
          stage.add_input(a.tensors[0]);
          stage.add_output(a.tensors[1]);
          stage.add_output(a.tensors[2]);
          orch.submit_aiv_task(0, stage);
          rt::TaskArgs consume;
          consume.add_input(a.tensors[3]);
          consume.add_input(a.tensors[4]);
          consume.add_output(a.tensors[5]);
          consume.add_scalar(0);  // CommCtx args: unused by the kernel
          consume.add_scalar(0);
          orch.submit_aiv_task(1, consume);
        };
        return sys.Dispatch(0, c, rt::ChipArgs{t, {}});
      },
      [&](SimSystem& sys, RunReport& r) {
        std::vector<float> stage(kElems), out(kElems);
        std::vector<int32_t> counts(kNr);
        (void)sys.CopyFrom(stage.data(), t[1], kElems * 4);
        (void)sys.CopyFrom(counts.data(), t[2], kNr * 4);
        (void)sys.CopyFrom(out.data(), t[5], kElems * 4);
        auto count = [&r](const char* name, int n, auto bad) {
          int64_t errors = 0;
          int64_t first = -1;
          for (int i = 0; i < n; ++i) {
            if (!bad(i)) continue;
            if (errors++ == 0) first = i;
          }
          (*r.mutable_values())[std::string(name) + "_errors"] = errors;
          (*r.mutable_values())[std::string(name) + "_first"] = first;
        };
        count("stage", kElems, [&](int i) { return stage[i] != 2 * In(i); });
        count("counts", kNr, [&](int i) { return counts[i] != kMaxRecv; });
        count("out", kElems, [&](int i) {
          const bool sent = recv_counts[i / (kMaxRecv * kSize)] > 0;
          return out[i] != (sent ? Data(i) : kUntouched);
        });
      });
}

void ExpectClean(const RunReport& r, const std::string& name) {
  EXPECT_EQ(r.values().at(name + "_errors"), 0)
      << name << ": first bad element " << r.values().at(name + "_first");
}

TEST(KernelSimTest, StageStepDoublesRowsAndWritesCounts) {
  const RunReport r = RunKernels({kMaxRecv, kMaxRecv});
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "stage");
  ExpectClean(r, "counts");
  ExpectClean(r, "out");
}

// Source 1 sent nothing: its block of out keeps its old contents.
TEST(KernelSimTest, ConsumeStepCopiesOnlyTheBlocksOfSourcesThatSent) {
  const RunReport r = RunKernels({kMaxRecv, 0});
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "out");
}

TEST(KernelSimTest, ConsumeStepWithOnlyTheSecondSource) {
  const RunReport r = RunKernels({0, 3});
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "out");
}

// scaled_add(a, b, out) on [16, 128]: out = (a + b) * 0.5 in rows [0, 8),
// relu of it in rows [8, 16).
TEST(KernelSimTest, ScaledAddScalesAndRelusByRowBlock) {
  constexpr int kRows = 16;
  constexpr int kCols = 128;
  constexpr int kN = kRows * kCols;
  auto a = [](int i) { return static_cast<float>(i % 37) - 20.0f; };
  auto b = [](int i) { return static_cast<float>(i % 11) * 0.25f - 1.0f; };
  std::vector<rt::Tensor> t;
  const RunReport r = testing::Simulate(
      testing::Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        std::vector<float> va(kN), vb(kN);
        for (int i = 0; i < kN; ++i) {
          va[i] = a(i);
          vb[i] = b(i);
        }
        for (const std::vector<float>* v : {&va, &vb, &va}) {
          absl::StatusOr<rt::Tensor> x = sys.Alloc(0, kN * 4, "t");
          if (!x.ok()) return x.status();
          x->elem_bytes = 4;
          t.push_back(x->WithShape({kRows, kCols}));
          absl::Status st = sys.CopyTo(t.back(), v->data(), kN * 4);
          if (!st.ok()) return st;
        }
        rt::ChipCallable c = testing::SingleTask("scaled_add", &kernels::scaled_add, 1, false);
        return sys.Dispatch(0, c, rt::ChipArgs{t, {}});
      },
      [&](SimSystem& sys, RunReport& rep) {
        std::vector<float> out(kN);
        (void)sys.CopyFrom(out.data(), t[2], kN * 4);
        int64_t errors = 0;
        int64_t first = -1;
        for (int i = 0; i < kN; ++i) {
          const float scaled = (a(i) + b(i)) * 0.5f;
          const float want = i / kCols < kRows / 2 ? scaled : std::max(scaled, 0.0f);
          if (out[i] != want && errors++ == 0) first = i;
        }
        (*rep.mutable_values())["out_errors"] = errors;
        (*rep.mutable_values())["out_first"] = first;
      });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "out");
}

// scaled_add of examples/kernels.pto on 16-bit float tiles T (pto::half as
// written, pto::bfloat16 with BF16): the values are small multiples of 1/4,
// so both hold every input and result exactly.
template <typename T>
void ExpectScaledAdd16(const char* name, void (*kernel)(int64_t*)) {
  constexpr int kRows = 16;
  constexpr int kCols = 128;
  constexpr int kN = kRows * kCols;
  auto a = [](int i) { return static_cast<float>(i % 37) - 20.0f; };
  auto b = [](int i) { return static_cast<float>(i % 11) * 0.25f - 1.0f; };
  std::vector<rt::Tensor> t;
  const RunReport r = testing::Simulate(
      testing::Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        std::vector<T> va(kN), vb(kN), vo(kN, static_cast<T>(-7.0f));
        for (int i = 0; i < kN; ++i) {
          va[i] = static_cast<T>(a(i));
          vb[i] = static_cast<T>(b(i));
        }
        for (const std::vector<T>* v : {&va, &vb, &vo}) {
          absl::StatusOr<rt::Tensor> x = sys.Alloc(0, kN * 2, "t");
          if (!x.ok()) return x.status();
          x->elem_bytes = 2;
          t.push_back(x->WithShape({kRows, kCols}));
          absl::Status st = sys.CopyTo(t.back(), v->data(), kN * 2);
          if (!st.ok()) return st;
        }
        rt::ChipCallable c = testing::SingleTask(name, kernel, 1, false);
        return sys.Dispatch(0, c, rt::ChipArgs{t, {}});
      },
      [&](SimSystem& sys, RunReport& rep) {
        std::vector<T> out(kN);
        (void)sys.CopyFrom(out.data(), t[2], kN * 2);
        int64_t errors = 0;
        int64_t first = -1;
        for (int i = 0; i < kN; ++i) {
          const float scaled = (a(i) + b(i)) * 0.5f;
          const float want = i / kCols < kRows / 2 ? scaled : std::max(scaled, 0.0f);
          if (static_cast<float>(out[i]) != want && errors++ == 0) first = i;
        }
        (*rep.mutable_values())["out_errors"] = errors;
        (*rep.mutable_values())["out_first"] = first;
      });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "out");
}

TEST(KernelSimTest, ScaledAddInFp16) {
  ExpectScaledAdd16<pto::half>("scaled_add_fp16", &kernels::scaled_add_fp16);
}

// BF16 tiles load, compute and store as pto::bfloat16.
TEST(KernelSimTest, ScaledAddInBf16) {
  ExpectScaledAdd16<pto::bfloat16>("scaled_add_bf16", &kernels::scaled_add_bf16);
}

// countdown(n, data) of examples/kernels.pto: while k > 0 and k != 7, write
// 2k - 1 to data[k % 16] and decrement k (k starts at n).
RunReport RunCountdown(int32_t n) {
  constexpr int kRows = 16;
  constexpr int32_t kInit = -1;
  std::vector<rt::Tensor> t;
  return testing::Simulate(
      testing::Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        absl::StatusOr<rt::Tensor> x = sys.Alloc(0, kRows * 4, "data");
        if (!x.ok()) return x.status();
        x->elem_bytes = 4;
        t.push_back(x->WithShape({kRows}));
        std::vector<int32_t> init(kRows, kInit);
        if (absl::Status st = sys.CopyTo(t[0], init.data(), kRows * 4); !st.ok()) return st;
        rt::ChipCallable c = testing::SingleTask("countdown", &kernels::countdown, 1, false);
        return sys.Dispatch(0, c, rt::ChipArgs{t, {static_cast<uint64_t>(n)}});
      },
      [&](SimSystem& sys, RunReport& rep) {
        std::vector<int32_t> data(kRows);
        (void)sys.CopyFrom(data.data(), t[0], kRows * 4);
        std::vector<int32_t> want(kRows, kInit);
        for (int32_t k = n; k > 0 && k != 7; --k) want[k % kRows] = 2 * k - 1;
        int64_t errors = 0;
        int64_t first = -1;
        for (int i = 0; i < kRows; ++i) {
          if (data[i] != want[i] && errors++ == 0) first = i;
        }
        (*rep.mutable_values())["data_errors"] = errors;
        (*rep.mutable_values())["data_first"] = first;
        (*rep.mutable_values())["data_4"] = data[4];
        (*rep.mutable_values())["data_7"] = data[7];
        (*rep.mutable_values())["data_8"] = data[8];
      });
}

// From 20 the loop wraps around the 16 slots (20 % 16 = 4) and stops at 7.
TEST(KernelSimTest, CountdownWhileLoopStopsAtSeven) {
  const RunReport r = RunCountdown(20);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ExpectClean(r, "data");
  EXPECT_EQ(r.values().at("data_4"), 2 * 20 - 1);  // the last write to slot 4
  EXPECT_EQ(r.values().at("data_8"), 2 * 8 - 1);
  EXPECT_EQ(r.values().at("data_7"), -1);  // never written
}

// From 5 the condition k > 0 ends the loop; a non-positive n never enters it.
TEST(KernelSimTest, CountdownWhileLoopEndsAtZero) {
  const RunReport five = RunCountdown(5);
  ASSERT_EQ(five.error_code(), 0) << five.error_text();
  ExpectClean(five, "data");
  const RunReport none = RunCountdown(-3);
  ASSERT_EQ(none.error_code(), 0) << none.error_text();
  ExpectClean(none, "data");
  EXPECT_EQ(none.values().at("data_4"), -1);
}

}  // namespace
}  // namespace pto::sim
