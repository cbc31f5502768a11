#include "tools/run_params.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"
#include "runtime/api/task_args.h"
#include "common/npy.h"

namespace pto::tools::run {
namespace {

namespace fs = std::filesystem;

// "[1, 0, 3]": the C-order multi-index of flat element `flat`.
std::string IndexString(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    idx[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? 0 : flat / shape[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) absl::StrAppend(&s, k ? ", " : "", idx[k]);
  return s + "]";
}

// One element of `p` for messages (FP16 as its bits).
std::string ValueString(const Param& p, const char* bytes) {
  if (p.dtype == ir::DataType::kBF16) {
    uint16_t h;
    std::memcpy(&h, bytes, 2);
    const uint32_t x = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return absl::StrCat(f);
  }
  if (p.descr[1] == 'f') {
    if (p.item == 4) {
      float f;
      std::memcpy(&f, bytes, 4);
      return absl::StrCat(f);
    }
    if (p.item == 8) {
      double d;
      std::memcpy(&d, bytes, 8);
      return absl::StrCat(d);
    }
  }
  uint64_t u = 0;
  for (int b = 0; b < p.item; ++b) {
    u |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[b])) << (8 * b);
  }
  if (p.descr[1] == 'i' && p.item < 8 && (u >> (8 * p.item - 1)) & 1) {
    u |= ~uint64_t{0} << (8 * p.item);  // sign-extend
  }
  if (p.descr[1] == 'i') return absl::StrCat(static_cast<int64_t>(u));
  if (p.descr[1] == 'f') return absl::StrCat("0x", absl::Hex(u));
  return absl::StrCat(u);
}

}  // namespace

// The NumPy type string of `t`, if NumPy has one.
std::optional<std::string> NumpyDescr(ir::DataType t) {
  switch (t) {
    case ir::DataType::kBool:
      return "|b1";
    case ir::DataType::kInt8:
      return "|i1";
    case ir::DataType::kInt16:
      return "<i2";
    case ir::DataType::kInt32:
      return "<i4";
    case ir::DataType::kInt64:
      return "<i8";
    case ir::DataType::kUInt8:
      return "|u1";
    case ir::DataType::kUInt16:
      return "<u2";
    case ir::DataType::kUInt32:
      return "<u4";
    case ir::DataType::kUInt64:
      return "<u8";
    case ir::DataType::kFP16:
      return "<f2";
    case ir::DataType::kFP32:
      return "<f4";
    case ir::DataType::kFP64:
      return "<f8";
    case ir::DataType::kBF16:
      // NumPy has no bfloat16: the bit patterns as uint16 (docs/pto-run.md).
      return "<u2";
    default:
      return std::nullopt;
  }
}

// IEEE binary16 bits of `f` (round to nearest even; the input pattern's
// values are exact in FP16).
uint16_t ToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const int shift = 14 - exp;
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return sign | static_cast<uint16_t>(h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return sign | static_cast<uint16_t>(h);
}

uint16_t ToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  const uint32_t round = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + round) >> 16);
}

// The documented pattern for a parameter without an input file (element i
// in C order): floats ((i * 31 + 7) % 1021) * 0.25 - 64, integers
// (i * 31 + 7) % 127 - 63 (modulo 2^bits for unsigned types), BOOL
// ((i * 31 + 7) % 127) % 2.
std::string Pattern(const Param& p) {
  const int64_t n = npy::NumElements(p.shape);
  std::string out(static_cast<size_t>(n) * p.item, '\0');
  char* dst = out.data();
  for (int64_t i = 0; i < n; ++i, dst += p.item) {
    const int64_t k = (i * 31 + 7);
    if (p.dtype == ir::DataType::kBF16) {
      const uint16_t b = ToBf16(static_cast<float>(static_cast<double>(k % 1021) * 0.25 - 64.0));
      std::memcpy(dst, &b, 2);
    } else if (p.descr[1] == 'f') {
      const double v = static_cast<double>(k % 1021) * 0.25 - 64.0;
      if (p.item == 2) {
        const uint16_t h = ToHalf(static_cast<float>(v));
        std::memcpy(dst, &h, 2);
      } else if (p.item == 4) {
        const float f = static_cast<float>(v);
        std::memcpy(dst, &f, 4);
      } else {
        std::memcpy(dst, &v, 8);
      }
    } else {
      const int64_t v = p.descr[1] == 'b' ? (k % 127) % 2 : k % 127 - 63;
      // Little-endian: the low `item` bytes of the two's complement value.
      const uint64_t u = static_cast<uint64_t>(v);
      for (int b = 0; b < p.item; ++b) dst[b] = static_cast<char>((u >> (8 * b)) & 0xff);
    }
  }
  return out;
}

