// Runs a compiled example program (pto_program) on simulated 910B chips:
// what the example tests share.
#ifndef PTO_EXAMPLES_SIM_RUN_H_
#define PTO_EXAMPLES_SIM_RUN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/trace/report.pb.h"

namespace pto::examples {

// pto::generated::RunHost of a compiled program.
using RunHostFn = absl::Status (*)(rt::Host&, const std::vector<std::vector<rt::Tensor>>&);

// A host_orch tensor param of FP32 elements: one copy per device, element i
// of device d's copy starts as init(d, i).
struct FloatParam {
  std::string name;
  std::vector<uint64_t> dims;
  std::function<float(int device, int64_t i)> init;
};

// Runs `run_host` with `params` (in host_orch order) on `chips` chips of
// `platform` (a2a3 or a5; the program's pto_program platform) in an isolated
// simulation; the report's outputs hold every param's copy on device d after
// the run under "<name>@<d>".
sim::RunReport RunFloatProgram(int chips, const std::vector<FloatParam>& params, RunHostFn run_host,
                               const std::string& platform = "a2a3");

// Device d's copy of `name` after the run (empty if the run did not get
// that far).
std::vector<float> DeviceCopy(const sim::RunReport& report, const std::string& name, int device);

// What the three all_to_all_v examples (examples/all_to_all_v_{chip,host,
// incore}.pto) share: their constants and host params inputs/outputs
// [NR, TOTAL, SIZE].
namespace a2av {

inline constexpr int kNr = 2;
inline constexpr int kMaxRecv = 4;
inline constexpr int kSize = 64;
inline constexpr int kTotal = kNr * kMaxRecv;
inline constexpr int kRankElems = kTotal * kSize;     // one [TOTAL, SIZE] block
inline constexpr int kParamElems = kNr * kRankElems;  // a host param [NR, TOTAL, SIZE]
// The simulator's L3 -> L2 dispatch round trip on 910B (docs/simulator.md).
inline constexpr int64_t kRoundTripPs = 51'000'000;
// The initial content of every copy of `outputs`.
inline constexpr float kOutputInit = -3.0f;

// Device d's copy of `inputs`, element i (deterministic, distinct per copy).
float InputOf(int device, int64_t i);

struct Outcome {
  sim::RunReport report;
  std::vector<std::vector<float>> outputs;  // [device][NR * TOTAL * SIZE]
};

// Runs an example on kNr chips with inputs from InputOf and outputs at
// kOutputInit.
Outcome Run(RunHostFn run_host);

// What an example's pipeline does around the collective, for its golden:
// rank r stages row r of its copy of `inputs` times `stage_scale` and sends
// send_count(d) rows to peer d; rows of a slot that nothing was sent to read
// `unsent` in the output.
struct Golden {
  float stage_scale = 1.0f;
  std::function<int32_t(int dest)> send_count = [](int) { return kMaxRecv; };
  float unsent = 0.0f;
};

// Checks `run` against the all_to_all_v golden of //testing/reference: row r
// of device r's `outputs` is the target of rank r, every row compared, and
// every other row of device r's copy still holds kOutputInit.
absl::Status CheckAgainstGolden(const Outcome& run, const Golden& golden);

}  // namespace a2av

}  // namespace pto::examples

#endif  // PTO_EXAMPLES_SIM_RUN_H_
