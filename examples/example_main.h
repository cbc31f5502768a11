// What the example binaries' mains share: staging bytes, where the trace goes
// and how a run's verdict is printed.
#ifndef PTO_EXAMPLES_EXAMPLE_MAIN_H_
#define PTO_EXAMPLES_EXAMPLE_MAIN_H_

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/trace/report.pb.h"

namespace pto::examples {

// The bytes of `v`, as a HOST param is staged.
template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// `file` in $TEST_UNDECLARED_OUTPUTS_DIR (under bazel test), else in /tmp.
inline std::string DefaultTracePath(const std::string& file) {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/", file);
}

// Under `bazel run` the working directory is the runfiles tree; a relative
// path means the user's directory.
inline std::string UserPath(std::string path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!path.empty() && path[0] != '/' && cwd != nullptr && *cwd != '\0') {
    return absl::StrCat(cwd, "/", path);
  }
  return path;
}

// Writes the run's Perfetto trace to `path` and says where; false (said too)
// when it cannot be written.
inline bool WriteTrace(const sim::RunReport& report, const std::string& path) {
  std::ofstream trace(path);
  trace << report.trace_json();
  trace.close();
  if (!trace) {
    std::printf("trace: could not write %s\n", path.c_str());
    return false;
  }
  std::printf("trace: %s (open in https://ui.perfetto.dev)\n", path.c_str());
  return true;
}

// The last line of a checked run, and the exit status.
inline int PrintVerdict(int failures) {
  std::printf("%s\n", failures == 0 ? "result: every rank matches the golden"
                                    : absl::StrCat("result: ", failures, " failing").c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace pto::examples

#endif  // PTO_EXAMPLES_EXAMPLE_MAIN_H_
