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
// Not wired into chips yet (issue 25 point 2): no GM port or link model (GM
// ranges are host memory the caller owns), no trace tracks, no scheduler;
// the harness starts kernels directly.
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
#include "sim/aic/cube_cost.h"
#include "sim/common/time.h"

namespace pto::sim {

class AicCore : public sc_core::sc_module, public DeviceCore, public CubeCore {
 public:
  SC_HAS_PROCESS(AicCore);
  // `platform` must have a cube (CubeSpec); it outlives the core.
  AicCore(sc_core::sc_module_name name, int core_id, const platforms::Platform& platform);

  // Runs `kernel` from simulated time `start_at` (>= now); `done()` fires
  // when it ended and every pipe drained.
  void Start(std::function<void()> kernel, Ps start_at);
  const sc_core::sc_event& done() const { return done_event_; }
  bool busy() const { return busy_; }

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
  // Picoseconds of `cycles` core cycles, and back (rounded).
  Ps Cycles(double cycles) const;
  double ToCycles(Ps ps) const;

  // CubeCore.
  uint8_t* CubeBase(TileKind kind) override { return bufs_[static_cast<int>(kind)].data(); }
  uint64_t CubeBytes(TileKind kind) override { return bufs_[static_cast<int>(kind)].size(); }
  void Cube(const CubeInstr& instr) override;
  void CubeSetFlag(int src_pipe, int dst_pipe, int event_id) override;
  void CubeWaitFlag(int src_pipe, int dst_pipe, int event_id) override;
  void CubePipeBarrier(int pipe) override;

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

  const platforms::Platform& p_;
  int core_id_;
  CubeCost cost_;
  std::vector<uint8_t> bufs_[kNumTileKinds];
  tlm_utils::tlm_quantumkeeper qk_;
  sc_core::sc_event start_event_;
  sc_core::sc_event done_event_;
  std::function<void()> kernel_;
  bool busy_ = false;
  Ps start_at_ = 0;

  Ps pipe_free_[kNumPipes] = {};  // when each pipe's last instruction ends
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
