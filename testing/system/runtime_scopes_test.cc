// Runtime scopes end to end: runtime_scopes.pto compiled through the default
// pipeline runs on a simulated chip whose task window has 4 slots. Its chip
// pipeline submits 8 tasks in a loop; the runtime holds a task's slot until
// its scope ends, so only the per-iteration scopes MaterializeRuntimeScopes
// places let the 5th task in (without them the run stops with
// SCOPE_DEADLOCK, as sim/aicpu/aicpu_test.cc's TaskWindowTest shows for the
// same runtime).
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

}  // namespace
}  // namespace pto::sim
