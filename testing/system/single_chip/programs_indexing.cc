// Gather / scatter through run-time indices and dynamic shapes (FP32).
#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {

void AddIndexing(Registry& r) {
  r["gather_rows"] = [] {
    const Values table = Uniform(64 * 64, -1, 1, 61), idx = Integers(16, 0, 63, 62);
    Values y;
    for (double i : idx) y.insert(y.end(), table.begin() + i * 64, table.begin() + (i + 1) * 64);
    return Case{{Make("table", {64, 64}, table), Make("idx", {16}, idx, DType::kI32)},
                {Make("y", {16, 64}, y, DType::kF32, 0, 0)}};
  };
  r["scatter_rows"] = [] {
    const Values x = Uniform(16 * 64, -1, 1, 63), y0 = Uniform(64 * 64, -1, 1, 64);
    Values idx(16), y = y0;
    for (int64_t i = 0; i < 16; ++i) idx[i] = static_cast<double>((i * 37 + 5) % 64);  // distinct
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t j = 0; j < 64; ++j) y[idx[i] * 64 + j] = 2 * x[i * 64 + j];
    }
    return Case{{Make("x", {16, 64}, x), Make("idx", {16}, idx, DType::kI32), Make("y", {64, 64}, y0)},
                {Make("y", {64, 64}, y, DType::kF32, 0, 0)}};
  };
  r["scatter_add"] = [] {
    const Values x = Uniform(32 * 64, -1, 1, 65), idx = Integers(32, 0, 7, 66);
    Values y(8 * 64, 0.0);
    for (int64_t i = 0; i < 32; ++i) {
      for (int64_t j = 0; j < 64; ++j) y[idx[i] * 64 + j] += x[i * 64 + j];
    }
    return Case{{Make("x", {32, 64}, x), Make("idx", {32}, idx, DType::kI32),
                 Make("y", {8, 64}, Values(8 * 64, 0.0))},
                {Make("y", {8, 64}, y)}};
  };
  r["gather_orch"] = [] {
    const Values blocks = Uniform(128 * 64, -1, 1, 67), idx = {11, 2, 15, 2};
    Values y;
    for (double b : idx) {
      for (int64_t i = 0; i < 8 * 64; ++i) y.push_back(blocks[b * 8 * 64 + i] + 1);
    }
    return Case{{Make("blocks", {128, 64}, blocks), Make("idx", {4}, idx, DType::kI32)},
                {Make("y", {32, 64}, y)}};
  };
  r["dynamic_rows"] = [] {
    const Values x = Uniform(48 * 64, -1, 1, 68);
    return Case{{Make("x", {48, 64}, x)},
                {Make("y", {48, 64}, Map(x, [](double v) { return v * v; }))}};
  };
  r["valid_shape"] = [] {
    const Values x = Uniform(16 * 64, -1, 1, 69), y0 = Uniform(16 * 64, -1, 1, 70);
    Values y = y0;
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t j = 0; j < 40; ++j) y[i * 64 + j] = x[i * 64 + j] + 10;
    }
    return Case{{Make("x", {16, 64}, x), Make("n", {1}, {40}, DType::kI32), Make("y", {16, 64}, y0)},
                {Make("y", {16, 64}, y)}};
  };
}

}  // namespace pto::single_chip
