// The golden test catches a change of simulated cost: examples/all_to_all_v_chip.pto
// run here on the simulator with pto-run's input pattern reproduces the
// recorded golden (data/all_to_all_v_chip.textproto) exactly, and the same
// run on a test platform whose MTE pipes are half as fast fails it, with a
// report whose timing table names the kernels that slowed down.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/generated_program.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "tools/golden/compare.h"
#include "tools/golden/golden_file.h"
#include "tools/golden/golden_matchers.h"
#include "tools/golden/recorder.h"

namespace pto::golden {
namespace {

using ::testing::HasSubstr;

constexpr char kGolden[] = "testing/golden/data/all_to_all_v_chip.textproto";
const std::vector<uint64_t> kShape = {2, 8, 64};  // [NR, TOTAL, SIZE]

// pto-run's pattern for a float param without an input file (docs/pto-run.md).
std::string PatternBytes() {
  std::vector<float> v(2 * 8 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = ((i * 31 + 7) % 1021) * 0.25f - 64.0f;
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

Golden RunExample(const std::function<void(platforms::Platform&)>& tweak) {
  const std::string pattern = PatternBytes();
  std::vector<std::vector<rt::Tensor>> tensors(2);
  sim::SimOptions o = sim::testing::Opts(2, "a2a3");
  o.trace = false;
  o.tweak = tweak;
  sim::RunReport report = sim::testing::Simulate(
      o,
      [&](sim::SimSystem& sys) -> absl::Status {
        for (int p = 0; p < 2; ++p) {
          for (int d = 0; d < 2; ++d) {
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, pattern.size(), p == 0 ? "inputs" : "outputs");
            if (!t.ok()) return t.status();
            t->elem_bytes = sizeof(float);
            t->ndims = 3;
            for (int k = 0; k < 3; ++k) t->shape[k] = kShape[k];
            if (absl::Status s = sys.CopyTo(*t, pattern.data(), pattern.size()); !s.ok()) return s;
            tensors[p].push_back(*t);
          }
        }
        return generated::RunHost(sys, tensors);
      },
      [](sim::SimSystem&, sim::RunReport&) {});
  EXPECT_EQ(report.error_code(), 0) << report.error_text();
  absl::StatusOr<platforms::Platform> facts = platforms::LoadPlatform("a2a3");
  EXPECT_TRUE(facts.ok());
  if (tweak) tweak(*facts);
  RunInfo info{.program = "examples/all_to_all_v_chip.pto", .platform = "a2a3", .ranks = 2};
  info.facts = &*facts;
  absl::StatusOr<Golden> g = RecordGolden(
      info, {{"inputs", "<f4", kShape, pattern}, {"outputs", "<f4", kShape, pattern}}, report, {});
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

// Timing and identity only: the outputs are pto-run's merge of the devices'
// copies, which this harness does not redo.
CompareOptions TimingOnly() {
  CompareOptions o;
  o.data = false;
  return o;
}

TEST(CostChangeTest, TheSameRunReproducesTheRecordedGolden) {
  absl::StatusOr<Golden> expected = ReadGoldenFile(kGolden);
  ASSERT_TRUE(expected.ok()) << expected.status();
  CompareResult r = Compare(*expected, RunExample(nullptr), TimingOnly());
  EXPECT_TRUE(r.ok()) << r.report;
}

TEST(CostChangeTest, SlowerMtePipesFailTheGoldenWithATimingTable) {
  absl::StatusOr<Golden> expected = ReadGoldenFile(kGolden);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const Golden slower =
      RunExample([](platforms::Platform& p) { p.set_mte_bytes_per_cycle(p.mte_bytes_per_cycle() / 2); });
  CompareResult r = Compare(*expected, slower, TimingOnly());
  EXPECT_TRUE(r.identity_ok) << r.report;
  EXPECT_FALSE(r.timing_ok) << r.report;
  EXPECT_THAT(r.report, HasSubstr("note: the platform's facts changed since the golden was recorded"));
  // The staging kernel moves its rows through MTE2/MTE3: its row says DIFFERS.
  EXPECT_THAT(r.report, testing::ContainsRegex("\n  stage_step +2 +[0-9]+ +[0-9]+ +\\+[0-9]+ +\\+[0-9.]+% +0.00%  DIFFERS\n"));
  EXPECT_THAT(r.report, HasSubstr("result: DIFFERS (timing)"));
  // Through the gtest helper the failure says which golden and how to update it.
  EXPECT_NONFATAL_FAILURE(ExpectMatchesGoldenFile(slower, kGolden, TimingOnly()),
                          "the run differs from the golden testing/golden/data/all_to_all_v_chip.textproto");
}

}  // namespace
}  // namespace pto::golden
