// One AIC (cube core) as a timed SystemC module: a SystemC thread runs the
// kernel natively with a local time offset (tlm_quantumkeeper), as the AIV
// core does (sim/aiv/aiv_core.h). The scalar unit issues in order and each
// instruction goes to its pipe: MTE2 (GM -> L1), MTE1 (L1 -> L0A/L0B/Bias),
// M (the cube) and FIX (FIXPIPE, L0C -> GM/L1). The pipes run concurrently,
// each in order; set_flag/wait_flag and pipe_barrier order them as on the
// board. Values are computed at issue by cube_api.h's reference semantics, so
// a kernel that leaves two pipes unordered on shared bytes would read other
// values on the board than here: the core faults on it ("missing flag").
//
// In a chip (sim/chip) the core has a memory system and an observer (the
// AICPU scheduler): TLOAD and TSTORE reserve the owning chip's GM port and
// the links to it and pay their latencies, blocks come from the scheduler
// through ChipCore, errors latch through the observer, and every instruction
// draws a slice on its pipe's trace track. Without them (the harness
// constructor) GM is host memory the caller owns and kernels start as plain
// functions.
#ifndef PTO_SIM_AIC_AIC_CORE_H_
#define PTO_SIM_AIC_AIC_CORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

// SystemC before TLM, which does not include it itself.
#include <systemc>
// clang-format off
#include <tlm_utils/tlm_quantumkeeper.h>
// clang-format on

#include "platforms/platform.pb.h"
#include "runtime/device/cube_core.h"
#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"
#include "sim/aic/cube_cost.h"
#include "sim/aiv/op_deadline.h"
#include "runtime/device/pipe_core.h"
#include "sim/common/chip_core.h"
#include "sim/common/cross_core_pipe.h"
#include "sim/common/lazy_buffer.h"
#include "sim/common/pipe_end.h"
#include "sim/common/ports.h"
#include "sim/common/time.h"
#include "sim/trace/trace.h"

