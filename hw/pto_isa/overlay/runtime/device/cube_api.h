// The cube half of the kernel API (runtime/device/cube_api.h) on pto-isa,
// docs/hw.md "The device layer on pto-isa". Force-included after the
// overlay's device_api.h; the include guard is cube_api.h's, so generated
// AIC kernels and cube_support.h compile unchanged.
//
// Every instruction's values are computed by the pto-isa instruction of the
// same name (TLOAD, TEXTRACT / TMOV, TMATMUL / TMATMUL_ACC / TMATMUL_BIAS,
// TSTORE) on pto-isa tiles of a fixed static capacity (kCap x kCap) whose
// valid region is the run-time shape, placed at offset 0 of pto-isa's
// buffer of the tile's kind. Between instructions a tile's elements are kept
// as the reference keeps them (valid rows x cols, row-major, in this
// thread's buffers of the platform's sizes): our tiles are placed by
// run-time offsets and shapes, pto-isa's by static types, so each
// instruction stages its operands into pto-isa tiles element by element
// (GetElement / SetElement) and its result back. The staging moves values
// and never changes them; the arithmetic and the FIXPIPE conversions are
// pto-isa's. A shape past the capacity faults.
//
// Offered: int8, half and float operands (bfloat16 is not in the overlay
// yet, as for the vector ops); the flags and barriers of the cube pipes.
#ifndef PTO_RUNTIME_DEVICE_CUBE_API_H_
#define PTO_RUNTIME_DEVICE_CUBE_API_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/device/cube_core.h"
#include "runtime/device/cube_tile.h"
#include "runtime/device/device_api.h"
#include "runtime/device/device_core.h"

#ifndef PTO_DEVICE_CUBE_BYTES
#error "define PTO_DEVICE_CUBE_BYTES to the platform's Mat, Left, Right, Acc, Bias sizes"
#endif