// The HOST orchestrator's tensor params, from the lowered IR.
absl::StatusOr<std::vector<Param>> HostParams(const ir::ProgramPtr& program) {
  ir::FunctionPtr host;
  for (const auto& [gv, f] : program->functions()) {
    if (!f->IsHostOrch()) continue;
    if (host != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("the program has more than one HOST ",
                                                     "orchestrator ('", host->name(), "' and '",
                                                     f->name(), "'); pto-run runs exactly one"));
    }
    host = f;
  }
  if (host == nullptr) {
    return absl::InvalidArgumentError(
        "the program has no HOST orchestrator (@pl.function(level=pl.Level.HOST, "
        "role=pl.Role.Orchestrator)); pto-run runs one");
  }
  return FunctionParams(host);
}

// The tensor params of `host` (a HOST orchestrator or a single-chip entry).
absl::StatusOr<std::vector<Param>> FunctionParams(const ir::FunctionPtr& host) {
  std::vector<Param> params;
  for (size_t i = 0; i < host->params().size(); ++i) {
    const ir::VarPtr& v = host->params()[i];
    Param p;
    p.name = v->name_hint();
    auto t = ir::AsTensorTypeLike(v->type());
    if (t == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", p.name, "' of ", host->name(), " is not a tensor"));
    }
    p.dtype = t->dtype();
    std::optional<std::string> descr = NumpyDescr(p.dtype);
    if (!descr.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", p.name, "' has dtype ", std::string(ir::DataTypeName(p.dtype)),
          ", which has no NumPy type; pto-run supports BOOL, INT8..INT64, UINT8..UINT64, "
          "FP16, BF16, FP32 and FP64"));
    }
    p.descr = *descr;
    p.item = *npy::ItemSize(p.descr);
    for (const ir::ExprPtr& d : t->shape()) {
      auto c = ir::As<ir::ConstInt>(d);
      if (c == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", p.name, "' has a dynamic shape"));
      }
      p.shape.push_back(c->value());
    }
    if (p.shape.size() > static_cast<size_t>(rt::kMaxTensorDims)) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", p.name, "' has more than ", rt::kMaxTensorDims, " dims"));
    }
    p.output = host->param_directions()[i] != ir::ParamDirection::kIn;
    params.push_back(std::move(p));
  }
  return params;
}

