// What the AICPU scheduler, the system and the hang report see of any core
// of a chip, AIV (sim/aiv) or AIC (sim/aic): the block it runs, its state
// for the reports and its statistics. The scheduler dispatches through this
// interface only, so the two core models share no implementation.
#ifndef PTO_SIM_COMMON_CHIP_CORE_H_
#define PTO_SIM_COMMON_CHIP_CORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"
#include "sim/common/time.h"
#include "sim/race/race_detector.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {

class CoreObserver;
class PipePort;
class UrmaPort;

// One block of a task, as the scheduler hands it to a core.
struct BlockAssignment {
  KernelEntry kernel = nullptr;
  std::string kernel_name;
  int64_t task = -1;
  int32_t block_idx = 0;
  int32_t block_num = 1;
  std::vector<const TensorDesc*> tensors;
  std::vector<uint64_t> scalars;
  // Race detection: the task's start clock (its producers and dispatch).
  VectorClock start_clock;
  // A MIX task: the cluster this block's cores form (-1: not a MIX task).
  int32_t cluster = -1;
};

class ChipCore {
 public:
  virtual ~ChipCore() = default;
  // Starts `block` at simulated time `start_at` (>= now).
  virtual void Start(BlockAssignment block, Ps start_at) = 0;
  virtual void set_observer(CoreObserver* o) = 0;
  virtual void set_urma(UrmaPort* u) = 0;
  virtual void set_pipes(PipePort* p) = 0;
  virtual void set_race_detector(RaceDetector* d, int agent) = 0;
  virtual void set_world_chips(int chips) = 0;
  virtual int race_agent() const = 0;
  // Completion conditions registered by the last block (moved out).
  virtual std::vector<uint64_t> TakeDeferred() = 0;
  virtual bool busy() const = 0;
  virtual bool is_aic() const = 0;
  virtual int core_id() const = 0;
  virtual int chip() const = 0;
  virtual bool warm() const = 0;
  virtual const BlockAssignment& block() const = 0;
  // The SystemC module's name ("chip0.aiv3").
  virtual const char* core_name() const = 0;
  // For the blocked-block report; "" when idle.
  virtual std::string DescribeState() const = 0;
  virtual void FillStats(CoreStat* s) const = 0;
  // What a busy block is blocked on, for the hang report: a TWAIT's signal
  // (nullptr otherwise), a full URMA send queue, a cross-core pipe (its
  // description, "" otherwise), the last GM word read by a scalar load.
  virtual const int32_t* wait_signal() const = 0;
  virtual int32_t wait_value() const = 0;
  virtual WaitCmp wait_cmp() const = 0;
  virtual bool waiting_sq() const = 0;
  virtual std::string waiting_pipe() const = 0;
  virtual uint64_t last_scalar_read() const = 0;
  virtual int64_t scalar_reads() const = 0;
  // The last block ran past its deadline (a livelock).
  virtual bool timed_out() const = 0;
  // "its deadline of N ns of simulated time (...)" (sim/aiv/op_deadline.h).
  virtual std::string deadline_text() const = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_CHIP_CORE_H_
