// A bandwidth resource (GM, a link, an MTE pipe): a transfer occupies it for
// bytes / bandwidth, in the earliest idle gap at or after its request time.
// Requests arrive in simulated-time order only up to one quantum (local GM
// accesses are not synchronised), so a plain "next free" pointer would make
// a request wait behind one issued up to a quantum in its future; filling
// gaps serves it when the resource is really idle, and the aggregate still
// never exceeds the bandwidth. The last kMaxIntervals busy intervals are
// kept; anything older counts as busy (bounded memory, deterministic).
#ifndef PTO_SIM_COMMON_RESOURCE_H_
#define PTO_SIM_COMMON_RESOURCE_H_

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/time.h"

namespace pto::sim {

struct Slot {
  Ps start;
  Ps end;
};

class BandwidthResource {
 public:
  BandwidthResource(std::string name, double gbps)
      : name_(std::move(name)), ps_per_byte_(1000.0 / gbps) {}

  Ps Duration(uint64_t bytes) const {
    return static_cast<Ps>(std::llround(bytes * ps_per_byte_));
  }
  static constexpr size_t kMaxIntervals = 64;

  // Occupies the resource for `bytes` (plus `fixed`, a per-transfer cost),
  // starting no earlier than `t`.
  Slot Reserve(Ps t, uint64_t bytes, Ps fixed = 0) {
    const Ps d = Duration(bytes) + fixed;
    Ps start = std::max(t, horizon_);
    auto it = std::upper_bound(busy_list_.begin(), busy_list_.end(), start,
                               [](Ps v, const Slot& s) { return v < s.end; });
    while (it != busy_list_.end() && it->start < start + d) {
      start = std::max(start, it->end);
      ++it;
    }
    const Slot slot{start, start + d};
    busy_ += d;
    bytes_ += bytes;
    ++transfers_;
    if (d > 0) Insert(it, slot);
    return slot;
  }

  const std::string& name() const { return name_; }
  Ps busy() const { return busy_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t transfers() const { return transfers_; }
  // The end of the latest reservation.
  Ps next_free() const { return busy_list_.empty() ? horizon_ : busy_list_.back().end; }

 private:
  // Inserts `s` before `it` (s lies in the gap there), merging neighbours it
  // touches, and forgets the oldest interval past kMaxIntervals.
  void Insert(std::vector<Slot>::iterator it, Slot s) {
    if (it != busy_list_.end() && it->start == s.end) {
      it->start = s.start;
    } else {
      it = busy_list_.insert(it, s);
    }
    if (it != busy_list_.begin() && std::prev(it)->end == it->start) {
      std::prev(it)->end = it->end;
      busy_list_.erase(it);
    }
    if (busy_list_.size() > kMaxIntervals) {
      horizon_ = busy_list_.front().end;
      busy_list_.erase(busy_list_.begin());
    }
  }

  std::string name_;
  double ps_per_byte_;
  std::vector<Slot> busy_list_;  // sorted, disjoint
  Ps horizon_ = 0;               // before it, the resource counts as busy
  Ps busy_ = 0;
  uint64_t bytes_ = 0;
  uint64_t transfers_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_RESOURCE_H_
