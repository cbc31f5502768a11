// The C++ half of the `pypto` Python package (docs/python.md): compile a
// program for a platform and world size the way pto-run does, then run it on
// the simulator. Kept free of pybind11 so it can be tested with gtest.
#ifndef PTO_PYTHON_EXT_SIM_SESSION_H_
#define PTO_PYTHON_EXT_SIM_SESSION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/trace/report.pb.h"
#include "tools/compile_program.h"
#include "tools/run_params.h"

namespace pto::python {

// The shape and NumPy type string of one argument of a call, in the HOST
// orchestrator's parameter order: they bind the program's dynamic dimensions.
struct ArgShape {
  std::string descr;
  std::vector<int64_t> shape;
};

struct CompileRequest {
  std::string source_path;  // the program text, as a file the front end reads
  std::string platform;
  int ranks = 0;
  // The runfiles root: runtime headers, builtin templates, the prelude
  // (tools/program_build.h).
  std::string root;
  // Empty: the dynamic dimensions are bound by the rank count only.
  std::vector<ArgShape> args;
  bool has_args = false;
  // The CHIP orchestration to run of a program without a HOST orchestrator
  // (PyPTO's `compiled["chip_orch_add"]`); empty: pto-run's rule chooses.
  std::string entry;
};

// A program compiled for one platform, world size and argument shapes.
struct Compiled {
  std::string name;
  std::string platform;
  int ranks = 0;
  std::string root;
  std::string program_cc;
  // Every generated file (program.cc, next_levels/<variant>/... of the
  // builtin collectives, compiler/codegen/builtin_kernels.h).
  std::map<std::string, std::string> bundle;
  // The HOST orchestrator's tensors, or the single-chip entry's.
  std::vector<tools::run::Param> params;
  // Empty: the HOST orchestrator runs on `ranks` chips. Else the program has
  // none and this CHIP orchestration (tools/single_chip.h) runs on one chip,
  // as pto-run runs it.
  std::string chip_entry;
  double link_bytes_per_s = 0;
};

// A compile that failed: `text` is the located diagnostic the drivers print
// (FILE:LINE:COL: error: ...), `user_error` false for an internal failure.
struct CompileFailure {
  std::string text;
  bool user_error = true;
};

// Compiles through the front end and the default pipeline (as pto-run does).
// A program without a HOST orchestrator gets pto-run's single-chip entry and
// is compiled for one chip whatever `ranks` is. Returns false and fills `failure` when the program, the platform or the
// argument shapes are rejected.
bool Compile(const CompileRequest& request, Compiled* out, CompileFailure* failure);

// The CHIP orchestrations of the program in `source_path` when it has no
// HOST orchestrator (PyPTO's multi-orchestration L2 program); empty when it
// has one. A program that does not parse is the parser's located error.
absl::StatusOr<std::vector<std::string>> ChipOrchestrations(const std::string& source_path);

struct RunRequest {
  std::vector<std::string> inputs;  // one byte string per param, C order
  std::string cxx = "g++";
  std::string cache_dir;  // empty: build in a temporary directory every time
  bool trace = false;
  bool timing_only = false;
  std::string collective = "__builtin_";
};

struct RunResult {
  pto::sim::RunReport report;              // without outputs
  std::map<std::string, std::string> outputs;  // merged over the devices
  std::string summary;                         // pto-run's summary table
  bool cache_hit = false;
};

// Builds (or takes from the cache) and runs `compiled` on the simulator in a
// forked child, by pto-run's own code (tools/pto_run_sim.h). A failed run is a RunResult whose
// report has a non-zero error_code; a build failure is an error status.
absl::StatusOr<RunResult> Run(const Compiled& compiled, const RunRequest& request);

}  // namespace pto::python

#endif  // PTO_PYTHON_EXT_SIM_SESSION_H_
