// The AICore scalar data cache: not coherent with GM. Lines are copied in on
// a miss and written back only by dcci or eviction, so a core that forgets
// dcci reads stale data and its stores stay invisible, as on the board
// (runtime-and-sim.md §1.8). DMA (MTE) bypasses it.
#ifndef PTO_SIM_AIV_DCACHE_H_
#define PTO_SIM_AIV_DCACHE_H_

#include <cstddef>
#include <cstdint>
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
  // The line holding `addr` (host address of GM), filled from memory on a miss.
  Access Line(uint64_t addr);
  void MarkDirty(uint64_t addr);
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
  };
  void WriteBack(Entry& e);

  uint32_t line_;
  size_t max_lines_;
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<uint64_t, std::list<Entry>::iterator> index_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AIV_DCACHE_H_
