#include "tools/golden/golden_matchers.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_format.h"
#include "tools/golden/golden_file.h"

namespace pto::golden {

::testing::AssertionResult CycleNear(const char* actual_expr, const char* expected_expr,
                                     const char* tol_expr, int64_t actual, int64_t expected,
                                     double rel_tol) {
  const double diff = static_cast<double>(actual - expected);
  if (std::fabs(diff) <= rel_tol * std::fabs(static_cast<double>(expected))) {
    return ::testing::AssertionSuccess();
  }
  const double rel = expected == 0 ? INFINITY : diff / expected;
  return ::testing::AssertionFailure() << absl::StrFormat(
             "%s = %d is not within %s = %.2f%% of %s = %d: delta %+d (%+.2f%%)", actual_expr,
             actual, tol_expr, 100 * rel_tol, expected_expr, expected, actual - expected,
             100 * rel);
}

namespace {

// The expected golden's tolerances carried over to a re-recorded one, so
// updating a golden never loosens or drops them.
void KeepTolerances(const Golden& old, Golden* fresh) {
  fresh->set_sim_time_tolerance(old.sim_time_tolerance());
  for (Output& o : *fresh->mutable_outputs()) {
    for (const Output& e : old.outputs()) {
      if (e.name() == o.name()) *o.mutable_tolerance() = e.tolerance();
    }
  }
  for (KernelTiming& k : *fresh->mutable_kernels()) {
    for (const KernelTiming& e : old.kernels()) {
      if (e.kernel() == k.kernel()) k.set_tolerance(e.tolerance());
    }
  }
}

}  // namespace

void ExpectMatchesGoldenFile(const Golden& actual, const std::string& path,
                             const CompareOptions& options) {
  absl::StatusOr<Golden> expected = ReadGoldenFile(path);
  if (const char* root = std::getenv("PTO_GOLDEN_UPDATE"); root != nullptr && *root != '\0') {
    Golden fresh = actual;
    if (expected.ok()) KeepTolerances(*expected, &fresh);
    const std::string target = (std::filesystem::path(root) / path).string();
    std::filesystem::create_directories(std::filesystem::path(target).parent_path());
    absl::Status s = WriteGoldenFile(target, fresh);
    EXPECT_TRUE(s.ok()) << s;
    if (s.ok()) std::cout << "updated golden " << target << "\n";
    return;
  }
  ASSERT_TRUE(expected.ok()) << expected.status()
                             << "\n(record it with tools/update_goldens.sh)";
  CompareResult r = Compare(*expected, actual, options);
  EXPECT_TRUE(r.ok()) << "the run differs from the golden " << path
                      << " (if the change is intended: tools/update_goldens.sh)\n"
                      << r.report;
}

}  // namespace pto::golden
