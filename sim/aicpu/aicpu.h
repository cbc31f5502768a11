// The AICPU of one chip: the orchestrator agent (runs the chip callables of
// the device's dispatch FIFO, natively, through OrchestratorCore) and the
// scheduler agent (ready queues by core shape, sync-start admission, dispatch
// and completion with the measured control costs of runtime-and-sim.md §1.8).
#ifndef PTO_SIM_AICPU_AICPU_H_
#define PTO_SIM_AICPU_AICPU_H_

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "runtime/api/orchestrator.h"
#include "runtime/core/orchestrator_core.h"
#include "sim/common/chip_core.h"
#include "sim/common/ports.h"
#include "sim/gm/gm.h"
#include "platforms/platform.pb.h"
#include "sim/race/race_detector.h"
#include "sim/trace/report.pb.h"
#include "sim/trace/trace.h"
#include "sim/urma/urma_engine.h"

namespace pto::sim {

// Members of a group dispatch start together (gang scheduling).
struct GroupGate {
  int members = 0;
  int arrived = 0;
  sc_core::sc_event all_arrived;
  // Race detection: a member arrives only after its earlier dispatches
  // finished, so every member's run starts after all of theirs.
  VectorClock clock;
};

struct DispatchEntry {
  rt::ChipCallable callable;
  rt::ChipArgs args;
  std::shared_ptr<GroupGate> group;  // null for a directed dispatch
};

// What the AICPU reports to the system.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnFatal(int chip, const rt::ErrorLatch& latch) = 0;
  virtual void CountWait() = 0;
};

