// The calibration of the simulator against PyPTO's published all_to_all_v
// baseline (testing/golden/published/a2av_*.textproto): each published row
// re-run on the simulator as it was measured, and our own builtin kernel
// predicted on the same workloads (docs/simulator.md, "Calibration").
#ifndef PTO_TESTING_CALIBRATION_CALIBRATION_H_
#define PTO_TESTING_CALIBRATION_CALIBRATION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/golden/golden.pb.h"

namespace pto::calibration {

// Every row, fit or held out, must be within this of its published figure
// (|simulated / published - 1|, or of a band's nearer edge), except the
// rows NamedMisses() names with the cost the model lacks.
inline constexpr double kTolerance = 0.20;

// Which rows fixed the fitted parameters (gm, fabric, mte3 in
// platforms/a2a3.textproto): the split was declared before fitting.
enum class Set { kFit, kHeld };
const char* SetName(Set s);

// One published row and how it was measured.
struct Workload {
  std::string golden;          // file stem under testing/golden/published
  uint64_t payload_bytes = 0;  // per destination: the max_recv block
  uint64_t tile_bytes = 256;   // the [1, SIZE] INT8 staging tile
  Set set = Set::kHeld;
};

// The six rows of pypto#2521's baseline table.
const std::vector<Workload>& PublishedWorkloads();

// Held-out rows the model misses by more than kTolerance -> the missing cost.
const std::map<std::string, std::string>& NamedMisses();

// Which kernel a run simulates.
enum class KernelKind {
  kMeasured,  // PyPTO's data movement (measured_all_to_all_v.h)
  kOurs,      // runtime/builtins/all_to_all_v, INT8 rendering
};

struct Simulated {
  int64_t kernel_ps = 0;  // the longest rank's task, first block start to end
  int blocks = 0;         // blocks launched per rank
};

// Simulates `w` on `ranks` 910B chips in a child process and checks every
// rank's received bytes and counts. `core_num` only matters for kOurs (the
// measured kernel ran with core_num=1).
absl::StatusOr<Simulated> Simulate(KernelKind kind, int ranks, const Workload& w,
                                   int core_num = 1);

struct Row {
  Workload workload;
  golden::Golden published;
  int64_t published_ps = 0;
  int64_t simulated_ps = 0;   // measured kernel, as measured
  double error = 0;           // simulated / published - 1
  int64_t ours_ps = 0;        // our kernel, core_num=1
  int64_t ours_wide_ps = 0;   // our kernel, core_num=48 (0 if not run)
};

// Reads the published goldens named by PublishedWorkloads() from `files`
// (paths; matched by stem) and simulates each row. `with_ours` adds the
// two predictions of our kernel.
absl::StatusOr<std::vector<Row>> RunCalibration(const std::vector<std::string>& files,
                                                bool with_ours);

// The Markdown table docs/simulator.md carries.
std::string FormatTable(const std::vector<Row>& rows);

// A figure of the same pypto#2521 comment derived from several runs: the
// EP4 / EP2 and EP8 / EP4 time ratios and each EP's remote egress band.
struct DerivedRow {
  std::string name;       // e.g. "EP4 / EP2 at 1 MiB"
  std::string published;  // as the comment gives it
  double lo = 0, hi = 0;  // the published value or band
  double simulated = 0;
  double error = 0;       // 0 inside the band, else off its nearer edge
  Set set = Set::kHeld;
};

// Simulates EP4 at 64 KiB and 1 MiB (the comment gives EP4 only as ratios
// and a band) and derives every ratio and band row from them and `rows`.
absl::StatusOr<std::vector<DerivedRow>> DeriveRows(const std::vector<Row>& rows);
std::string FormatDerived(const std::vector<DerivedRow>& rows);

}  // namespace pto::calibration

#endif  // PTO_TESTING_CALIBRATION_CALIBRATION_H_
