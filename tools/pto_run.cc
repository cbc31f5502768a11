// pto-run: compile a PTO program and run it on the simulator, without a BUILD
// target (docs/pto-run.md).
//
//   pto-run FILE --platform=a2a3|a5 --ranks=N [--inputs=DIR] [--outputs=DIR]
//           [--trace=FILE] [--stats=FILE] [--keep-build=DIR] [--cxx=PATH]
//
// The generated program.cc is compiled with the system C++ compiler into a
// shared object, dlopen()ed, and its RunHost is called inside a simulation
// (in a forked child, like every simulation). This binary exports the
// runtime and simulator symbols the object needs (-rdynamic).
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/passes/target.h"
#include "platforms/platform.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/trace/report.pb.h"
#include "testing/golden/golden_file.h"
#include "testing/golden/recorder.h"
#include "tools/compile_program.h"
#include "tools/npy.h"
#include "tools/run_params.h"

namespace {

namespace fs = std::filesystem;
namespace npy = pto::tools::npy;
using pto::tools::run::Param;

constexpr char kUsage[] = R"(usage: pto-run FILE --platform=a2a3|a5 --ranks=N [options]

Compiles a PTO program (docs/language.md) like pto-compile, builds the
generated C++ with the system compiler, and runs the program's HOST
orchestrator on N simulated chips (docs/simulator.md). Each tensor
parameter of the HOST orchestrator is read from --inputs=DIR/<param>.npy
(a missing file gets a deterministic pattern) and copied to every device;
each pl.Out / pl.InOut parameter is written to --outputs=DIR/<param>.npy
after the run, merged over the devices. See docs/pto-run.md.

options:
  --platform=NAME     a2a3 (910B) or a5 (950); required
  --ranks=N           world size: simulated chips, 1..the platform's maximum
  --inputs=DIR        read <param>.npy for every HOST tensor parameter
  --outputs=DIR       write <param>.npy for every output parameter (created)
  --trace=FILE        write the Perfetto / Chrome JSON trace of the run
  --stats=FILE        write the run statistics (protobuf text of
                      pto.sim.RunReport, sim/trace/report.proto)
  --record-golden=FILE
                      write the run's golden (testing/golden/golden.proto)
  --keep-build=DIR    build in DIR and keep program.cc, entry.cc, program.so
  --cxx=PATH          C++ compiler (default: $CXX, else g++)
  -h, --help          show this help and exit

On success prints one line: ranks, platform, simulated time and the chip
dispatches per card.

exit status: 0 success; 1 the program or its inputs have an error, or the
run failed (the runtime's error text on stderr); 2 usage error or internal
error (including a generated program that does not compile).
)";

struct Options {
  std::string input;
  std::string platform;
  int ranks = 0;
  std::string inputs_dir;
  std::string outputs_dir;
  std::string trace;
  std::string stats;
  std::string record_golden;
  std::string keep_build;
  std::string cxx;
};

int UsageError(const std::string& message) {
  std::cerr << "pto-run: " << message << "\n(see pto-run --help)\n";
  return 2;
}

int Fail(int code, const std::string& message) {
  std::cerr << "pto-run: " << message << "\n";
  return code;
}

// Returns -1 to continue, or an exit status.
int ParseArgs(int argc, char** argv, Options* opts) {
  bool have_ranks = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto flag = [&](const char* name, std::string* out) {
      const std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) != 0) return false;
      *out = a.substr(prefix.size());
      return true;
    };
    std::string ranks;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (flag("--platform", &opts->platform) || flag("--inputs", &opts->inputs_dir) ||
               flag("--outputs", &opts->outputs_dir) || flag("--trace", &opts->trace) ||
               flag("--stats", &opts->stats) || flag("--keep-build", &opts->keep_build) ||
               flag("--cxx", &opts->cxx) || flag("--record-golden", &opts->record_golden)) {
    } else if (flag("--ranks", &ranks)) {
      char* end = nullptr;
      const long n = std::strtol(ranks.c_str(), &end, 10);
      if (ranks.empty() || *end != '\0' || n < 1 || n > 4096) {
        return UsageError("--ranks needs a positive number, not '" + ranks + "'");
      }
      opts->ranks = static_cast<int>(n);
      have_ranks = true;
    } else if (a != "-" && !a.empty() && a[0] == '-') {
      return UsageError("unknown option '" + a + "'");
    } else if (opts->input.empty()) {
      opts->input = a;
    } else {
      return UsageError("more than one input file ('" + opts->input + "' and '" + a + "')");
    }
  }
  if (opts->input.empty()) return UsageError("no input file");
  if (opts->platform.empty()) return UsageError("--platform=a2a3|a5 is required");
  if (!have_ranks) return UsageError("--ranks=N is required");
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
  std::error_code ec;
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

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The C entry the loader looks up, beside the generated program.cc (which
// stays byte-identical to pto-compile's).
constexpr char kEntrySource[] = R"(// pto-run's C entry into the generated program.
#include <vector>

#include "absl/status/status.h"
#include "runtime/api/generated_program.h"

extern "C" void pto_run_entry(pto::rt::Host* host,
                              const std::vector<std::vector<pto::rt::Tensor>>* params,
                              absl::Status* status) {
  *status = pto::generated::RunHost(*host, *params);
}
)";

