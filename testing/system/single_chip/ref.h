// Reference computations shared by the programs' goldens (row-major, double).
#ifndef PTO_TESTING_SYSTEM_SINGLE_CHIP_REF_H_
#define PTO_TESTING_SYSTEM_SINGLE_CHIP_REF_H_

#include <cmath>
#include <cstdint>
#include <functional>

#include "testing/system/single_chip/golden.h"

namespace pto::single_chip {

inline Values Map(const Values& a, const std::function<double(double)>& f) {
  Values r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = f(a[i]);
  return r;
}

inline Values Zip(const Values& a, const Values& b, const std::function<double(double, double)>& f) {
  Values r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = f(a[i], b[i]);
  return r;
}

// c[m, n] = sum_k a[m, k] * b[k, n] (b_t: b is stored [n, k]).
inline Values Matmul(const Values& a, const Values& b, int64_t m, int64_t k, int64_t n,
                     bool b_t = false) {
  Values c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t x = 0; x < k; ++x) s += a[i * k + x] * (b_t ? b[j * k + x] : b[x * n + j]);
      c[i * n + j] = s;
    }
  }
  return c;
}

// A reduction of each row of a [rows, cols] matrix: [rows] values.
inline Values RowReduce(const Values& a, int64_t rows, int64_t cols, double init,
                        const std::function<double(double, double)>& f) {
  Values r(rows, init);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) r[i] = f(r[i], a[i * cols + j]);
  }
  return r;
}

inline Values ColReduce(const Values& a, int64_t rows, int64_t cols, double init,
                        const std::function<double(double, double)>& f) {
  Values r(cols, init);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) r[j] = f(r[j], a[i * cols + j]);
  }
  return r;
}

inline double Add(double x, double y) { return x + y; }
inline double Max(double x, double y) { return x > y ? x : y; }
inline double Min(double x, double y) { return x < y ? x : y; }
inline double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Row softmax of a [rows, cols] matrix scaled by `scale`.
inline Values Softmax(const Values& a, int64_t rows, int64_t cols, double scale = 1.0) {
  Values r(a.size());
  for (int64_t i = 0; i < rows; ++i) {
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < cols; ++j) m = std::fmax(m, a[i * cols + j] * scale);
    for (int64_t j = 0; j < cols; ++j) s += std::exp(a[i * cols + j] * scale - m);
    for (int64_t j = 0; j < cols; ++j) r[i * cols + j] = std::exp(a[i * cols + j] * scale - m) / s;
  }
  return r;
}

}  // namespace pto::single_chip

#endif  // PTO_TESTING_SYSTEM_SINGLE_CHIP_REF_H_
