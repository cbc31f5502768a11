// Runtime scopes end to end: runtime_scopes.pto compiled through the default
// pipeline runs on a simulated chip whose task window has 4 slots. Its chip
// pipeline submits 8 tasks in a loop; the runtime holds a task's slot until
// its scope ends, so only the per-iteration scopes MaterializeRuntimeScopes
// places let the 5th task in (without them the run stops with
// SCOPE_DEADLOCK, as sim/aicpu/aicpu_test.cc's TaskWindowTest shows for the
// same runtime). The same binary runs the program's phase_fence pipeline on
// its own: pass 39's dummy tasks order its phases, and the manual scope lets
// the tasks of one phase run side by side.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

constexpr int kChips = 1;  // a HOST call without device= runs on chip 0
constexpr int kElems = 16 * 16;
constexpr uint64_t kBytes = kElems * sizeof(float);
constexpr int kRounds = 8;  // ROUNDS of runtime_scopes.pto

TEST(RuntimeScopesTest, LoopOfMoreTasksThanWindowSlotsCompletes) {
  SimOptions o = testing::Opts(kChips);
  o.trace = false;
  o.tweak = [](platforms::Platform& p) { p.mutable_aicpu()->set_task_window(4); };
  std::vector<std::vector<rt::Tensor>> params(2);
  const RunReport report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        for (int d = 0; d < kChips; ++d) {
          std::vector<float> a(kElems), acc(kElems, 0.0f);
          for (int i = 0; i < kElems; ++i) a[i] = static_cast<float>(d + 1) + 0.25f * (i % 4);
          for (int p = 0; p < 2; ++p) {
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, kBytes, absl::StrCat("param", p));
            if (!t.ok()) return t.status();
            t->elem_bytes = sizeof(float);
            const std::vector<float>& data = p == 0 ? a : acc;
            if (absl::Status st = sys.CopyTo(*t, data.data(), kBytes); !st.ok()) return st;
            params[p].push_back(*t);
          }
        }
        return generated::RunHost(sys, params);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int d = 0; d < kChips; ++d) {
          std::string bytes(kBytes, '\0');
          if (sys.CopyFrom(bytes.data(), params[1][d], kBytes).ok()) {
            (*r.mutable_outputs())[absl::StrCat("acc@", d)] = bytes;
          }
        }
      });
  ASSERT_EQ(report.error_code(), 0) << report.error_text();
  EXPECT_EQ(report.tasks_size(), kChips * kRounds);
  for (int d = 0; d < kChips; ++d) {
    const std::string& bytes = report.outputs().at(absl::StrCat("acc@", d));
    ASSERT_EQ(bytes.size(), kBytes);
    std::vector<float> got(kElems);
    std::memcpy(got.data(), bytes.data(), kBytes);
    for (int i = 0; i < kElems; ++i) {
      const float a = static_cast<float>(d + 1) + 0.25f * (i % 4);
      ASSERT_FLOAT_EQ(got[i], kRounds * a) << "chip " << d << " element " << i;
    }
  }
}

// B, PHASES, N of runtime_scopes.pto's phase_fence.
constexpr int kBranches = 4;
constexpr int kPhases = 4;
constexpr int kRows = (kPhases + 1) * kBranches;

TEST(RuntimeScopesTest, PhaseFenceRunsPhasesInOrder) {
  SimOptions o = testing::Opts(1);
  o.trace = false;
  const rt::ChipCallable callable = generated::Callables().at("phase_fence");
  // Block 0 of buf is the input; inc row b holds b + 1.
  std::vector<float> buf(kRows * 16, 0.0f), inc(kBranches * 16);
  for (int r = 0; r < kBranches; ++r) {
    for (int c = 0; c < 16; ++c) {
      buf[r * 16 + c] = static_cast<float>(10 * r + c);
      inc[r * 16 + c] = static_cast<float>(r + 1);
    }
  }
  rt::Tensor buf_t;
  const RunReport report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        std::vector<rt::Tensor> ts;
        for (const auto& [data, rows] : {std::pair(&buf, kRows), std::pair(&inc, kBranches)}) {
          absl::StatusOr<rt::Tensor> t = sys.Alloc(0, data->size() * sizeof(float), "param");
          if (!t.ok()) return t.status();
          t->elem_bytes = sizeof(float);
          *t = t->WithShape({static_cast<uint64_t>(rows), 16});
          if (absl::Status st = sys.CopyTo(*t, data->data(), t->bytes); !st.ok()) return st;
          ts.push_back(*t);
        }
        buf_t = ts[0];
        return sys.Dispatch(0, callable, rt::ChipArgs{ts, {}});
      },
      [&](SimSystem& sys, RunReport& r) {
        std::string bytes(buf.size() * sizeof(float), '\0');
        if (sys.CopyFrom(bytes.data(), buf_t, bytes.size()).ok()) {
          (*r.mutable_outputs())["buf"] = bytes;
        }
      });
  ASSERT_EQ(report.error_code(), 0) << report.error_text();
  // Results: block p + 1, row b = block p, row (b + 1) % B, plus b + 1.
  std::vector<float> want = buf;
  for (int p = 0; p < kPhases; ++p) {
    for (int b = 0; b < kBranches; ++b) {
      for (int c = 0; c < 16; ++c) {
        want[((p + 1) * kBranches + b) * 16 + c] =
            want[(p * kBranches + (b + 1) % kBranches) * 16 + c] + static_cast<float>(b + 1);
      }
    }
  }
  const std::string& bytes = report.outputs().at("buf");
  ASSERT_EQ(bytes.size(), want.size() * sizeof(float));
  std::vector<float> got(want.size());
  std::memcpy(got.data(), bytes.data(), bytes.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_FLOAT_EQ(got[i], want[i]) << "element " << i;

  // Tasks in submit order: phase 0's B kernels (its fence would wait for no
  // task and is not submitted), then per later phase one dummy and B kernels.
  ASSERT_EQ(report.tasks_size(), kPhases * kBranches + kPhases - 1);
  std::vector<std::vector<const TaskStat*>> phases(1);
  for (const TaskStat& t : report.tasks()) {
    if (t.kernel() == "dummy") {
      EXPECT_EQ(t.blocks(), 0);
      phases.emplace_back();
      continue;
    }
    EXPECT_EQ(t.kernel(), "step");
    phases.back().push_back(&t);
  }
  ASSERT_EQ(phases.size(), static_cast<size_t>(kPhases));
  for (int p = 0; p < kPhases; ++p) {
    ASSERT_EQ(phases[p].size(), static_cast<size_t>(kBranches)) << "phase " << p;
    if (p == 0) continue;
    for (const TaskStat* t : phases[p]) {
      // The fence: no task of a phase is ready before the previous phase ended.
      for (const TaskStat* q : phases[p - 1]) EXPECT_GE(t->ready_ps(), q->end_ps());
      // No TensorMap edges in a manual scope (every task takes buf InOut, so
      // the TensorMap would chain them): the fence releases the whole phase.
      EXPECT_EQ(t->ready_ps(), phases[p][0]->ready_ps()) << "phase " << p;
    }
  }
}

}  // namespace
}  // namespace pto::sim
