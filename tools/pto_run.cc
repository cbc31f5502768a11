// pto-run: compile a PTO program and run it on the simulator, without a BUILD
// target (docs/pto-run.md).
//
//   pto-run FILE [--platform=a2a3|a5] [--ranks=N] [--inputs=DIR] [--outputs=DIR]
//           [--trace=FILE] [--stats=FILE] [--stats-json=FILE] [--progress] ...
// (`pto-run --help`, generated from the ABSL_FLAG definitions below)
//
// The generated program.cc is compiled with the system C++ compiler into a
// shared object (tools/program_build.h: the precompiled prelude, the cache),
// dlopen()ed, and its RunHost (or, for a program without a HOST
// orchestrator, its single-chip entry: tools/single_chip.h) is called inside
// a simulation (tools/pto_run_sim.h, in a forked child). This binary exports the runtime and
// simulator symbols the object needs (-rdynamic).
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/json_util.h"
#include "compiler/passes/target.h"
#include "compiler/support/diagnostics.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "platforms/platform.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/trace/report.pb.h"
#include "sim/trace/run_summary.h"
#include "tools/golden/golden_file.h"
#include "tools/golden/recorder.h"
#include "tools/cli_flags.h"
#include "tools/compile_program.h"
#include "tools/dyn_dims.h"
#include "tools/hw_run.h"
#include "common/npy.h"
#include "tools/program_build.h"
#include "tools/pto_run_sim.h"
#include "tools/run_params.h"
#include "tools/single_chip.h"

// The flags. Each is read where it is used (absl::GetFlag), so a new flag is
// its ABSL_FLAG line plus the code that uses it; --help is generated.
ABSL_FLAG(std::string, platform, "a2a3", "NAME: a2a3 (910B) or a5 (950)");
ABSL_FLAG(int32_t, ranks, 1,
          "N: world size: simulated chips, 1..the platform's maximum (a program without a "
          "HOST orchestrator runs on 1)");
ABSL_FLAG(std::string, entry, "",
          "NAME: for a program without a HOST orchestrator, the CHIP orchestration or kernel "
          "to run on one chip (default: the one orchestration, else the one kernel)");
ABSL_FLAG(std::string, backend, "sim",
          "sim (the simulator) or hw (physical devices; needs a --config=ascend build, "
          "docs/hw.md)");
ABSL_FLAG(std::string, kernel_dir, "",
          "DIR: with --backend=hw, DIR/<kernel>.o is the AIV binary of every kernel");
ABSL_FLAG(std::string, inputs, "",
          "DIR: read <param>.npy for every tensor parameter of the HOST orchestrator (or of "
          "the single-chip entry)");
ABSL_FLAG(std::string, outputs, "",
          "DIR: write <param>.npy for every output parameter (created; nothing is written "
          "unless the run succeeds)");
ABSL_FLAG(std::string, trace, "", "FILE: write the Perfetto / Chrome JSON trace of the run");
ABSL_FLAG(std::string, stats, "",
          "FILE: write the run statistics (protobuf text of pto.sim.RunReport, "
          "sim/trace/report.proto)");
ABSL_FLAG(std::string, stats_json, "", "FILE: write the same statistics as JSON");
ABSL_FLAG(std::string, record_golden, "",
          "FILE: write the run's golden (tools/golden/golden.proto); only for a run that succeeds");
ABSL_FLAG(bool, summary, true,
          "print the run summary table (per rank, busiest links and GM ports, critical "
          "path, collective bus bandwidth) after the result line");
ABSL_FLAG(std::string, collective, "__builtin_",
          "KERNEL: the tasks whose kernel name contains KERNEL are the collective whose "
          "bus bandwidth the summary reports");
ABSL_FLAG(bool, progress, false,
          "report progress on stderr (simulated time, tasks done of tasks known, wall time); "
          "without it, only a run longer than 2 s with stderr on a terminal reports");
ABSL_FLAG(bool, timing_only, false,
          "simulate time only: DMAs move no payload (docs/simulator.md); the simulated time and "
          "statistics equal the full run's, and no outputs are written");
ABSL_FLAG(std::string, races, "fail",
          "fail, warn or off: a GM race the race detector reports (docs/simulator.md) fails the "
          "run (exit status 1), is printed as a warning, or is not looked for");
