// The cube half of the kernel API (AIC kernels): the tiles of the cube
// buffers and the instructions that move and multiply them, with pto-isa's
// names and rules (docs/isa/TASSIGN.md, TLOAD.md, TEXTRACT.md, TMOV.md,
// TMATMUL.md, TMATMUL_ACC.md, TMATMUL_BIAS.md, TSTORE.md of
// hw-native-sys/pto-isa).
//
// The functions below ARE the reference semantics: plain C++ over the bytes
// of the core's buffers, which every backend executes (the simulator) or is
// checked against (the pto-isa overlay of hw/). A tile holds its valid
// rows x cols row-major (row stride = cols), or column-major for a Mat tile
// in the ZN layout (cube_tile.h); the board's fractals are a placement detail
// of the hw overlay and never change values.
// Every instruction checks its operands first (a bad shape, dtype or range
// faults through DeviceCore::Fault, which latches the error and ends the
// kernel), then reports itself to the core (CubeCore::Cube: GM checks, pipe
// order, cost), then computes.
//
// Pipes: TLOAD runs on MTE2, TEXTRACT/TMOV into L0A/L0B/Bias on MTE1, TMATMUL*
// on M (the cube), TMOV out of L0C and TSTORE of an Acc tile on FIX. Pipes run
// concurrently; the kernel orders them with set_flag/wait_flag and
// pipe_barrier exactly as on the board. The simulator faults when an
// instruction reads or overwrites bytes another pipe has not finished with.
#ifndef PTO_RUNTIME_DEVICE_CUBE_API_H_
#define PTO_RUNTIME_DEVICE_CUBE_API_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/device/cube_core.h"
#include "runtime/device/cube_tile.h"
#include "runtime/device/device_api.h"
#include "runtime/device/device_core.h"

namespace pto {

// BF16 is device_api.h's pto::bfloat16 (round to nearest even from float).

namespace cube_internal {

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<int8_t> {
  static constexpr CubeDType kValue = CubeDType::kInt8;
};
template <>
struct DTypeOf<half> {
  static constexpr CubeDType kValue = CubeDType::kHalf;
};
template <>
struct DTypeOf<bfloat16> {
  static constexpr CubeDType kValue = CubeDType::kBf16;
};
template <>
struct DTypeOf<float> {
  static constexpr CubeDType kValue = CubeDType::kFloat;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr CubeDType kValue = CubeDType::kInt32;
};

template <typename T>
float ToF32(T v) {
  return static_cast<float>(v);
}
inline float ToF32(bfloat16 v) { return static_cast<float>(v); }

// The conversion of a FIXPIPE path (L0C -> GM or L1): float to half or bf16
// rounds to nearest even; same-type paths copy.
template <typename D, typename S>
D Convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<D, bfloat16>) {
    return bfloat16(static_cast<float>(v));
  } else {
    return static_cast<D>(v);
  }
}

// Fault never returns (DeviceCore's contract); -Werror builds of generated
// programs need the compiler told so through the virtual call.
[[noreturn]] inline void Fail(const std::string& msg) {
  CurrentCore()->Fault(msg.c_str());
  __builtin_unreachable();
}

inline uint64_t RoundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace cube_internal

// The bytes a rows x cols tile occupies in its buffer: the board stores cube
// tiles in fractals of 16 rows x 32 bytes (L0C: 16 x 16 elements), so the
// footprint is padded to whole fractals; Bias is one row padded to 32 bytes.
inline uint64_t CubeFootprint(TileKind kind, int elem_bytes, uint32_t rows, uint32_t cols) {
  using cube_internal::RoundUp;
  switch (kind) {
    case TileKind::kBias:
      return RoundUp(static_cast<uint64_t>(cols) * elem_bytes, 32);
    case TileKind::kAcc:
      return RoundUp(rows, 16) * RoundUp(cols, 16) * elem_bytes;
    default:
      return RoundUp(rows, 16) * RoundUp(static_cast<uint64_t>(cols) * elem_bytes, 32);
  }
}

