// The kernel API's vector operators beyond elementwise add / mul / max
// (device_api.h includes this; kernels include only device_api.h): unary
// math, division, scalar maximum / minimum, row and column reductions, row
// and column expansion, fill-padding, transpose and 2-D sub-box copies.
// Semantics after pto-isa docs/isa/*.md (TEXP, TDIV, TROWSUM, TCOLMAX,
// TROWEXPAND, TFILLPAD, TTRANS, ...): a 2-D operator reads the tile as
// `rows x cols` row-major and works on its valid `valid_rows x valid_cols`
// box; the result's other elements are left as they were. Each charges the
// backend's vector cost with its VecOp kind.
#ifndef PTO_RUNTIME_DEVICE_VECTOR_OPS_H_
#define PTO_RUNTIME_DEVICE_VECTOR_OPS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "runtime/device/device_api.h"
#include "runtime/device/device_core.h"

namespace pto {

namespace internal {

template <typename T, typename F>
void Unary(Tile<T>& dst, const Tile<T>& a, VecOp op, const char* what, F f, const Dims2& box) {
  Elementwise1(op, dst, a, box, what, f);
}

template <typename T, typename F>
void Binary(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, VecOp op, const char* what, F f,
            const Dims2& box) {
  Elementwise2(op, dst, a, b, box, what, f);
}

// The shape of an instruction over the valid box of `d`.
template <typename T>
VecShape BoxShape(const Dims2& d) {
  return VecShape{sizeof(T), d.valid_rows, d.valid_cols, d.cols};
}

// Math in double for FP64, else in float (FP16 rounds once, at the result).
template <typename T>
using MathT = std::conditional_t<std::is_same_v<T, double>, double, float>;

// `t`'s elements, copied when `dst` overlaps them (MemoryReuse may place a
// result on an operand that dies at the call).
template <typename T>
const T* Unaliased(const Tile<T>& dst, const Tile<T>& t, std::vector<T>* copy) {
  if (dst.data + dst.count <= t.data || t.data + t.count <= dst.data) return t.data;
  copy->assign(t.data, t.data + t.count);
  return copy->data();
}

}  // namespace internal

// ---------------------------------------------------------------- unary
template <typename T>
void TEXP(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kExp, "TEXP: shape mismatch",
                  [](T x) { return std::exp(static_cast<internal::MathT<T>>(x)); }, box);
}
template <typename T>
void TLOG(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kMath, "TLOG: shape mismatch",
                  [](T x) { return std::log(static_cast<internal::MathT<T>>(x)); }, box);
}
template <typename T>
void TSQRT(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kSqrt, "TSQRT: shape mismatch",
                  [](T x) { return std::sqrt(static_cast<internal::MathT<T>>(x)); }, box);
}
template <typename T>
void TRSQRT(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kRsqrt, "TRSQRT: shape mismatch", [](T x) {
    using M = internal::MathT<T>;
    return M{1} / std::sqrt(static_cast<M>(x));
  }, box);
}
template <typename T>
void TSIN(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kMath, "TSIN: shape mismatch",
                  [](T x) { return std::sin(static_cast<internal::MathT<T>>(x)); }, box);
}
template <typename T>
void TCOS(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kMath, "TCOS: shape mismatch",
                  [](T x) { return std::cos(static_cast<internal::MathT<T>>(x)); }, box);
}
template <typename T>
void TRECIP(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kRecip, "TRECIP: shape mismatch", [](T x) {
    using M = internal::MathT<T>;
    return M{1} / static_cast<M>(x);
  }, box);
}
template <typename T>
void TABS(Tile<T>& dst, const Tile<T>& a, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kAbs, "TABS: shape mismatch",
                  [](T x) { return x < T{0} ? static_cast<T>(-x) : x; }, box);
}
// Bitwise not of an integer tile (pto-isa TNOT).
template <typename T>
void TNOT(Tile<T>& dst, const Tile<T>& a) {
  static_assert(std::is_integral_v<T>, "TNOT takes an integer tile");
  internal::Unary(dst, a, VecOp::kAbs, "TNOT: shape mismatch", [](T x) { return ~x; });
}

// ---------------------------------------------------------------- binary
// Float division (an integer tile has no defined quotient for the zeros of
// its padding; code generation refuses it).
template <typename T>
void TDIV(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Binary(dst, a, b, VecOp::kDiv, "TDIV: shape mismatch", [](T x, T y) {
    using M = internal::MathT<T>;
    return static_cast<M>(x) / static_cast<M>(y);
  }, box);
}
// C's fmod: the remainder with the sign of the dividend (PyPTO's fmod).
template <typename T>
void TFMOD(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Binary(dst, a, b, VecOp::kDiv, "TFMOD: shape mismatch", [](T x, T y) {
    using M = internal::MathT<T>;
    return std::fmod(static_cast<M>(x), static_cast<M>(y));
  }, box);
}
template <typename T>
void TDIVS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kDiv, "TDIVS: shape mismatch", [s](T x) {
    using M = internal::MathT<T>;
    return static_cast<M>(x) / static_cast<M>(s);
  }, box);
}
template <typename T>
void TFMODS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kDiv, "TFMODS: shape mismatch", [s](T x) {
    using M = internal::MathT<T>;
    return std::fmod(static_cast<M>(x), static_cast<M>(s));
  }, box);
}
template <typename T>
void TMAXS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kMaxS, "TMAXS: shape mismatch",
                  [s](T x) { return x < s ? s : x; }, box);
}
template <typename T>
void TMINS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Unary(dst, a, VecOp::kMaxS, "TMINS: shape mismatch",
                  [s](T x) { return s < x ? s : x; }, box);
}