ABSL_FLAG(bool, allow_nonfinite, false, "accept NaN and Inf in floating-point input files");
ABSL_FLAG(std::string, keep_build, "", "DIR: build in DIR and keep program.cc, entry.cc, program.so");
ABSL_FLAG(std::string, cxx, "", "PATH: C++ compiler (empty: $CXX, else g++)");
ABSL_FLAG(bool, build_cache, true,
          "reuse the program built before from the same generated C++, compiler and headers "
          "(kept in $PTO_RUN_CACHE, else $XDG_CACHE_HOME/pto-run, else ~/.cache/pto-run)");

namespace {

namespace fs = std::filesystem;
namespace npy = pto::tools::npy;
using pto::tools::EntryFn;
using pto::tools::run::OutputKey;
using pto::tools::run::Param;

const pto::tools::ToolInfo& Info() {
  static const pto::tools::ToolInfo* info = new pto::tools::ToolInfo{
      "pto-run", "FILE [--platform=a2a3|a5] [--ranks=N] [flags]",
      "Compiles a PTO program (docs/language.md) like pto-compile, builds the\n"
      "generated C++ with the system compiler, and runs the program's HOST\n"
      "orchestrator on N simulated chips (docs/simulator.md); a program without\n"
      "one runs its orchestration, or its one kernel, on one chip (--entry).\n"
      "Each tensor parameter of the entry is read from --inputs=DIR/<param>.npy\n"
      "(a missing file gets a deterministic pattern) and copied to every device;\n"
      "each pl.Out / pl.InOut parameter is written to --outputs=DIR/<param>.npy\n"
      "after the run, merged over the devices. On success prints one result line\n"
      "(ranks, platform, simulated time, dispatches per card) and the summary\n"
      "table. See docs/pto-run.md.\n",
      "exit status: 0 success; 1 the program or its inputs have an error, an output\n"
      "cannot be written, or the run failed (the runtime's error text on stderr);\n"
      "2 usage error or internal error (including a generated program that does\n"
      "not compile). docs/errors.md lists every reason.\n",
      __FILE__};
  return *info;
}

struct Options {
  std::string input;
  std::string platform;
  int ranks = 0;
  std::string cxx;
  std::string backend;
  std::string races;  // fail, warn or off
};

int UsageError(const std::string& message) { return pto::tools::UsageError(Info(), message); }

int Fail(int code, const std::string& message) {
  std::cerr << "pto-run: " << message << "\n";
  return code;
}

// Returns -1 to continue, or an exit status.
int ParseArgs(int argc, char** argv, Options* opts) {
  std::vector<std::string> positional;
  if (int rc = pto::tools::ParseCommandLine(argc, argv, Info(), &positional); rc >= 0) return rc;
  if (positional.empty()) return UsageError("no input file");
  opts->input = positional[0];
  opts->platform = absl::GetFlag(FLAGS_platform);
  opts->ranks = absl::GetFlag(FLAGS_ranks);
  if (opts->platform.empty()) return UsageError("--platform needs a name: a2a3 or a5");
  if (opts->ranks <= 0) return UsageError(absl::StrCat("--ranks needs a positive number, not ", opts->ranks));
  opts->races = absl::GetFlag(FLAGS_races);
  if (opts->races != "fail" && opts->races != "warn" && opts->races != "off") {
    return UsageError(absl::StrCat("--races=", opts->races, ": fail, warn or off"));
  }
  opts->backend = absl::GetFlag(FLAGS_backend);
  if (opts->backend != "sim" && opts->backend != "hw") {
    return UsageError(absl::StrCat("--backend=", opts->backend, ": sim or hw"));
  }
  // Before anything is compiled: a binary without the backend says how to get it.
  if (opts->backend == "hw" && !pto::tools::HwBackendBuiltIn()) {
    return Fail(2, pto::tools::kHwBackendMissing);
  }
  if (opts->backend == "hw" && absl::GetFlag(FLAGS_kernel_dir).empty()) {
    return UsageError("--backend=hw needs --kernel-dir=DIR (the kernels' AIV binaries)");
  }
  opts->cxx = absl::GetFlag(FLAGS_cxx);
  if (opts->cxx.empty()) {
    const char* env = std::getenv("CXX");
    opts->cxx = env != nullptr && *env != '\0' ? env : "g++";
  }
  return -1;
}

// ---------------------------------------------------------------- build

// The runfiles root holding the runtime headers and builtin templates.
std::optional<std::string> RunfilesRoot(const char* argv0) {
  std::vector<std::string> candidates;
  for (const char* env : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* v = std::getenv(env); v != nullptr && *v != '\0') {
      candidates.push_back(std::string(v) + "/pto");
    }
  }
  candidates.push_back(std::string(argv0) + ".runfiles/pto");
  // pto-run as a data dependency of another tool (`bazel run` of
  // pto-bench-collective): the caller's runfiles tree holds ours, and
  // argv[0] lies inside it.
  std::error_code ec;
  for (fs::path p = fs::absolute(argv0, ec); !ec && p.has_parent_path() && p != p.parent_path();
       p = p.parent_path()) {
    if (absl::EndsWith(p.filename().string(), ".runfiles")) {
      candidates.push_back((p / "pto").string());
      break;
    }
  }
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.string() + ".runfiles/pto");
  for (const std::string& c : candidates) {
    if (fs::exists(fs::path(c) / "runtime/api/host.h") &&
        fs::exists(fs::path(c) / "runtime/builtins/all_to_all_v/kernel.cpp.in")) {
      return fs::absolute(c).string();
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- run

// Progress lines on stderr: with --progress from the start, else only when
// stderr is a terminal and the run has taken more than 2 s of wall time; at
// most one a second, and one when the run ends (at once, naming a deadlock
// or an error).
class ProgressReporter {
 public:
  explicit ProgressReporter(bool forced)
      : forced_(forced), tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

  void Tick(const pto::sim::SimProgress& p) {
    const Clock::time_point now = Clock::now();
    if (!forced_ && !(tty_ && now - start_ > std::chrono::seconds(2))) return;
    if (p.sim_time_ps == 0) return;  // the kernel's initialisation pass
    if (printed_ && now - last_ < std::chrono::seconds(1)) return;
    Print(absl::StrCat("simulated ", Us(p.sim_time_ps), " us, tasks ", p.tasks_done, "/",
                       p.tasks_known, ", wall ", Wall(now), " s"));
    last_ = now;
  }

  void Finish(const pto::sim::RunReport& r) {
    if (!forced_ && !printed_) return;
    int64_t tasks = r.tasks_size();
    std::string how = r.error_code() == 0
                          ? "finished"
                          : absl::StrCat("stopped (", ErrorKind(r), ")");
    Print(absl::StrCat(how, " at simulated ", Us(r.sim_time_ps()), " us, tasks ", tasks, " done, wall ",
                       Wall(Clock::now()), " s"));
  }

 private:
  using Clock = std::chrono::steady_clock;

  static std::string Us(int64_t ps) { return absl::StrFormat("%.3f", ps * 1e-6); }
  std::string Wall(Clock::time_point now) const {
    return absl::StrFormat("%.1f", std::chrono::duration<double>(now - start_).count());
  }
  static std::string ErrorKind(const pto::sim::RunReport& r) {
    if (r.error_text().find("deadlock") != std::string::npos) return "deadlock";
    if (r.error_code() == pto::rt::kErrorSchedulerTimeout) return "timeout";
    return absl::StrCat("error ", r.error_code());
  }
  void Print(const std::string& line) {
    std::fprintf(stderr, "pto-run: progress: %s\n", line.c_str());
    std::fflush(stderr);
    printed_ = true;
  }

  bool forced_;
  bool tty_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool printed_ = false;
};

// The simulation (tools/pto_run_sim.h) with the flags' options.
pto::sim::RunReport Simulate(const Options& opts, EntryFn entry, const std::vector<Param>& params) {
  ProgressReporter progress(absl::GetFlag(FLAGS_progress));
  pto::tools::run::SimRunOptions o;
  o.platform = opts.platform;
  o.ranks = opts.ranks;
  o.trace = !absl::GetFlag(FLAGS_trace).empty();
  o.timing_only = absl::GetFlag(FLAGS_timing_only);
  o.race_detection = opts.races != "off";
  o.races = opts.races == "fail" ? pto::sim::SimOptions::RacePolicy::kFail
                                 : pto::sim::SimOptions::RacePolicy::kWarn;
  o.progress = [&](const pto::sim::SimProgress& p) { progress.Tick(p); };
  o.finished = [&](const pto::sim::RunReport& r) { progress.Finish(r); };
  return pto::tools::run::SimulateProgram(o, entry, params);
}

// Files are written under a temporary name and renamed into place once every
// one of them is complete, so a failure leaves no partial output behind.
class OutputFiles {
 public:
  ~OutputFiles() {
    for (const auto& [tmp, path] : staged_) {
      std::error_code ec;
      fs::remove(tmp, ec);
    }
  }
  absl::Status Add(const std::string& path, const std::string& bytes) {
    const std::string tmp = absl::StrCat(path, ".pto-run-tmp");
    std::ofstream f(tmp, std::ios::binary);
    f << bytes;
    f.close();
    staged_.push_back({tmp, path});
    if (!f) return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "'"));
    return absl::OkStatus();
  }
  absl::Status Commit() {
    for (const auto& [tmp, path] : staged_) {
      std::error_code ec;
      fs::rename(tmp, path, ec);
      if (ec) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot write '", path, "': ", ec.message()));
      }
    }
    staged_.clear();
    return absl::OkStatus();
  }

 private:
  std::vector<std::pair<std::string, std::string>> staged_;
};

