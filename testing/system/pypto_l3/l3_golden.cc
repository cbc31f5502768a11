// The golden of the PyPTO-style L3 programs of this directory (README.md).
//
//   l3_golden inputs PROGRAM DIR   writes the inputs PROGRAM runs on (PyPTO's
//                                  test values), as DIR/<param>.npy
//   l3_golden check PROGRAM DIR    checks pto-run's outputs DIR/<param>.npy
//
// Programs without inputs here run on pto-run's deterministic pattern
// (docs/pto-run.md, "Inputs"), which is computed here too. Every value
// involved is exact in FP32, so outputs are compared exactly.
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/npy.h"

namespace {

using Values = std::vector<float>;
using Shape = std::vector<int64_t>;

// pto-run's FP32 input pattern: element i is ((i * 31 + 7) % 1021) * 0.25 - 64.
Values Pattern(int64_t n) {
  Values v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * 31 + 7) % 1021) * 0.25 - 64);
  return v;
}

Values Fill(int64_t n, float x) { return Values(n, x); }

int64_t Count(const Shape& s) { return pto::tools::npy::NumElements(s); }

struct Tensor {
  std::string name;
  Shape shape;
  Values values;
};

struct Program {
  std::vector<Tensor> inputs;    // written by `inputs` (none: pto-run's pattern)
  std::vector<Tensor> expected;  // checked by `check`
};

Program RankSlice() {
  const Shape s = {2, 8, 32};
  Values y = Pattern(Count(s));
  for (float& v : y) v += 1.0f;
  return {{}, {{"y", s, y}}};
}

Program InlineKernel() {
  const Shape s = {2, 4, 64};
  const int64_t n = Count(s), rows = 4, cols = 64;
  const Values a = Pattern(n), b = Pattern(n);
  Values sum(n), diff(n);
  for (int64_t i = 0; i < n; ++i) sum[i] = a[i] + b[i];
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = (r * rows + row) * cols + c;
        const int64_t j = (r * rows + rows - 1 - row) * cols + c;
        diff[i] = a[i] - b[j];
      }
    }
  }
  return {{}, {{"sum_out", s, sum}, {"diff_out", s, diff}}};
}

// PyPTO's L3 tests fill a with 2 and b with 3: a + b = 5, a - b = -1.
Program TupleReturn() {
  const Shape s = {128, 64};
  const int64_t n = Count(s);
  return {{{"x", s, Fill(n, 2)}, {"y", s, Fill(n, 3)}},
          {{"total", s, Fill(n, 5)}, {"delta", s, Fill(n, -1)}}};
}

Program L3Add() {
  const Shape s = {128, 128};
  const int64_t n = Count(s);
  return {{{"a", s, Fill(n, 2)}, {"b", s, Fill(n, 3)}}, {{"f", s, Fill(n, 5)}}};
}

Program Dependency() {
  const Shape s = {128, 128};
  const int64_t n = Count(s);
  return {{{"a", s, Fill(n, 2)}, {"b", s, Fill(n, 3)}},
          {{"sum_buf", s, Fill(n, 5)}, {"sub_buf", s, Fill(n, -1)}}};
}

// y = x + x written row by row; z = x * x written in two column halves.
Program SliceRows() {
  const Shape s = {2, 8, 64};
  const Values x = Pattern(Count(s));
  Values y(x.size()), z(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = x[i] + x[i];
    z[i] = x[i] * x[i];
  }
  return {{}, {{"y", s, y}, {"z", s, z}}};
}

// y = x + x; w[r][b][i][c] = x[r][4b + i][c]^2, chunk by chunk.
Program CreateAssemble() {
  const Shape s = {2, 8, 64};
  const Values x = Pattern(Count(s));
  Values y(x.size()), w(x.size());
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t row = 0; row < 8; ++row) {
      for (int64_t c = 0; c < 64; ++c) {
        const int64_t i = (r * 8 + row) * 64 + c;
        y[i] = x[i] + x[i];
        // w[r] is [2, 4, 64]: block row / 4, row row % 4 - the same element.
        w[((r * 2 + row / 4) * 4 + row % 4) * 64 + c] = x[i] * x[i];
      }
    }
  }
  return {{}, {{"y", s, y}, {"w", {2, 2, 4, 64}, w}}};
}

