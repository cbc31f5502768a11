#include "python/ext/sim_session.h"

#include <stdlib.h>

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::python {
namespace {

using ::testing::HasSubstr;

std::string Root() { return std::string(getenv("TEST_SRCDIR")) + "/pto"; }

CompileRequest Request(const std::string& platform, int ranks) {
  CompileRequest r;
  r.source_path = Root() + "/python/ext/testdata/scaled_max_reduce.pto";
  r.platform = platform;
  r.ranks = ranks;
  r.root = Root();
  return r;
}

TEST(SimSessionTest, UnknownPlatformIsAUserError) {
  Compiled c;
  CompileFailure f;
  EXPECT_FALSE(Compile(Request("no_such_platform", 2), &c, &f));
  EXPECT_THAT(f.text, HasSubstr("no_such_platform"));
  EXPECT_TRUE(f.user_error);
}

TEST(SimSessionTest, RankCountOutsideThePlatformIsAnError) {
  Compiled c;
  CompileFailure f;
  EXPECT_FALSE(Compile(Request("a2a3", 0), &c, &f));
  EXPECT_THAT(f.text, HasSubstr("simulates 1.."));
}

TEST(SimSessionTest, ArgumentCountMustMatchTheHostOrchestrator) {
  CompileRequest r = Request("a2a3", 2);
  r.has_args = true;
  r.args = {{"<f4", {2, 1, 128}}};
  Compiled c;
  CompileFailure f;
  EXPECT_FALSE(Compile(r, &c, &f));
  EXPECT_THAT(f.text, HasSubstr("takes 2 tensors, the call passes 1"));
}

TEST(SimSessionTest, CompilesAndRunsOnTwoChips) {
  Compiled c;
  CompileFailure f;
  ASSERT_TRUE(Compile(Request("a2a3", 2), &c, &f)) << f.text;
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[0].shape, (std::vector<int64_t>{2, 1, 128}));
  EXPECT_FALSE(c.params[0].output);
  EXPECT_TRUE(c.params[1].output);
  EXPECT_TRUE(c.bundle.count("program.cc"));

  RunRequest bad;
  bad.inputs = {"", ""};
  absl::StatusOr<RunResult> rejected = pto::python::Run(c, bad);
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kInvalidArgument);

  // Rank r's row is rows[r]; every rank's result row is 2 * the column max.
  RunRequest req;
  const int n = 2 * 128;
  std::string in(n * 4, '\0');
  auto* rows = reinterpret_cast<float*>(in.data());
  for (int i = 0; i < n; ++i) rows[i] = static_cast<float>((i * 37) % 101);
  req.inputs = {in, std::string(in.size(), '\0')};
  absl::StatusOr<RunResult> r = pto::python::Run(c, req);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->report.error_code(), 0) << r->report.error_text();
  EXPECT_GT(r->report.sim_time_ps(), 0);
  ASSERT_TRUE(r->outputs.count("result"));
  ASSERT_EQ(r->outputs["result"].size(), in.size());
  const auto* out = reinterpret_cast<const float*>(r->outputs["result"].data());
  for (int rank = 0; rank < 2; ++rank) {
    for (int j = 0; j < 128; ++j) {
      EXPECT_EQ(out[rank * 128 + j], 2.0f * std::max(rows[j], rows[128 + j])) << rank << " " << j;
    }
  }
  EXPECT_THAT(r->summary, HasSubstr("busiest links"));
}

// A program without a HOST orchestrator runs as pto-run runs it: its lone
// kernel gets an orchestration, on one chip whatever the device count.
TEST(SimSessionTest, ProgramWithoutAHostOrchestratorRunsOnOneChip) {
  CompileRequest request = Request("a2a3", 4);
  request.source_path = Root() + "/python/ext/testdata/one_chip_add.pto";
  Compiled c;
  CompileFailure f;
  ASSERT_TRUE(Compile(request, &c, &f)) << f.text;
  EXPECT_EQ(c.ranks, 1);
  EXPECT_EQ(c.chip_entry, "add_entry");
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[0].shape, (std::vector<int64_t>{16, 64}));
  EXPECT_TRUE(c.params[1].output);

  const int n = 16 * 64;
  std::string in(n * 4, '\0');
  auto* a = reinterpret_cast<float*>(in.data());
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>(i % 13);
  RunRequest req;
  req.inputs = {in, std::string(in.size(), '\0')};
  absl::StatusOr<RunResult> r = pto::python::Run(c, req);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->report.error_code(), 0) << r->report.error_text();
  EXPECT_EQ(r->report.chips(), 1);
  EXPECT_GT(r->report.sim_time_ps(), 0);
  ASSERT_TRUE(r->outputs.count("out"));
  const auto* out = reinterpret_cast<const float*>(r->outputs["out"].data());
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] + 1.0f) << i;
}

}  // namespace
}  // namespace pto::python