// Checked before anything runs, so a bad path costs no compile and no run:
// the directory of a file pto-run will write (for --outputs, the directory
// itself, or the nearest existing parent it will be created in) is a
// directory that takes a new file. Nothing is created here.
absl::Status CheckWritable(const std::string& flag, const std::string& path, bool is_dir) {
  fs::path dir = is_dir ? fs::path(path) : fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::path existing = fs::absolute(dir, ec);
  while (is_dir && !fs::exists(existing, ec) && existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": '",
                                                   existing.string(), "' is not a directory"));
  }
  if (access(existing.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": the directory '",
                                                   existing.string(), "' is not writable"));
  }
  return absl::OkStatus();
}

// Chip dispatches per card, from the dispatch FIFO statistics.
std::string DispatchesPerCard(const pto::sim::RunReport& r) {
  std::string out;
  for (int c = 0; c < r.chips(); ++c) {
    int64_t n = 0;
    for (const auto& q : r.queues()) {
      if (q.name() == absl::StrCat("dispatch fifo c", c)) n = q.transfers();
    }
    absl::StrAppend(&out, c ? " " : "", "c", c, "=", n);
  }
  return out;
}

std::string StatsJson(const pto::sim::RunReport& stats) {
  pto::sim::RunReport copy = stats;
  copy.clear_wall_seconds();
  copy.clear_trace_json();
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;  // chip 0, run 0: scripts need every field
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(copy, &out, o).ok()) return "";
  return out;
}

