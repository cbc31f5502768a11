// GM/HBM of one chip: the memory (host allocations standing in for device
// addresses), one bandwidth port shared by every core and peer, a latency,
// atomics applied at the destination, and an event notified on every write
// that a waiter (TWAIT) may observe.
#ifndef PTO_SIM_GM_GM_H_
#define PTO_SIM_GM_GM_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "absl/status/statusor.h"
#include "sim/common/interval_set.h"
#include "sim/common/lazy_buffer.h"
#include "sim/common/resource.h"
#include "platforms/platform.pb.h"

namespace pto::sim {

// One write of a 4-byte signal cell (TNOTIFY), kept for hang reports: the
// last writer of a cell a blocked agent waits on, and every chip that ever
// wrote it (a barrier that lacks one rank's notify names that rank).
struct CellWrite {
  int chip = -1;
  int core = -1;
  bool aic = false;
  int64_t task = -1;
  std::string kernel;
  int block = 0;
  Ps time = 0;       // when the write became visible
  bool add = false;  // AtomicAdd (else Set)
  int32_t value = 0;
  // A lost update: a whole-line write-back of the writer's data cache put
  // `value`, the stale copy it filled, over the cell's newer value `lost`
  // (pto-isa#322). `target` is the word the writer had stored, `by_set`
  // whether that store was a TNOTIFY Set (else scalar stores and a dcci or
  // an eviction). Such a write does not count the writer as a notifier.
  bool line_writeback = false;
  bool by_set = false;
  uint64_t target = 0;
  int32_t lost = 0;
};

// A write-back of a line of which the writer had stored only some bytes:
// the rest went out too (the first such write-back of each line, with the
// union of the stored bytes of all of them). Lines shared by two window
// sub-buffers are found from these (RunReport.shared_lines).
struct PartialWriteBack {
  uint64_t line = 0;
  std::vector<uint8_t> stored;  // per byte: some write-back's writer stored it
  CellWrite by;                 // the first writer
};

// Every GM allocation of the machine by start address, so finding the chip
// that owns an address costs a lookup, not a scan of every chip.
class GmIndex {
 public:
  void Add(uint64_t addr, uint64_t bytes, int chip) { regions_[addr] = {addr + bytes, chip}; }
  // The chip whose allocation holds [addr, addr + bytes), or -1.
  int Owner(uint64_t addr, uint64_t bytes) const {
    auto it = regions_.upper_bound(addr);
    if (it == regions_.begin()) return -1;
    --it;
    return addr + bytes <= it->second.first && addr + bytes >= addr ? it->second.second : -1;
  }

 private:
  std::map<uint64_t, std::pair<uint64_t, int>> regions_;  // start -> (end, chip)
};

class Gm : public sc_core::sc_module {
 public:
  // `timing_only`: DMAs move no payload into this GM (docs/simulator.md,
  // "Timing-only mode"); the bytes they would have written are tracked.
  // `index` (may be null) learns every allocation.
  Gm(sc_core::sc_module_name name, int chip, const platforms::Platform& platform,
     bool timing_only = false, GmIndex* index = nullptr);

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

  // Timing-only mode (docs/simulator.md). Real bytes are those written with
  // their values (scalar store, notify, host or orchestrator copy, a DMA
  // from real bytes); a DMA from anything else copies nothing and marks the
  // bytes it stands for as payload. A read that steers control flow asks
  // HoldsPayload first; a DMA asks HoldsReal whether to copy.
  bool timing_only() const { return timing_only_; }
  void MarkPayload(uint64_t addr, uint64_t bytes) {
    if (!timing_only_) return;
    payload_.Add(addr, addr + bytes);
    real_.Remove(addr, addr + bytes);
  }
  void MarkReal(uint64_t addr, uint64_t bytes) {
    if (!timing_only_) return;
    payload_.Remove(addr, addr + bytes);
    real_.Add(addr, addr + bytes);
  }
  bool HoldsPayload(uint64_t addr, uint64_t bytes) const {
    return timing_only_ && payload_.Overlaps(addr, addr + bytes);
  }
  bool HoldsReal(uint64_t addr, uint64_t bytes) const {
    return !timing_only_ || real_.Overlaps(addr, addr + bytes);
  }

  // Signal-cell writes (addr is 4-byte aligned and in this GM).
  void RecordCellWrite(uint64_t addr, CellWrite w);
  // nullptr when nothing has written the cell through TNOTIFY.
  const CellWrite* LastCellWrite(uint64_t addr) const;
  // Chips that wrote the cell (empty when none).
  std::set<int> CellWriters(uint64_t addr) const;
  // Lost updates (CellWrite.line_writeback), in the order they happened.
  const std::vector<std::pair<uint64_t, CellWrite>>& clobbers() const { return clobbers_; }
  void RecordPartialWriteBack(uint64_t line, uint32_t bytes, const uint8_t* stored,
                              const CellWrite& by);
  // By line address.
  const std::map<uint64_t, PartialWriteBack>& partial_writebacks() const {
    return partial_writebacks_;
  }

  // A write became visible: wake the waiters of this chip.
  void NotifyWrite() { write_event_.notify(sc_core::SC_ZERO_TIME); }
  const sc_core::sc_event& write_event() const { return write_event_; }

 private:
  struct Region {
    uint64_t bytes;
    std::string label;
    LazyBuffer storage;
  };
  int chip_;
  bool timing_only_;
  GmIndex* index_;
  IntervalSet payload_;
  IntervalSet real_;
  uint64_t capacity_;
  uint64_t used_ = 0;
  BandwidthResource port_;
  Ps latency_;
  Ps atomic_;
  std::map<uint64_t, Region> regions_;  // by start address
  sc_core::sc_event write_event_;
  struct CellLog {
    CellWrite last;
    std::set<int> writers;
  };
  std::unordered_map<uint64_t, CellLog> cells_;
  std::vector<std::pair<uint64_t, CellWrite>> clobbers_;
  std::map<uint64_t, PartialWriteBack> partial_writebacks_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_GM_GM_H_