// y = x + x, one row per call of the windowed kernel.
Program WindowizeRows() {
  const Shape s = {2, 8, 64};
  Values y = Pattern(Count(s));
  for (float& v : y) v += v;
  return {{}, {{"y", s, y}}};
}

// c[r] = a[r] @ b (PyPTO's test_l3_gemm, a sharded by rank, b replicated).
// The inputs are multiples of 1/4 and 1/2 below 2, so every product and
// partial sum of the 64-term dot products is exact in FP32: any summation
// order gives these values.
Program L3Gemm() {
  constexpr int64_t kRanks = 2, kM0 = 64, kK = 64, kN = 64;
  Values a(kRanks * kM0 * kK), b(kK * kN), c(kRanks * kM0 * kN, 0.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 9) * 0.25f - 1.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 7) * 0.5f - 1.5f;
  for (int64_t r = 0; r < kRanks; ++r) {
    for (int64_t i = 0; i < kM0; ++i) {
      for (int64_t j = 0; j < kN; ++j) {
        double s = 0;
        for (int64_t p = 0; p < kK; ++p) s += double{a[(r * kM0 + i) * kK + p]} * b[p * kN + j];
        c[(r * kM0 + i) * kN + j] = static_cast<float>(s);
      }
    }
  }
  return {{{"a", {kRanks, kM0, kK}, a}, {"b", {kK, kN}, b}}, {{"c", {kRanks, kM0, kN}, c}}};
}

const std::map<std::string, std::function<Program()>>& Programs() {
  static const auto* programs = new std::map<std::string, std::function<Program()>>{
      {"rank_slice", RankSlice}, {"inline_kernel", InlineKernel}, {"tuple_return", TupleReturn},
      {"l3_add", L3Add},         {"dependency", Dependency},
      {"slice_rows", SliceRows}, {"create_assemble", CreateAssemble},
      {"windowize_rows", WindowizeRows}, {"l3_gemm", L3Gemm}};
  return *programs;
}

int WriteInputs(const Program& p, const std::string& dir) {
  for (const Tensor& t : p.inputs) {
    pto::tools::npy::Array a{"<f4", t.shape, std::string(t.values.size() * 4, '\0')};
    std::memcpy(a.data.data(), t.values.data(), a.data.size());
    if (absl::Status s = pto::tools::npy::WriteFile(absl::StrCat(dir, "/", t.name, ".npy"), a);
        !s.ok()) {
      std::cerr << s << "\n";
      return 1;
    }
  }
  return 0;
}

bool Check(const Tensor& want, const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", want.name, ".npy");
  absl::StatusOr<pto::tools::npy::Array> got = pto::tools::npy::ReadFile(path);
  if (!got.ok()) {
    std::cout << path << ": " << got.status() << "\n";
    return false;
  }
  if (got->descr != "<f4" || got->shape != want.shape) {
    std::cout << path << ": " << got->descr << " " << pto::tools::npy::ShapeString(got->shape)
              << ", want <f4 " << pto::tools::npy::ShapeString(want.shape) << "\n";
    return false;
  }
  Values v(want.values.size());
  std::memcpy(v.data(), got->data.data(), v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != want.values[i]) {
      std::cout << path << ": element " << i << " is " << v[i] << ", want " << want.values[i]
                << "\n";
      return false;
    }
  }
  std::cout << path << ": " << v.size() << " elements match\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[1]) != "inputs" && std::string(argv[1]) != "check")) {
    std::cerr << "usage: l3_golden inputs|check PROGRAM DIR\n";
    return 2;
  }
  auto it = Programs().find(argv[2]);
  if (it == Programs().end()) {
    std::cerr << "l3_golden: unknown program '" << argv[2] << "'\n";
    return 2;
  }
  const Program p = it->second();
  if (std::string(argv[1]) == "inputs") return WriteInputs(p, argv[3]);
  bool ok = true;
  for (const Tensor& t : p.expected) ok = Check(t, argv[3]) && ok;
  return ok ? 0 : 1;
}
