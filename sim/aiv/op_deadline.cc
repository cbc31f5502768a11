#include "sim/aiv/op_deadline.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto::sim {

double SlowestRateGbps(const platforms::Platform& p) {
  double rate = p.gm().bandwidth_gbps();
  auto take = [&](double gbps) {
    if (gbps > 0) rate = rate > 0 ? std::min(rate, gbps) : gbps;
  };
  take(p.fabric().link_bandwidth_gbps());
  for (const platforms::FabricTier& t : p.fabric().tiers()) take(t.link_bandwidth_gbps());
  return rate;
}

OpDeadline BlockDeadline(const platforms::Platform& p, uint64_t arg_bytes, int chips) {
  OpDeadline d;
  d.floor_ns = p.timeouts().op_timeout_ns();
  d.work_bytes = arg_bytes * static_cast<uint64_t>(std::max(chips, 1));
  d.rate_gbps = SlowestRateGbps(p);
  d.ns = d.floor_ns;
  if (d.rate_gbps > 0) {
    d.ns += p.timeouts().op_deadline_factor() * static_cast<double>(d.work_bytes) / d.rate_gbps;
  }
  return d;
}

std::string DescribeDeadline(const platforms::Platform& p, const OpDeadline& d) {
  return absl::StrFormat(
      "its deadline of %.0f ns of simulated time (floor %.0f ns + %g x %u bytes at %g GB/s)",
      d.ns, d.floor_ns, p.timeouts().op_deadline_factor(), d.work_bytes, d.rate_gbps);
}

}  // namespace pto::sim