// libsystemc's main() prints its banner before calling sc_main unless this is
// set, so set it during static initialisation.
[[maybe_unused]] const bool kNoSystemcBanner =
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", /*overwrite=*/0) == 0;

// The side files of a run (--trace, --stats, --stats-json, --record-golden).
using SideFiles = std::vector<std::pair<const char*, std::string>>;

SideFiles SideFileFlags() {
  return {{"trace", absl::GetFlag(FLAGS_trace)},
          {"stats", absl::GetFlag(FLAGS_stats)},
          {"stats-json", absl::GetFlag(FLAGS_stats_json)},
          {"record-golden", absl::GetFlag(FLAGS_record_golden)}};
}

// The flags that need no program: ranks against the platform, the input and
// output places. Returns 0, or an exit status.
int CheckFlags(const Options& opts, const pto::platforms::Platform& platform) {
  const int max_chips = static_cast<int>(platform.fabric().max_chips());
  if (opts.ranks > max_chips) {
    return UsageError(absl::StrCat("--ranks=", opts.ranks, ": platform '", opts.platform,
                                   "' simulates 1..", max_chips, " chips"));
  }
  const std::string inputs_dir = absl::GetFlag(FLAGS_inputs);
  if (!inputs_dir.empty() && !fs::is_directory(inputs_dir)) {
    return UsageError("--inputs=" + inputs_dir + ": not a directory");
  }
  const std::string outputs_dir = absl::GetFlag(FLAGS_outputs);
  if (absl::GetFlag(FLAGS_timing_only) &&
      (!outputs_dir.empty() || !absl::GetFlag(FLAGS_record_golden).empty())) {
    return UsageError("--timing-only moves no payload, so it writes no outputs: drop --outputs "
                      "and --record-golden");
  }
  if (!outputs_dir.empty()) {
    if (absl::Status s = CheckWritable("outputs", outputs_dir, true); !s.ok()) {
      return Fail(1, std::string(s.message()));
    }
  }
  for (const auto& [flag, path] : SideFileFlags()) {
    if (path.empty()) continue;
    if (absl::Status s = CheckWritable(flag, path, false); !s.ok()) {
      return Fail(1, std::string(s.message()));
    }
  }
  return 0;
}

