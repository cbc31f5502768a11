// The kernel API (docs/architecture.md): the PTO intrinsic subset the builtin and
// user kernels call. Kernels include only this header (and comm_context.h).
#ifndef PTO_RUNTIME_DEVICE_DEVICE_API_H_
#define PTO_RUNTIME_DEVICE_DEVICE_API_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <functional>
#include <cstring>

#include "runtime/device/comm_context.h"
#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/tile_box.h"

namespace pto {

// FP16 elements (the board's `half`); the simulator computes in _Float16.
using half = _Float16;

// BF16 elements (the board's `bfloat16_t`): the upper 16 bits of an FP32.
// Arithmetic computes in float and rounds the result to nearest even, so
// every operator template works on it as on float.
struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  // Round to nearest even; a NaN stays a (quiet) NaN.
  bfloat16(float f) {  // NOLINT(google-explicit-constructor): as float converts
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = static_cast<uint16_t>(u >> 16);
  }
  operator float() const {  // NOLINT(google-explicit-constructor)
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
static_assert(sizeof(bfloat16) == 2);

// A tile in UB: `count` elements of T at `data`.
template <typename T>
struct Tile {
  T* data = nullptr;
  uint64_t count = 0;
  uint64_t bytes() const { return count * sizeof(T); }
};

// A view of GM (local or a peer window): `count` elements of T at `data`.
template <typename T>
struct GlobalTensor {
  T* data = nullptr;
  uint64_t count = 0;
  uint64_t bytes() const { return count * sizeof(T); }
};

// Places a tile of `count` elements at byte `ub_offset` of this core's UB.
template <typename T>
Tile<T> TASSIGN(uint64_t ub_offset, uint64_t count) {
  DeviceCore* c = CurrentCore();
  Tile<T> t{reinterpret_cast<T*>(c->UbBase() + ub_offset), count};
  c->CheckUb(t.data, t.bytes(), "TASSIGN");
  return t;
}

// GM -> UB: fills the whole tile.
template <typename T>
void TLOAD(Tile<T>& dst, const GlobalTensor<T>& src) {
  DeviceCore* c = CurrentCore();
  if (src.count < dst.count) c->Fault("TLOAD: GM view smaller than the tile");
  c->Load(dst.data, src.data, dst.bytes());
}

// A box of an N-D GM view (elements): `slabs` 2-D boxes of `rows` x `cols`,
// rows `row_stride` apart and slabs `slab_stride` apart in GM; they fill the
// tile in order, each row `tile_cols` wide (0: cols).
struct GmBox {
  uint64_t slabs = 1;
  uint64_t rows = 1;
  uint64_t cols = 0;
  uint64_t row_stride = 0;
  uint64_t slab_stride = 0;
  uint64_t tile_cols = 0;
};

// GM -> UB from an N-D view: one DMA per slab, as pto-isa's TLOAD issues
// them (docs/simulator.md, "Per-instruction costs").
template <typename T>
void TLOAD(Tile<T>& dst, const GlobalTensor<T>& src, const GmBox& box) {
  DeviceCore* c = CurrentCore();
  const uint64_t pitch = box.tile_cols == 0 ? box.cols : box.tile_cols;
  if (box.cols > pitch || box.cols > box.row_stride ||
      box.slabs * box.rows * pitch > dst.count ||
      (box.slabs - 1) * box.slab_stride + (box.rows - 1) * box.row_stride + box.cols > src.count) {
    c->Fault("TLOAD: GM box outside the view or the tile");
  }
  for (uint64_t s = 0; s < box.slabs; ++s) {
    c->LoadRows(dst.data + s * box.rows * pitch, pitch * sizeof(T), src.data + s * box.slab_stride,
                box.row_stride * sizeof(T), box.rows, box.cols * sizeof(T));
  }
}

// UB -> GM: writes the whole tile.
template <typename T>
void TSTORE(const GlobalTensor<T>& dst, const Tile<T>& src) {
  DeviceCore* c = CurrentCore();
  if (dst.count < src.count) c->Fault("TSTORE: GM view smaller than the tile");
  c->Store(dst.data, src.data, src.bytes());
}

namespace internal {
template <typename T>
void AddElements(void* gm, const void* ub, uint64_t bytes) {
  T* d = static_cast<T*>(gm);
  const T* s = static_cast<const T*>(ub);
  for (uint64_t i = 0; i < bytes / sizeof(T); ++i) d[i] = static_cast<T>(d[i] + s[i]);
}
}  // namespace internal

// UB -> GM with an atomic mode: AtomicAdd adds the tile into GM (pto-isa
// TSTORE<..., AtomicType::AtomicAdd>, PyPTO's pl.store(..., atomic=Add)).
template <typename T>
void TSTORE(const GlobalTensor<T>& dst, const Tile<T>& src, AtomicType atomic) {
  if (atomic == AtomicType::AtomicNone) return TSTORE(dst, src);
  DeviceCore* c = CurrentCore();
  if (dst.count < src.count) c->Fault("TSTORE: GM view smaller than the tile");
  c->StoreAdd(dst.data, src.data, src.bytes(), &internal::AddElements<T>);
}

// Local GM -> peer window, staged through `stage` in UB.
template <typename T>
void TPUT(const GlobalTensor<T>& remote, const GlobalTensor<T>& local,
          Tile<T>& stage) {
  DeviceCore* c = CurrentCore();
  if (remote.count != local.count) c->Fault("TPUT: element counts differ");
  c->Copy(remote.data, local.data, local.bytes(), stage.data, stage.bytes());
}

// Local GM -> peer window with an atomic mode: as pto-isa's TPUT<AtomicAdd>
// (include/pto/comm/TPut.hpp, TputTransferOnce), each stage-sized piece is
// loaded into `stage` and added into the peer's GM by an atomic-add store.
template <typename T>
void TPUT(const GlobalTensor<T>& remote, const GlobalTensor<T>& local, Tile<T>& stage,
          AtomicType atomic) {
  if (atomic == AtomicType::AtomicNone) return TPUT(remote, local, stage);
  DeviceCore* c = CurrentCore();
  if (remote.count != local.count) c->Fault("TPUT: element counts differ");
  if (stage.count == 0) c->Fault("TPUT: empty staging tile");
  for (uint64_t done = 0; done < local.count; done += stage.count) {
    const uint64_t n = std::min<uint64_t>(stage.count, local.count - done);
    Tile<T> piece{stage.data, n};
    TLOAD(piece, GlobalTensor<T>{local.data + done, n});
    TSTORE(GlobalTensor<T>{remote.data + done, n}, piece, atomic);
  }
}

// Peer window -> local GM, staged through `stage` in UB.
template <typename T>
void TGET(const GlobalTensor<T>& local, const GlobalTensor<T>& remote,
          Tile<T>& stage) {
  DeviceCore* c = CurrentCore();
  if (remote.count != local.count) c->Fault("TGET: element counts differ");
  c->Copy(local.data, remote.data, local.bytes(), stage.data, stage.bytes());
}

// Signals are int32 words in GM (usually a window), 4-byte aligned.
inline void TNOTIFY(int32_t* signal, int32_t value, NotifyOp op) {
  CurrentCore()->Notify(signal, value, op);
}
inline void TWAIT(const int32_t* signal, int32_t value, WaitCmp cmp) {
  CurrentCore()->Wait(signal, value, cmp);
}

inline void pipe_barrier(Pipe pipe) { CurrentCore()->PipeBarrier(pipe); }
inline void set_flag(Pipe src, Pipe dst, int event_id) {
  CurrentCore()->SetFlag(src, dst, event_id);
}
inline void wait_flag(Pipe src, Pipe dst, int event_id) {
  CurrentCore()->WaitFlag(src, dst, event_id);
}
inline void dsb(DsbMode) { CurrentCore()->Dsb(); }
inline void dcci(const void* gm, DcciMode mode) {
  CurrentCore()->Dcci(gm, mode);
}

// Asynchronous remote transfers through URMA (A5). The returned handle is
// passed to defer_completion; the transfer is chunked at the 256 MiB WQE
// limit and completes in order, so the last chunk's handle covers it all.
inline constexpr uint64_t kUrmaMaxWqeBytes = 256ull << 20;
using AsyncEvent = uint64_t;

template <typename T>
AsyncEvent TPUT_ASYNC(const GlobalTensor<T>& remote,
                      const GlobalTensor<T>& local) {
  DeviceCore* c = CurrentCore();
  if (remote.count != local.count) c->Fault("TPUT_ASYNC: element counts differ");
  AsyncEvent ev = 0;
  for (uint64_t off = 0; off < local.bytes(); off += kUrmaMaxWqeBytes) {
    const uint64_t n = std::min(kUrmaMaxWqeBytes, local.bytes() - off);
    ev = c->UrmaPost(true, reinterpret_cast<char*>(remote.data) + off,
                     reinterpret_cast<char*>(local.data) + off, n);
  }
  return ev;
}

template <typename T>
AsyncEvent TGET_ASYNC(const GlobalTensor<T>& local,
                      const GlobalTensor<T>& remote) {
  DeviceCore* c = CurrentCore();
  if (remote.count != local.count) c->Fault("TGET_ASYNC: element counts differ");
  AsyncEvent ev = 0;
  for (uint64_t off = 0; off < local.bytes(); off += kUrmaMaxWqeBytes) {
    const uint64_t n = std::min(kUrmaMaxWqeBytes, local.bytes() - off);
    ev = c->UrmaPost(false, reinterpret_cast<char*>(remote.data) + off,
                     reinterpret_cast<char*>(local.data) + off, n);
  }
  return ev;
}

inline void defer_completion(AsyncEvent ev) {
  CurrentCore()->DeferCompletion(ev);
}

// Scalar GM access. On the board these are plain loads and stores through the
// AICore data cache; kernels spell them out so the simulator can model it.
template <typename T>
T ReadGm(const T* gm) {
  static_assert(sizeof(T) <= 8);
  T v;
  CurrentCore()->ScalarRead(gm, &v, sizeof(T));
  return v;
}
template <typename T>
void WriteGm(T* gm, T v) {
  static_assert(sizeof(T) <= 8);
  CurrentCore()->ScalarWrite(gm, &v, sizeof(T));
}

// Dims2 (the 2-D view of a tile) and RoundMode are tile_box.h's.

// Vector instructions on UB tiles: elementwise over the tile, or over the
// valid box of `box` when one is given (its other elements are left as they
// were). The box is also the instruction's shape for the backend's cost.
namespace internal {
template <typename T>
void CheckSameShape(const Tile<T>& a, const Tile<T>& b, const char* op) {
  if (a.count != b.count) CurrentCore()->Fault(op);
}

template <typename T>
void CheckDims(const Tile<T>& t, const Dims2& d, const char* op) {
  if (d.rows < 0 || d.cols < 0 || d.valid_rows < 0 || d.valid_cols < 0 ||
      d.valid_rows > d.rows || d.valid_cols > d.cols ||
      static_cast<uint64_t>(d.rows * d.cols) != t.count) {
    CurrentCore()->Fault(op);
  }
}

// The shape of an instruction over `count` elements of T, or over `box`.
template <typename T>
VecShape ShapeOf(uint64_t count, const Dims2& box) {
  if (box.rows == 0) {
    return VecShape{sizeof(T), 1, static_cast<int64_t>(count), static_cast<int64_t>(count)};
  }
  return VecShape{sizeof(T), box.valid_rows, box.valid_cols, box.cols};
}

// f(e) for every element index e of the valid box (of the tile without one).
template <typename T, typename F>
void ForBox(const Tile<T>& t, const Dims2& box, const char* what, F f) {
  if (box.rows == 0) {
    for (uint64_t i = 0; i < t.count; ++i) f(i);
    return;
  }
  CheckDims(t, box, what);
  for (int64_t r = 0; r < box.valid_rows; ++r) {
    for (int64_t c = 0; c < box.valid_cols; ++c) f(static_cast<uint64_t>(r * box.cols + c));
  }
}

template <typename T, typename F>
void Elementwise2(VecOp op, Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box,
                  const char* what, F f) {
  CheckSameShape(dst, a, what);
  CheckSameShape(dst, b, what);
  ForBox(dst, box, what, [&](uint64_t i) { dst.data[i] = static_cast<T>(f(a.data[i], b.data[i])); });
  CurrentCore()->VectorShaped(op, dst.data, a.data, b.data, dst.bytes(), ShapeOf<T>(dst.count, box));
}

template <typename T, typename F>
void Elementwise1(VecOp op, Tile<T>& dst, const Tile<T>& a, const Dims2& box, const char* what,
                  F f) {
  CheckSameShape(dst, a, what);
  ForBox(dst, box, what, [&](uint64_t i) { dst.data[i] = static_cast<T>(f(a.data[i])); });
  CurrentCore()->VectorShaped(op, dst.data, a.data, nullptr, dst.bytes(), ShapeOf<T>(dst.count, box));
}
// Integer lanes wrap modulo 2^bits, as the vector unit's do (signed
// overflow would be undefined in C++); other types compute as themselves.
template <typename T, typename F>
T Wrapping(T x, T y, F f) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(f(static_cast<uint64_t>(x), static_cast<uint64_t>(y)));
  } else {
    return f(x, y);
  }
}
}  // namespace internal

