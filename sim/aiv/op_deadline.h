// The simulated deadline of one kernel block (error 100 past it): a floor
// plus a generous multiple of the block's work at the platform's slowest
// rate, so real work never needs a flag and a livelock still ends
// (docs/simulator.md, "Hangs"). A deadlock is found earlier, by the
// wait-for graph, whatever the deadline.
#ifndef PTO_SIM_AIV_OP_DEADLINE_H_
#define PTO_SIM_AIV_OP_DEADLINE_H_

#include <cstdint>
#include <string>

#include "platforms/platform.pb.h"

namespace pto::sim {

// The slowest of GM bandwidth and every fabric link / tier bandwidth, in
// bytes per ns (GB/s).
double SlowestRateGbps(const platforms::Platform& p);

struct OpDeadline {
  double ns = 0;          // from the block's start
  double floor_ns = 0;    // timeouts.op_timeout_ns
  uint64_t work_bytes = 0;
  double rate_gbps = 0;
};

// The deadline of a block whose tensor args hold `arg_bytes` bytes, on a
// system of `chips` chips: every byte of an arg (a window included) may move
// to or from every chip, so the work is arg_bytes x chips;
// ns = op_timeout_ns + op_deadline_factor x work / SlowestRateGbps.
OpDeadline BlockDeadline(const platforms::Platform& p, uint64_t arg_bytes, int chips);

// "its deadline of N ns of simulated time (floor F ns + K x W bytes at R
// GB/s)", for error and hang reports.
std::string DescribeDeadline(const platforms::Platform& p, const OpDeadline& d);

}  // namespace pto::sim

#endif  // PTO_SIM_AIV_OP_DEADLINE_H_