// What compiling the program yields for the run.
struct Prepared {
  pto::tools::CompiledProgram compiled;
  // Empty for a program with a HOST orchestrator; else the single-chip entry
  // (tools/single_chip.h) that runs on one chip.
  std::string chip_entry;
  pto::tools::run::ChipEntry chosen;
  std::vector<Param> params;
};

// Compiles the program with its dynamic dimensions bound, and reads the
// entry's inputs. Returns 0, or an exit status.
int Prepare(const Options& opts, const pto::passes::Target& target,
            const pto::platforms::Platform& platform, const std::string& root, Prepared* out) {
  const std::string requested_entry = absl::GetFlag(FLAGS_entry);
  const std::string inputs_dir = absl::GetFlag(FLAGS_inputs);
  // Dynamic dimensions take their values from --ranks and the input shapes.
  auto bind_dims = [&](const pto::ir::ProgramPtr& parsed) -> absl::StatusOr<pto::ir::ProgramPtr> {
    pto::ir::ProgramPtr p = parsed;
    if (!pto::tools::run::HasHostOrchestrator(p)) {
      absl::StatusOr<pto::ir::ProgramPtr> single =
          pto::tools::run::PrepareSingleChip(p, requested_entry, &out->chip_entry, &out->chosen);
      if (!single.ok()) return single.status();
      p = *single;
    } else if (!requested_entry.empty()) {
      return pto::UserErrorF(p->span(), "--entry=", requested_entry,
                             ": the program has a HOST orchestrator, which is its entry; "
                             "--entry chooses among the functions of a single-chip program");
    }
    absl::StatusOr<pto::tools::run::DimValues> dims =
        pto::tools::run::BindDynDims(p, opts.ranks, inputs_dir, out->chip_entry);
    if (!dims.ok()) return dims.status();
    return pto::tools::run::SpecializeDynDims(p, *dims, opts.ranks);
  };
  if (int rc = pto::tools::CompileProgram("pto-run", opts.input, target, root + "/runtime/builtins",
                                          &out->compiled, bind_dims);
      rc != 0) {
    return rc;
  }
  if (!out->chip_entry.empty() && opts.ranks != 1) {
    return UsageError(absl::StrCat("--ranks=", opts.ranks, ": the program has no HOST "
                                   "orchestrator, so its entry '", out->chosen.name,
                                   "' runs on one chip; drop --ranks or use --ranks=1"));
  }
  absl::StatusOr<std::vector<Param>> params =
      out->chip_entry.empty()
          ? pto::tools::run::HostParams(out->compiled.lowered)
          : pto::tools::run::FunctionParams(out->compiled.lowered->GetFunction(out->chip_entry));
  if (!params.ok()) return Fail(1, absl::StrCat(opts.input, ": ", params.status().message()));
  out->params = *std::move(params);
  if (absl::Status s = pto::tools::run::CheckFitsGm(out->params, opts.ranks,
                                                    platform.gm().capacity_bytes(), opts.platform);
      !s.ok()) {
    return Fail(1, absl::StrCat(opts.input, ": ", s.message()));
  }
  if (absl::Status s = pto::tools::run::LoadInputs(inputs_dir, out->params,
                                                   absl::GetFlag(FLAGS_allow_nonfinite));
      !s.ok()) {
    return Fail(1, std::string(s.message()));
  }
  return 0;
}

// Builds the generated C++ in --keep-build=DIR, else from the cache or in a
// temporary directory (tools/program_build.h). Returns 0, or an exit status.
int Build(const Options& opts, const std::string& root, const Prepared& prep, EntryFn* entry) {
  pto::tools::BuildOptions build{root, opts.cxx, absl::GetFlag(FLAGS_keep_build),
                                 absl::GetFlag(FLAGS_build_cache) ? pto::tools::DefaultCacheDir()
                                                                  : std::string(),
                                 prep.chip_entry};
  if (!build.keep_dir.empty()) {
    std::error_code ec;
    fs::create_directories(build.keep_dir, ec);
    if (ec) return Fail(2, absl::StrCat("cannot create '", build.keep_dir, "': ", ec.message()));
  }
  absl::StatusOr<EntryFn> built =
      pto::tools::BuildAndLoad(prep.compiled.bundle.at("program.cc"), build);
  if (!built.ok()) return Fail(2, std::string(built.status().message()));
  *entry = *built;
  return 0;
}