using EntryFn = void (*)(pto::rt::Host*, const std::vector<std::vector<pto::rt::Tensor>>*,
                         absl::Status*);

// Writes the sources to `dir`, compiles them into program.so and loads it.
absl::StatusOr<EntryFn> BuildAndLoad(const std::string& program_cc, const std::string& dir,
                                     const std::string& root, const std::string& cxx) {
  const fs::path d(dir);
  for (const auto& [name, text] :
       {std::pair<const char*, const std::string>{"program.cc", program_cc},
        {"entry.cc", kEntrySource}}) {
    std::ofstream f(d / name, std::ios::binary);
    f << text;
    if (!f) return absl::InternalError(absl::StrCat("cannot write ", (d / name).string()));
  }
  const std::string so = (d / "program.so").string();
  // -DNDEBUG as the Bazel -c opt build of this binary, so inline runtime
  // code is the same on both sides.
  const std::string cmd = absl::StrCat(
      ShellQuote(cxx), " -std=c++20 -O1 -fPIC -shared -DNDEBUG -I", ShellQuote(root), " -o ",
      ShellQuote(so), " ", ShellQuote((d / "program.cc").string()), " ",
      ShellQuote((d / "entry.cc").string()), " -labsl_statusor -labsl_status -labsl_strings 2>&1");
  std::fflush(nullptr);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("cannot start the C++ compiler");
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) output.append(buf, n);
  const int status = pclose(pipe);
  if (status != 0) {
    return absl::InternalError(absl::StrCat(
        "compiling the generated program failed (internal error; exit status ",
        WIFEXITED(status) ? WEXITSTATUS(status) : -1, ")\ncommand: ", cmd, "\n", output));
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InternalError(absl::StrCat("cannot load ", so, ": ", dlerror()));
  }
  void* sym = dlsym(handle, "pto_run_entry");
  if (sym == nullptr) {
    return absl::InternalError(absl::StrCat("no pto_run_entry in ", so, ": ", dlerror()));
  }
  return reinterpret_cast<EntryFn>(sym);
}

// ---------------------------------------------------------------- run

std::string OutputKey(const Param& p, int device) { return absl::StrCat(p.name, "@", device); }