// ---------------------------------------------------------------- reduce
enum class ReduceKind { kSum, kMax, kMin, kProd };

namespace internal {
template <typename T>
T Combine(ReduceKind k, T acc, T x) {
  switch (k) {
    case ReduceKind::kSum: return static_cast<T>(acc + x);
    case ReduceKind::kMax: return acc < x ? x : acc;
    case ReduceKind::kMin: return x < acc ? x : acc;
    case ReduceKind::kProd: return static_cast<T>(acc * x);
  }
  return acc;
}
}  // namespace internal

// dst [rows, 1]: element i is the reduction of the valid columns of row i,
// for the valid rows (pto-isa TROWSUM / TROWMAX / TROWMIN / TROWPROD).
template <typename T>
void TROWREDUCE(ReduceKind k, Tile<T>& dst, const Tile<T>& src, const Dims2& s) {
  internal::CheckDims(src, s, "TROWREDUCE: source shape mismatch");
  if (dst.count != static_cast<uint64_t>(s.rows)) CurrentCore()->Fault("TROWREDUCE: dst is not [rows, 1]");
  for (int64_t i = 0; i < s.valid_rows; ++i) {
    const T* row = src.data + i * s.cols;
    T acc = s.valid_cols > 0 ? row[0] : T{};
    for (int64_t j = 1; j < s.valid_cols; ++j) acc = internal::Combine(k, acc, row[j]);
    dst.data[i] = acc;
  }
  CurrentCore()->VectorShaped(VecOp::kRowReduce, dst.data, src.data, nullptr, src.bytes(),
                              internal::BoxShape<T>(s));
}

// dst [1, cols]: element j is the reduction of the valid rows of column j
// (pto-isa TCOLSUM / TCOLMAX / TCOLMIN / TCOLPROD).
template <typename T>
void TCOLREDUCE(ReduceKind k, Tile<T>& dst, const Tile<T>& src, const Dims2& s) {
  internal::CheckDims(src, s, "TCOLREDUCE: source shape mismatch");
  if (dst.count != static_cast<uint64_t>(s.cols)) CurrentCore()->Fault("TCOLREDUCE: dst is not [1, cols]");
  for (int64_t j = 0; j < s.valid_cols; ++j) {
    T acc = s.valid_rows > 0 ? src.data[j] : T{};
    for (int64_t i = 1; i < s.valid_rows; ++i) {
      acc = internal::Combine(k, acc, src.data[i * s.cols + j]);
    }
    dst.data[j] = acc;
  }
  CurrentCore()->VectorShaped(VecOp::kColReduce, dst.data, src.data, nullptr, src.bytes(),
                              internal::BoxShape<T>(s));
}

// dst [rows, 1] of int32: the column of the first maximum (max) or minimum
// of each valid row's valid columns (pto-isa TROWARGMAX / TROWARGMIN).
template <typename T>
void TROWARG(bool max, Tile<int32_t>& dst, const Tile<T>& src, const Dims2& s) {
  internal::CheckDims(src, s, "TROWARG: source shape mismatch");
  if (dst.count != static_cast<uint64_t>(s.rows)) CurrentCore()->Fault("TROWARG: dst is not [rows, 1]");
  for (int64_t i = 0; i < s.valid_rows; ++i) {
    const T* row = src.data + i * s.cols;
    int32_t best = 0;
    for (int64_t j = 1; j < s.valid_cols; ++j) {
      if (max ? row[best] < row[j] : row[j] < row[best]) best = static_cast<int32_t>(j);
    }
    dst.data[i] = best;
  }
  CurrentCore()->VectorShaped(VecOp::kArgReduce, dst.data, src.data, nullptr, src.bytes(),
                              internal::BoxShape<T>(s));
}

// ---------------------------------------------------------------- expand
enum class ExpandKind { kCopy, kAdd, kSub, kMul, kDiv, kMax, kMin, kExpDif };

namespace internal {
template <typename T>
T Expand(ExpandKind k, T x, T v) {
  using M = MathT<T>;
  switch (k) {
    case ExpandKind::kCopy: return v;
    case ExpandKind::kAdd: return static_cast<T>(x + v);
    case ExpandKind::kSub: return static_cast<T>(x - v);
    case ExpandKind::kMul: return static_cast<T>(x * v);
    case ExpandKind::kDiv: return static_cast<T>(static_cast<M>(x) / static_cast<M>(v));
    case ExpandKind::kMax: return x < v ? v : x;
    case ExpandKind::kMin: return v < x ? v : x;
    case ExpandKind::kExpDif: return static_cast<T>(std::exp(static_cast<M>(x) - static_cast<M>(v)));
  }
  return x;
}
}  // namespace internal

