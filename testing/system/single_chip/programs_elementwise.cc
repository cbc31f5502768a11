// Elementwise and activation programs: FP32 [32, 64] tiles, PyPTO's FP32
// tolerance (1e-5).
#include <cmath>

#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {
namespace {

constexpr int64_t kR = 32, kC = 64, kN = kR * kC;
const Shape kShape = {kR, kC};

Case Binary(double alo, double ahi, double blo, double bhi,
            const std::function<double(double, double)>& f) {
  const Values a = Uniform(kN, alo, ahi, 1), b = Uniform(kN, blo, bhi, 2);
  return {{Make("a", kShape, a), Make("b", kShape, b)}, {Make("c", kShape, Zip(a, b, f))}};
}

Case Unary(double lo, double hi, const std::function<double(double)>& f) {
  const Values x = Uniform(kN, lo, hi, 3);
  return {{Make("x", kShape, x)}, {Make("y", kShape, Map(x, f))}};
}

}  // namespace

void AddElementwise(Registry& r) {
  r["add"] = [] { return Binary(-1, 1, -1, 1, [](double a, double b) { return a + b; }); };
  r["sub_mul"] = [] { return Binary(-1, 1, -1, 1, [](double a, double b) { return (a - b) * a; }); };
  r["div"] = [] { return Binary(-1, 1, 0.5, 2, [](double a, double b) { return a / b; }); };
  r["max_min"] = [] { return Binary(-1, 1, -1, 1, [](double a, double b) { return std::fabs(a - b); }); };
  r["fmod"] = [] { return Binary(-4, 4, 0.5, 2, [](double a, double b) { return std::fmod(a, b); }); };
  r["axpby"] = [] {
    return Binary(-1, 1, -1, 1, [](double a, double b) { return 2.5 * a - 0.75 * b + 1; });
  };
  r["exp_log"] = [] { return Unary(-4, 4, [](double x) { return std::log(std::exp(x) + 1) - x / 2; }); };
  r["sqrt_rsqrt"] = [] {
    return Unary(0.25, 4, [](double x) { return std::sqrt(x) + 1 / std::sqrt(x) + 1 / x; });
  };
  r["sin_cos"] = [] { return Unary(-3, 3, [](double x) { return std::sin(x) * std::cos(x); }); };
  r["abs_neg"] = [] { return Unary(-1, 1, [](double x) { return std::fabs(x) + x; }); };
  r["relu"] = [] { return Unary(-1, 1, [](double x) { return x > 0 ? x : 0; }); };
  r["sigmoid"] = [] { return Unary(-6, 6, Sigmoid); };
  r["silu"] = [] { return Unary(-6, 6, [](double x) { return x * Sigmoid(x); }); };
  r["gelu"] = [] {
    return Unary(-3, 3, [](double x) {
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    });
  };
  r["leaky_relu"] = [] { return Unary(-1, 1, [](double x) { return x > 0 ? x : 0.1 * x; }); };
  r["softplus"] = [] { return Unary(-4, 4, [](double x) { return std::log1p(std::exp(x)); }); };
  r["add_fp16"] = [] {
    // Each operator rounds its result to FP16; PyPTO's FP16 tolerance (1e-3).
    const Values a = Uniform(kN, -1, 1, 4, DType::kF16), b = Uniform(kN, -1, 1, 5, DType::kF16);
    const Values c = Zip(a, b, [](double x, double y) { return RoundF16(RoundF16(x * y) + x); });
    return Case{{Make("a", kShape, a, DType::kF16), Make("b", kShape, b, DType::kF16)},
                {Make("c", kShape, c, DType::kF16, 1e-3, 1e-3)}};
  };
  r["int32_ops"] = [] {
    const Shape s = {16, 64};
    const Values a = Integers(1024, -1000, 1000, 6), b = Integers(1024, -1000, 1000, 7);
    const Values c = Zip(a, b, [](double x, double y) { return std::fmax(x * y, x + y) - 3; });
    return Case{{Make("a", s, a, DType::kI32), Make("b", s, b, DType::kI32)},
                {Make("c", s, c, DType::kI32, 0, 0)}};
  };
  r["add_3d"] = [] {
    const Shape s = {4, 8, 64};
    const Values a = Uniform(2048, -1, 1, 8), b = Uniform(2048, -1, 1, 9);
    return Case{{Make("a", s, a), Make("b", s, b)},
                {Make("c", s, Zip(a, b, [](double x, double y) { return x + 2 * y; }))}};
  };
  r["cast_fp16"] = [] {
    const Values x = Uniform(kN, -1, 1, 10);
    const Values h = Map(x, [](double v) { return RoundF16(RoundF32(v * 3)); });
    return Case{{Make("x", kShape, x)},
                {Make("y16", kShape, h, DType::kF16, 0, 0),
                 Make("y32", kShape, Map(h, [](double v) { return v + 1; }))}};
  };
  r["cast_bf16"] = [] {
    const Values x = Uniform(kN, -1, 1, 11);
    return Case{{Make("x", kShape, x)},
                {Make("y", kShape, Map(x, [](double v) { return 2 * RoundBf16(v); }), DType::kF32, 0, 0)}};
  };
  r["dequant_int8"] = [] {
    const Values q = Integers(kN, -128, 127, 12), s = Uniform(kC, 0.01, 0.1, 13);
    Values y(kN);
    for (int64_t i = 0; i < kN; ++i) y[i] = q[i] * s[i % kC] + 0.25;
    return Case{{Make("q", kShape, q, DType::kI8), Make("scale", {1, kC}, s)},
                {Make("y", kShape, y)}};
  };
  r["clamp"] = [] { return Unary(-1, 1, [](double x) { return std::fmin(std::fmax(x, -0.5), 0.5); }); };
}

}  // namespace pto::single_chip