// The simulation (in a child process): stage every param on every device,
// run the HOST orchestration, collect the output params.
pto::sim::RunReport Simulate(const Options& opts, EntryFn entry, const std::vector<Param>& params) {
  return pto::sim::RunIsolated([&] {
    pto::sim::RunReport r;
    pto::sim::SimOptions o;
    o.platform = opts.platform;
    o.chips = opts.ranks;
    o.trace = !opts.trace.empty();
    absl::StatusOr<std::unique_ptr<pto::sim::SimSystem>> sys = pto::sim::SimSystem::Create(o);
    if (!sys.ok()) {
      r.set_error_code(-2);
      r.set_error_text(std::string(sys.status().message()));
      return r;
    }
    std::vector<std::vector<pto::rt::Tensor>> tensors(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      for (int d = 0; d < opts.ranks; ++d) {
        absl::StatusOr<pto::rt::Tensor> t = (*sys)->Alloc(d, p.initial.size(), p.name);
        absl::Status st = t.status();
        if (st.ok()) {
          t->elem_bytes = static_cast<uint32_t>(p.item);
          t->ndims = static_cast<uint32_t>(p.shape.size());
          for (size_t k = 0; k < p.shape.size(); ++k) t->shape[k] = p.shape[k];
          st = (*sys)->CopyTo(*t, p.initial.data(), p.initial.size());
        }
        if (!st.ok()) {
          r.set_error_code(-3);
          r.set_error_text(
              absl::StrCat("staging '", p.name, "' on device ", d, ": ", st.message()));
          return r;
        }
        tensors[i].push_back(*t);
      }
    }
    absl::Status st;
    entry(sys->get(), &tensors, &st);
    if (!st.ok()) {
      r.set_error_code(-3);
      r.set_error_text(absl::StrCat("HOST orchestration failed: ", st.message()));
      return r;
    }
    r = (*sys)->Run();
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].output) continue;
      for (int d = 0; d < opts.ranks; ++d) {
        std::string bytes(params[i].initial.size(), '\0');
        if ((*sys)->CopyFrom(bytes.data(), tensors[i][d], bytes.size()).ok()) {
          (*r.mutable_outputs())[OutputKey(params[i], d)] = std::move(bytes);
        }
      }
    }
    return r;
  });
}

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
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

// libsystemc's main() prints its banner before calling sc_main unless this is
// set, so set it during static initialisation.
[[maybe_unused]] const bool kNoSystemcBanner =
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", /*overwrite=*/0) == 0;

