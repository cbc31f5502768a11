// pto-golden: compares two goldens (tools/golden/golden.proto), e.g. a
// recorded sim golden and a fresh run, or a hardware golden and the
// simulator's. See tools/golden/README.md.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "tools/golden/compare.h"
#include "tools/golden/golden_file.h"
#include "tools/cli_flags.h"

ABSL_FLAG(std::vector<std::string>, rtol, {},
          "OUTPUT=X: relative tolerance of OUTPUT (\"*\": every output); repeatable");
ABSL_FLAG(std::vector<std::string>, atol, {},
          "OUTPUT=X: absolute tolerance of OUTPUT (\"*\": every output); repeatable");
ABSL_FLAG(std::vector<std::string>, kernel_tolerance, {},
          "KERNEL=X: allowed relative change of KERNEL's total time (\"*\": every kernel), "
          "e.g. 0.05 for 5 %; repeatable");
ABSL_FLAG(double, time_tolerance, -1,
          "X: allowed relative change of the end-to-end time (negative: the expected golden's own)");
ABSL_FLAG(bool, data, true, "compare the outputs (off: identity and timing only, hw vs sim)");
ABSL_FLAG(bool, timing, true, "compare the times (off: identity and data only)");

namespace {

const pto::tools::ToolInfo& Info() {
  static const pto::tools::ToolInfo* info = new pto::tools::ToolInfo{
      "pto-golden", "compare EXPECTED ACTUAL [flags]",
      "Compares the golden ACTUAL with EXPECTED (protobuf text of pto.golden.Golden,\n"
      "tools/golden/golden.proto): the identity (program, platform, ranks, inputs'\n"
      "digest, error code), every output (bit-exact unless a tolerance is given in\n"
      "EXPECTED or by a flag), and the per-kernel and end-to-end times (exact unless a\n"
      "tolerance is given). Prints a report: one line per output with its first\n"
      "differing element, and a table of timing deltas.\n",
      "exit status: 0 the goldens match; 1 they differ; 2 usage error or a file\n"
      "that cannot be read.\n",
      __FILE__, 3};
  return *info;
}

int UsageError(const std::string& message) { return pto::tools::UsageError(Info(), message); }

bool ParseNumber(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && *out >= 0;
}

// "NAME=X" -> name, value.
bool ParseNamed(const std::string& text, std::string* name, double* value) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  *name = text.substr(0, eq);
  return ParseNumber(text.substr(eq + 1), value);
}

int Main(int argc, char** argv) {
  std::vector<std::string> positional;
  if (int rc = pto::tools::ParseCommandLine(argc, argv, Info(), &positional); rc >= 0) return rc;
  pto::golden::CompareOptions options;
  std::string name;
  double x = 0;
  for (const char* flag : {"rtol", "atol"}) {
    for (const std::string& v :
         std::string(flag) == "rtol" ? absl::GetFlag(FLAGS_rtol) : absl::GetFlag(FLAGS_atol)) {
      if (!ParseNamed(v, &name, &x)) {
        return UsageError("--" + std::string(flag) + "=" + v + ": expected OUTPUT=X with X >= 0");
      }
      pto::golden::Tolerance& t = options.output_tolerance[name];
      if (std::string(flag) == "rtol") {
        t.set_rtol(x);
      } else {
        t.set_atol(x);
      }
    }
  }
  for (const std::string& v : absl::GetFlag(FLAGS_kernel_tolerance)) {
    if (!ParseNamed(v, &name, &x)) {
      return UsageError("--kernel-tolerance=" + v + ": expected KERNEL=X with X >= 0");
    }
    options.kernel_tolerance[name] = x;
  }
  options.sim_time_tolerance = absl::GetFlag(FLAGS_time_tolerance);
  options.data = absl::GetFlag(FLAGS_data);
  options.timing = absl::GetFlag(FLAGS_timing);
  if (positional.empty()) return UsageError("no command (pto-golden compare EXPECTED ACTUAL)");
  if (positional[0] != "compare") return UsageError("unknown command '" + positional[0] + "'");
  if (positional.size() != 3) return UsageError("compare takes two goldens: EXPECTED ACTUAL");
  // `bazel run` starts us in the runfiles tree; paths are the user's.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr && *wd != '\0') {
    if (chdir(wd) != 0) return UsageError(std::string("cannot enter '") + wd + "'");
  }
  absl::StatusOr<pto::golden::Golden> expected = pto::golden::ReadGoldenFile(positional[1]);
  if (!expected.ok()) return UsageError(std::string(expected.status().message()));
  absl::StatusOr<pto::golden::Golden> actual = pto::golden::ReadGoldenFile(positional[2]);
  if (!actual.ok()) return UsageError(std::string(actual.status().message()));
  pto::golden::CompareResult r = pto::golden::Compare(*expected, *actual, options);
  std::cout << "golden " << positional[1] << " vs " << positional[2] << "\n" << r.report;
  return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
