// One AICore (AIV, or AIC for AIC tasks): a SystemC thread that runs the
// dispatched kernel natively with temporal decoupling (tlm_quantumkeeper).
// MTE2/MTE3 issue in order and the issuing call returns when the transfer
// starts (not when it ends); a UB scoreboard makes later operations on the
// same UB bytes wait, so ping-pong tiles overlap loads and stores.
// Every device-API call adds its modelled cost to the local time; the core
// synchronises with the kernel at communication points (TWAIT, TNOTIFY, link
// transfers) and when its quantum is used up.
#ifndef PTO_SIM_AIV_AIV_CORE_H_
#define PTO_SIM_AIV_AIV_CORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/pipe_core.h"
#include "sim/common/chip_core.h"
#include "sim/common/cross_core_pipe.h"
#include "sim/aiv/dcache.h"
#include "sim/common/interval_set.h"
#include "sim/common/lazy_buffer.h"
#include "sim/common/pipe_end.h"
#include "sim/common/ports.h"
#include "sim/common/resource.h"
#include "sim/aiv/op_deadline.h"
#include "sim/gm/gm.h"
#include "sim/link/link.h"
#include "platforms/platform.pb.h"
#include "sim/race/race_detector.h"
#include "sim/trace/report.pb.h"
#include "sim/trace/trace.h"

