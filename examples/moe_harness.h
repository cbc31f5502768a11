// What the MoE examples' mains (moe_dispatch_combine_main.cc and
// moe_fast_dispatch_combine_main.cc) share: the inputs and routing of
// PyPTO's test_l3_ep_dispatch_combine.py, the command line, the simulator's
// set-up, staging the HOST params, reading a rank's row back and the phase
// lines (docs/moe.md).
#ifndef PTO_EXAMPLES_MOE_HARNESS_H_
#define PTO_EXAMPLES_MOE_HARNESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "sim/trace/report.pb.h"

namespace pto::examples::moe {

// An INT8 activation pattern and the gate weights (r + 1) * 0.01 + t * 0.1 +
// k * 0.001, after PyPTO's test.
int8_t X(int r, int t, int d);
float Gate(int r, int t, int k);

// v as FP16 under pl.tile.cast's default mode, "round" (PyPTO, pto-isa
// TCVT): to nearest, ties away from zero; C++'s conversion ties to even.
float RoundFp16TiesAway(float v);

// [ranks][tokens][topk] expert ids, top-k drawn without replacement from
// `experts` (a fixed 64-bit LCG, so every run and every machine routes the
// same).
std::vector<int32_t> Routing(int ranks, int tokens, int topk, int experts);

// The command line: --trace=PATH, --platform=NAME, --timing-only,
// --op-timeout-ms=N, and where the binary takes them --record-golden=FILE
// and --race-detection.
struct Flags {
  std::string trace_path;
  bool trace_asked = false;
  std::string platform = "a2a3";
  bool timing_only = false;
  bool race_detection = false;
  double op_timeout_ms = 0;  // 0: the platform's
  std::string golden_path;   // empty: no golden recorded
};
struct FlagSet {
  bool record_golden = false;
  bool race_detection = false;
};
// False (usage printed) on a flag the binary does not take.
bool ParseFlags(int argc, char** argv, const std::string& default_trace_file, FlagSet set,
                Flags* flags);

// A simulator of `chips` chips as the flags say: the trace unless
// timing-only (or asked for), and --op-timeout-ms as a fixed deadline per
// block instead of the platform's, which grows with the block's work.
absl::StatusOr<std::unique_ptr<sim::SimSystem>> CreateSystem(const Flags& flags, int chips);

// One HOST param: its name, numpy dtype, dims, element size and bytes
// (empty: a zeroed output, or timing-only payload).
struct Param {
  std::string name, dtype;
  std::vector<uint64_t> dims;
  uint32_t elem;
  std::string bytes;
};
// Every param staged on every chip, in order; the error names the param.
absl::StatusOr<std::vector<std::vector<rt::Tensor>>> StageParams(sim::SimSystem& sys,
                                                                 const std::vector<Param>& spec);

// Rank r's row of a HOST param (every device holds the whole logical
// tensor; rank r writes only row r of its copy).
template <typename T>
absl::StatusOr<std::vector<T>> RankRow(sim::SimSystem& sys, const rt::Tensor& copy, int ranks,
                                       int r, size_t row_elems) {
  std::vector<T> all(ranks * row_elems);
  if (absl::Status st = sys.CopyFrom(all.data(), copy, all.size() * sizeof(T)); !st.ok()) {
    return st;
  }
  return std::vector<T>(all.begin() + r * row_elems, all.begin() + (r + 1) * row_elems);
}

// Empty if `got` matches `want` bit for bit, else the first mismatch as
// "name[row, col] = got, want want" (rows of `cols` values).
std::string FirstMismatch(const char* name, const std::vector<float>& got, const float* want,
                          int cols);

// False (said on stderr) if a local expert receives more rows than the
// receive cap: the routing does not fit the program's buffers.
bool WithinCap(const std::vector<int>& expert_rows, int cap);

// A simulated layer: the simulator, every chip's staged params and the run.
struct LayerRun {
  std::unique_ptr<sim::SimSystem> sys;
  std::vector<std::vector<rt::Tensor>> params;
  sim::RunReport report;
};
// Creates the simulator as the flags say, stages `spec`, submits the
// program's host orchestration (`run_host`: the generated RunHost) and runs
// it; the error names the step that failed.
absl::StatusOr<LayerRun> RunLayer(
    const Flags& flags, int chips, const std::vector<Param>& spec,
    absl::FunctionRef<absl::Status(sim::SimSystem&, const std::vector<std::vector<rt::Tensor>>&)>
        run_host);

// True (and the error, time and blocked waits printed) if the run failed.
bool PrintRunFailure(const sim::RunReport& report);

// One kernel's span and, for a phase that moves data (`mean_peer_bytes` >
// 0), NCCL's all-to-all busbw of what a rank sends to its ranks - 1 peers
// over the span, against the full mesh's bound (a tiered fabric, a3, prints
// the bandwidth alone); false (said) if the kernel has no span.
bool PrintPhase(const sim::RunReport& report, const sim::SimSystem& sys, int ranks,
                const char* kernel, const char* label, double mean_peer_bytes, double* seconds);

// The last line of a timing-only run, and the exit status.
int PrintTimingOnlyVerdict(int failures);

// The end of a layer's main: with --race-detection the GM races (one more
// failure if any), the trace (full mode, or when --trace was given), then
// the verdict line; the exit status.
int Finish(const sim::RunReport& report, const Flags& flags, int failures);

}  // namespace pto::examples::moe

#endif  // PTO_EXAMPLES_MOE_HARNESS_H_
