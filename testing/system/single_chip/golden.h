// The golden of the single-chip programs of this directory (README.md): for
// each program, the inputs it runs on and the outputs it must produce, with
// the tolerance of the matching PyPTO test (torch.allclose: |got - want| <=
// atol + rtol * |want|). Expected values are computed here in double from
// the same (dtype-rounded) inputs, independently of the compiler and the
// simulator.
#ifndef PTO_TESTING_SYSTEM_SINGLE_CHIP_GOLDEN_H_
#define PTO_TESTING_SYSTEM_SINGLE_CHIP_GOLDEN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace pto::single_chip {

enum class DType { kF32, kF16, kI8, kI32, kI64 };

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

struct Tensor {
  std::string name;  // the entry's parameter (its .npy file)
  DType dtype = DType::kF32;
  Shape shape;
  Values values;  // C order, each exactly representable in `dtype`
  double atol = 0;
  double rtol = 0;
};

struct Case {
  std::vector<Tensor> inputs;    // written as <name>.npy before the run
  std::vector<Tensor> expected;  // pto-run's outputs are checked against these
};

using Registry = std::map<std::string, std::function<Case()>>;

// Every program's case, by the program's file stem.
const Registry& Programs();

// The registrars of each file of programs (programs_*.cc).
void AddElementwise(Registry& r);
void AddReductions(Registry& r);
void AddNorms(Registry& r);
void AddControl(Registry& r);
void AddIndexing(Registry& r);
void AddMatmul(Registry& r);
void AddAttention(Registry& r);

// Rounding to a dtype (nearest even), as a device conversion does.
double RoundF32(double x);
double RoundF16(double x);
double RoundBf16(double x);
double RoundTo(DType t, double x);

int64_t Count(const Shape& s);
// `n` values uniform in [lo, hi), deterministic in `seed`, rounded to `t`.
Values Uniform(int64_t n, double lo, double hi, uint64_t seed, DType t = DType::kF32);
// `n` integers uniform in [lo, hi].
Values Integers(int64_t n, int64_t lo, int64_t hi, uint64_t seed);

// A tensor of `values`, with the tolerance of FP32 results in PyPTO's tests
// (1e-5) unless set.
Tensor Make(std::string name, Shape shape, Values values, DType t = DType::kF32,
            double atol = 1e-5, double rtol = 1e-5);

// Writes `t` as DIR/<name>.npy.
absl::Status Write(const Tensor& t, const std::string& dir);
// Checks DIR/<name>.npy against `want`: dtype, shape, every element within
// the tolerance. Ok, or the first mismatch.
absl::Status Check(const Tensor& want, const std::string& dir);

}  // namespace pto::single_chip

#endif  // PTO_TESTING_SYSTEM_SINGLE_CHIP_GOLDEN_H_
