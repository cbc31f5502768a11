// pto-bench-collective: nccl-tests / hccl_test style tables of one builtin
// collective on N simulated chips over a range of sizes. It renders the
// bench program (collective_bench.h), runs it once with pto-run (one g++
// build for the whole size range), reads the run's statistics and prints
// size, count, type, redop, time, algbw, busbw and the fraction of the
// collective's alpha-beta bound on the platform's links
// (docs/performance.md, "Collective tables").
//
//   bazel run //tools/bench:pto-bench-collective -- --collective=allreduce
//       --ranks=8 --dtype=FP32 --min_bytes=4K --max_bytes=16M --lanes=9
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "platforms/platform.h"
#include "sim/trace/report.pb.h"
#include "tools/bench/collective_metrics.h"
#include "tools/bench/collective_bench.h"
#include "tools/cli_flags.h"

ABSL_FLAG(std::string, collective, "allreduce",
          "a collective with a HOST builtin, named as its CollectiveDef's builtin "
          "(compiler/ops/collective_def.cc; an unknown name lists them)");
ABSL_FLAG(std::string, rail, "host", "the rail (host: the builtin kernels)");
ABSL_FLAG(std::string, dtype, "FP32", "FP32, FP16, INT32 or INT8");
ABSL_FLAG(std::string, op, "sum", "reduce op of a reduction: sum, max, min or prod");
ABSL_FLAG(int, ranks, 8, "simulated chips");
ABSL_FLAG(int, lanes, 1, "core_num of allreduce and all_to_all_v");
ABSL_FLAG(int, root, 0, "broadcast root");
ABSL_FLAG(std::string, min_bytes, "1K", "smallest per-rank buffer (K, M suffixes)");
ABSL_FLAG(std::string, max_bytes, "16M", "largest per-rank buffer");
ABSL_FLAG(int, step_factor, 4, "each size is this many times the previous one");
ABSL_FLAG(std::string, platform, "a2a3", "a2a3 or a5");
ABSL_FLAG(std::string, pto_run, "", "the pto-run binary (default: beside this tool)");
ABSL_FLAG(std::string, keep_program, "", "also write the bench program to this file");