// The trace and statistics, written for a failed run too (they show why); a
// run that failed before the simulation started has no trace.
int WriteSideFiles(const pto::sim::RunReport& report) {
  OutputFiles diagnostics;
  pto::sim::RunReport stats = report;
  stats.clear_outputs();
  for (const auto& [flag, path] : SideFileFlags()) {
    const std::string name = flag;
    if (path.empty() || name == "record-golden") continue;
    const std::string what = name == "trace"   ? report.trace_json()
                             : name == "stats" ? pto::sim::StatsText(stats)
                                               : StatsJson(stats);
    if (name == "trace" && what.empty()) continue;
    if (absl::Status s = diagnostics.Add(path, what); !s.ok()) {
      return Fail(1, std::string(s.message()));
    }
  }
  if (absl::Status s = diagnostics.Commit(); !s.ok()) return Fail(1, std::string(s.message()));
  return 0;
}

// The run's outcome: races under --races=warn are printed and the run goes
// on; a failed run is exit status 1 with what blocked.
int CheckOutcome(const pto::sim::RunReport& report) {
  if (report.error_code() == 0 && report.races_size() > 0) {
    std::fprintf(stderr, "pto-run: warning: %d GM race%s (--races=warn; docs/simulator.md):\n",
                 report.races_size(), report.races_size() == 1 ? "" : "s");
    for (const std::string& line : report.races()) std::fprintf(stderr, "  %s\n", line.c_str());
  }
  if (report.error_code() != 0) {
    std::string text = absl::StrCat("run failed: ", report.error_text());
    for (const std::string& b : report.blocked()) absl::StrAppend(&text, "\n  blocked: ", b);
    return Fail(1, text);
  }
  return 0;
}

// The output parameters (--outputs) and the golden (--record-golden). Every
// output is merged and serialised before the first file is written.
int WriteOutputs(const Options& opts, const std::vector<Param>& params,
                 const pto::sim::RunReport& report) {
  const std::string outputs_dir = absl::GetFlag(FLAGS_outputs);
  std::vector<std::pair<std::string, std::string>> files_out;
  std::vector<pto::golden::Array> golden_outs;
  for (const Param& p : params) {
    if (!p.output || absl::GetFlag(FLAGS_timing_only)) continue;
    std::vector<std::string> copies;
    for (int d = 0; d < opts.ranks; ++d) {
      auto it = report.outputs().find(OutputKey(p, d));
      if (it == report.outputs().end() || it->second.size() != p.initial.size()) {
        return Fail(2, absl::StrCat("the run returned no copy of '", p.name, "' from device ", d));
      }
      copies.push_back(it->second);
    }
    absl::StatusOr<std::string> merged = pto::tools::run::Merge(p, copies);
    if (!merged.ok()) return Fail(1, std::string(merged.status().message()));
    golden_outs.push_back({p.name, p.descr, {p.shape.begin(), p.shape.end()}, *merged});
    absl::StatusOr<std::string> bytes =
        npy::Serialize(npy::Array{p.descr, p.shape, *std::move(merged)});
    if (!bytes.ok()) return Fail(2, std::string(bytes.status().message()));
    files_out.push_back({(fs::path(outputs_dir) / (p.name + ".npy")).string(), *std::move(bytes)});
  }
  if (const std::string golden_path = absl::GetFlag(FLAGS_record_golden); !golden_path.empty()) {
    std::vector<pto::golden::Array> ins;
    for (const Param& p : params) {
      ins.push_back({p.name, p.descr, {p.shape.begin(), p.shape.end()}, p.initial});
    }
    absl::StatusOr<pto::golden::Golden> golden = pto::golden::RecordGolden(
        {opts.input, opts.platform, opts.ranks, opts.backend, "pto-run", "tools/update_goldens.sh"},
        ins, report, golden_outs);
    absl::Status s = golden.ok() ? pto::golden::WriteGoldenFile(golden_path, *golden)
                                 : golden.status();
    if (!s.ok()) return Fail(2, std::string(s.message()));
  }
  OutputFiles outputs;
  if (!outputs_dir.empty()) {
    std::error_code ec;
    fs::create_directories(outputs_dir, ec);
    if (ec) {
      return Fail(1, absl::StrCat("cannot create '", outputs_dir, "': ", ec.message()));
    }
    for (const auto& [path, bytes] : files_out) {
      if (absl::Status s = outputs.Add(path, bytes); !s.ok()) {
        return Fail(1, std::string(s.message()));
      }
    }
  }
  if (absl::Status s = outputs.Commit(); !s.ok()) return Fail(1, std::string(s.message()));
  return 0;
}

