// The cycles of one AIV vector instruction, from its kind and shape: the
// rules docs/simulator.md ("Per-instruction costs") derives from pto-isa's
// device-profiled cost-model counts, with the platform's parameters.
#ifndef PTO_SIM_AIV_VECTOR_COST_H_
#define PTO_SIM_AIV_VECTOR_COST_H_

#include "platforms/platform.pb.h"
#include "runtime/device/device_core.h"

namespace pto::sim {

// Repeats of an instruction over `s`: each row costs whole repeats (a row
// narrower than a repeat still costs one).
double VectorRepeats(const platforms::Platform& p, const VecShape& s, int elem_bytes);

double VectorCycles(const platforms::Platform& p, VecOp op, const VecShape& s);

}  // namespace pto::sim

#endif  // PTO_SIM_AIV_VECTOR_COST_H_
