// The kernel API (runtime/device/device_api.h) on pto-isa (hw-native-sys/
// pto-isa, the PTO instruction headers), docs/hw.md "The device layer on
// pto-isa". A kernel built with hw/pto_isa/overlay ahead of the workspace
// root on its include path gets this file for "runtime/device/device_api.h",
// so generated kernels and builtin templates compile unchanged; the rest of
// runtime/device (kernel_abi.h, comm_context.h, kernel_support.h) is shared.
//
// Our tiles and GM views carry run-time element counts; pto-isa's carry
// static shapes with a run-time valid region. Every operation is therefore
// issued as pto-isa instructions on 1 x kChunk<T> vector tiles whose valid
// column count is the run-time remainder, one per chunk of the count.
// pto-isa's own namespace is renamed to pto_isa while its headers are read,
// since both define pto::Tile, pto::TLOAD, ...
//
// Built and run in CI in pto-isa's CPU simulation mode (__CPU_SIM, g++);
// with the CANN kernel compiler for dav-c220-vec / dav-3510 it is the same
// source, not yet compiled here (docs/hw.md).
#ifndef PTO_RUNTIME_DEVICE_DEVICE_API_H_
#define PTO_RUNTIME_DEVICE_DEVICE_API_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// pto-inst.hpp before the comm headers, which rely on it (the blank line
// keeps include sorting from swapping them).
#define pto pto_isa
#include <pto/pto-inst.hpp>

#include <pto/comm/pto_comm_inst.hpp>
#undef pto

#include "runtime/device/comm_context.h"
#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/tile_box.h"