// The result line, and the summary table of a simulated run.
void PrintResult(const Options& opts, const pto::platforms::Platform& platform,
                 const Prepared& prep, const pto::sim::RunReport& report) {
  const std::string& name = prep.compiled.lowered->name();
  if (opts.backend == "hw") {
    // Kernel time measured on the devices (tools/hw_run.h); no simulator stats.
    std::printf("pto-run: %s on %d devices (%s): measured kernel time %.3f us\n", name.c_str(),
                opts.ranks, opts.platform.c_str(), report.sim_time_ps() / 1e6);
    return;
  }
  const std::string what =
      prep.chip_entry.empty() ? name : absl::StrCat(name, ".", prep.chosen.name);
  const std::string where =
      prep.chip_entry.empty() ? absl::StrCat(opts.ranks, " ranks") : std::string("1 chip");
  std::printf("pto-run: %s on %s (%s%s): simulated %.3f us; dispatches per card: %s\n",
              what.c_str(), where.c_str(), opts.platform.c_str(),
              absl::GetFlag(FLAGS_timing_only) ? ", timing only" : "",
              report.sim_time_ps() / 1e6, DispatchesPerCard(report).c_str());
  if (absl::GetFlag(FLAGS_summary)) {
    pto::sim::SummaryOptions so;
    so.collective_kernel = absl::GetFlag(FLAGS_collective);
    so.link_bytes_per_s = platform.fabric().link_bandwidth_gbps() * 1e9;
    std::printf("%s", pto::sim::FormatSummary(pto::sim::Summarize(report, so)).c_str());
  }
}

int Main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  absl::StatusOr<pto::passes::Target> target = pto::passes::TargetForPlatform(opts.platform);
  if (!target.ok()) return UsageError(std::string(target.status().message()));
  absl::StatusOr<pto::platforms::Platform> platform = pto::platforms::LoadPlatform(opts.platform);
  if (!platform.ok()) return UsageError(std::string(platform.status().message()));
  const std::optional<std::string> root = RunfilesRoot(argv[0]);
  if (!root.has_value()) {
    return Fail(2, "cannot find the runtime headers and builtin templates (runfiles of pto-run)");
  }
  // `bazel run` starts us in the runfiles tree; paths on the command line
  // are the user's.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr && *wd != '\0') {
    if (chdir(wd) != 0) return Fail(2, absl::StrCat("cannot enter '", wd, "'"));
  }
  if (int rc = CheckFlags(opts, *platform); rc != 0) return rc;
  Prepared prep;
  if (int rc = Prepare(opts, *target, *platform, *root, &prep); rc != 0) return rc;
  EntryFn entry = nullptr;
  if (int rc = Build(opts, *root, prep, &entry); rc != 0) return rc;
  const pto::sim::RunReport report =
      opts.backend == "hw"
          ? pto::tools::RunOnHw({*platform, opts.ranks, absl::GetFlag(FLAGS_kernel_dir)}, entry,
                                prep.params)
          : Simulate(opts, entry, prep.params);
  if (int rc = WriteSideFiles(report); rc != 0) return rc;
  if (int rc = CheckOutcome(report); rc != 0) return rc;
  if (int rc = WriteOutputs(opts, prep.params, report); rc != 0) return rc;
  PrintResult(opts, *platform, prep, report);
  return 0;
}

}  // namespace

// libsystemc's main() calls sc_main; the simulation itself runs in a forked
// child (RunIsolated), since SystemC elaborates once per process.
int sc_main(int argc, char** argv) {
  // Keep the output to the summary and errors: no sc_stop notice.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // A failing run stops the kernel from several agents; the repeat is noise.
  sc_core::sc_report_handler::set_actions("sc_stop has already been called",
                                          sc_core::SC_DO_NOTHING);
  return Main(argc, argv);
}
