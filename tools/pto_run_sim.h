// pto-run's simulation of a loaded program (docs/pto-run.md, "How it
// works"), as a library so other drivers (an in-process front end) run a
// program the way pto-run does: every param staged on every device, the
// entry called (the HOST orchestrator, or the single-chip entry of
// tools/single_chip.h), the simulation run, the output copies returned.
#ifndef PTO_TOOLS_PTO_RUN_SIM_H_
#define PTO_TOOLS_PTO_RUN_SIM_H_

#include <functional>
#include <string>
#include <vector>

#include "sim/system/system.h"
#include "sim/trace/report.pb.h"
#include "tools/program_build.h"
#include "tools/run_params.h"

namespace pto::tools::run {

struct SimRunOptions {
  std::string platform = "a2a3";
  int ranks = 1;
  bool trace = false;
  bool timing_only = false;
  // The GM race detector (RunReport.races, docs/simulator.md) and what a
  // race does to the run (by default it fails it).
  bool race_detection = true;
  sim::SimOptions::RacePolicy races = sim::SimOptions::RacePolicy::kFail;
  std::function<void(const sim::SimProgress&)> progress;
  // Called in the child with the finished report (before the outputs are
  // copied back), e.g. a last progress line.
  std::function<void(const sim::RunReport&)> finished;
};

// The key of device `device`'s copy of output `p` in RunReport.outputs.
std::string OutputKey(const Param& p, int device);

// Runs `entry` on a fresh simulated system in a forked child (SystemC
// elaborates once per process; sim/system/isolated_run.h) and returns its
// report with every output param's copy per device. A failure before the
// simulation starts is error_code -2 (the system) or -3 (staging, or the
// entry's own checks) with the text.
sim::RunReport SimulateProgram(const SimRunOptions& options, EntryFn entry,
                               const std::vector<Param>& params);

}  // namespace pto::tools::run

#endif  // PTO_TOOLS_PTO_RUN_SIM_H_