namespace pto::sim {

// The rows of one MTE DMA: `rows` rows, `ub_pitch` / `gm_pitch` bytes apart
// (one row: contiguous).
struct DmaRows {
  uint64_t rows = 1;
  uint64_t ub_pitch = 0;
  uint64_t gm_pitch = 0;
};

// "==", ">=", ... for reports.
const char* WaitCmpName(WaitCmp c);

class AivCore : public sc_core::sc_module,
                public DeviceCore,
                public PipeCore,
                public ChipCore {
 public:
  SC_HAS_PROCESS(AivCore);
  AivCore(sc_core::sc_module_name name, int chip, int core_id, bool is_aic,
          int lane, const platforms::Platform& platform, MemorySystem* mem,
          CoreObserver* observer);

  // Starts `block` at simulated time `start_at` (>= now).
  void Start(BlockAssignment block, Ps start_at) override;
  void set_observer(CoreObserver* o) override { observer_ = o; }
  void set_urma(UrmaPort* u) override { urma_ = u; }
  void set_pipes(PipePort* p) override { pipes_ = p; }
  // GM race detection (off unless set): this core is agent `agent`.
  void set_race_detector(RaceDetector* d, int agent) override {
    races_ = d;
    race_agent_ = agent;
  }
  int race_agent() const override { return race_agent_; }
  // Completion conditions registered by the last block (moved out).
  std::vector<uint64_t> TakeDeferred() override { return std::move(deferred_); }
  bool busy() const override { return busy_; }
  bool is_aic() const override { return is_aic_; }
  int core_id() const override { return core_id_; }
  int chip() const override { return chip_; }
  bool warm() const override { return warm_; }
  const BlockAssignment& block() const override { return block_; }
  const char* core_name() const override { return name(); }
  // The running block's task, kernel and block index, then `more`: the args
  // of every trace slice the core draws.
  TraceArgs BlockArgs(TraceArgs more = {}) const {
    TraceArgs a = {{"task", block_.task}, {"kernel", block_.kernel_name},
                   {"block", block_.block_idx}};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  // For the blocked-block report; "" when idle.
  std::string DescribeState() const override;
  // What a busy block is blocked on, for the hang report: the signal of a
  // TWAIT in progress (nullptr otherwise), a full URMA send queue, or the
  // last GM word it read with a scalar load (a spinning block's flag).
  const int32_t* wait_signal() const override { return wait_signal_; }
  int32_t wait_value() const override { return wait_value_; }
  WaitCmp wait_cmp() const override { return wait_cmp_; }
  bool waiting_sq() const override { return waiting_sq_; }
  std::string waiting_pipe() const override { return waiting_pipe_; }
  uint64_t last_scalar_read() const override { return last_read_addr_; }
  int64_t scalar_reads() const override { return block_reads_; }
  // The last block ran past the op timeout (a livelock); its state stays
  // readable after the run stopped.
  bool timed_out() const override { return timed_out_; }
  // The current (or last) block's deadline (sim/aiv/op_deadline.h).
  const OpDeadline& deadline() const { return deadline_info_; }
  std::string deadline_text() const override { return DescribeDeadline(p_, deadline_info_); }
  // The chips of the system: a block's work counts every chip
  // (BlockDeadline); 1 until the chip sets it.
  void set_world_chips(int chips) override { world_chips_ = chips; }
  void FillStats(CoreStat* s) const override;

  // DeviceCore.
  uint8_t* UbBase() override { return ub_.data(); }
  uint64_t UbBytes() override { return ub_bytes_; }
  void CheckUb(const void* p, uint64_t bytes, const char* what) override;
  void Load(void* ub, const void* gm, uint64_t bytes) override;
  void LoadRows(void* ub, uint64_t ub_pitch, const void* gm, uint64_t gm_pitch, uint64_t rows,
                uint64_t row_bytes) override;
  void Store(void* gm, const void* ub, uint64_t bytes) override;
  void StoreAdd(void* gm, const void* ub, uint64_t bytes, AddInto add) override;
  void Copy(void* dst_gm, const void* src_gm, uint64_t bytes, void* stage_ub,
            uint64_t stage_bytes) override;
  void Notify(int32_t* signal, int32_t value, NotifyOp op) override;
  void Wait(const int32_t* signal, int32_t value, WaitCmp cmp) override;
  void PipeBarrier(Pipe pipe) override;
  void SetFlag(Pipe src, Pipe dst, int event_id) override;
  void WaitFlag(Pipe src, Pipe dst, int event_id) override;
  void Dsb() override;
  void Dcci(const void* gm, DcciMode mode) override;
  void ScalarRead(const void* gm, void* out, int bytes) override;
  void ScalarWrite(void* gm, const void* in, int bytes) override;
  void Vector(VecOp op, const void* dst, const void* a, const void* b,
              uint64_t bytes) override;
  void VectorShaped(VecOp op, const void* dst, const void* a, const void* b, uint64_t bytes,
                    const VecShape& shape) override;
  uint64_t UrmaPost(bool write, void* remote, void* local,
                    uint64_t bytes) override;
  void DeferCompletion(uint64_t handle) override;
  [[noreturn]] void Fault(const char* what) override;

  // PipeCore (sim/aiv/aiv_pipes.cc): an AIV lane pops C2V into UB and pushes
  // V2C from UB.
  void* PipeAcquire(const PipeSpec& p, bool push) override;
  void PipeRelease(const PipeSpec& p, bool push) override;

 private:
  // What this core lends its end of the cluster pipes (sim/common/pipe_end.h).
  PipeEnd PipeEndOf();
  PipePort* pipes_ = nullptr;
  std::string waiting_pipe_;
  struct Abort {};  // unwinds a faulted kernel back to Run()

  void Run();
  Ps Now() const;
  void AdvanceTo(Ps t);
  void Advance(Ps d) { AdvanceTo(Now() + d); }
  void Sync();
  void WaitUntil(Ps t);
  [[noreturn]] void Error(int code, const std::string& msg);
  int OwnerOrFault(const void* p, uint64_t bytes, const char* what);
  // Timing-only mode: a read that steers control flow must not see bytes
  // only a (skipped) DMA wrote.
  void CheckReal(int owner, const void* p, uint64_t bytes, const char* what);
  // The cost of a dcache miss on a line of chip `owner`'s GM.
  Ps LineFill(int owner);
  // One MTE2 (GM -> UB) or MTE3 (UB -> GM) transfer: reserves the pipe, the
  // GM port and the links, advances local time to completion.
  void MteLoad(void* ub, const void* gm, uint64_t bytes, bool copy);
  void MteStore(void* gm, const void* ub, uint64_t bytes, bool copy);
  // The shared body of both: MTE2 (load, GM -> UB) or MTE3 (store).
  // `add` (a store only): GM += UB at the destination, after one GM atomic
  // latency more than a plain store.
  // `dma`: the DMA moves dma.rows rows of `bytes` (one row: contiguous).
  void MteMove(bool load, void* ub, void* gm, uint64_t bytes, bool copy,
               AddInto add = nullptr, DmaRows dma = {});
  // The bytes of a DMA from chip `src_chip`'s GM to `dst_chip`'s (-1: UB):
  // copied; in timing-only mode only if the source holds real bytes, else
  // the destination is marked as payload.
  void MoveBytes(void* dst, const void* src, uint64_t bytes, int src_chip, int dst_chip);
  // UB scoreboard: when the in-flight DMAs touching [p, p + bytes) finish.
  Ps UbReady(const void* p, uint64_t bytes);
  void UbBusy(const void* p, uint64_t bytes, Ps until);
  // Latest completion of every DMA issued so far (pipe_barrier(PIPE_ALL)).
  Ps AllDone() const { return std::max(mte2_done_, mte3_done_); }
  Ps Cycles(double c) const;

  const platforms::Platform& p_;
  int chip_;
  int core_id_;
  bool is_aic_;
  MemorySystem* mem_;
  CoreObserver* observer_;
  UrmaPort* urma_ = nullptr;
  RaceDetector* races_ = nullptr;
  int race_agent_ = -1;
  void RecordAccess(const void* gm, uint64_t bytes, bool write, Ps t0, Ps t1);
  // TNOTIFY Set as the platform's pto-isa publishes it (Platform.notify_set):
  // a cached store whose line is written back whole, or an uncached read
  // and an atomic add of the difference. Both leave time at the landing.
  void SetByLineWriteBack(int owner, int32_t* signal, int32_t value);
  void SetByAtomicDelta(int owner, int32_t* signal, int32_t value);
  // The data cache's write-back hook: records the words of the line whose
  // newer GM value the write-back reverts (lost updates) and lines written
  // back with bytes this core never stored (for the shared-line report).
  void OnWriteBack(const DataCache::WriteBack& wb);
  CellWrite Writer(int32_t value, bool add) const;
  // The cell a TNOTIFY Set is writing back (0 outside one).
  uint64_t set_target_ = 0;
  std::vector<uint64_t> deferred_;
  bool waiting_sq_ = false;
  uint64_t ub_bytes_;
  LazyBuffer ub_;  // touched pages only: a timing-only run loads no tiles
  IntervalSet ub_real_;  // timing-only: UB bytes that hold real values
  DataCache dcache_;
  BandwidthResource mte2_;
  BandwidthResource mte3_;
  tlm_utils::tlm_quantumkeeper qk_;
  sc_core::sc_event start_event_;

  struct UbPending {
    const uint8_t* begin;
    const uint8_t* end;
    Ps done;
  };
  std::vector<UbPending> ub_pending_;
  Ps mte2_done_ = 0;
  Ps mte3_done_ = 0;
  static constexpr int kFlagIds = 8;
  Ps flags_[PIPE_ALL + 1][PIPE_ALL + 1][kFlagIds] = {};
  // TNOTIFYs issued while this core's GM writes were still in flight: on the
  // board the signal may overtake the data (a missing pipe_barrier).
  int64_t unfenced_notifies_ = 0;

  BlockAssignment block_;
  int64_t args_[kKernelArgSlots] = {};
  LocalContext local_ctx_{};
  GlobalContext global_ctx_{};
  bool busy_ = false;
  bool warm_ = false;
  Ps block_start_ = 0;
  Ps deadline_ = 0;
  OpDeadline deadline_info_;
  int world_chips_ = 1;
  // TWAIT state for the report.
  const int32_t* wait_signal_ = nullptr;
  int32_t wait_value_ = 0;
  WaitCmp wait_cmp_ = WaitCmp::EQ;
  // Scalar GM reads of the current block, for the livelock report.
  uint64_t last_read_addr_ = 0;
  int64_t block_reads_ = 0;
  bool timed_out_ = false;

  // Statistics.
  int64_t blocks_ = 0;
  Ps busy_ps_ = 0;
  Ps wait_ps_ = 0;
  Ps vector_ps_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int track_core_, track_mte2_, track_mte3_, track_vec_, track_wait_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AIV_AIV_CORE_H_