template <typename T>
void TADD(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Elementwise2(VecOp::kAdd, dst, a, b, box, "TADD: shape mismatch",
                         [](T x, T y) { return internal::Wrapping(x, y, std::plus<>()); });
}
template <typename T>
void TSUB(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Elementwise2(VecOp::kSub, dst, a, b, box, "TSUB: shape mismatch",
                         [](T x, T y) { return internal::Wrapping(x, y, std::minus<>()); });
}
template <typename T>
void TMUL(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Elementwise2(VecOp::kMul, dst, a, b, box, "TMUL: shape mismatch",
                         [](T x, T y) { return internal::Wrapping(x, y, std::multiplies<>()); });
}
template <typename T>
void TMAX(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Elementwise2(VecOp::kMax, dst, a, b, box, "TMAX: shape mismatch",
                         [](T x, T y) { return std::max(x, y); });
}
template <typename T>
void TMIN(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box = {}) {
  internal::Elementwise2(VecOp::kMin, dst, a, b, box, "TMIN: shape mismatch",
                         [](T x, T y) { return std::min(x, y); });
}
template <typename T>
void TADDS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Elementwise1(VecOp::kAddS, dst, a, box, "TADDS: shape mismatch",
                         [s](T x) { return x + s; });
}
template <typename T>
void TMULS(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box = {}) {
  internal::Elementwise1(VecOp::kMulS, dst, a, box, "TMULS: shape mismatch",
                         [s](T x) { return x * s; });
}
template <typename T>
void TEXPANDS(Tile<T>& dst, T s) {
  for (uint64_t i = 0; i < dst.count; ++i) dst.data[i] = s;
  CurrentCore()->VectorShaped(VecOp::kFill, dst.data, nullptr, nullptr, dst.bytes(),
                              internal::ShapeOf<T>(dst.count, {}));
}
namespace internal {
template <typename D>
constexpr bool kFloatLike =
    std::is_same_v<D, float> || std::is_same_v<D, half> || std::is_same_v<D, bfloat16>;

// The float of type D next to `d` toward +inf (up) or -inf (down); an
// infinity only steps toward zero, a NaN stays. 16-bit types on their bits
// (sign and magnitude: half and bfloat16 alike).
template <typename D>
D StepFloat(D d, bool up) {
  if constexpr (std::is_same_v<D, float>) {
    return std::nextafter(d, up ? HUGE_VALF : -HUGE_VALF);
  } else {
    uint16_t b;
    std::memcpy(&b, &d, 2);
    const bool neg = (b & 0x8000u) != 0;
    const uint16_t mag = b & 0x7fffu;
    const uint16_t inf = std::is_same_v<D, bfloat16> ? 0x7f80u : 0x7c00u;
    if (mag == 0) {
      b = up ? 0x0001u : 0x8001u;  // the smallest subnormal of the direction
    } else if (mag < inf || (mag == inf && up == neg)) {
      b = static_cast<uint16_t>(up != neg ? b + 1 : b - 1);
    }
    D out;
    std::memcpy(static_cast<void*>(&out), &b, 2);  // D may be bfloat16 (a class)
    return out;
  }
}

template <typename D>
bool LastBitSet(D d) {
  unsigned char low;
  std::memcpy(&low, &d, 1);  // little-endian: the low byte holds the last bit
  return (low & 1u) != 0;
}

// x (exact in double: a float or an integer below 2^53) as a D under `mode`
// (TCVT.md): the two neighbours of an inexact value, then the mode's choice;
// exact values and NaN convert as they are.
template <typename D>
D RoundFloat(double x, RoundMode mode) {
  const D r = static_cast<D>(static_cast<float>(x));  // a neighbour of x
  const double rf = static_cast<double>(static_cast<float>(r));
  if (x != x || rf == x) return r;
  const D lo = rf < x ? r : StepFloat(r, /*up=*/false);
  const D hi = rf < x ? StepFloat(r, /*up=*/true) : r;
  // An infinity neighbour counts as the next step past the largest finite
  // value (IEEE 754's overflow rule for rounding to nearest).
  double lv = static_cast<float>(lo), hv = static_cast<float>(hi);
  if (std::isinf(hv)) hv = 2.0 * lv - static_cast<float>(StepFloat(lo, /*up=*/false));
  if (std::isinf(lv)) lv = 2.0 * hv - static_cast<float>(StepFloat(hi, /*up=*/true));
  const double dl = x - lv;
  const double dh = hv - x;
  switch (mode) {
    case RoundMode::kRound:
      return dl < dh ? lo : dh < dl ? hi : (x > 0 ? hi : lo);
    case RoundMode::kFloor:
      return lo;
    case RoundMode::kCeil:
      return hi;
    case RoundMode::kTrunc:
      return x > 0 ? lo : hi;
    case RoundMode::kOdd:
      return LastBitSet(lo) ? lo : hi;
    default:  // none, rint: to nearest, ties to even
      return dl < dh ? lo : dh < dl ? hi : (LastBitSet(lo) ? hi : lo);
  }
}

template <typename D, typename S>
D Convert(S v, RoundMode mode) {
  if constexpr (kFloatLike<D> && !std::is_same_v<D, S>) {
    // From float, ties to even is the C++ conversion itself (one rounding):
    // the common case, without the neighbour search.
    if constexpr (std::is_same_v<S, float>) {
      if (mode == RoundMode::kRint || mode == RoundMode::kNone) return static_cast<D>(v);
    }
    return RoundFloat<D>(static_cast<double>(v), mode);
  } else {
    return static_cast<D>(v);
  }
}
}  // namespace internal

