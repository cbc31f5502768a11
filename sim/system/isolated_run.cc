#include "sim/system/isolated_run.h"

#include <chrono>
#include <string>

#include <google/protobuf/text_format.h>

#include "sim/common/fork_run.h"

namespace pto::sim {

RunReport RunIsolated(const std::function<RunReport()>& body) {
  absl::StatusOr<std::string> bytes = RunInChild(
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        RunReport r = body();
        r.set_wall_seconds(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        std::string out;
        r.SerializeToString(&out);
        return out;
      },
      "simulation process");
  RunReport r;
  if (!bytes.ok()) {
    r.set_error_code(-1);
    r.set_error_text(std::string(bytes.status().message()));
    return r;
  }
  if (!r.ParseFromString(*bytes)) {
    RunReport failed;
    failed.set_error_code(-1);
    failed.set_error_text("simulation process sent an unreadable report");
    return failed;
  }
  return r;
}

std::string StatsText(const RunReport& report) {
  RunReport copy = report;
  copy.clear_wall_seconds();
  copy.clear_trace_json();
  std::string out;
  google::protobuf::TextFormat::PrintToString(copy, &out);
  return out;
}

}  // namespace pto::sim
