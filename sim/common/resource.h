// A bandwidth resource served first come, first served (GM, a link, an MTE
// pipe): a transfer occupies it for bytes / bandwidth. Requests arrive in
// simulated-time order (up to one quantum), so FIFO order shares bandwidth
// between concurrent transfers at transfer (chunk) granularity.
#ifndef PTO_SIM_COMMON_RESOURCE_H_
#define PTO_SIM_COMMON_RESOURCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

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
  // Occupies the resource for `bytes`, starting no earlier than `t`.
  Slot Reserve(Ps t, uint64_t bytes) {
    const Ps start = std::max(t, next_free_);
    const Ps end = start + Duration(bytes);
    next_free_ = end;
    busy_ += end - start;
    bytes_ += bytes;
    ++transfers_;
    return Slot{start, end};
  }

  const std::string& name() const { return name_; }
  Ps busy() const { return busy_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t transfers() const { return transfers_; }
  Ps next_free() const { return next_free_; }

 private:
  std::string name_;
  double ps_per_byte_;
  Ps next_free_ = 0;
  Ps busy_ = 0;
  uint64_t bytes_ = 0;
  uint64_t transfers_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_RESOURCE_H_