// Elementwise conversion (PyPTO's pl.tile.cast): an inexact float result
// rounds by `mode` (tile_box.h); an integer result is the C++ conversion
// (code generation offers integer sources only).
template <typename D, typename S>
void TCVT(Tile<D>& dst, const Tile<S>& src, const Dims2& box = {},
          RoundMode mode = RoundMode::kRint) {
  if (dst.count != src.count) CurrentCore()->Fault("TCVT: shape mismatch");
  internal::ForBox(dst, box, "TCVT: bad box",
                   [&](uint64_t i) { dst.data[i] = internal::Convert<D>(src.data[i], mode); });
  VecShape shape = internal::ShapeOf<D>(dst.count, box);
  shape.src_elem_bytes = sizeof(S);
  CurrentCore()->VectorShaped(VecOp::kCvt, dst.data, src.data, nullptr,
                              std::max(dst.bytes(), src.bytes()), shape);
}
template <typename T>
void TMOV(Tile<T>& dst, const Tile<T>& src) {
  internal::CheckSameShape(dst, src, "TMOV: shape mismatch");
  std::memmove(dst.data, src.data, dst.bytes());
  CurrentCore()->VectorShaped(VecOp::kCopy, dst.data, src.data, nullptr, dst.bytes(),
                              internal::ShapeOf<T>(dst.count, {}));
}

}  // namespace pto

// Unary math, division, reductions, expansion and layout operators.
#include "runtime/device/vector_ops.h"  // IWYU pragma: export

#endif  // PTO_RUNTIME_DEVICE_DEVICE_API_H_