int Main(int argc, char** argv) {
  Options opts;
  if (int rc = ParseArgs(argc, argv, &opts); rc >= 0) return rc;
  absl::StatusOr<pto::passes::Target> target = pto::passes::TargetForPlatform(opts.platform);
  if (!target.ok()) return UsageError(std::string(target.status().message()));
  absl::StatusOr<pto::platforms::Platform> platform = pto::platforms::LoadPlatform(opts.platform);
  if (!platform.ok()) return UsageError(std::string(platform.status().message()));
  const int max_chips = static_cast<int>(platform->fabric().max_chips());
  if (opts.ranks > max_chips) {
    return UsageError(absl::StrCat("--ranks=", opts.ranks, ": platform '", opts.platform,
                                   "' simulates 1..", max_chips, " chips"));
  }
  const std::optional<std::string> root = RunfilesRoot(argv[0]);
  if (!root.has_value()) {
    return Fail(2, "cannot find the runtime headers and builtin templates (runfiles of pto-run)");
  }
  // `bazel run` starts us in the runfiles tree; paths on the command line
  // are the user's.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr && *wd != '\0') {
    if (chdir(wd) != 0) return Fail(2, absl::StrCat("cannot enter '", wd, "'"));
  }
  if (!opts.inputs_dir.empty() && !fs::is_directory(opts.inputs_dir)) {
    return UsageError("--inputs=" + opts.inputs_dir + ": not a directory");
  }

  pto::tools::CompiledProgram compiled;
  if (int rc = pto::tools::CompileProgram("pto-run", opts.input, *target,
                                          *root + "/runtime/builtins", &compiled);
      rc != 0) {
    return rc;
  }
  absl::StatusOr<std::vector<Param>> params = pto::tools::run::HostParams(compiled.lowered);
  if (!params.ok()) return Fail(1, absl::StrCat(opts.input, ": ", params.status().message()));
  if (absl::Status s = pto::tools::run::LoadInputs(opts.inputs_dir, *params); !s.ok()) {
    return Fail(1, std::string(s.message()));
  }

  // Build in --keep-build=DIR, else in a temporary directory removed at exit.
  std::string build_dir = opts.keep_build;
  if (build_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/pto-run.XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) return Fail(2, "cannot create a temporary directory");
    build_dir = tmpl;
  } else {
    std::error_code ec;
    fs::create_directories(build_dir, ec);
    if (ec) return Fail(2, absl::StrCat("cannot create '", build_dir, "': ", ec.message()));
  }
  absl::StatusOr<EntryFn> entry =
      BuildAndLoad(compiled.bundle.at("program.cc"), build_dir, *root, opts.cxx);
  if (opts.keep_build.empty()) {
    std::error_code ec;
    fs::remove_all(build_dir, ec);  // the loaded object stays mapped
  }
  if (!entry.ok()) return Fail(2, std::string(entry.status().message()));

  pto::sim::RunReport report = Simulate(opts, *entry, *params);
  // A run that failed before the simulation started has no trace.
  if (!opts.trace.empty() && !report.trace_json().empty()) {
    if (absl::Status s = WriteText(opts.trace, report.trace_json()); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
  }
  if (!opts.stats.empty()) {
    pto::sim::RunReport stats = report;
    stats.clear_outputs();
    if (absl::Status s = WriteText(opts.stats, pto::sim::StatsText(stats)); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
  }
  if (report.error_code() != 0) {
    std::string text = absl::StrCat("run failed: ", report.error_text());
    for (const std::string& b : report.blocked()) absl::StrAppend(&text, "\n  blocked: ", b);
    return Fail(1, text);
  }

  std::vector<std::pair<std::string, npy::Array>> outputs;
  for (const Param& p : *params) {
    if (!p.output) continue;
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
    outputs.push_back({p.name, npy::Array{p.descr, p.shape, *std::move(merged)}});
  }
  if (!opts.record_golden.empty()) {
    auto array = [](const std::string& name, const std::string& descr,
                    const std::vector<int64_t>& shape, const std::string& bytes) {
      return pto::golden::Array{name, descr, {shape.begin(), shape.end()}, bytes};
    };
    std::vector<pto::golden::Array> ins, outs;
    for (const Param& p : *params) ins.push_back(array(p.name, p.descr, p.shape, p.initial));
    for (const auto& [name, a] : outputs) outs.push_back(array(name, a.descr, a.shape, a.data));
    absl::StatusOr<pto::golden::Golden> golden = pto::golden::RecordGolden(
        {opts.input, opts.platform, opts.ranks, "sim", "pto-run", "tools/update_goldens.sh"}, ins,
        report, outs);
    absl::Status s = golden.ok() ? pto::golden::WriteGoldenFile(opts.record_golden, *golden)
                                 : golden.status();
    if (!s.ok()) return Fail(2, std::string(s.message()));
  }
  if (!opts.outputs_dir.empty()) {
    std::error_code ec;
    fs::create_directories(opts.outputs_dir, ec);
    if (ec) return Fail(2, absl::StrCat("cannot create '", opts.outputs_dir, "': ", ec.message()));
    for (const auto& [name, array] : outputs) {
      const std::string path = (fs::path(opts.outputs_dir) / (name + ".npy")).string();
      if (absl::Status s = npy::WriteFile(path, array); !s.ok()) {
        return Fail(2, std::string(s.message()));
      }
    }
  }
  std::printf("pto-run: %s on %d ranks (%s): simulated %.3f us; dispatches per card: %s\n",
              compiled.lowered->name().c_str(), opts.ranks, opts.platform.c_str(),
              report.sim_time_ps() / 1e6, DispatchesPerCard(report).c_str());
  return 0;
}

}  // namespace

// libsystemc's main() calls sc_main; the simulation itself runs in a forked
// child (RunIsolated), since SystemC elaborates once per process.
int sc_main(int argc, char** argv) {
  // Keep the output to the summary line and errors: no sc_stop notice.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // A failing run stops the kernel from several agents; the repeat is noise.
  sc_core::sc_report_handler::set_actions("sc_stop has already been called",
                                          sc_core::SC_DO_NOTHING);
  return Main(argc, argv);
}
