// The URMA engine of one A5 chip (runtime-and-sim.md §2.6): one send queue
// and one completion queue per destination chip (qp_num = 1). AICores post
// WQEs with owner bits and ring the queue's doorbell; the engine fetches
// WQEs, moves the bytes over the fabric and writes CQEs with owner bits; the
// AICPU scheduler polls the CQ (owner bit against the expected phase) to
// complete tasks that deferred their completion.
#ifndef PTO_SIM_URMA_URMA_ENGINE_H_
#define PTO_SIM_URMA_URMA_ENGINE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "sim/common/ports.h"
#include "sim/common/resource.h"
#include "platforms/platform.pb.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {

struct UrmaWqe {
  uint8_t opcode = 0;  // kWrite (put) or kRead (get)
  bool owner = false;  // phase of the SQ lap it was written in
  uint64_t local = 0;
  uint64_t remote = 0;
  uint64_t len = 0;
};

struct UrmaCqe {
  bool owner = false;  // valid when it differs from the consumer's phase
  uint8_t status = 0;  // 0 = success
  uint32_t wqe_index = 0;
};

class UrmaEngine : public sc_core::sc_module, public UrmaPort {
 public:
  static constexpr uint8_t kWrite = 1;
  static constexpr uint8_t kRead = 2;
  // CQE status codes.
  static constexpr uint8_t kStatusOk = 0;
  static constexpr uint8_t kStatusTooLong = 0x11;
  static constexpr uint8_t kStatusBadAddress = 0x12;

  SC_HAS_PROCESS(UrmaEngine);
  UrmaEngine(sc_core::sc_module_name name, int chip, int chips,
             const platforms::Platform& platform, MemorySystem* mem);

  // Core side. A full SQ blocks the poster until the engine fetches a WQE.
  bool SqFull(int peer) const override;
  const sc_core::sc_event& sq_space_event() const override { return sq_space_; }
  // Writes the WQE at the SQ head with the lap's owner bit; returns the
  // head after the post.
  uint64_t PostWqe(int peer, bool write, uint64_t remote, uint64_t local,
                   uint64_t len) override;
  void RingDoorbell(int peer, uint64_t head) override;
  void DrainCq(int peer) override;

  // Scheduler side: walks the peer's CQ and reports whether the WQE whose
  // post returned `handle` has completed.
  enum class Poll { kReady, kPending, kError };
  Poll PollHandle(uint64_t handle, std::string* error);
  void set_on_cqe(std::function<void()> f) { on_cqe_ = std::move(f); }

  void FillStats(RunReport* r) const;

 private:
  struct Queue {
    std::vector<UrmaWqe> sq;
    std::vector<UrmaCqe> cq;
    uint64_t sq_head = 0;    // next WQE slot to write (core)
    uint64_t sq_tail = 0;    // next WQE to fetch (engine)
    uint64_t doorbell = 0;   // last head rung
    uint64_t cq_head = 0;    // next CQE slot (engine)
    uint64_t cq_tail = 0;    // next CQE to consume (scheduler)
    uint64_t inflight = 0;   // fetched, CQE not yet written
    int64_t wqes = 0;
    int64_t bytes = 0;
    int64_t errors = 0;
    int64_t max_sq_occupancy = 0;
    int track = -1;
  };
  struct Inflight {
    Ps done;
    uint64_t seq;
    int peer;
    UrmaWqe wqe;
    uint32_t index;
    uint8_t status;
  };

  void Run();
  void Fetch();
  void Retire();

  int chip_;
  const platforms::Platform& p_;
  MemorySystem* mem_;
  uint32_t sq_depth_;
  uint32_t cq_depth_;
  std::vector<Queue> queues_;  // by destination chip
  std::vector<Inflight> inflight_;
  uint64_t seq_ = 0;
  Ps engine_busy_ = 0;
  sc_core::sc_event doorbell_;
  sc_core::sc_event sq_space_;
  std::function<void()> on_cqe_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_URMA_URMA_ENGINE_H_
