// GM/HBM of one chip: the memory (host allocations standing in for device
// addresses), one bandwidth port shared by every core and peer, a latency,
// atomics applied at the destination, and an event notified on every write
// that a waiter (TWAIT) may observe.
#ifndef PTO_SIM_GM_GM_H_
#define PTO_SIM_GM_GM_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <systemc>

#include "absl/status/statusor.h"
#include "sim/common/resource.h"
#include "platforms/platform.pb.h"

namespace pto::sim {

class Gm : public sc_core::sc_module {
 public:
  Gm(sc_core::sc_module_name name, int chip, const platforms::Platform& platform);

  // Zeroed, 64-byte aligned allocation; `label` names it in reports.
  absl::StatusOr<uint64_t> Alloc(uint64_t bytes, const std::string& label);
  bool Contains(uint64_t addr, uint64_t bytes) const;
  // "c2:label+0x40": stable across runs (no host addresses).
  std::string Describe(uint64_t addr) const;

  BandwidthResource& port() { return port_; }
  Ps latency() const { return latency_; }
  Ps atomic_cost() const { return atomic_; }
  int chip() const { return chip_; }
  uint64_t used_bytes() const { return used_; }

  // A write became visible: wake the waiters of this chip.
  void NotifyWrite() { write_event_.notify(sc_core::SC_ZERO_TIME); }
  const sc_core::sc_event& write_event() const { return write_event_; }

 private:
  struct Region {
    uint64_t bytes;
    std::string label;
    std::unique_ptr<char, void (*)(void*)> storage;
  };
  int chip_;
  uint64_t capacity_;
  uint64_t used_ = 0;
  BandwidthResource port_;
  Ps latency_;
  Ps atomic_;
  std::map<uint64_t, Region> regions_;  // by start address
  sc_core::sc_event write_event_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_GM_GM_H_