// Places a rows x cols cube tile at byte `offset` of its buffer. Faults on an
// empty shape, a misaligned offset, a footprint past the buffer's capacity, a
// dtype the buffer does not hold (Left/Right: int8, half, bfloat16, float;
// Acc and Bias: float, int32) or a Bias tile of more than one row.
template <typename TileT>
std::enable_if_t<IsCubeTile<TileT>::value, TileT> TASSIGN(uint64_t offset, uint32_t rows,
                                                          uint32_t cols) {
  using T = typename TileT::DType;
  constexpr TileKind K = TileT::kKind;
  constexpr CubeDType dt = cube_internal::DTypeOf<T>::kValue;
  const std::string where =
      std::string("TASSIGN ") + TileKindName(K) + "<" + CubeDTypeName(dt) + ">";
  const bool acc_type = dt == CubeDType::kFloat || dt == CubeDType::kInt32;
  if ((K == TileKind::kAcc || K == TileKind::kBias) && !acc_type) {
    cube_internal::Fail(where + ": this buffer holds float or int32 elements only");
  }
  if ((K == TileKind::kLeft || K == TileKind::kRight) && dt == CubeDType::kInt32) {
    cube_internal::Fail(where + ": L0A/L0B hold int8, half, bfloat16 or float elements");
  }
  if (rows == 0 || cols == 0) cube_internal::Fail(where + ": empty shape");
  if (K == TileKind::kBias && rows != 1) cube_internal::Fail(where + ": a Bias tile has one row");
  if (offset % kCubeAlignBytes != 0) {
    cube_internal::Fail(where + ": offset " + std::to_string(offset) + " is not 32-byte aligned");
  }
  CubeCore* cube = CurrentCubeCore();
  const uint64_t need = CubeFootprint(K, sizeof(T), rows, cols);
  const uint64_t cap = cube->CubeBytes(K);
  if (offset > cap || need > cap - offset) {
    cube_internal::Fail(where + ": " + std::to_string(rows) + "x" + std::to_string(cols) +
                        " tile (" + std::to_string(need) + " bytes) at offset " +
                        std::to_string(offset) + " overflows the buffer of " + std::to_string(cap) +
                        " bytes");
  }
  TileT t;
  t.data = reinterpret_cast<T*>(cube->CubeBase(K) + offset);
  t.rows = rows;
  t.cols = cols;
  return t;
}

namespace cube_internal {
template <TileKind K, typename T>
CubeRange Range(const CubeTile<K, T>& t) {
  return CubeRange{false, K, t.data, t.bytes()};
}
inline CubeRange GmRange(const void* p, uint64_t bytes) {
  return CubeRange{true, TileKind::kMat, p, bytes};
}
// Elements a rows x cols view with `stride` elements between rows spans.
inline uint64_t Span(uint32_t rows, uint32_t cols, uint64_t stride) {
  return (static_cast<uint64_t>(rows) - 1) * stride + cols;
}
}  // namespace cube_internal

// MTE2, GM -> L1: the tile's rows x cols elements from `src`, whose rows are
// `row_stride` elements apart (0: dense, = cols). Faults when the view does
// not hold them or the tile has more than 16384 rows (TLOAD.md).
template <typename T>
void TLOAD(MatTile<T>& dst, const GlobalTensor<T>& src, uint64_t row_stride = 0) {
  const uint64_t stride = row_stride == 0 ? dst.cols : row_stride;
  if (stride < dst.cols) cube_internal::Fail("TLOAD Mat: row_stride smaller than the tile's cols");
  if (dst.rows > kMatMaxRows) cube_internal::Fail("TLOAD Mat: more than 16384 rows");
  const uint64_t span = cube_internal::Span(dst.rows, dst.cols, stride);
  if (span > src.count) cube_internal::Fail("TLOAD Mat: GM view smaller than the tile");
  if (dst.col_major) cube_internal::Fail("TLOAD Mat: a ZN (col_major) tile is not a TLOAD target here");
  CubeInstr in{CubeOpcode::kLoadL1, cube_internal::DTypeOf<T>::kValue,
               cube_internal::DTypeOf<T>::kValue};
  in.rows = dst.rows;
  in.cols = dst.cols;
  in.reads[in.num_reads++] = cube_internal::GmRange(src.data, span * sizeof(T));
  in.write = cube_internal::Range(dst);
  CurrentCubeCore()->Cube(in);
  for (uint32_t r = 0; r < dst.rows; ++r) {
    std::memcpy(&dst.at(r, 0), src.data + r * stride, dst.cols * sizeof(T));
  }
}

