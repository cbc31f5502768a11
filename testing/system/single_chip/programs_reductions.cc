// Row and column reductions and the broadcast (expand) operators: FP32
// [32, 64], PyPTO's FP32 tolerance.
#include <cmath>

#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {
namespace {

constexpr int64_t kR = 32, kC = 64, kN = kR * kC;
const Shape kShape = {kR, kC};

Case Row(double init, const std::function<double(double, double)>& f) {
  const Values x = Uniform(kN, -1, 1, 11);
  return {{Make("x", kShape, x)}, {Make("y", {kR, 1}, RowReduce(x, kR, kC, init, f))}};
}

Case Col(double init, const std::function<double(double, double)>& f) {
  const Values x = Uniform(kN, -1, 1, 12);
  return {{Make("x", kShape, x)}, {Make("y", {1, kC}, ColReduce(x, kR, kC, init, f))}};
}

}  // namespace

void AddReductions(Registry& r) {
  r["row_sum"] = [] { return Row(0, Add); };
  r["row_max"] = [] { return Row(-INFINITY, Max); };
  r["row_min"] = [] { return Row(INFINITY, Min); };
  r["col_sum"] = [] { return Col(0, Add); };
  r["col_max"] = [] { return Col(-INFINITY, Max); };
  r["col_min"] = [] { return Col(INFINITY, Min); };
  r["row_argmax"] = [] {
    const Values x = Uniform(kN, -1, 1, 13);  // ties are improbable in 2^53 steps
    Values idx(kR);
    for (int64_t i = 0; i < kR; ++i) {
      int64_t best = 0;
      for (int64_t j = 1; j < kC; ++j) best = x[i * kC + j] > x[i * kC + best] ? j : best;
      idx[i] = static_cast<double>(best);
    }
    return Case{{Make("x", kShape, x)}, {Make("y", {kR, 1}, idx, DType::kI32, 0, 0)}};
  };
  r["row_expand"] = [] {
    const Values x = Uniform(kN, -1, 1, 14), s = Uniform(kR, 0.5, 2, 15),
                 b = Uniform(kC, -1, 1, 16);
    const Values sum = RowReduce(x, kR, kC, 0, Add);
    Values y(kN);
    for (int64_t i = 0; i < kR; ++i) {
      for (int64_t j = 0; j < kC; ++j) {
        y[i * kC + j] = (x[i * kC + j] - sum[i] / kC) * s[i] + b[j];
      }
    }
    return Case{{Make("x", kShape, x), Make("s", {kR, 1}, s), Make("bias", {1, kC}, b)},
                {Make("y", kShape, y)}};
  };
}

}  // namespace pto::single_chip