// dst[i, j] = src[i, j] (op) vec[i] over the valid box, vec [rows, 1]
// (pto-isa TROWEXPAND and TROWEXPANDADD / SUB / MUL / DIV / MAX / MIN /
// EXPDIF; kCopy ignores src). `by_col`: vec [1, cols], vec[j] (TCOLEXPAND*).
template <typename T>
void TEXPAND(ExpandKind k, bool by_col, Tile<T>& dst, const Tile<T>& src, const Tile<T>& vec,
             const Dims2& s) {
  internal::CheckDims(dst, s, "TEXPAND: shape mismatch");
  if (src.count != dst.count) CurrentCore()->Fault("TEXPAND: shape mismatch");
  if (vec.count < static_cast<uint64_t>(by_col ? s.cols : s.rows)) {
    CurrentCore()->Fault("TEXPAND: vector shorter than the tile");
  }
  std::vector<T> copy;
  const T* v = internal::Unaliased(dst, vec, &copy);
  for (int64_t i = 0; i < s.valid_rows; ++i) {
    for (int64_t j = 0; j < s.valid_cols; ++j) {
      const int64_t e = i * s.cols + j;
      dst.data[e] = internal::Expand(k, src.data[e], v[by_col ? j : i]);
    }
  }
  CurrentCore()->VectorShaped(by_col ? VecOp::kColExpand : VecOp::kExpand, dst.data, src.data,
                              vec.data, dst.bytes(), internal::BoxShape<T>(s));
}

// ---------------------------------------------------------------- layout
// dst = src in the valid box and `pad` outside it (pto-isa TFILLPAD).
template <typename T>
void TFILLPAD(Tile<T>& dst, const Tile<T>& src, const Dims2& s, T pad) {
  internal::CheckDims(dst, s, "TFILLPAD: shape mismatch");
  if (src.count != dst.count) CurrentCore()->Fault("TFILLPAD: shape mismatch");
  for (int64_t i = 0; i < s.rows; ++i) {
    for (int64_t j = 0; j < s.cols; ++j) {
      const int64_t e = i * s.cols + j;
      dst.data[e] = i < s.valid_rows && j < s.valid_cols ? src.data[e] : pad;
    }
  }
  CurrentCore()->VectorShaped(VecOp::kFillPad, dst.data, src.data, nullptr, dst.bytes(),
                              VecShape{sizeof(T), s.rows, s.cols, s.cols});
}

// dst [cols, rows] = the transpose of src [rows, cols] (pto-isa TTRANS).
template <typename T>
void TTRANS(Tile<T>& dst, const Tile<T>& src, const Dims2& s) {
  internal::CheckDims(src, s, "TTRANS: shape mismatch");
  if (dst.count != src.count) CurrentCore()->Fault("TTRANS: shape mismatch");
  std::vector<T> copy;
  const T* a = internal::Unaliased(dst, src, &copy);
  for (int64_t i = 0; i < s.rows; ++i) {
    for (int64_t j = 0; j < s.cols; ++j) dst.data[j * s.rows + i] = a[i * s.cols + j];
  }
  CurrentCore()->VectorShaped(VecOp::kTranspose, dst.data, src.data, nullptr, dst.bytes(),
                              VecShape{sizeof(T), s.rows, s.cols, s.cols});
}

// Copies the rows x cols box at (src_r, src_c) of src (src_cols wide) to
// (dst_r, dst_c) of dst (dst_cols wide): tile slice, assemble and concat.
// Faults when either box leaves its tile.
template <typename T>
void TCOPYBOX(Tile<T>& dst, int64_t dst_cols, int64_t dst_r, int64_t dst_c, const Tile<T>& src,
              int64_t src_cols, int64_t src_r, int64_t src_c, int64_t rows, int64_t cols) {
  auto inside = [](const Tile<T>& t, int64_t w, int64_t r, int64_t c, int64_t h, int64_t n) {
    return w > 0 && r >= 0 && c >= 0 && h >= 0 && n >= 0 && c + n <= w &&
           static_cast<uint64_t>((r + h) * w) <= t.count;
  };
  if (!inside(dst, dst_cols, dst_r, dst_c, rows, cols) ||
      !inside(src, src_cols, src_r, src_c, rows, cols)) {
    CurrentCore()->Fault("TCOPYBOX: box outside the tile");
  }
  std::vector<T> copy;
  const T* a = internal::Unaliased(dst, src, &copy);
  for (int64_t i = 0; i < rows; ++i) {
    std::memmove(dst.data + (dst_r + i) * dst_cols + dst_c, a + (src_r + i) * src_cols + src_c,
                 static_cast<size_t>(cols) * sizeof(T));
  }
  CurrentCore()->VectorShaped(VecOp::kBoxCopy, dst.data, src.data, nullptr,
                              static_cast<uint64_t>(rows * cols) * sizeof(T),
                              VecShape{sizeof(T), rows, cols, src_cols});
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_VECTOR_OPS_H_