// MTE1, L1 -> L0A (Left) or L0B (Right): the dst.rows x dst.cols window of
// `src` whose top-left element is (idx_row, idx_col). Same element type;
// int8, half, bfloat16 or float (TEXTRACT.md).
template <TileKind K, typename T>
void TEXTRACT(CubeTile<K, T>& dst, const MatTile<T>& src, uint32_t idx_row, uint32_t idx_col) {
  static_assert(K == TileKind::kLeft || K == TileKind::kRight,
                "TEXTRACT from Mat writes a Left or Right tile");
  if (static_cast<uint64_t>(idx_row) + dst.rows > src.rows ||
      static_cast<uint64_t>(idx_col) + dst.cols > src.cols) {
    cube_internal::Fail("TEXTRACT: the window lies outside the source tile");
  }
  CubeInstr in{CubeOpcode::kExtract, cube_internal::DTypeOf<T>::kValue,
               cube_internal::DTypeOf<T>::kValue};
  in.rows = dst.rows;
  in.cols = dst.cols;
  in.reads[in.num_reads++] = cube_internal::Range(src);
  in.write = cube_internal::Range(dst);
  CurrentCubeCore()->Cube(in);
  if (!src.col_major) {
    for (uint32_t r = 0; r < dst.rows; ++r) {
      std::memmove(&dst.at(r, 0), &src.at(idx_row + r, idx_col), dst.cols * sizeof(T));
    }
    return;
  }
  // A ZN source (a transposed view): L0 holds the window's values row-major.
  std::vector<T> w(dst.count());
  for (uint32_t r = 0; r < dst.rows; ++r) {
    for (uint32_t c = 0; c < dst.cols; ++c) {
      w[static_cast<uint64_t>(r) * dst.cols + c] = src.at(idx_row + r, idx_col + c);
    }
  }
  std::memcpy(dst.data, w.data(), dst.bytes());
}

// No instruction issues: `dst` becomes `src` read as its transpose, the
// same bytes of L1 as the other layout (NZ <-> ZN), as pto-isa's TRESHAPE
// reinterprets a tile's bytes as another tile type (TRESHAPE.md; PyPTO's
// tile.transpose_view). TEXTRACT / TMOV from the ZN view give Left / Right
// the transposed operand (TEXTRACT.md admits either source layout).
template <typename T>
void TRESHAPE(MatTile<T>& dst, const MatTile<T>& src) {
  dst.data = src.data;
  dst.rows = src.cols;
  dst.cols = src.rows;
  dst.col_major = !src.col_major;
}

// MTE1, L1 -> L0A / L0B of the whole tile: shapes must match (TMOV.md).
template <TileKind K, typename T>
std::enable_if_t<K == TileKind::kLeft || K == TileKind::kRight> TMOV(CubeTile<K, T>& dst,
                                                                     const MatTile<T>& src) {
  if (dst.rows != src.rows || dst.cols != src.cols)
    cube_internal::Fail("TMOV Mat->L0: shape mismatch");
  TEXTRACT(dst, src, 0, 0);
}

// MTE1, L1 -> Bias table: one row; (int32 -> int32), (float -> float) or
// (half -> float), the source row a multiple of 64 bytes (TMOV.md, A2A3; A5
// adds bfloat16 -> float, not offered here).
template <typename D, typename S>
void TMOV(BiasTile<D>& dst, const MatTile<S>& src) {
  constexpr bool ok = (std::is_same_v<D, int32_t> && std::is_same_v<S, int32_t>) ||
                      (std::is_same_v<D, float> && std::is_same_v<S, float>) ||
                      (std::is_same_v<D, float> && std::is_same_v<S, half>);
  if (!ok) {
    cube_internal::Fail(std::string("TMOV Mat->Bias: unsupported dtype pair ") +
                        CubeDTypeName(cube_internal::DTypeOf<S>::kValue) + " -> " +
                        CubeDTypeName(cube_internal::DTypeOf<D>::kValue));
  }
  if (src.rows != 1 || dst.cols != src.cols)
    cube_internal::Fail("TMOV Mat->Bias: source must be one row of dst.cols");
  if (src.cols * sizeof(S) % 64 != 0)
    cube_internal::Fail("TMOV Mat->Bias: source row not a multiple of 64 bytes");
  CubeInstr in{CubeOpcode::kMovBias, cube_internal::DTypeOf<S>::kValue,
               cube_internal::DTypeOf<D>::kValue};
  in.rows = 1;
  in.cols = dst.cols;
  in.reads[in.num_reads++] = cube_internal::Range(src);
  in.write = cube_internal::Range(dst);
  CurrentCubeCore()->Cube(in);
  for (uint32_t c = 0; c < dst.cols; ++c) {
    if constexpr (std::is_same_v<D, S>) {
      dst.data[c] = src.data[c];
    } else {
      dst.data[c] = static_cast<D>(cube_internal::ToF32(src.data[c]));
    }
  }
}