namespace pto {

using half = _Float16;
static_assert(std::is_same_v<half, ::half>, "pto-isa's half is the board's FP16");

template <typename T>
struct Tile {
  T* data = nullptr;
  uint64_t count = 0;
  uint64_t bytes() const { return count * sizeof(T); }
};

template <typename T>
struct GlobalTensor {
  T* data = nullptr;
  uint64_t count = 0;
  uint64_t bytes() const { return count * sizeof(T); }
};

namespace isa {

// One pto-isa instruction covers at most this much of a tile: a multiple of
// the 32-byte UB block, small enough that a chunk never needs a second
// staging buffer.
inline constexpr uint64_t kChunkBytes = 8 * 1024;
template <typename T>
inline constexpr int kChunk = static_cast<int>(kChunkBytes / sizeof(T));

template <typename T>
using VecTile = pto_isa::Tile<pto_isa::TileType::Vec, T, 1, kChunk<T>, pto_isa::BLayout::RowMajor,
                              1, pto_isa::DYNAMIC>;
template <typename T>
using Gm = pto_isa::GlobalTensor<T, pto_isa::Shape<1, 1, 1, 1, pto_isa::DYNAMIC>,
                                 pto_isa::Stride<1, 1, 1, pto_isa::DYNAMIC, 1>>;
using Signal =
    pto_isa::GlobalTensor<int32_t, pto_isa::Shape<1, 1, 1, 1, 1>, pto_isa::Stride<1, 1, 1, 1, 1>>;

// This core's UB: in CPU simulation pto-isa's per-thread UB array, on the
// board address 0 of the UB space.
inline uint8_t* UbBase() {
#if defined(__CPU_SIM)
  return reinterpret_cast<uint8_t*>(pto_isa::NPUMemoryModel::Instance().GetUBBase());
#else
  return nullptr;
#endif
}
// The chip's UB bytes (the platform's, given by the build: 192 KiB on a2a3).
#ifndef PTO_DEVICE_UB_BYTES
#error "define PTO_DEVICE_UB_BYTES to the platform's UB size"
#endif
inline uint64_t UbBytes() { return PTO_DEVICE_UB_BYTES; }

// A pto-isa tile over `n` elements at `p` in UB (pto-isa resolves a UB
// pointer as the tile's address).
template <typename T>
VecTile<T> UbTile(T* p, uint64_t n) {
  VecTile<T> t(static_cast<int>(n));
  pto_isa::TASSIGN(t, reinterpret_cast<std::uintptr_t>(p));
  return t;
}
template <typename T>
Gm<T> GmView(T* p, uint64_t n) {
  const int64_t len = static_cast<int64_t>(n);
  return Gm<T>(p, pto_isa::Shape<1, 1, 1, 1, pto_isa::DYNAMIC>(len),
               pto_isa::Stride<1, 1, 1, pto_isa::DYNAMIC, 1>(len));
}
inline Signal SignalAt(int32_t* p) { return Signal(p); }

// f(offset, n) for every chunk of `count` elements.
template <typename T, typename F>
void ForChunks(uint64_t count, F f) {
  for (uint64_t off = 0; off < count; off += kChunk<T>) {
    f(off, std::min<uint64_t>(kChunk<T>, count - off));
  }
}

inline pto_isa::comm::NotifyOp IsaOp(NotifyOp op) {
  return op == NotifyOp::Set ? pto_isa::comm::NotifyOp::Set : pto_isa::comm::NotifyOp::AtomicAdd;
}
inline pto_isa::comm::WaitCmp IsaCmp(WaitCmp c) {
  switch (c) {
    case WaitCmp::EQ:
      return pto_isa::comm::WaitCmp::EQ;
    case WaitCmp::NE:
      return pto_isa::comm::WaitCmp::NE;
    case WaitCmp::GT:
      return pto_isa::comm::WaitCmp::GT;
    case WaitCmp::GE:
      return pto_isa::comm::WaitCmp::GE;
    case WaitCmp::LT:
      return pto_isa::comm::WaitCmp::LT;
    case WaitCmp::LE:
      return pto_isa::comm::WaitCmp::LE;
  }
  return pto_isa::comm::WaitCmp::EQ;
}
inline pipe_t IsaPipe(Pipe p) {
  switch (p) {
    case PIPE_S:
      return ::PIPE_S;
    case PIPE_V:
      return ::PIPE_V;
    case PIPE_MTE2:
      return ::PIPE_MTE2;
    case PIPE_MTE3:
      return ::PIPE_MTE3;
    case PIPE_ALL:
      return ::PIPE_ALL;
  }
  return ::PIPE_ALL;
}

template <typename T, typename Op>
void Binary(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const char* what, Op op) {
  if (a.count != dst.count || b.count != dst.count) CurrentCore()->Fault(what);
  ForChunks<T>(dst.count, [&](uint64_t off, uint64_t n) {
    VecTile<T> d = UbTile(dst.data + off, n), x = UbTile(a.data + off, n),
               y = UbTile(b.data + off, n);
    op(d, x, y);
  });
}

template <typename T, typename Op>
void WithScalar(Tile<T>& dst, const Tile<T>& a, const char* what, Op op) {
  if (a.count != dst.count) CurrentCore()->Fault(what);
  ForChunks<T>(dst.count, [&](uint64_t off, uint64_t n) {
    VecTile<T> d = UbTile(dst.data + off, n), x = UbTile(a.data + off, n);
    op(d, x);
  });
}

// GM -> GM through `stage`, one chunk of the stage at a time.
template <typename T>
void StagedCopy(T* dst, T* src, uint64_t count, Tile<T>& stage) {
  const uint64_t step = std::min<uint64_t>(stage.count, kChunk<T>);
  if (step == 0) CurrentCore()->Fault("TPUT/TGET: empty staging tile");
  for (uint64_t off = 0; off < count; off += step) {
    const uint64_t n = std::min(step, count - off);
    Gm<T> d = GmView(dst + off, n), s = GmView(src + off, n);
    VecTile<T> t = UbTile(stage.data, n);
    pto_isa::comm::TPUT(d, s, t);
  }
}

}  // namespace isa

// Places a tile of `count` elements at byte `ub_offset` of this core's UB.
template <typename T>
Tile<T> TASSIGN(uint64_t ub_offset, uint64_t count) {
  if (ub_offset + count * sizeof(T) > isa::UbBytes()) CurrentCore()->Fault("TASSIGN");
  return Tile<T>{reinterpret_cast<T*>(isa::UbBase() + ub_offset), count};
}

template <typename T>
void TLOAD(Tile<T>& dst, const GlobalTensor<T>& src) {
  if (src.count < dst.count) CurrentCore()->Fault("TLOAD: GM view smaller than the tile");
  isa::ForChunks<T>(dst.count, [&](uint64_t off, uint64_t n) {
    isa::VecTile<T> t = isa::UbTile(dst.data + off, n);
    isa::Gm<T> g = isa::GmView(src.data + off, n);
    pto_isa::TLOAD(t, g);
  });
}

template <typename T>
void TSTORE(const GlobalTensor<T>& dst, const Tile<T>& src) {
  if (dst.count < src.count) CurrentCore()->Fault("TSTORE: GM view smaller than the tile");
  isa::ForChunks<T>(src.count, [&](uint64_t off, uint64_t n) {
    isa::VecTile<T> t = isa::UbTile(src.data + off, n);
    isa::Gm<T> g = isa::GmView(dst.data + off, n);
    pto_isa::TSTORE(g, t);
  });
}

// An atomic-add store (PyPTO's pl.store(..., atomic=Add)): pto-isa's TSTORE
// with AtomicType::AtomicAdd.
template <typename T>
void TSTORE(const GlobalTensor<T>& dst, const Tile<T>& src, AtomicType atomic) {
  if (atomic == AtomicType::AtomicNone) return TSTORE(dst, src);
  if (dst.count < src.count) CurrentCore()->Fault("TSTORE: GM view smaller than the tile");
  isa::ForChunks<T>(src.count, [&](uint64_t off, uint64_t n) {
    isa::VecTile<T> t = isa::UbTile(src.data + off, n);
    isa::Gm<T> g = isa::GmView(dst.data + off, n);
    pto_isa::TSTORE<isa::VecTile<T>, isa::Gm<T>, pto_isa::AtomicType::AtomicAdd>(g, t);
  });
}

template <typename T>
void TPUT(const GlobalTensor<T>& remote, const GlobalTensor<T>& local, Tile<T>& stage) {
  if (remote.count != local.count) CurrentCore()->Fault("TPUT: element counts differ");
  isa::StagedCopy(remote.data, local.data, local.count, stage);
}

// An atomic-add put: pto-isa's TPUT<AtomicAdd> is a TLOAD into the stage and
// an atomic-add TSTORE per piece (include/pto/comm/TPut.hpp, TputTransferOnce).
template <typename T>
void TPUT(const GlobalTensor<T>& remote, const GlobalTensor<T>& local, Tile<T>& stage,
          AtomicType atomic) {
  if (atomic == AtomicType::AtomicNone) return TPUT(remote, local, stage);
  if (remote.count != local.count) CurrentCore()->Fault("TPUT: element counts differ");
  if (stage.count == 0) CurrentCore()->Fault("TPUT: empty staging tile");
  for (uint64_t done = 0; done < local.count; done += stage.count) {
    const uint64_t n = std::min<uint64_t>(stage.count, local.count - done);
    Tile<T> piece{stage.data, n};
    TLOAD(piece, GlobalTensor<T>{local.data + done, n});
    TSTORE(GlobalTensor<T>{remote.data + done, n}, piece, atomic);
  }
}

template <typename T>
void TGET(const GlobalTensor<T>& local, const GlobalTensor<T>& remote, Tile<T>& stage) {
  if (remote.count != local.count) CurrentCore()->Fault("TGET: element counts differ");
  isa::StagedCopy(local.data, remote.data, local.count, stage);
}

inline void TNOTIFY(int32_t* signal, int32_t value, NotifyOp op) {
  isa::Signal s = isa::SignalAt(signal);
  pto_isa::comm::TNOTIFY(s, value, isa::IsaOp(op));
}
inline void TWAIT(const int32_t* signal, int32_t value, WaitCmp cmp) {
  isa::Signal s = isa::SignalAt(const_cast<int32_t*>(signal));
  pto_isa::comm::TWAIT(s, value, isa::IsaCmp(cmp));
}

inline void pipe_barrier(Pipe pipe) { ::pipe_barrier(isa::IsaPipe(pipe)); }
inline void set_flag(Pipe src, Pipe dst, int event_id) {
  ::set_flag(isa::IsaPipe(src), isa::IsaPipe(dst), static_cast<event_t>(event_id));
}
inline void wait_flag(Pipe src, Pipe dst, int event_id) {
  ::wait_flag(isa::IsaPipe(src), isa::IsaPipe(dst), static_cast<event_t>(event_id));
}
inline void dsb(DsbMode) { ::dsb(::DSB_DDR); }
inline void dcci(const void* gm, DcciMode mode) {
  ::dcci(gm, mode == ENTIRE_DATA_CACHE ? ::cache_line_t::ENTIRE_DATA_CACHE
                                       : ::cache_line_t::SINGLE_CACHE_LINE);
}

// URMA (A5) transfers: pto-isa's TPUT_ASYNC needs an AsyncSession the
// kernel ABI does not carry yet; the transfer is issued as a staged-free
// synchronous copy, so the returned event is complete at once.
inline constexpr uint64_t kUrmaMaxWqeBytes = 256ull << 20;
using AsyncEvent = uint64_t;
template <typename T>
AsyncEvent TPUT_ASYNC(const GlobalTensor<T>& remote, const GlobalTensor<T>& local) {
  if (remote.count != local.count) CurrentCore()->Fault("TPUT_ASYNC: element counts differ");
  isa::Gm<T> d = isa::GmView(remote.data, remote.count), s = isa::GmView(local.data, local.count);
  pto_isa::comm::TPUT_ASYNC(d, s, pto_isa::comm::AsyncSession{});
  return 0;
}
template <typename T>
AsyncEvent TGET_ASYNC(const GlobalTensor<T>& local, const GlobalTensor<T>& remote) {
  if (remote.count != local.count) CurrentCore()->Fault("TGET_ASYNC: element counts differ");
  isa::Gm<T> d = isa::GmView(local.data, local.count), s = isa::GmView(remote.data, remote.count);
  pto_isa::comm::TGET_ASYNC(d, s, pto_isa::comm::AsyncSession{});
  return 0;
}
inline void defer_completion(AsyncEvent) {}

// Scalar GM access: plain loads and stores, as on the board.
template <typename T>
T ReadGm(const T* gm) {
  static_assert(sizeof(T) <= 8);
  return *reinterpret_cast<const volatile T*>(gm);
}
template <typename T>
void WriteGm(T* gm, T v) {
  static_assert(sizeof(T) <= 8);
  *reinterpret_cast<volatile T*>(gm) = v;
}

template <typename T>
void TADD(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  isa::Binary(dst, a, b, "TADD: shape mismatch",
              [](auto& d, auto& x, auto& y) { pto_isa::TADD(d, x, y); });
}
template <typename T>
void TSUB(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  isa::Binary(dst, a, b, "TSUB: shape mismatch",
              [](auto& d, auto& x, auto& y) { pto_isa::TSUB(d, x, y); });
}
template <typename T>
void TMUL(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  isa::Binary(dst, a, b, "TMUL: shape mismatch",
              [](auto& d, auto& x, auto& y) { pto_isa::TMUL(d, x, y); });
}
template <typename T>
void TMAX(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  isa::Binary(dst, a, b, "TMAX: shape mismatch",
              [](auto& d, auto& x, auto& y) { pto_isa::TMAX(d, x, y); });
}
template <typename T>
void TMIN(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  isa::Binary(dst, a, b, "TMIN: shape mismatch",
              [](auto& d, auto& x, auto& y) { pto_isa::TMIN(d, x, y); });
}
template <typename T>
void TADDS(Tile<T>& dst, const Tile<T>& a, T s) {
  isa::WithScalar(dst, a, "TADDS: shape mismatch",
                  [&](auto& d, auto& x) { pto_isa::TADDS(d, x, s); });
}
template <typename T>
void TMULS(Tile<T>& dst, const Tile<T>& a, T s) {
  isa::WithScalar(dst, a, "TMULS: shape mismatch",
                  [&](auto& d, auto& x) { pto_isa::TMULS(d, x, s); });
}
template <typename T>
void TEXPANDS(Tile<T>& dst, T s) {
  isa::ForChunks<T>(dst.count, [&](uint64_t off, uint64_t n) {
    isa::VecTile<T> d = isa::UbTile(dst.data + off, n);
    pto_isa::TEXPANDS(d, s);
  });
}
// pto-isa's TCVT with the mode (RoundMode numbers pto-isa's). Its CPU
// simulation rounds a float -> float conversion to nearest even whatever the
// mode, so only RINT / NONE narrowing is compared with the reference.
template <typename D, typename S>
void TCVT(Tile<D>& dst, const Tile<S>& src, RoundMode mode = RoundMode::kRint) {
  if (dst.count != src.count) CurrentCore()->Fault("TCVT: shape mismatch");
  constexpr uint64_t kStep = std::min(isa::kChunk<D>, isa::kChunk<S>);
  for (uint64_t off = 0; off < dst.count; off += kStep) {
    const uint64_t n = std::min(kStep, dst.count - off);
    isa::VecTile<D> d = isa::UbTile(dst.data + off, n);
    isa::VecTile<S> s = isa::UbTile(src.data + off, n);
    pto_isa::TCVT(d, s, static_cast<pto_isa::RoundMode>(static_cast<int>(mode)));
  }
}
template <typename T>
void TMOV(Tile<T>& dst, const Tile<T>& src) {
  isa::WithScalar(dst, src, "TMOV: shape mismatch", [](auto& d, auto& x) { pto_isa::TMOV(d, x); });
}

// An operator given a box (tile_box.h's Dims2) works on the valid box's rows
// only, one row of instructions at a time, and leaves the tile's other
// elements as they were.

namespace isa {
// Row r of the valid box of `t` as a tile of its own.
template <typename T>
Tile<T> BoxRow(const Tile<T>& t, const Dims2& box, int64_t r) {
  return Tile<T>{t.data + r * box.cols, static_cast<uint64_t>(box.valid_cols)};
}
// f(row r of dst, of a, ...) for every valid row of `box`; the whole tiles when
// no box is given.
template <typename F, typename T, typename... Ts>
void ForBoxRows(const Dims2& box, const char* what, F f, Tile<T>& dst, const Tile<Ts>&... srcs) {
  if (box.rows == 0) {
    f(dst, srcs...);
    return;
  }
  const auto fits = [&](uint64_t count) {
    return box.rows >= 0 && box.cols >= 0 && box.valid_rows >= 0 && box.valid_cols >= 0 &&
           box.valid_rows <= box.rows && box.valid_cols <= box.cols &&
           static_cast<uint64_t>(box.rows * box.cols) == count;
  };
  if (!fits(dst.count) || !(fits(srcs.count) && ...)) CurrentCore()->Fault(what);
  for (int64_t r = 0; r < box.valid_rows; ++r) {
    Tile<T> d = BoxRow(dst, box, r);
    f(d, BoxRow(srcs, box, r)...);
  }
}
}  // namespace isa

#define PTO_OVERLAY_BOX2(NAME)                                                        \
  template <typename T>                                                               \
  void NAME(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b, const Dims2& box) {     \
    isa::ForBoxRows(                                                                  \
        box, #NAME ": box does not match the tile",                                   \
        [](Tile<T>& d, const Tile<T>& x, const Tile<T>& y) { NAME(d, x, y); }, dst, a, b); \
  }
PTO_OVERLAY_BOX2(TADD)
PTO_OVERLAY_BOX2(TSUB)
PTO_OVERLAY_BOX2(TMUL)
PTO_OVERLAY_BOX2(TMAX)
PTO_OVERLAY_BOX2(TMIN)
#undef PTO_OVERLAY_BOX2

#define PTO_OVERLAY_BOX_SCALAR(NAME)                                            \
  template <typename T>                                                         \
  void NAME(Tile<T>& dst, const Tile<T>& a, T s, const Dims2& box) {            \
    isa::ForBoxRows(                                                            \
        box, #NAME ": box does not match the tile",                             \
        [s](Tile<T>& d, const Tile<T>& x) { NAME(d, x, s); }, dst, a);          \
  }
PTO_OVERLAY_BOX_SCALAR(TADDS)
PTO_OVERLAY_BOX_SCALAR(TMULS)
#undef PTO_OVERLAY_BOX_SCALAR

template <typename D, typename S>
void TCVT(Tile<D>& dst, const Tile<S>& src, const Dims2& box,
          RoundMode mode = RoundMode::kRint) {
  isa::ForBoxRows(
      box, "TCVT: box does not match the tile",
      [mode](Tile<D>& d, const Tile<S>& x) { TCVT(d, x, mode); }, dst, src);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_DEVICE_API_H_
