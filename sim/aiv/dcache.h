// The AICore scalar data cache: not coherent with GM. Lines are copied in on
// a miss and written back only by dcci or eviction, so a core that forgets
// dcci reads stale data and its stores stay invisible, as on the board
// (runtime-and-sim.md §1.8). DMA (MTE) bypasses it.
//
// A write-back writes the WHOLE line, the bytes this core never stored
// included (pto-isa#322): a word another agent changed in GM since the fill
// reverts to the stale copy. The write-back hook sees every write-back
// before it lands, so the core can report such lost updates.
#ifndef PTO_SIM_AIV_DCACHE_H_
#define PTO_SIM_AIV_DCACHE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <unordered_map>
#include <vector>

namespace pto::sim {

class DataCache {
 public:
  DataCache(uint32_t line_bytes, uint64_t capacity_bytes);

  struct Access {
    uint8_t* data;   // the cached copy of the line
    bool hit;
    int writebacks;  // dirty lines evicted to make room
  };
  // One dirty line on its way out; GM at `line` still holds the old bytes.
  struct WriteBack {
    uint64_t line;           // host address of the line in GM
    uint32_t bytes;          // the line size
    const uint8_t* data;     // what is written: the cached copy
    const uint8_t* fill;     // the line as it was read from GM at the fill
    const uint8_t* stored;   // per byte: nonzero when this core stored it
    bool eviction;           // made room for another line (else a dcci)
  };
  using WriteBackHook = std::function<void(const WriteBack&)>;
  void set_writeback_hook(WriteBackHook hook) { hook_ = std::move(hook); }

  // The line holding `addr` (host address of GM), filled from memory on a miss.
  Access Line(uint64_t addr);
  // The core stored [addr, addr + bytes) (inside one line) into the cache.
  void MarkDirty(uint64_t addr, uint32_t bytes);
  // Writes back (if dirty) and optionally drops the line; returns writebacks.
  int Flush(uint64_t addr, bool invalidate);
  int FlushAll(bool invalidate);
  uint64_t LineOf(uint64_t addr) const { return addr & ~uint64_t{line_ - 1}; }
  uint32_t line_bytes() const { return line_; }

 private:
  struct Entry {
    uint64_t addr;
    bool dirty;
    std::vector<uint8_t> data;
    std::vector<uint8_t> fill;    // GM's bytes at the fill
    std::vector<uint8_t> stored;  // bytes stored since the fill
  };
  void WriteBackLine(Entry& e, bool eviction);

  uint32_t line_;
  size_t max_lines_;
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<uint64_t, std::list<Entry>::iterator> index_;
  WriteBackHook hook_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AIV_DCACHE_H_
