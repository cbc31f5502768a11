// pto-golden: compares two goldens (testing/golden/golden.proto), e.g. a
// recorded sim golden and a fresh run, or a hardware golden and the
// simulator's. See testing/golden/README.md.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "testing/golden/compare.h"
#include "testing/golden/golden_file.h"

namespace {

constexpr char kUsage[] = R"(usage: pto-golden compare EXPECTED ACTUAL [options]

Compares the golden ACTUAL with EXPECTED (protobuf text of pto.golden.Golden,
testing/golden/golden.proto): the identity (program, platform, ranks, inputs'
digest, error code), every output (bit-exact unless a tolerance is given in
EXPECTED or below), and the per-kernel and end-to-end times (exact unless a
tolerance is given). Prints a report: one line per output with its first
differing element, and a table of timing deltas.

options:
  --rtol=OUTPUT=X         relative tolerance of OUTPUT ("*": every output)
  --atol=OUTPUT=X         absolute tolerance of OUTPUT ("*": every output)
  --kernel-tolerance=KERNEL=X
                          allowed relative change of KERNEL's total time
                          ("*": every kernel), e.g. 0.05 for 5 %
  --time-tolerance=X      allowed relative change of the end-to-end time
  --no-data               compare identity and timing only (hw vs sim)
  --no-timing             compare identity and data only
  -h, --help              show this help and exit

exit status: 0 the goldens match; 1 they differ; 2 usage error or a file
that cannot be read.
)";

int UsageError(const std::string& message) {
  std::cerr << "pto-golden: " << message << "\n(see pto-golden --help)\n";
  return 2;
}

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
  pto::golden::CompareOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value_of = [&](const std::string& flag, std::string* out) {
      if (a.rfind(flag + "=", 0) != 0) return false;
      *out = a.substr(flag.size() + 1);
      return true;
    };
    std::string v;
    std::string name;
    double x = 0;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (value_of("--rtol", &v) || value_of("--atol", &v)) {
      if (!ParseNamed(v, &name, &x)) return UsageError(a + ": expected OUTPUT=X with X >= 0");
      pto::golden::Tolerance& t = options.output_tolerance[name];
      if (a.rfind("--rtol", 0) == 0) {
        t.set_rtol(x);
      } else {
        t.set_atol(x);
      }
    } else if (value_of("--kernel-tolerance", &v)) {
      if (!ParseNamed(v, &name, &x)) return UsageError(a + ": expected KERNEL=X with X >= 0");
      options.kernel_tolerance[name] = x;
    } else if (value_of("--time-tolerance", &v)) {
      if (!ParseNumber(v, &x)) return UsageError(a + ": expected a number >= 0");
      options.sim_time_tolerance = x;
    } else if (a == "--no-data") {
      options.data = false;
    } else if (a == "--no-timing") {
      options.timing = false;
    } else if (!a.empty() && a[0] == '-') {
      return UsageError("unknown option '" + a + "'");
    } else {
      positional.push_back(a);
    }
  }
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