namespace cube_internal {

// The (C, A, B) triples of TMATMUL.md (A2A3; A5 accepts them too).
template <typename C, typename A, typename B>
constexpr bool kMatmulTriple =
    (std::is_same_v<C, int32_t> && std::is_same_v<A, int8_t> && std::is_same_v<B, int8_t>) ||
    (std::is_same_v<C, float> && std::is_same_v<A, half> && std::is_same_v<B, half>) ||
    (std::is_same_v<C, float> && std::is_same_v<A, float> && std::is_same_v<B, float>) ||
    (std::is_same_v<C, float> && std::is_same_v<A, bfloat16> && std::is_same_v<B, bfloat16>);

// Checks a matmul's operands and reports it; returns nothing on success.
template <typename C, typename A, typename B>
void IssueMatmul(CubeOpcode op, const char* name, const AccTile<C>& c, const LeftTile<A>& a,
                 const RightTile<B>& b, const AccTile<C>* c_in, const BiasTile<C>* bias) {
  if (!kMatmulTriple<C, A, B>) {
    Fail(std::string(name) + ": unsupported (C, A, B) dtypes (" +
         CubeDTypeName(DTypeOf<C>::kValue) + ", " + CubeDTypeName(DTypeOf<A>::kValue) + ", " +
         CubeDTypeName(DTypeOf<B>::kValue) +
         "); supported: (int32, int8, int8), (float, half, half), (float, float, float), "
         "(float, bfloat16, bfloat16)");
  }
  const uint32_t m = a.rows, k = a.cols, n = b.cols;
  if (b.rows != k || c.rows != m || c.cols != n) {
    Fail(std::string(name) + ": shape mismatch: A " + std::to_string(a.rows) + "x" +
         std::to_string(a.cols) + ", B " + std::to_string(b.rows) + "x" + std::to_string(b.cols) +
         ", C " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
  }
  if (m > kCubeMaxMkn || k > kCubeMaxMkn || n > kCubeMaxMkn) {
    Fail(std::string(name) + ": m, k, n must lie in [1, 4095] (m=" + std::to_string(m) +
         ", k=" + std::to_string(k) + ", n=" + std::to_string(n) + ")");
  }
  if (c_in != nullptr && (c_in->rows != m || c_in->cols != n)) {
    Fail(std::string(name) + ": accumulator input shape mismatch");
  }
  if (bias != nullptr && bias->cols != n) Fail(std::string(name) + ": bias must have n columns");
  CubeInstr in{op, DTypeOf<A>::kValue, DTypeOf<C>::kValue};
  in.m = m;
  in.k = k;
  in.n = n;
  in.reads[in.num_reads++] = Range(a);
  in.reads[in.num_reads++] = Range(b);
  if (c_in != nullptr) in.reads[in.num_reads++] = Range(*c_in);
  if (bias != nullptr) in.reads[in.num_reads++] = Range(*bias);
  in.write = Range(c);
  CurrentCubeCore()->Cube(in);
}

// C = init + A.B, as TMATMUL_ACC.md writes it: C1 = C0 + sum_k A.B, the sum
// formed first (from 0, in k order), then added to the start value
// `init(i, j)` (C_in, the bias, or 0). INT8 products accumulate exactly in
// INT32 (two's-complement wrap past 2^31, as the accumulator register);
// FP16/BF16/FP32 operands are multiplied and accumulated in FP32 by fused
// multiply-adds (one rounding per step; for FP16 and BF16 the product is
// exact, so this equals a product then a sum). pto-isa's implementation of
// the instruction (include/pto/cpu/TMatmul.hpp, std::fma) computes the same
// way, so the overlay of hw/
// and the simulator give the same bytes (//hw/pto_isa:pto_isa_vs_sim_test).
template <typename C, typename A, typename B, typename Init>
void Mma(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b, Init init) {
  const uint32_t m = a.rows, k = a.cols, n = b.cols;
  // Computed into a scratch copy: C may alias an operand (TMATMUL_ACC in place).
  std::string out(static_cast<size_t>(m) * n * sizeof(C), '\0');
  C* o = reinterpret_cast<C*>(out.data());
  if constexpr (std::is_same_v<C, int32_t>) {
    // Sums mod 2^32 do not depend on their order: k outer, n inner (a
    // contiguous row of B), which the host vectorises; the bytes are the
    // k-order sum's.
    std::vector<uint32_t> s(n);
    for (uint32_t i = 0; i < m; ++i) {
      std::fill(s.begin(), s.end(), 0u);
      for (uint32_t p = 0; p < k; ++p) {
        const int32_t av = a.at(i, p);
        const B* brow = &b.at(p, 0);
        for (uint32_t j = 0; j < n; ++j) {
          s[j] += static_cast<uint32_t>(av * static_cast<int32_t>(brow[j]));
        }
      }
      for (uint32_t j = 0; j < n; ++j) {
        o[static_cast<uint64_t>(i) * n + j] =
            static_cast<int32_t>(static_cast<uint32_t>(init(i, j)) + s[j]);
      }
    }
  } else {
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        float s = 0.0f;
        for (uint32_t p = 0; p < k; ++p) s = std::fma(ToF32(a.at(i, p)), ToF32(b.at(p, j)), s);
        o[static_cast<uint64_t>(i) * n + j] = init(i, j) + s;
      }
    }
  }
  std::memcpy(c.data, o, out.size());
}

}  // namespace cube_internal

