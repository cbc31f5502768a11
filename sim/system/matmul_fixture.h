// The set-up the cube tests share (aic_task_test, mix_task_test): a matmul's
// operands staged on one simulated chip, a callable dispatched with them,
// its output captured, and the golden it is compared with.
#ifndef PTO_SIM_SYSTEM_MATMUL_FIXTURE_H_
#define PTO_SIM_SYSTEM_MATMUL_FIXTURE_H_

#include <cstdint>
#include <vector>

#include "runtime/api/host.h"
#include "sim/trace/report.pb.h"

namespace pto::sim::testing {

// A [rows, k] and B [k, n] in half, from a(i, k) and b(k, j); C [rows, n]
// in float.
struct MatmulOperands {
  uint32_t rows = 0, k = 0, n = 0;
  float (*a)(uint32_t, uint32_t) = nullptr;
  float (*b)(uint32_t, uint32_t) = nullptr;
};

// One chip: allocates A, B and C in that order, stages A and B, dispatches
// `callable` with the tensors {A, B, C} and captures C as output "c".
RunReport RunMatmul(const MatmulOperands& m, const rt::ChipCallable& callable);

// C = A . B + bias: the FP16 values are exact in FP32; products and sums in
// FP32 in k order, as TMATMUL.md's accumulation.
std::vector<float> MatmulGolden(const MatmulOperands& m, float bias = 0);

}  // namespace pto::sim::testing

#endif  // PTO_SIM_SYSTEM_MATMUL_FIXTURE_H_
