#include "testing/system/single_chip/golden.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/npy.h"

namespace pto::single_chip {
namespace {

const char* Descr(DType t) {
  switch (t) {
    case DType::kF32:
      return "<f4";
    case DType::kF16:
      return "<f2";
    case DType::kI8:
      return "|i1";
    case DType::kI32:
      return "<i4";
    case DType::kI64:
      return "<i8";
  }
  return "?";
}

int Bytes(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kI32:
      return 4;
    case DType::kF16:
      return 2;
    case DType::kI8:
      return 1;
    case DType::kI64:
      return 8;
  }
  return 0;
}

// splitmix64: a fixed, portable sequence.
uint64_t Next(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void Encode(DType t, double v, char* out) {
  switch (t) {
    case DType::kF32: {
      const float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
      return;
    }
    case DType::kF16: {
      const _Float16 h = static_cast<_Float16>(static_cast<float>(v));
      std::memcpy(out, &h, 2);
      return;
    }
    case DType::kI8: {
      const int8_t i = static_cast<int8_t>(v);
      std::memcpy(out, &i, 1);
      return;
    }
    case DType::kI32: {
      const int32_t i = static_cast<int32_t>(v);
      std::memcpy(out, &i, 4);
      return;
    }
    case DType::kI64: {
      const int64_t i = static_cast<int64_t>(v);
      std::memcpy(out, &i, 8);
      return;
    }
  }
}

double Decode(DType t, const char* in) {
  switch (t) {
    case DType::kF32: {
      float f;
      std::memcpy(&f, in, 4);
      return f;
    }
    case DType::kF16: {
      _Float16 h;
      std::memcpy(&h, in, 2);
      return static_cast<float>(h);
    }
    case DType::kI8: {
      int8_t i;
      std::memcpy(&i, in, 1);
      return i;
    }
    case DType::kI32: {
      int32_t i;
      std::memcpy(&i, in, 4);
      return i;
    }
    case DType::kI64: {
      int64_t i;
      std::memcpy(&i, in, 8);
      return static_cast<double>(i);
    }
  }
  return 0;
}

}  // namespace

const Registry& Programs() {
  static const Registry* programs = [] {
    auto* r = new Registry;
    AddElementwise(*r);
    AddReductions(*r);
    AddNorms(*r);
    AddControl(*r);
    AddIndexing(*r);
    AddMatmul(*r);
    AddAttention(*r);
    return r;
  }();
  return *programs;
}

double RoundF32(double x) { return static_cast<float>(x); }

double RoundF16(double x) { return static_cast<float>(static_cast<_Float16>(static_cast<float>(x))); }

double RoundBf16(double x) {
  const float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fffu + ((bits >> 16) & 1u);  // nearest even (finite inputs)
  bits &= 0xffff0000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

double RoundTo(DType t, double x) {
  switch (t) {
    case DType::kF32:
      return RoundF32(x);
    case DType::kF16:
      return RoundF16(x);
    default:
      return std::nearbyint(x);
  }
}

int64_t Count(const Shape& s) { return pto::tools::npy::NumElements(s); }

Values Uniform(int64_t n, double lo, double hi, uint64_t seed, DType t) {
  Values v(n);
  uint64_t s = seed;
  for (double& x : v) {
    const double u = static_cast<double>(Next(s) >> 11) / 9007199254740992.0;  // [0, 1)
    x = RoundTo(t, lo + (hi - lo) * u);
  }
  return v;
}

Values Integers(int64_t n, int64_t lo, int64_t hi, uint64_t seed) {
  Values v(n);
  uint64_t s = seed;
  for (double& x : v) x = static_cast<double>(lo + static_cast<int64_t>(Next(s) % (hi - lo + 1)));
  return v;
}

Tensor Make(std::string name, Shape shape, Values values, DType t, double atol, double rtol) {
  return Tensor{std::move(name), t, std::move(shape), std::move(values), atol, rtol};
}

absl::Status Write(const Tensor& t, const std::string& dir) {
  if (static_cast<int64_t>(t.values.size()) != Count(t.shape)) {
    return absl::InternalError(absl::StrCat(t.name, ": ", t.values.size(), " values for shape ",
                                            pto::tools::npy::ShapeString(t.shape)));
  }
  const int b = Bytes(t.dtype);
  pto::tools::npy::Array a{Descr(t.dtype), t.shape, std::string(t.values.size() * b, '\0')};
  for (size_t i = 0; i < t.values.size(); ++i) Encode(t.dtype, t.values[i], &a.data[i * b]);
  return pto::tools::npy::WriteFile(absl::StrCat(dir, "/", t.name, ".npy"), a);
}

absl::Status Check(const Tensor& want, const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", want.name, ".npy");
  absl::StatusOr<pto::tools::npy::Array> got = pto::tools::npy::ReadFile(path);
  if (!got.ok()) return got.status();
  if (got->descr != Descr(want.dtype) || got->shape != want.shape) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": ", got->descr, " ", pto::tools::npy::ShapeString(got->shape), ", want ",
        Descr(want.dtype), " ", pto::tools::npy::ShapeString(want.shape)));
  }
  const int b = Bytes(want.dtype);
  double worst = 0;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double v = Decode(want.dtype, &got->data[i * b]);
    const double w = want.values[i];
    const double err = std::fabs(v - w);
    const double bound = want.atol + want.rtol * std::fabs(w);
    if (!(err <= bound)) {  // NaN fails too
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": element ", i, " is ", v, ", want ", w, " (|error| ", err,
                       " > ", bound, ": atol ", want.atol, ", rtol ", want.rtol, ")"));
    }
    if (err > worst) worst = err;
  }
  return absl::OkStatus();
}

}  // namespace pto::single_chip
