#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "sim/trace/report.pb.h"
#include "tools/golden/compare.h"
#include "tools/golden/golden_file.h"
#include "tools/golden/golden_matchers.h"
#include "tools/golden/recorder.h"

namespace pto::golden {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Floats(const std::vector<float>& v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

sim::RunReport Report(int64_t stage_ps, int64_t a2a_ps) {
  sim::RunReport r;
  r.set_platform("a2a3");
  r.set_chips(2);
  int64_t t = 0;
  for (int chip = 0; chip < 2; ++chip) {
    for (auto [kernel, d] : {std::pair<std::string, int64_t>{"stage", stage_ps}, {"a2a", a2a_ps}}) {
      sim::TaskStat* s = r.add_tasks();
      s->set_chip(chip);
      s->set_kernel(kernel);
      s->set_blocks(1);
      s->set_start_ps(t);
      s->set_end_ps(t + d);
      t += d;
    }
  }
  r.set_sim_time_ps(t);
  return r;
}

Golden Record(int64_t stage_ps, std::vector<float> out, int64_t a2a_ps = 5000) {
  RunInfo info{.program = "p.pto", .platform = "a2a3", .ranks = 2, .recorder = "golden_test"};
  std::vector<Array> inputs = {{"x", "<f4", {2}, Floats({1, 2})}};
  std::vector<Array> outputs = {{"y", "<f4", {2, 3}, Floats(out)}};
  absl::StatusOr<Golden> g = RecordGolden(info, inputs, Report(stage_ps, a2a_ps), outputs);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

const std::vector<float> kOut = {0, 1, 2, 3, 4, 5};

TEST(RecorderTest, RecordsIdentityDigestsAndPerKernelTimings) {
  Golden g = Record(1000, kOut);
  EXPECT_EQ(g.program(), "p.pto");
  EXPECT_EQ(g.backend(), "sim");
  EXPECT_EQ(g.inputs_sha256().size(), 64u);
  EXPECT_EQ(g.provenance().platform_sha256().size(), 64u);
  ASSERT_EQ(g.kernels_size(), 2);
  EXPECT_EQ(g.kernels(0).kernel(), "a2a");  // by name
  EXPECT_EQ(g.kernels(0).tasks(), 2);
  EXPECT_EQ(g.kernels(0).total_ps(), 10000);
  EXPECT_EQ(g.kernels(1).max_ps(), 1000);
  EXPECT_EQ(g.tasks_size(), 4);
  EXPECT_EQ(g.sim_time_ps(), 12000);
  ASSERT_EQ(g.outputs_size(), 1);
  EXPECT_EQ(g.outputs(0).inline_data(), Floats(kOut));
}

TEST(RecorderTest, InputsDigestIgnoresOrderButNotContent) {
  Array a{"a", "<f4", {1}, Floats({1})};
  Array b{"b", "<f4", {1}, Floats({2})};
  EXPECT_EQ(InputsDigest({a, b}), InputsDigest({b, a}));
  Array b2{"b", "<f4", {1}, Floats({3})};
  EXPECT_NE(InputsDigest({a, b}), InputsDigest({a, b2}));
}

TEST(RecorderTest, AnOutputOfTheWrongSizeIsAnError) {
  RunInfo info{.program = "p", .platform = "a2a3", .ranks = 1};
  absl::StatusOr<Golden> g = RecordGolden(info, {}, sim::RunReport(),
                                          {{"y", "<f4", {3}, Floats({1, 2})}});
  EXPECT_EQ(g.status().message(), "output 'y' has 8 bytes, its dtype and shape say 12");
}

TEST(CompareTest, IdenticalRunsMatch) {
  CompareResult r = Compare(Record(1000, kOut), Record(1000, kOut));
  EXPECT_TRUE(r.ok()) << r.report;
  EXPECT_THAT(r.report, HasSubstr("  y  <f4 (2, 3)  OK (exact)\n"));
  EXPECT_THAT(r.report, HasSubstr("result: MATCH\n"));
}

TEST(CompareTest, ReportsTheFirstDifferingElement) {
  std::vector<float> changed = kOut;
  changed[4] = 4.5f;
  changed[5] = 6.0f;
  CompareResult r = Compare(Record(1000, kOut), Record(1000, changed));
  EXPECT_FALSE(r.data_ok);
  EXPECT_TRUE(r.timing_ok);
  EXPECT_THAT(r.report, HasSubstr("  y  <f4 (2, 3)  DIFFERS (exact): 2 of 6 elements; first at "
                                  "[1, 1] (flat 4): expected 4, got 4.5\n"));
  EXPECT_THAT(r.report, HasSubstr("result: DIFFERS (data)\n"));
}

TEST(CompareTest, ToleranceFromTheGoldenOrTheOptions) {
  std::vector<float> near = kOut;
  near[2] = 2.001f;
  Golden expected = Record(1000, kOut);
  EXPECT_FALSE(Compare(expected, Record(1000, near)).ok());
  expected.mutable_outputs(0)->mutable_tolerance()->set_rtol(1e-3);
  CompareResult r = Compare(expected, Record(1000, near));
  EXPECT_TRUE(r.ok()) << r.report;
  EXPECT_THAT(r.report, HasSubstr("OK (rtol 0.001, atol 0)"));
  CompareOptions tight;
  tight.output_tolerance["*"] = Tolerance();
  EXPECT_FALSE(Compare(expected, Record(1000, near), tight).ok());
}

TEST(CompareTest, ATimingChangeFailsWithATableOfDeltas) {
  CompareResult r = Compare(Record(1000, kOut), Record(1100, kOut));
  EXPECT_TRUE(r.data_ok);
  EXPECT_FALSE(r.timing_ok);
  EXPECT_THAT(r.report, HasSubstr("kernel"));
  EXPECT_THAT(r.report, HasSubstr("stage"));
  EXPECT_THAT(r.report, HasSubstr("+200   +10.00%    0.00%  DIFFERS\n"));
  EXPECT_THAT(r.report, HasSubstr("result: DIFFERS (timing)\n"));
  // Within a per-kernel tolerance (and the end-to-end one) it matches.
  CompareOptions loose;
  loose.kernel_tolerance["stage"] = 0.10;
  loose.sim_time_tolerance = 0.02;
  EXPECT_TRUE(Compare(Record(1000, kOut), Record(1100, kOut), loose).ok());
  loose.kernel_tolerance["stage"] = 0.09;
  EXPECT_FALSE(Compare(Record(1000, kOut), Record(1100, kOut), loose).ok());
}

TEST(CompareTest, AnotherProgramOrInputIsAnIdentityMismatch) {
  Golden other = Record(1000, kOut);
  other.set_program("q.pto");
  other.set_inputs_sha256("0");
  CompareResult r = Compare(Record(1000, kOut), other);
  EXPECT_FALSE(r.identity_ok);
  EXPECT_THAT(r.report, HasSubstr("identity: program differs: expected 'p.pto', got 'q.pto'\n"));
  EXPECT_THAT(r.report, HasSubstr("identity: inputs sha256 differs"));
}

TEST(GoldenFileTest, LargeOutputsGoToNpyFilesAndReadBack) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/goldens";
  std::filesystem::create_directories(dir);
  Golden g = Record(1000, kOut);
  ASSERT_TRUE(WriteGoldenFile(dir + "/small.textproto", g).ok());
  ASSERT_TRUE(WriteGoldenFile(dir + "/big.textproto", g, /*inline_limit=*/8).ok());
  EXPECT_TRUE(std::filesystem::exists(dir + "/big.y.npy"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/small.y.npy"));
  for (const char* name : {"/small.textproto", "/big.textproto"}) {
    absl::StatusOr<Golden> back = ReadGoldenFile(dir + name);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_THAT(*back, MatchesGolden(g));
    EXPECT_EQ(back->outputs(0).inline_data(), Floats(kOut));
  }
  // A .npy that no longer matches the golden's digest is an error.
  Golden other = Record(1000, {9, 9, 9, 9, 9, 9});
  ASSERT_TRUE(WriteGoldenFile(dir + "/other.textproto", other, 8).ok());
  std::filesystem::copy_file(dir + "/other.y.npy", dir + "/big.y.npy",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(std::string(ReadGoldenFile(dir + "/big.textproto").status().message()),
              HasSubstr("big.y.npy does not match its sha256"));
  EXPECT_THAT(std::string(ReadGoldenFile(dir + "/none.textproto").status().message()),
              HasSubstr("cannot read golden"));
}

TEST(GoldenMatchersTest, MatchesGoldenExplainsWithTheReport) {
  std::vector<float> changed = kOut;
  changed[0] = 7;
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(MatchesGolden(Record(1000, kOut)),
                                             Record(1000, changed), &listener));
  EXPECT_THAT(listener.str(), HasSubstr("first at [0, 0] (flat 0): expected 0, got 7"));
}

TEST(GoldenMatchersTest, CycleNear) {
  EXPECT_CYCLE_NEAR(int64_t{1010}, int64_t{1000}, 0.01);
  EXPECT_NONFATAL_FAILURE(EXPECT_CYCLE_NEAR(int64_t{1020}, int64_t{1000}, 0.01),
                          "int64_t{1020} = 1020 is not within 0.01 = 1.00% of int64_t{1000} = "
                          "1000: delta +20 (+2.00%)");
}

TEST(GoldenMatchersTest, ExpectMatchesGoldenFileFailsOnADifferenceAndUpdatesOnRequest) {
  const std::string root = std::string(std::getenv("TEST_TMPDIR")) + "/ws";
  std::filesystem::create_directories(root + "/g");
  Golden g = Record(1000, kOut);
  g.mutable_kernels(1)->set_tolerance(0.5);
  ASSERT_TRUE(WriteGoldenFile(root + "/g/x.textproto", g).ok());
  std::filesystem::current_path(root);
  ExpectMatchesGoldenFile(Record(1000, kOut), "g/x.textproto");
  EXPECT_NONFATAL_FAILURE(ExpectMatchesGoldenFile(Record(1000, kOut, 6000), "g/x.textproto"),
                          "the run differs from the golden g/x.textproto");
  // Update mode rewrites the golden and keeps its tolerances.
  setenv("PTO_GOLDEN_UPDATE", root.c_str(), 1);
  ExpectMatchesGoldenFile(Record(1000, kOut, 6000), "g/x.textproto");
  unsetenv("PTO_GOLDEN_UPDATE");
  absl::StatusOr<Golden> back = ReadGoldenFile("g/x.textproto");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kernels(0).total_ps(), 12000);
  EXPECT_EQ(back->kernels(1).tolerance(), 0.5);
  ExpectMatchesGoldenFile(Record(1000, kOut, 6000), "g/x.textproto");
}

}  // namespace
}  // namespace pto::golden
