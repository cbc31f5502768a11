// What a core needs from the rest of the model, as interfaces, so the core
// (sim/aiv, sim/aic), the URMA engine (sim/urma) and the system (sim/system) meet
// here and no module depends on another's implementation. The classes they
// name are only declared; a user includes the module it calls.
#ifndef PTO_SIM_COMMON_PORTS_H_
#define PTO_SIM_COMMON_PORTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

namespace pto::sim {

class ChipCore;
class Gm;
class Link;
class Trace;

// The memory system: which chip owns an address, and the links between chips.
class MemorySystem {
 public:
  virtual ~MemorySystem() = default;
  // The chip whose GM holds [addr, addr + bytes), or -1.
  virtual int OwnerChip(uint64_t addr, uint64_t bytes) const = 0;
  virtual Gm& GmOf(int chip) = 0;
  // Links crossed from chip `src` to chip `dst` (empty when equal).
  virtual const std::vector<Link*>& Route(int src, int dst) = 0;
  virtual std::string Describe(uint64_t addr) const = 0;
  virtual Trace& trace() = 0;
  virtual void CountWait() = 0;
};

// The chip's URMA engine as an AICore posts to it (A5 only).
class UrmaPort {
 public:
  virtual ~UrmaPort() = default;
  virtual bool SqFull(int peer) const = 0;
  virtual const sc_core::sc_event& sq_space_event() const = 0;
  // Writes a WQE (write = put) at the SQ head; returns the head after it.
  virtual uint64_t PostWqe(int peer, bool write, uint64_t remote,
                           uint64_t local, uint64_t len) = 0;
  virtual void RingDoorbell(int peer, uint64_t head) = 0;
  // Consumes the peer's completed CQEs (stops at an error CQE, which is left
  // for the scheduler); a poster does this when its SQ is full.
  virtual void DrainCq(int peer) = 0;
};

// The chip's AICPU scheduler, as a core reports to it.
class CoreObserver {
 public:
  virtual ~CoreObserver() = default;
  virtual void BlockDone(ChipCore* core) = 0;
  virtual void KernelError(ChipCore* core, int code, const std::string& msg) = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_PORTS_H_