namespace {

const pto::tools::ToolInfo& Info() {
  static const pto::tools::ToolInfo* info = new pto::tools::ToolInfo{
      "pto-bench-collective", "[flags]",
      "Runs one builtin collective on --ranks simulated chips over sizes from --min_bytes\n"
      "to --max_bytes (each --step_factor times the last, rounded to a multiple of ranks *\n"
      "element bytes) and prints the nccl-tests table: per-rank buffer size, element count,\n"
      "type, reduce op, time (first start to last end of the measured call on every chip),\n"
      "algbw = size / time, busbw = algbw * NCCL's factor, and the fraction of the\n"
      "collective's alpha-beta bound reached. Every size runs twice on one signal; the\n"
      "second call is measured.\n",
      "exit status: 0 the table was printed; 1 the run failed; 2 usage error.\n", __FILE__, 0};
  return *info;
}

bool ParseBytes(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  int64_t scale = 1;
  std::string digits = text;
  const char last = text.back();
  if (last == 'K' || last == 'k') scale = 1024;
  if (last == 'M' || last == 'm') scale = 1024 * 1024;
  if (last == 'G' || last == 'g') scale = 1024ll * 1024 * 1024;
  if (scale != 1) digits.pop_back();
  int64_t v = 0;
  if (!absl::SimpleAtoi(digits, &v) || v <= 0) return false;
  *out = v * scale;
  return true;
}

std::string DefaultPtoRun(const char* argv0) {
  // Under `bazel run` the working directory is the runfiles tree.
  if (std::getenv("BUILD_WORKING_DIRECTORY") != nullptr) return "tools/pto-run";
  std::string self = argv0;
  const size_t slash = self.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : self.substr(0, slash);
  return dir + "/../pto-run";
}

int Run(int argc, char** argv) {
  std::vector<std::string> positional;
  if (int rc = pto::tools::ParseCommandLine(argc, argv, Info(), &positional); rc >= 0) return rc;
  if (absl::GetFlag(FLAGS_rail) != "host") {
    return pto::tools::UsageError(Info(), "--rail: only the HOST rail (host) is benchmarked");
  }
  pto::bench::BenchSpec spec;
  spec.collective = absl::GetFlag(FLAGS_collective);
  spec.dtype = absl::GetFlag(FLAGS_dtype);
  spec.op = absl::GetFlag(FLAGS_op);
  spec.ranks = absl::GetFlag(FLAGS_ranks);
  spec.lanes = absl::GetFlag(FLAGS_lanes);
  spec.root = absl::GetFlag(FLAGS_root);
  int64_t lo = 0, hi = 0;
  if (!ParseBytes(absl::GetFlag(FLAGS_min_bytes), &lo) ||
      !ParseBytes(absl::GetFlag(FLAGS_max_bytes), &hi) || lo > hi) {
    return pto::tools::UsageError(Info(), "--min_bytes / --max_bytes: want 1 <= min <= max");
  }
  if (absl::GetFlag(FLAGS_step_factor) < 2) {
    return pto::tools::UsageError(Info(), "--step_factor must be at least 2");
  }
  const int64_t row = static_cast<int64_t>(spec.ranks) * pto::bench::DtypeBytes(spec.dtype);
  for (int64_t s = lo; row > 0 && s <= hi; s *= absl::GetFlag(FLAGS_step_factor)) {
    spec.sizes.push_back(std::max(row, s / row * row));
  }
  absl::StatusOr<std::string> program = pto::bench::RenderBenchProgram(spec);
  if (!program.ok()) return pto::tools::UsageError(Info(), program.status().message());
  absl::StatusOr<pto::platforms::Platform> platform =
      pto::platforms::LoadPlatform(absl::GetFlag(FLAGS_platform));
  if (!platform.ok()) return pto::tools::UsageError(Info(), platform.status().message());

  const char* tmp_env = std::getenv("TMPDIR");
  const std::string tmp = tmp_env != nullptr && *tmp_env != '\0' ? tmp_env : "/tmp";
  const std::string stem = absl::StrCat(tmp, "/pto_bench_", getpid());
  std::string prog_path = absl::GetFlag(FLAGS_keep_program);
  if (prog_path.empty()) prog_path = stem + ".pto";
  {
    std::ofstream f(prog_path);
    f << *program;
    if (!f) {
      std::fprintf(stderr, "pto-bench-collective: cannot write %s\n", prog_path.c_str());
      return 1;
    }
  }
  std::string pto_run = absl::GetFlag(FLAGS_pto_run);
  if (pto_run.empty()) pto_run = DefaultPtoRun(argv[0]);
  const std::string stats = stem + ".stats";
  const std::string cmd =
      absl::StrCat("'", pto_run, "' '", prog_path, "' --platform=", absl::GetFlag(FLAGS_platform),
                   " --ranks=", spec.ranks, " --stats='", stats, "' --nosummary 2>&1");
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string log;
  char buf[4096];
  while (pipe != nullptr && fgets(buf, sizeof buf, pipe) != nullptr) log += buf;
  const int rc = pipe == nullptr ? -1 : pclose(pipe);
  if (absl::GetFlag(FLAGS_keep_program).empty()) std::remove(prog_path.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "pto-bench-collective: pto-run failed:\n%s", log.c_str());
    std::remove(stats.c_str());
    return 1;
  }
  std::ifstream in(stats);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(stats.c_str());
  pto::sim::RunReport report;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &report)) {
    std::fprintf(stderr, "pto-bench-collective: cannot read the run statistics\n");
    return 1;
  }
  const pto::bench::LinkModel link = pto::bench::LinkModelOf(*platform);
  absl::StatusOr<std::vector<pto::bench::BenchRow>> rows =
      pto::bench::MeasureRows(spec, report, link);
  if (!rows.ok()) {
    std::fprintf(stderr, "pto-bench-collective: %s\n", std::string(rows.status().message()).c_str());
    return 1;
  }
  std::fputs(pto::bench::FormatTable(spec, absl::GetFlag(FLAGS_platform), link, *rows).c_str(),
             stdout);
  return 0;
}

}  // namespace

// The link model comes from :collective_metrics, which links SystemC, whose
// main() calls sc_main; the tool runs no simulation itself.
int sc_main(int argc, char** argv) { return Run(argc, argv); }
