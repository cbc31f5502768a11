// gtest support for goldens, in the spirit of pto-isa's EXPECT_CYCLE_NEAR:
//
//   EXPECT_CYCLE_NEAR(report.sim_time_ps(), 378'650'000, 0.01);
//   EXPECT_THAT(actual_golden, MatchesGolden(expected_golden));
//   ExpectMatchesGoldenFile(actual_golden, "testing/golden/data/x.textproto");
//
// A failure prints the comparison report (first differing element of each
// output, the table of timing deltas).
#ifndef PTO_TESTING_GOLDEN_GOLDEN_MATCHERS_H_
#define PTO_TESTING_GOLDEN_GOLDEN_MATCHERS_H_

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/golden/compare.h"
#include "tools/golden/golden.pb.h"

namespace pto::golden {

// |actual - expected| <= rel_tol * |expected| (simulated times, cycles).
::testing::AssertionResult CycleNear(const char* actual_expr, const char* expected_expr,
                                     const char* tol_expr, int64_t actual, int64_t expected,
                                     double rel_tol);

#define EXPECT_CYCLE_NEAR(actual, expected, rel_tol) \
  EXPECT_PRED_FORMAT3(::pto::golden::CycleNear, actual, expected, rel_tol)
#define ASSERT_CYCLE_NEAR(actual, expected, rel_tol) \
  ASSERT_PRED_FORMAT3(::pto::golden::CycleNear, actual, expected, rel_tol)

class GoldenMatcher {
 public:
  using is_gtest_matcher = void;
  GoldenMatcher(Golden expected, CompareOptions options)
      : expected_(std::move(expected)), options_(std::move(options)) {}
  bool MatchAndExplain(const Golden& actual, std::ostream* os) const {
    CompareResult r = Compare(expected_, actual, options_);
    if (os != nullptr && !r.ok()) *os << "\n" << r.report;
    return r.ok();
  }
  void DescribeTo(std::ostream* os) const { *os << "matches the golden of " << expected_.program(); }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "differs from the golden of " << expected_.program();
  }

 private:
  Golden expected_;
  CompareOptions options_;
};

inline GoldenMatcher MatchesGolden(Golden expected, CompareOptions options = {}) {
  return GoldenMatcher(std::move(expected), std::move(options));
}

// Compares `actual` with the golden file at `path` (relative to the
// workspace root; tests list it in `data`). With PTO_GOLDEN_UPDATE set to
// the workspace root (tools/update_goldens.sh), writes `actual` there
// instead, keeping the file's tolerances, and passes.
void ExpectMatchesGoldenFile(const Golden& actual, const std::string& path,
                             const CompareOptions& options = {});

}  // namespace pto::golden

#endif  // PTO_TESTING_GOLDEN_GOLDEN_MATCHERS_H_