// M: C = A.B (TMATMUL.md). A is m x k in L0A, B k x n in L0B, C m x n in L0C.
template <typename C, typename A, typename B>
void TMATMUL(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b) {
  cube_internal::IssueMatmul<C, A, B>(CubeOpcode::kMatmul, "TMATMUL", c, a, b, nullptr, nullptr);
  cube_internal::Mma(c, a, b, [](uint32_t, uint32_t) { return C{}; });
}

// M: C_out = C_in + A.B (TMATMUL_ACC.md); C_out may be C_in (in place).
template <typename C, typename A, typename B>
void TMATMUL_ACC(AccTile<C>& c_out, const AccTile<C>& c_in, const LeftTile<A>& a,
                 const RightTile<B>& b) {
  cube_internal::IssueMatmul<C, A, B>(CubeOpcode::kMatmulAcc, "TMATMUL_ACC", c_out, a, b, &c_in,
                                      nullptr);
  cube_internal::Mma(c_out, a, b, [&](uint32_t i, uint32_t j) { return c_in.at(i, j); });
}
template <typename C, typename A, typename B>
void TMATMUL_ACC(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b) {
  TMATMUL_ACC(c, c, a, b);
}

// M: C = A.B + bias, the 1 x n bias broadcast over rows; bias has C's dtype
// (TMATMUL_BIAS.md).
template <typename C, typename A, typename B>
void TMATMUL_BIAS(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b,
                  const BiasTile<C>& bias) {
  cube_internal::IssueMatmul<C, A, B>(CubeOpcode::kMatmulBias, "TMATMUL_BIAS", c, a, b, nullptr,
                                      &bias);
  cube_internal::Mma(c, a, b, [&](uint32_t, uint32_t j) { return bias.data[j]; });
}

