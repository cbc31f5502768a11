// Control flow in kernels and orchestrations (FP32, tolerance 1e-5).
#include <cmath>

#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {

void AddControl(Registry& r) {
  r["if_else"] = [] {
    const Values x = Uniform(64 * 64, -1, 1, 31);
    Values y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      y[i] = i / 64 < 32 ? x[i] * 2 : std::fmax(x[i], 0) - 1;
    }
    return Case{{Make("x", {64, 64}, x)}, {Make("y", {64, 64}, y)}};
  };
  r["for_accumulate"] = [] {
    const Values x = Uniform(32 * 512, -1, 1, 32);
    Values y(32 * 64, 0.0);
    for (int64_t i = 0; i < 32; ++i) {
      for (int64_t k = 0; k < 8; ++k) {
        for (int64_t j = 0; j < 64; ++j) y[i * 64 + j] += x[i * 512 + k * 64 + j];
      }
    }
    return Case{{Make("x", {32, 512}, x)}, {Make("y", {32, 64}, y)}};
  };
  r["while_halve"] = [] {
    const Values x = Uniform(16 * 64, -1, 1, 33);
    return Case{{Make("x", {16, 64}, x), Make("n", {1}, {5}, DType::kI32)},
                {Make("y", {16, 64}, Map(x, [](double v) { return v / 32; }))}};
  };
  r["break_rows"] = [] {
    const Values x = Uniform(64 * 64, -1, 1, 34), y0 = Uniform(64 * 64, -1, 1, 35);
    Values y = y0;
    for (int64_t i = 0; i < 5 * 8 * 64; ++i) y[i] = 3 * x[i];  // blocks 0..4; stop = 5
    return Case{{Make("x", {64, 64}, x), Make("stop", {1}, {5}, DType::kI32),
                 Make("y", {64, 64}, y0)},
                {Make("y", {64, 64}, y)}};
  };
  r["continue_rows"] = [] {
    const Values x = Uniform(64 * 64, -1, 1, 36), y0 = Uniform(64 * 64, -1, 1, 37);
    Values y = y0;
    for (size_t i = 0; i < x.size(); ++i) {
      if ((i / (8 * 64)) % 2 == 0) y[i] = -x[i];
    }
    return Case{{Make("x", {64, 64}, x), Make("y", {64, 64}, y0)}, {Make("y", {64, 64}, y)}};
  };
  r["orch_loop"] = [] {
    const Values x = Uniform(64 * 64, -2, 2, 38);
    return Case{{Make("x", {64, 64}, x)},
                {Make("y", {64, 64}, Map(x, [](double v) { return std::exp(v); }))}};
  };
  r["orch_loop_create"] = [] {
    // exp in FP32 twice: the intermediate rounds to FP32 between the kernels.
    const Values x = Uniform(64 * 64, -2, 2, 39);
    return Case{{Make("x", {64, 64}, x)},
                {Make("y", {64, 64},
                      Map(x, [](double v) { return std::exp(RoundF32(std::exp(v))); }),
                      DType::kF32, 1e-4, 1e-5)}};
  };
}

}  // namespace pto::single_chip
