#include "sim/aiv/dcache.h"

#include <algorithm>
#include <cstring>

namespace pto::sim {

DataCache::DataCache(uint32_t line_bytes, uint64_t capacity_bytes)
    : line_(line_bytes), max_lines_(capacity_bytes / line_bytes) {}

void DataCache::WriteBackLine(Entry& e, bool eviction) {
  if (hook_) {
    hook_(WriteBack{e.addr, line_, e.data.data(), e.fill.data(), e.stored.data(), eviction});
  }
  // The whole line goes out: two cores dirtying one line -> last flush wins.
  std::memcpy(reinterpret_cast<void*>(e.addr), e.data.data(), line_);
  // What GM now holds is what a later write-back would restore.
  e.fill = e.data;
  std::fill(e.stored.begin(), e.stored.end(), 0);
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
      WriteBackLine(victim, /*eviction=*/true);
      ++writebacks;
    }
    index_.erase(victim.addr);
    lru_.pop_back();
  }
  Entry e{line, false, std::vector<uint8_t>(line_), std::vector<uint8_t>(line_),
          std::vector<uint8_t>(line_, 0)};
  std::memcpy(e.data.data(), reinterpret_cast<const void*>(line), line_);
  e.fill = e.data;
  lru_.push_front(std::move(e));
  index_[line] = lru_.begin();
  return Access{lru_.front().data.data(), false, writebacks};
}

void DataCache::MarkDirty(uint64_t addr, uint32_t bytes) {
  auto it = index_.find(LineOf(addr));
  if (it == index_.end()) return;
  Entry& e = *it->second;
  e.dirty = true;
  const uint64_t off = addr - e.addr;
  const uint64_t end = std::min<uint64_t>(off + bytes, line_);
  std::fill(e.stored.begin() + off, e.stored.begin() + end, 1);
}

int DataCache::Flush(uint64_t addr, bool invalidate) {
  auto it = index_.find(LineOf(addr));
  if (it == index_.end()) return 0;
  int wb = 0;
  if (it->second->dirty) {
    WriteBackLine(*it->second, /*eviction=*/false);
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
      WriteBackLine(e, /*eviction=*/false);
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