absl::Status CheckFitsGm(const std::vector<Param>& params, int ranks, uint64_t gm_capacity,
                         const std::string& platform) {
  uint64_t total = 0;
  for (const Param& p : params) {
    absl::StatusOr<int64_t> bytes = npy::NumBytes(p.shape, p.item);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", p.name, "': ", bytes.status().message()));
    }
    total += static_cast<uint64_t>(*bytes);
    if (total > gm_capacity) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the HOST parameters need ", total, " bytes on every device (each of the ", ranks,
          " devices holds a full copy of every parameter) by '", p.name, "', more than the ",
          gm_capacity, " bytes of ", platform, " GM"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFinite(const Param& p, const std::string& bytes, const std::string& path) {
  const bool bf16 = p.dtype == ir::DataType::kBF16;
  if (!bf16 && (p.descr.size() < 3 || p.descr[1] != 'f')) return absl::OkStatus();
  const int64_t n = static_cast<int64_t>(bytes.size()) / p.item;
  for (int64_t e = 0; e < n; ++e) {
    const char* at = bytes.data() + e * p.item;
    bool nan = false, inf = false;
    if (bf16) {
      uint16_t h;
      std::memcpy(&h, at, 2);
      nan = (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0;
      inf = (h & 0x7fff) == 0x7f80;
    } else if (p.item == 2) {
      uint16_t h;
      std::memcpy(&h, at, 2);
      nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
      inf = (h & 0x7fff) == 0x7c00;
    } else if (p.item == 4) {
      float f;
      std::memcpy(&f, at, 4);
      nan = std::isnan(f);
      inf = std::isinf(f);
    } else {
      double d;
      std::memcpy(&d, at, 8);
      nan = std::isnan(d);
      inf = std::isinf(d);
    }
    if (nan || inf) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": parameter '", p.name, "' element ", IndexString(p.shape, e), " is ",
          nan ? "NaN" : "Inf", "; pass --allow-nonfinite to run with non-finite inputs"));
    }
  }
  return absl::OkStatus();
}

// Fills every param's initial content from DIR/<param>.npy or the pattern.
absl::Status LoadInputs(const std::string& dir, std::vector<Param>& params,
                        bool allow_nonfinite) {
  for (Param& p : params) {
    const std::string path = dir.empty() ? "" : (fs::path(dir) / (p.name + ".npy")).string();
    if (path.empty() || !fs::exists(path)) {
      p.initial = Pattern(p);
      continue;
    }
    absl::StatusOr<npy::Array> a = npy::ReadFile(path);
    if (!a.ok()) return a.status();
    // A BF16 parameter also takes NumPy's raw two-byte elements ('|V2'), what
    // np.save writes for an ml_dtypes.bfloat16 array.
    const bool bf16_bytes = p.dtype == ir::DataType::kBF16 && a->descr == "|V2";
    if ((a->descr != p.descr && !bf16_bytes) || a->shape != p.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": parameter '", p.name, "' is ", std::string(ir::DataTypeName(p.dtype)),
          " of shape ", npy::ShapeString(p.shape), " ('", p.descr, "'), but the file holds '",
          a->descr, "' of shape ", npy::ShapeString(a->shape)));
    }
    if (!allow_nonfinite) {
      if (absl::Status s = CheckFinite(p, a->data, path); !s.ok()) return s;
    }
    p.initial = std::move(a->data);
  }
  return absl::OkStatus();
}

// Merges the devices' copies of an output param: each element is taken from
// the device whose copy changed it; two devices changing it to different
// values is an error.
absl::StatusOr<std::string> Merge(const Param& p, const std::vector<std::string>& copies) {
  std::string out = p.initial;
  const int64_t n = npy::NumElements(p.shape);
  for (int64_t e = 0; e < n; ++e) {
    const size_t off = static_cast<size_t>(e) * p.item;
    int writer = -1;
    for (int d = 0; d < static_cast<int>(copies.size()); ++d) {
      const char* got = copies[d].data() + off;
      if (std::memcmp(got, p.initial.data() + off, p.item) == 0) continue;
      if (writer >= 0 && std::memcmp(got, copies[writer].data() + off, p.item) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "output '", p.name, "' element ", IndexString(p.shape, e), ": device ", writer,
            " wrote ", ValueString(p, copies[writer].data() + off), " and device ", d, " wrote ",
            ValueString(p, got), "; pto-run cannot merge the copies"));
      }
      if (writer < 0) {
        writer = d;
        std::memcpy(out.data() + off, got, p.item);
      }
    }
  }
  return out;
}

}  // namespace pto::tools::run
