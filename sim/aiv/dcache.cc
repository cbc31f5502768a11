#include "sim/aiv/dcache.h"

#include <cstring>

namespace pto::sim {

DataCache::DataCache(uint32_t line_bytes, uint64_t capacity_bytes)
    : line_(line_bytes), max_lines_(capacity_bytes / line_bytes) {}

void DataCache::WriteBack(Entry& e) {
  // The whole line goes out: two cores dirtying one line -> last flush wins.
  std::memcpy(reinterpret_cast<void*>(e.addr), e.data.data(), line_);
  e.dirty = false;
}

DataCache::Access DataCache::Line(uint64_t addr) {
  const uint64_t line = LineOf(addr);
  auto it = index_.find(line);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return Access{lru_.front().data.data(), true, 0};
  }
  int writebacks = 0;
  if (lru_.size() >= max_lines_) {
    Entry& victim = lru_.back();
    if (victim.dirty) {
      WriteBack(victim);
      ++writebacks;
    }
    index_.erase(victim.addr);
    lru_.pop_back();
  }
  Entry e{line, false, std::vector<uint8_t>(line_)};
  std::memcpy(e.data.data(), reinterpret_cast<const void*>(line), line_);
  lru_.push_front(std::move(e));
  index_[line] = lru_.begin();
  return Access{lru_.front().data.data(), false, writebacks};
}

void DataCache::MarkDirty(uint64_t addr) {
  auto it = index_.find(LineOf(addr));
  if (it != index_.end()) it->second->dirty = true;
}

int DataCache::Flush(uint64_t addr, bool invalidate) {
  auto it = index_.find(LineOf(addr));
  if (it == index_.end()) return 0;
  int wb = 0;
  if (it->second->dirty) {
    WriteBack(*it->second);
    wb = 1;
  }
  if (invalidate) {
    lru_.erase(it->second);
    index_.erase(it);
  }
  return wb;
}

int DataCache::FlushAll(bool invalidate) {
  int wb = 0;
  for (Entry& e : lru_) {
    if (e.dirty) {
      WriteBack(e);
      ++wb;
    }
  }
  if (invalidate) {
    lru_.clear();
    index_.clear();
  }
  return wb;
}

}  // namespace pto::sim
