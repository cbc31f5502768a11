// A set of byte ranges [begin, end), kept merged: timing-only mode marks the
// GM bytes a skipped DMA would have written (sim/gm), so a scalar read of
// them can be reported instead of silently steering control flow with
// bytes that were never moved.
#ifndef PTO_SIM_COMMON_INTERVAL_SET_H_
#define PTO_SIM_COMMON_INTERVAL_SET_H_

#include <cstdint>
#include <iterator>
#include <map>

namespace pto::sim {

class IntervalSet {
 public:
  void Add(uint64_t begin, uint64_t end) {
    if (begin >= end) return;
    // Merge with every range that overlaps or touches [begin, end).
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
    while (it != ranges_.end() && it->first <= end) {
      if (it->first < begin) begin = it->first;
      if (it->second > end) end = it->second;
      it = ranges_.erase(it);
    }
    ranges_.emplace(begin, end);
  }

  void Remove(uint64_t begin, uint64_t end) {
    if (begin >= end) return;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    while (it != ranges_.end() && it->first < end) {
      const uint64_t b = it->first;
      const uint64_t e = it->second;
      if (e <= begin) {
        ++it;
        continue;
      }
      it = ranges_.erase(it);
      if (b < begin) ranges_.emplace(b, begin);
      if (e > end) {
        ranges_.emplace(end, e);
        break;
      }
    }
  }

  // True when some byte of [begin, end) is in the set.
  bool Overlaps(uint64_t begin, uint64_t end) const {
    if (begin >= end) return false;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second > begin) return true;
    return it != ranges_.end() && it->first < end;
  }

  // True when every byte of [begin, end) is in the set.
  bool Covers(uint64_t begin, uint64_t end) const {
    if (begin >= end) return true;
    auto it = ranges_.upper_bound(begin);
    if (it == ranges_.begin()) return false;
    --it;
    return it->first <= begin && it->second >= end;
  }

  bool empty() const { return ranges_.empty(); }
  size_t size() const { return ranges_.size(); }

 private:
  std::map<uint64_t, uint64_t> ranges_;  // begin -> end, disjoint, not touching
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_INTERVAL_SET_H_