class Aicpu : public sc_core::sc_module,
              public rt::ChipBackend,
              public CoreObserver {
 public:
  SC_HAS_PROCESS(Aicpu);
  Aicpu(sc_core::sc_module_name name, int chip, const platforms::Platform& platform,
        Gm* gm, std::vector<ChipCore*> aiv, std::vector<ChipCore*> aic,
        RunObserver* observer, Trace* trace);

  void Enqueue(DispatchEntry entry);
  // A5: the chip's URMA engine, whose CQs complete deferred tasks.
  void set_urma(UrmaEngine* u);
  // Nothing queued, nothing running.
  bool Idle() const;
  // Lines for the blocked-block report (orchestrator and queued tasks).
  std::vector<std::string> DescribeState() const;
  // The orchestrator's state, for the hang report.
  struct State {
    bool running = false;        // a dispatch is in progress
    bool waiting_group = false;  // at its group's gang-start gate
    std::string callable;        // of the dispatch in progress
    int runs_done = 0;           // dispatches finished
    int queued = 0;              // dispatches behind the current one
    int64_t tasks = 0;           // submitted by the dispatch in progress
    int64_t tasks_done = 0;
    // Sync-start tasks waiting for cores: (task, blocks, AIC shape).
    struct SyncWait {
      int64_t task;
      int blocks;
      bool aic;
    };
    std::vector<SyncWait> sync_waiting;
  };
  State state() const;
  // GM race detection (off unless set).
  void set_race_detector(RaceDetector* d) { races_ = d; }
  const std::vector<TaskStat>& task_stats() const { return task_stats_; }
  // Tasks completed and tasks submitted so far, over every run (progress
  // reports, read while the kernel is paused between sc_start slices).
  std::pair<int64_t, int64_t> TaskProgress() const {
    int64_t known = static_cast<int64_t>(task_stats_.size());
    if (core_ != nullptr && core_run_ == run_index_) {
      known += static_cast<int64_t>(core_->task_count());
    }
    return {static_cast<int64_t>(completion_count_), known};
  }
  // Every run's log_timing lines so far, tagged "c<chip> run<k>: ", runs in
  // dispatch order; includes the run in flight (a run that another chip's
  // fatal error stopped never finishes).
  std::vector<std::string> LogLines() const;
  // Dispatch FIFO and ready queues: entries and highest occupancy.
  void FillQueueStats(RunReport* r) const;

  // rt::ChipBackend.
  int device_id() const override { return chip_; }
  int aiv_count() const override { return static_cast<int>(aiv_.size()); }
  int aic_count() const override { return static_cast<int>(aic_.size()); }
  int kernel_count() const override;
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override;
  void ChargeSubmit() override;
  void OnReady(rt::Task* task) override;
  bool WaitForCompletion(double timeout_ns) override;
  double tensor_wait_timeout_ns() const override {
    return p_.timeouts().tensor_wait_ns();
  }
  double NowNs() const override;
  void ReadMemory(uint64_t addr, void* out, uint64_t bytes) override;
  void WriteMemory(uint64_t addr, const void* in, uint64_t bytes) override;
  void OnFatal(const rt::ErrorLatch& latch) override;

  // CoreObserver.
  void BlockDone(ChipCore* core) override;
  void KernelError(ChipCore* core, int code, const std::string& msg) override;

 private:
  struct Completion {
    Ps visible;
    ChipCore* core;
    int64_t task;
  };
  struct TaskTimes {
    Ps ready = -1;
    Ps start = -1;
    Ps end = -1;
    std::vector<uint64_t> deferred;  // completion conditions still pending
    int cores_done = 0;              // MIX: cores of its blocks that finished
  };

  void Orchestrate();
  void Schedule();
  void ProcessCompletions();
  void PollDeferred();
  void CompleteDummies();
  void CompleteTask(rt::Task* t, Ps end);
  void Dispatch();
  void DispatchMix();
  BlockAssignment BlockOf(const rt::Task* t, int b, int func_id, int cluster) const;
  void DispatchBlock(rt::Task* t, ChipCore* core, int block, Ps* start_at);
  std::vector<ChipCore*>& CoresOf(rt::CoreShape s) {
    return s == rt::CoreShape::kAiv ? aiv_ : aic_;
  }
  int SchedThread(const ChipCore* core) const;
  int ShapeIndex(const ChipCore* core) const;
  Ps FirstTaskHead(const ChipCore* core) const;
  void WaitPs(Ps d);

  const platforms::Platform& p_;
  int chip_;
  Gm* gm_;
  std::vector<ChipCore*> aiv_;
  std::vector<ChipCore*> aic_;
  RunObserver* observer_;
  Trace* trace_;
  int track_orch_;
  std::vector<int> track_sched_;

  std::deque<DispatchEntry> fifo_;
  sc_core::sc_event fifo_event_;
  bool running_ = false;
  bool waiting_group_ = false;
  int run_index_ = 0;
  DispatchEntry current_;
  std::unique_ptr<rt::OrchestratorCore> core_;
  int core_run_ = 0;                   // run_index_ of core_'s run
  std::vector<std::string> log_;       // lines of the runs before core_'s
  std::vector<TaskTimes> times_;
  // Race detection: per task of the current run, its start clock (dispatch
  // + producers) and end clock (join of its blocks); the chip clock joins
  // every finished run, so a later dispatch starts after all of them.
  RaceDetector* races_ = nullptr;
  std::vector<VectorClock> task_start_, task_end_;
  VectorClock chip_clock_;
  std::vector<TaskStat> task_stats_;

  // Scheduler state. Sync-start tasks form a tier ahead of the others.
  std::deque<rt::Task*> sync_queue_[3];  // MIX: unused (refused)
  std::deque<rt::Task*> ready_queue_[3];  // AIV, AIC, MIX
  std::vector<Completion> completions_;
  std::vector<rt::TaskId> deferred_tasks_;
  std::deque<rt::Task*> dummy_ready_;  // dummy tasks whose deps completed
  int64_t fifo_entries_ = 0, fifo_max_ = 0;
  int64_t ready_entries_[3] = {0, 0, 0}, ready_max_[3] = {0, 0, 0};  // all blocks FIN, awaiting CQEs
  UrmaEngine* urma_ = nullptr;
  std::vector<Ps> sched_busy_;
  std::vector<bool> free_[2];  // by shape, index within the shape
  sc_core::sc_event sched_event_;
  sc_core::sc_event completion_event_;
  uint64_t completion_count_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AICPU_AICPU_H_