namespace pto {

namespace isa {

// The static capacity of a staging tile, each dimension (a float Left tile
// of kCap x kCap fills L0A's 64 KiB).
inline constexpr int kCap = 128;

using pto_isa::BLayout;
using pto_isa::DYNAMIC;
using pto_isa::SLayout;
using pto_isa::TileType;

template <typename T>
using IsaMat = pto_isa::Tile<TileType::Mat, T, kCap, kCap, BLayout::ColMajor, DYNAMIC, DYNAMIC,
                             SLayout::RowMajor, 512>;
// The ZN layout of a Mat tile (a DN view: TLOAD.md's DN -> ZN), which an
// NZ tile's bytes are when read as its transpose.
template <typename T>
using IsaMatZn = pto_isa::Tile<TileType::Mat, T, kCap, kCap, BLayout::RowMajor, DYNAMIC, DYNAMIC,
                               SLayout::ColMajor, 512>;
template <typename T>
using IsaLeft = pto_isa::TileLeft<T, kCap, kCap, DYNAMIC, DYNAMIC>;
template <typename T>
using IsaRight = pto_isa::TileRight<T, kCap, kCap, DYNAMIC, DYNAMIC>;
template <typename T>
using IsaAcc = pto_isa::TileAcc<T, kCap, kCap, DYNAMIC, DYNAMIC>;
template <typename T>
using IsaBias = pto_isa::Tile<TileType::Bias, T, 1, kCap, BLayout::RowMajor, 1, DYNAMIC>;
template <typename T>
using Gm2d = pto_isa::GlobalTensor<T, pto_isa::Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                                   pto_isa::Stride<1, 1, 1, DYNAMIC, 1>>;

[[noreturn]] inline void Fail(const std::string& msg) {
  CurrentCore()->Fault(msg.c_str());
  __builtin_unreachable();
}

// This thread's buffers, in the reference's layout (sizes of the platform).
inline uint8_t* Buffer(TileKind k) {
  static constexpr uint64_t kBytes[kNumTileKinds] = {PTO_DEVICE_CUBE_BYTES};
  thread_local std::vector<uint8_t> bufs[kNumTileKinds];
  std::vector<uint8_t>& b = bufs[static_cast<int>(k)];
  if (b.empty()) b.assign(kBytes[static_cast<int>(k)], 0);
  return b.data();
}
inline uint64_t BufferBytes(TileKind k) {
  static constexpr uint64_t kBytes[kNumTileKinds] = {PTO_DEVICE_CUBE_BYTES};
  return kBytes[static_cast<int>(k)];
}

// A pto-isa staging tile of type `I` at offset `offset` of its buffer with
// the valid shape of `t`, holding t's elements.
template <typename I, TileKind K, typename T>
I Stage(const CubeTile<K, T>& t, uint64_t offset = 0) {
  if (t.rows > static_cast<uint32_t>(kCap) || t.cols > static_cast<uint32_t>(kCap)) {
    Fail(std::string("pto-isa overlay: a ") + TileKindName(K) + " tile of " +
         std::to_string(t.rows) + "x" + std::to_string(t.cols) + " is past the staging capacity " +
         std::to_string(kCap) + "x" + std::to_string(kCap));
  }
  I s(t.rows, t.cols);
  pto_isa::TASSIGN(s, offset);
  for (uint32_t r = 0; r < t.rows; ++r) {
    for (uint32_t c = 0; c < t.cols; ++c) s.SetElement(r, c, t.at(r, c));
  }
  return s;
}
template <typename I, TileKind K, typename T>
void Unstage(I& s, const CubeTile<K, T>& t) {
  for (uint32_t r = 0; r < t.rows; ++r) {
    for (uint32_t c = 0; c < t.cols; ++c) t.at(r, c) = s.GetElement(r, c);
  }
}
template <typename I>
I StageBias(uint32_t cols) {
  I s(cols);
  pto_isa::TASSIGN(s, 0);
  return s;
}

template <typename T>
Gm2d<T> Gm2dView(T* p, uint32_t rows, uint32_t cols, uint64_t stride) {
  return Gm2d<T>(p, pto_isa::Shape<1, 1, 1, DYNAMIC, DYNAMIC>(rows, cols),
                 pto_isa::Stride<1, 1, 1, DYNAMIC, 1>(static_cast<int64_t>(stride)));
}

inline pipe_t IsaAnyPipe(int p) {
  switch (p) {
    case PIPE_MTE1:
      return ::PIPE_MTE1;
    case PIPE_M:
      return ::PIPE_M;
    case PIPE_FIX:
      return ::PIPE_FIX;
    default:
      return IsaPipe(static_cast<Pipe>(p));
  }
}

}  // namespace isa

// Places a rows x cols tile at byte `offset` of this thread's buffer of its
// kind (32-byte aligned, inside the buffer).
template <typename TileT>
TileT TASSIGN(uint64_t offset, uint32_t rows, uint32_t cols) {
  using T = typename TileT::DType;
  constexpr TileKind K = TileT::kKind;
  if (rows == 0 || cols == 0 || offset % 32 != 0 ||
      offset + static_cast<uint64_t>(rows) * cols * sizeof(T) > isa::BufferBytes(K)) {
    isa::Fail(std::string("TASSIGN ") + TileKindName(K) + ": bad offset or shape");
  }
  TileT t;
  t.data = reinterpret_cast<T*>(isa::Buffer(K) + offset);
  t.rows = rows;
  t.cols = cols;
  return t;
}

template <typename T>
void TLOAD(MatTile<T>& dst, const GlobalTensor<T>& src, uint64_t row_stride = 0) {
  const uint64_t stride = row_stride == 0 ? dst.cols : row_stride;
  if (stride < dst.cols || (dst.rows - 1) * stride + dst.cols > src.count) {
    isa::Fail("TLOAD Mat: GM view smaller than the tile");
  }
  if (dst.col_major) isa::Fail("TLOAD Mat: a ZN (col_major) tile is not a TLOAD target here");
  isa::IsaMat<T> s = isa::Stage<isa::IsaMat<T>>(dst);
  isa::Gm2d<T> g = isa::Gm2dView(src.data, dst.rows, dst.cols, stride);
  pto_isa::TLOAD(s, g);
  isa::Unstage(s, dst);
}

// The transposed view of a Mat tile (runtime/device/cube_api.h): the same
// elements, read as the other layout; no instruction issues.
template <typename T>
void TRESHAPE(MatTile<T>& dst, const MatTile<T>& src) {
  dst.data = src.data;
  dst.rows = src.cols;
  dst.cols = src.rows;
  dst.col_major = !src.col_major;
}

template <TileKind K, typename T>
void TEXTRACT(CubeTile<K, T>& dst, const MatTile<T>& src, uint32_t idx_row, uint32_t idx_col) {
  static_assert(K == TileKind::kLeft || K == TileKind::kRight,
                "TEXTRACT from Mat writes a Left or Right tile");
  if (static_cast<uint64_t>(idx_row) + dst.rows > src.rows ||
      static_cast<uint64_t>(idx_col) + dst.cols > src.cols) {
    isa::Fail("TEXTRACT: the window lies outside the source tile");
  }
  using I = std::conditional_t<K == TileKind::kLeft, isa::IsaLeft<T>, isa::IsaRight<T>>;
  I d = isa::Stage<I>(dst);
  if (!src.col_major) {
    isa::IsaMat<T> m = isa::Stage<isa::IsaMat<T>>(src);
    pto_isa::TEXTRACT(d, m, static_cast<uint16_t>(idx_row), static_cast<uint16_t>(idx_col));
  } else {
    // A transposed view: the natural tile staged NZ, its bytes read as the
    // ZN tile of the transposed shape by pto-isa's TRESHAPE, extracted from.
    MatTile<T> natural;
    TRESHAPE(natural, src);
    isa::IsaMat<T> m = isa::Stage<isa::IsaMat<T>>(natural);
    isa::IsaMatZn<T> zn(src.rows, src.cols);
    pto_isa::TRESHAPE(zn, m);
    pto_isa::TEXTRACT(d, zn, static_cast<uint16_t>(idx_row), static_cast<uint16_t>(idx_col));
  }
  isa::Unstage(d, dst);
}

template <TileKind K, typename T>
std::enable_if_t<K == TileKind::kLeft || K == TileKind::kRight> TMOV(CubeTile<K, T>& dst,
                                                                     const MatTile<T>& src) {
  if (dst.rows != src.rows || dst.cols != src.cols) isa::Fail("TMOV Mat->L0: shape mismatch");
  TEXTRACT(dst, src, 0, 0);
}

// Mat -> Bias: one row, (float -> float) or (int32 -> int32).
template <typename D, typename S>
void TMOV(BiasTile<D>& dst, const MatTile<S>& src) {
  static_assert(std::is_same_v<D, S>, "TMOV Mat->Bias on the pto-isa overlay: same dtype only");
  if (src.rows != 1 || dst.cols != src.cols) {
    isa::Fail("TMOV Mat->Bias: source must be one row of dst.cols");
  }
  for (uint32_t c = 0; c < dst.cols; ++c) dst.data[c] = src.data[c];
}

namespace isa {
template <typename C, typename A, typename B>
void CheckMatmul(const char* name, const AccTile<C>& c, const LeftTile<A>& a,
                 const RightTile<B>& b) {
  if (b.rows != a.cols || c.rows != a.rows || c.cols != b.cols) {
    Fail(std::string(name) + ": shape mismatch");
  }
}
}  // namespace isa

template <typename C, typename A, typename B>
void TMATMUL(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b) {
  isa::CheckMatmul("TMATMUL", c, a, b);
  isa::IsaLeft<A> l = isa::Stage<isa::IsaLeft<A>>(a);
  isa::IsaRight<B> r = isa::Stage<isa::IsaRight<B>>(b);
  isa::IsaAcc<C> o(c.rows, c.cols);
  pto_isa::TASSIGN(o, 0);
  pto_isa::TMATMUL(o, l, r);
  isa::Unstage(o, c);
}

template <typename C, typename A, typename B>
void TMATMUL_ACC(AccTile<C>& c_out, const AccTile<C>& c_in, const LeftTile<A>& a,
                 const RightTile<B>& b) {
  isa::CheckMatmul("TMATMUL_ACC", c_out, a, b);
  if (c_in.rows != c_out.rows || c_in.cols != c_out.cols) {
    isa::Fail("TMATMUL_ACC: accumulator input shape mismatch");
  }
  isa::IsaLeft<A> l = isa::Stage<isa::IsaLeft<A>>(a);
  isa::IsaRight<B> r = isa::Stage<isa::IsaRight<B>>(b);
  isa::IsaAcc<C> in = isa::Stage<isa::IsaAcc<C>>(c_in);
  isa::IsaAcc<C> o(c_out.rows, c_out.cols);
  pto_isa::TASSIGN(o, sizeof(C) * isa::kCap * isa::kCap);
  pto_isa::TMATMUL_ACC(o, in, l, r);
  isa::Unstage(o, c_out);
}
template <typename C, typename A, typename B>
void TMATMUL_ACC(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b) {
  TMATMUL_ACC(c, c, a, b);
}

template <typename C, typename A, typename B>
void TMATMUL_BIAS(AccTile<C>& c, const LeftTile<A>& a, const RightTile<B>& b,
                  const BiasTile<C>& bias) {
  isa::CheckMatmul("TMATMUL_BIAS", c, a, b);
  if (bias.cols != c.cols) isa::Fail("TMATMUL_BIAS: bias must have n columns");
  isa::IsaLeft<A> l = isa::Stage<isa::IsaLeft<A>>(a);
  isa::IsaRight<B> r = isa::Stage<isa::IsaRight<B>>(b);
  isa::IsaBias<C> z = isa::StageBias<isa::IsaBias<C>>(bias.cols);
  for (uint32_t j = 0; j < bias.cols; ++j) z.SetElement(0, j, bias.data[j]);
  isa::IsaAcc<C> o(c.rows, c.cols);
  pto_isa::TASSIGN(o, 0);
  pto_isa::TMATMUL_BIAS(o, l, r, z);
  isa::Unstage(o, c);
}

// FIX, L0C -> GM with pto-isa's conversion of the path.
template <typename D, typename S>
void TSTORE(const GlobalTensor<D>& dst, const AccTile<S>& src, uint64_t row_stride = 0) {
  const uint64_t stride = row_stride == 0 ? src.cols : row_stride;
  if (stride < src.cols || (src.rows - 1) * stride + src.cols > dst.count) {
    isa::Fail("TSTORE Acc: GM view smaller than the tile");
  }
  isa::IsaAcc<S> s = isa::Stage<isa::IsaAcc<S>>(src);
  isa::Gm2d<D> g = isa::Gm2dView(dst.data, src.rows, src.cols, stride);
  pto_isa::TSTORE(g, s);
}

struct AnyPipe {
  int v;
  constexpr AnyPipe(Pipe p) : v(p) {}      // NOLINT: implicit on purpose
  constexpr AnyPipe(CubePipe p) : v(p) {}  // NOLINT
};
inline void set_flag(AnyPipe src, AnyPipe dst, int event_id) {
  ::set_flag(isa::IsaAnyPipe(src.v), isa::IsaAnyPipe(dst.v), static_cast<event_t>(event_id));
}
inline void wait_flag(AnyPipe src, AnyPipe dst, int event_id) {
  ::wait_flag(isa::IsaAnyPipe(src.v), isa::IsaAnyPipe(dst.v), static_cast<event_t>(event_id));
}
inline void pipe_barrier(CubePipe pipe) { ::pipe_barrier(isa::IsaAnyPipe(pipe)); }

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_CUBE_API_H_