namespace pto::sim {

class AicCore : public sc_core::sc_module,
                public DeviceCore,
                public CubeCore,
                public PipeCore,
                public ChipCore {
 public:
  SC_HAS_PROCESS(AicCore);
  // Alone (the harness): `platform` must have a cube (CubeSpec); it outlives
  // the core.
  AicCore(sc_core::sc_module_name name, int core_id, const platforms::Platform& platform);
  // In chip `chip`: GM through `mem`, blocks reported to `observer`.
  AicCore(sc_core::sc_module_name name, int chip, int core_id,
          const platforms::Platform& platform, MemorySystem* mem, CoreObserver* observer);

  // Runs `kernel` from simulated time `start_at` (>= now); `done()` fires
  // when it ended and every pipe drained.
  void Start(std::function<void()> kernel, Ps start_at);
  const sc_core::sc_event& done() const { return done_event_; }

  // The last block: its error (code 0: none) and its instructions with their
  // pipe slots, in issue order.
  struct Record {
    CubeInstr instr;
    int pipe;
    Ps start;
    Ps end;
  };
  int error_code() const { return error_code_; }
  const std::string& error() const { return error_; }
  const std::vector<Record>& records() const { return records_; }
  Ps block_start() const { return block_start_; }
  Ps block_end() const { return block_end_; }
  // Time each pipe was busy in the last block.
  Ps pipe_busy(int pipe) const { return pipe_busy_[pipe]; }

  // ChipCore.
  void Start(BlockAssignment block, Ps start_at) override;
  void set_observer(CoreObserver* o) override { observer_ = o; }
  void set_urma(UrmaPort*) override {}  // the AIC posts no URMA work
  void set_pipes(PipePort* p) override { pipes_ = p; }
  void set_race_detector(RaceDetector* d, int agent) override {
    races_ = d;
    race_agent_ = agent;
  }
  void set_world_chips(int chips) override { world_chips_ = chips; }
  int race_agent() const override { return race_agent_; }
  std::vector<uint64_t> TakeDeferred() override { return {}; }
  bool busy() const override { return busy_; }
  bool is_aic() const override { return true; }
  int core_id() const override { return core_id_; }
  int chip() const override { return chip_; }
  bool warm() const override { return warm_; }
  const BlockAssignment& block() const override { return block_; }
  const char* core_name() const override { return name(); }
  std::string DescribeState() const override;
  void FillStats(CoreStat* s) const override;
  const int32_t* wait_signal() const override { return nullptr; }
  int32_t wait_value() const override { return 0; }
  WaitCmp wait_cmp() const override { return WaitCmp::EQ; }
  bool waiting_sq() const override { return false; }
  std::string waiting_pipe() const override { return waiting_pipe_; }
  uint64_t last_scalar_read() const override { return 0; }
  int64_t scalar_reads() const override { return 0; }
  bool timed_out() const override { return timed_out_; }
  std::string deadline_text() const override { return DescribeDeadline(p_, deadline_info_); }
  // Picoseconds of `cycles` core cycles, and back (rounded).
  Ps Cycles(double cycles) const;
  double ToCycles(Ps ps) const;

  // CubeCore.
  uint8_t* CubeBase(TileKind kind) override { return buf_base_[static_cast<int>(kind)]; }
  uint64_t CubeBytes(TileKind kind) override { return buf_bytes_[static_cast<int>(kind)]; }
  void Cube(const CubeInstr& instr) override;
  void CubeSetFlag(int src_pipe, int dst_pipe, int event_id) override;
  void CubeWaitFlag(int src_pipe, int dst_pipe, int event_id) override;
  void CubePipeBarrier(int pipe) override;

  // PipeCore: the AIC pushes C2V from L0C and pops V2C into L1.
  void* PipeAcquire(const PipeSpec& p, bool push) override;
  void PipeRelease(const PipeSpec& p, bool push) override;

  // DeviceCore: the AIC has no UB and no vector unit; those calls fault.
  uint8_t* UbBase() override { return nullptr; }
  uint64_t UbBytes() override { return 0; }
  void CheckUb(const void* p, uint64_t bytes, const char* what) override;
  void Load(void* ub, const void* gm, uint64_t bytes) override;
  void Store(void* gm, const void* ub, uint64_t bytes) override;
  void Copy(void* dst_gm, const void* src_gm, uint64_t bytes, void* stage_ub,
            uint64_t stage_bytes) override;
  void Notify(int32_t* signal, int32_t value, NotifyOp op) override;
  void Wait(const int32_t* signal, int32_t value, WaitCmp cmp) override;
  void PipeBarrier(Pipe pipe) override { CubePipeBarrier(pipe); }
  void SetFlag(Pipe src, Pipe dst, int event_id) override { CubeSetFlag(src, dst, event_id); }
  void WaitFlag(Pipe src, Pipe dst, int event_id) override { CubeWaitFlag(src, dst, event_id); }
  void Dsb() override;
  void Dcci(const void* gm, DcciMode mode) override;
  void ScalarRead(const void* gm, void* out, int bytes) override;
  void ScalarWrite(void* gm, const void* in, int bytes) override;
  void Vector(VecOp op, const void* dst, const void* a, const void* b, uint64_t bytes) override;
  uint64_t UrmaPost(bool write, void* remote, void* local, uint64_t bytes) override;
  void DeferCompletion(uint64_t handle) override;
  [[noreturn]] void Fault(const char* what) override;

 private:
  struct Abort {};  // unwinds a faulted kernel back to Run()
  // A byte range a pipe reads or writes until `done` (the hazard check).
  struct Pending {
    const uint8_t* begin;
    const uint8_t* end;
    int pipe;
    bool write;
    Ps done;
    CubeOpcode op;
  };

  void Run();
  Ps Now() const;
  void AdvanceTo(Ps t);
  void Sync();
  void Issue();  // one scalar issue slot
  [[noreturn]] void Error(int code, const std::string& msg);
  // Faults when [r) at `start` on `pipe` conflicts with an unfinished access
  // of another pipe (a read after a write, or a write after either).
  void CheckHazard(const CubeRange& r, bool write, int pipe, Ps start, CubeOpcode op);
  // Faults when a local range lies outside its buffer (a tile not placed by
  // TASSIGN) or a GM range is null; GM ownership is not checked yet.
  void CheckRange(const CubeRange& r, CubeOpcode op);
  std::string Describe(const void* p) const;
  Ps AllDone() const;
  // Chip mode: the GM side of a TLOAD (read) or TSTORE (write) starting at
  // `start`; returns when its bytes have landed (port, links, latencies).
  Ps GmTransfer(const CubeRange& r, bool write, Ps start, Ps pipe_end);
  void TraceInstr(const CubeInstr& in, int pipe, Ps start, Ps end);
  // A scalar GM access's issue and, in a chip, its latency; returns the
  // owning chip (0 alone).
  int ScalarGm(const void* gm, int bytes, const char* what, bool read);
  TraceArgs BlockArgs(TraceArgs more = {}) const;

  const platforms::Platform& p_;
  int chip_ = 0;
  int core_id_;
  MemorySystem* mem_ = nullptr;  // null: alone (the harness)
  CoreObserver* observer_ = nullptr;
  RaceDetector* races_ = nullptr;
  int race_agent_ = -1;
  int world_chips_ = 1;
  BlockAssignment block_;
  int64_t args_[kKernelArgSlots] = {};
  LocalContext local_ctx_{};
  GlobalContext global_ctx_{};
  bool warm_ = false;
  bool timed_out_ = false;
  OpDeadline deadline_info_;
  std::string waiting_pipe_;
  PipePort* pipes_ = nullptr;
  // What this core lends its end of the cluster pipes (sim/common/pipe_end.h).
  PipeEnd PipeEndOf();
  // Trace tracks: the core's blocks, then MTE2, MTE1, CUBE (M) and FIXPIPE.
  int track_core_ = -1;
  int track_pipe_[kNumPipes];
  // Statistics over every block.
  int64_t blocks_ = 0;
  Ps busy_ps_ = 0;
  Ps total_busy_[kNumPipes] = {};
  int64_t mte2_bytes_ = 0;
  int64_t fix_bytes_ = 0;
  CubeCost cost_;
  LazyBuffer mem_buf_;  // L1, L0A, L0B, L0C and Bias, back to back
  uint8_t* buf_base_[kNumTileKinds] = {};
  uint64_t buf_bytes_[kNumTileKinds] = {};
  tlm_utils::tlm_quantumkeeper qk_;
  sc_core::sc_event start_event_;
  sc_core::sc_event done_event_;
  std::function<void()> kernel_;
  bool busy_ = false;
  Ps start_at_ = 0;

  Ps pipe_free_[kNumPipes] = {};  // when each pipe's last instruction ends
  // When each pipe's work issued so far is complete: its GM bytes landed
  // (chip mode; pipe_free_ otherwise).
  Ps pipe_done_[kNumPipes] = {};
  Ps pipe_gate_[kNumPipes] = {};  // a pipe's next instruction starts no earlier
  Ps pipe_busy_[kNumPipes] = {};
  // set_flag times not yet consumed by a wait_flag, per (src, dst, event).
  std::map<std::tuple<int, int, int>, std::deque<Ps>> flags_;
  std::vector<Pending> pending_;
  std::vector<Record> records_;
  int error_code_ = 0;
  std::string error_;
  Ps block_start_ = 0;
  Ps block_end_ = 0;
  Ps deadline_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AIC_AIC_CORE_H_
