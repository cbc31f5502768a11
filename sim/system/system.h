// The simulated machine: N chips of one platform joined by the platform's
// fabric, driven by the host API (rt::Host). Build it, stage data, dispatch,
// then Run() once: SystemC elaborates once per process, so a process runs one
// simulation (RunIsolated forks one per run).
#ifndef PTO_SIM_SYSTEM_SYSTEM_H_
#define PTO_SIM_SYSTEM_SYSTEM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/host.h"
#include "sim/common/ports.h"
#include "sim/chip/chip.h"
#include "sim/link/fabric.h"
#include "sim/link/link.h"
#include "platforms/platform.pb.h"
#include "sim/race/race_detector.h"
#include "sim/trace/report.pb.h"
#include "sim/trace/trace.h"

namespace pto::sim {

// Where a run has got to, for progress reports.
struct SimProgress {
  int64_t sim_time_ps = 0;
  int64_t tasks_done = 0;   // over every chip and run
  int64_t tasks_known = 0;  // submitted so far
};

// RunReport.error_code of a run that reported GM races under
// SimOptions::RacePolicy::kFail (outside the runtime's codes, as -1..-3 are;
// docs/errors.md).
inline constexpr int kRaceErrorCode = -4;
// RunReport.error_code of a run in which a whole-line write-back put a stale
// copy over a word another agent had written since the line was filled
// (RunReport.line_clobbers: pto-isa#322, simpler#2273), under
// SimOptions::LostUpdatePolicy::kFail.
inline constexpr int kLostUpdateErrorCode = -5;

struct SimOptions {
  std::string platform = "a2a3";
  int chips = 2;
  bool trace = true;
  double quantum_ns = 1000;  // temporal-decoupling quantum
  // Report unordered GM accesses (RunReport.races). Off by default (it
  // costs wall time per access); the sim tests turn it on.
  bool race_detection = false;
  // What a race report does to the run: kFail ends a run that would succeed
  // with error_code kRaceErrorCode and the races in the error text (so no
  // harness passes a racy program silently); kWarn only lists them in
  // RunReport.races (the race detector's own tests, pto-run --races=warn).
  enum class RacePolicy { kFail, kWarn };
  RacePolicy races = RacePolicy::kFail;
  // What a lost update does to the run: kFail ends a run that would succeed
  // with error_code kLostUpdateErrorCode and the lost words in the error
  // text (on the board the word is simply wrong, which a check may miss);
  // kWarn only lists them in RunReport.line_clobbers.
  enum class LostUpdatePolicy { kFail, kWarn };
  LostUpdatePolicy lost_updates = LostUpdatePolicy::kFail;
  // Timing-only mode (docs/simulator.md): DMAs move no payload bytes and no
  // payload is held; counts, signals and every byte a scalar load reads stay
  // real, so simulated time and statistics equal the full mode's. A scalar
  // read of bytes only a DMA wrote ends the run with code 110.
  bool timing_only = false;
  // Applied to the loaded platform before validation (tests tune timeouts).
  std::function<void(platforms::Platform&)> tweak;
  // When set, Run() advances the kernel in slices of progress_slice_ns of
  // simulated time and calls `progress` between them. Slicing changes no
  // simulated result (tools/test/pto_run_test.sh compares the statistics).
  std::function<void(const SimProgress&)> progress;
  double progress_slice_ns = 10000;
};

class SimSystem : public rt::Host, public MemorySystem, public RunObserver {
 public:
  static absl::StatusOr<std::unique_ptr<SimSystem>> Create(
      const SimOptions& options);
  ~SimSystem() override;

  // rt::Host.
  int device_count() const override { return static_cast<int>(chips_.size()); }
  absl::StatusOr<rt::Domain> CreateDomain(const rt::DomainSpec& spec) override;
  absl::StatusOr<rt::Tensor> Alloc(int device, uint64_t bytes,
                                   const std::string& label) override;
  absl::Status CopyTo(const rt::Tensor& dst, const void* src,
                      uint64_t bytes) override;
  absl::Status CopyFrom(void* dst, const rt::Tensor& src,
                        uint64_t bytes) override;
  absl::Status Dispatch(int device, const rt::ChipCallable& callable,
                        const rt::ChipArgs& args) override;
  absl::Status DispatchGroup(const std::vector<int>& devices,
                             const rt::ChipCallable& callable,
                             const std::vector<rt::ChipArgs>& args) override;

  // Runs until every agent is idle, the run fails, or nothing can progress.
  RunReport Run();

  const platforms::Platform& platform() const { return platform_; }
  Chip& chip(int i) { return *chips_[i]; }

  // MemorySystem.
  int OwnerChip(uint64_t addr, uint64_t bytes) const override;
  Gm& GmOf(int chip) override { return chips_[chip]->gm(); }
  const std::vector<Link*>& Route(int src, int dst) override {
    return fabric_->Route(src, dst);
  }
  std::string Describe(uint64_t addr) const override;
  Trace& trace() override { return trace_; }
  void CountWait() override { ++waits_; }

  // RunObserver.
  void OnFatal(int chip, const rt::ErrorLatch& latch) override;

 private:
  // A named buffer of one rank's window, for the hang report's cell names.
  struct DomainBuffer {
    std::string domain;
    int rank;
    std::string buffer;
    uint64_t addr;
    uint64_t bytes;
    std::vector<int> devices;  // the domain's devices, by rank
  };

  explicit SimSystem(platforms::Platform platform, bool trace);
  absl::Status CheckDevice(int device) const;
  absl::Status CheckCallable(const rt::ChipCallable& c) const;

  platforms::Platform platform_;
  Trace trace_;
  GmIndex gm_index_;  // before chips_: their GMs register here
  std::vector<std::unique_ptr<Chip>> chips_;
  std::unique_ptr<Fabric> fabric_;
  // sim/system/hang_report.cc: fills wait_for, rank_summary, hang_cause.
  class HangDiagnosis;
  void DiagnoseHang(RunReport* r) const;
  const DomainBuffer* FindBuffer(uint64_t addr) const;
  std::string CellName(uint64_t addr) const;
  // sim/system/line_hazards.cc: fills line_clobbers and shared_lines.
  void ReportLineHazards(RunReport* r) const;
  // "TNOTIFY +1 by rank 1 AIV24 task 0 (kernel k) at 3.2 us", or the lost
  // update a whole-line write-back caused.
  std::string WriterText(const CellWrite& w) const;

  std::vector<DomainBuffer> domain_buffers_;
  std::unique_ptr<RaceDetector> races_;
  bool races_fail_ = true;  // SimOptions::races
  bool lost_updates_fail_ = true;  // SimOptions::lost_updates
  int fatal_chip_ = -1;
  int64_t waits_ = 0;
  int error_code_ = 0;
  std::string error_text_;
  bool ran_ = false;
  std::function<void(const SimProgress&)> progress_;
  double progress_slice_ns_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_SYSTEM_SYSTEM_H_
