// Ps to and from the SystemC kernel's time, for the modules (one definition
// instead of a copy in each module's .cc).
#ifndef PTO_SIM_COMMON_SC_TIME_H_
#define PTO_SIM_COMMON_SC_TIME_H_

#include <systemc>

#include "sim/common/time.h"

namespace pto::sim {

// A duration for wait() / notify().
inline sc_core::sc_time PsTime(Ps ps) {
  return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

// The kernel's current time (a core's local time offset not included).
inline Ps Stamp() { return static_cast<Ps>(sc_core::sc_time_stamp().value()); }

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_SC_TIME_H_