namespace cube_internal {
// The FIXPIPE conversions without quantisation (TSTORE.md "ACC-to-GM"):
// float -> float, half or bfloat16; int32 -> int32.
template <typename D, typename S>
constexpr bool kFixpipePair = (std::is_same_v<S, float> &&
                               (std::is_same_v<D, float> || std::is_same_v<D, half> ||
                                std::is_same_v<D, bfloat16>)) ||
                              (std::is_same_v<S, int32_t> && std::is_same_v<D, int32_t>);

template <typename D, typename S>
void CheckFixpipe(const char* name, const AccTile<S>& src) {
  if (!kFixpipePair<D, S>) {
    Fail(std::string(name) + ": unsupported conversion " + CubeDTypeName(DTypeOf<S>::kValue) +
         " -> " + CubeDTypeName(DTypeOf<D>::kValue) +
         "; supported: float -> float/half/bfloat16, int32 -> int32");
  }
  if (src.cols > kAccStoreMaxCols) Fail(std::string(name) + ": more than 4095 columns");
}
}  // namespace cube_internal

// FIX, L0C -> GM with the path's conversion: the tile's rows x cols into
// `dst`, rows `row_stride` elements apart (0: dense). At most 8192 rows and
// 4095 cols (TSTORE.md, ND).
template <typename D, typename S>
void TSTORE(const GlobalTensor<D>& dst, const AccTile<S>& src, uint64_t row_stride = 0) {
  cube_internal::CheckFixpipe<D, S>("TSTORE Acc", src);
  if (src.rows > kAccStoreMaxRows) cube_internal::Fail("TSTORE Acc: more than 8192 rows");
  const uint64_t stride = row_stride == 0 ? src.cols : row_stride;
  if (stride < src.cols) cube_internal::Fail("TSTORE Acc: row_stride smaller than the tile's cols");
  const uint64_t span = cube_internal::Span(src.rows, src.cols, stride);
  if (span > dst.count) cube_internal::Fail("TSTORE Acc: GM view smaller than the tile");
  CubeInstr in{CubeOpcode::kStoreAcc, cube_internal::DTypeOf<S>::kValue,
               cube_internal::DTypeOf<D>::kValue};
  in.rows = src.rows;
  in.cols = src.cols;
  in.reads[in.num_reads++] = cube_internal::Range(src);
  in.write = cube_internal::GmRange(dst.data, span * sizeof(D));
  CurrentCubeCore()->Cube(in);
  for (uint32_t r = 0; r < src.rows; ++r) {
    for (uint32_t c = 0; c < src.cols; ++c)
      dst.data[r * stride + c] = cube_internal::Convert<D>(src.at(r, c));
  }
}

// FIX, L0C -> L1 with the same conversions as TSTORE (TMOV.md Acc -> Mat;
// its cast pre-quant modes taken to be TSTORE's non-quantised table).
template <typename D, typename S>
void TMOV(MatTile<D>& dst, const AccTile<S>& src) {
  cube_internal::CheckFixpipe<D, S>("TMOV Acc->Mat", src);
  if (dst.rows != src.rows || dst.cols != src.cols)
    cube_internal::Fail("TMOV Acc->Mat: shape mismatch");
  CubeInstr in{CubeOpcode::kAccToMat, cube_internal::DTypeOf<S>::kValue,
               cube_internal::DTypeOf<D>::kValue};
  in.rows = src.rows;
  in.cols = src.cols;
  in.reads[in.num_reads++] = cube_internal::Range(src);
  in.write = cube_internal::Range(dst);
  CurrentCubeCore()->Cube(in);
  for (uint32_t r = 0; r < src.rows; ++r) {
    for (uint32_t c = 0; c < src.cols; ++c) dst.at(r, c) = cube_internal::Convert<D>(src.at(r, c));
  }
}

// Flags and barriers naming a cube pipe (PIPE_MTE1, PIPE_M, PIPE_FIX) on either
// side; the all-Pipe overloads of device_api.h also reach the AIC's pipes.
struct AnyPipe {
  int v;
  constexpr AnyPipe(Pipe p) : v(p) {}      // NOLINT: implicit on purpose
  constexpr AnyPipe(CubePipe p) : v(p) {}  // NOLINT
};
inline void set_flag(AnyPipe src, AnyPipe dst, int event_id) {
  CurrentCubeCore()->CubeSetFlag(src.v, dst.v, event_id);
}
inline void wait_flag(AnyPipe src, AnyPipe dst, int event_id) {
  CurrentCubeCore()->CubeWaitFlag(src.v, dst.v, event_id);
}
inline void pipe_barrier(CubePipe pipe) { CurrentCubeCore()->CubePipeBarrier(pipe); }

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_CUBE_API_H_
