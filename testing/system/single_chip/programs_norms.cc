// Softmax and normalization programs (FP32, PyPTO's tolerance 1e-5).
#include <cmath>

#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {
namespace {

// (x - mean) * inv * gamma + beta per row; `center` false: RMSNorm's x * inv * gamma.
Values Norm(const Values& x, int64_t rows, int64_t cols, const Values& gamma, const Values& beta,
            double eps, bool center) {
  Values y(x.size());
  for (int64_t i = 0; i < rows; ++i) {
    double mean = 0;
    if (center) {
      for (int64_t j = 0; j < cols; ++j) mean += x[i * cols + j];
      mean /= cols;
    }
    double sq = 0;
    for (int64_t j = 0; j < cols; ++j) sq += (x[i * cols + j] - mean) * (x[i * cols + j] - mean);
    const double inv = 1 / std::sqrt(sq / cols + eps);
    for (int64_t j = 0; j < cols; ++j) {
      y[i * cols + j] = (x[i * cols + j] - mean) * inv * gamma[j] + (center ? beta[j] : 0);
    }
  }
  return y;
}

}  // namespace

void AddNorms(Registry& r) {
  r["softmax"] = [] {
    const Values a = Uniform(64 * 64, -3, 3, 21);
    return Case{{Make("a", {64, 64}, a)}, {Make("output", {64, 64}, Softmax(a, 64, 64))}};
  };
  r["softmax_blocks"] = [] {
    const Values x = Uniform(128 * 128, -8, 8, 22);
    return Case{{Make("x", {128, 128}, x)}, {Make("y", {128, 128}, Softmax(x, 128, 128, 0.125))}};
  };
  r["log_softmax"] = [] {
    const Values x = Uniform(32 * 64, -3, 3, 23);
    const Values p = Softmax(x, 32, 64);
    return Case{{Make("x", {32, 64}, x)},
                {Make("y", {32, 64}, Map(p, [](double v) { return std::log(v); }))}};
  };
  r["rms_norm"] = [] {
    const Values x = Uniform(32 * 128, -2, 2, 24), g = Uniform(128, 0.5, 1.5, 25);
    return Case{{Make("x", {32, 128}, x), Make("gamma", {1, 128}, g)},
                {Make("y", {32, 128}, Norm(x, 32, 128, g, {}, 1e-6, false))}};
  };
  r["layer_norm"] = [] {
    const Values x = Uniform(32 * 128, -2, 2, 26), g = Uniform(128, 0.5, 1.5, 27),
                 b = Uniform(128, -0.5, 0.5, 28);
    return Case{{Make("x", {32, 128}, x), Make("gamma", {1, 128}, g), Make("beta", {1, 128}, b)},
                {Make("y", {32, 128}, Norm(x, 32, 128, g, b, 1e-5, true))}};
  };
  r["swiglu"] = [] {
    const Values g = Uniform(32 * 64, -4, 4, 29), u = Uniform(32 * 64, -1, 1, 30);
    return Case{{Make("gate", {32, 64}, g), Make("up", {32, 64}, u)},
                {Make("y", {32, 64}, Zip(g, u, [](double a, double b) { return a * Sigmoid(a) * b; }))}};
  };
}

}  // namespace pto::single_chip
