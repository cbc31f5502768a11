// Simulated time: integer picoseconds, one type for every module (the
// SystemC resolution is 1 ps; sim/common/sc_time.h converts).
#ifndef PTO_SIM_COMMON_TIME_H_
#define PTO_SIM_COMMON_TIME_H_

#include <cmath>
#include <cstdint>

namespace pto::sim {

using Ps = int64_t;  // simulated picoseconds

inline Ps NsToPs(double ns) { return static_cast<Ps>(std::llround(ns * 1000)); }

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_TIME_H_
