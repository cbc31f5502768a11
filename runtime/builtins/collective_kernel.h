// Device-side pieces the builtin collective kernels share: the self-clearing
// credit barrier over signal cells, the publish fence, and tile-wise copies
// and reductions through UB. Every kernel.cpp.in but all_to_all_v's (whose
// rendering must stay byte-identical across rails) includes it.
//
// Credit protocol: a barrier adds +1 to cell(me) on every peer and waits
// until its own cell(q) of every peer q reaches the barrier's ordinal k
// (Ge, so early credits of a faster peer's next barrier do not block). The
// epilogue subtracts the number of barriers of this call from each own cell,
// so the signal reads zero when every rank is done and a later call (or
// epoch) reuses it. A peer can be at most one barrier into the next call
// before we subtract (it needs our first credit of that call to pass it), so
// the subtraction never removes a credit the next call needs.
#ifndef PTO_RUNTIME_BUILTINS_COLLECTIVE_KERNEL_H_
#define PTO_RUNTIME_BUILTINS_COLLECTIVE_KERNEL_H_

#include <algorithm>
#include <cstdint>

#include "runtime/device/device_api.h"

namespace pto::builtins::collective {

inline constexpr int64_t kMaxSupportedRanks = 16;

enum class Reduce { sum, max, min, prod };

// Publishes preceding GM/window writes before a notify a peer waits on.
inline void PublishFence() {
  pipe_barrier(PIPE_ALL);
  dsb(DSB_DDR);
}

// Signal cells of one lane: cell(q) = base + q * stride + lane.
struct Cells {
  int32_t* base;
  int64_t stride;
  int64_t lane;
  int32_t* cell(int64_t q) const { return base + q * stride + lane; }
};

// Barrier number `k` (1-based within the call) over the P ranks of ctx.
inline void Barrier(const CommContext* ctx, const Cells& c, int64_t p, int64_t me, int32_t k) {
  PublishFence();
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) TNOTIFY(CommRemotePtr(ctx, c.cell(me), static_cast<uint32_t>(q)), 1,
                         NotifyOp::AtomicAdd);
  }
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) TWAIT(c.cell(q), k, WaitCmp::GE);
  }
}

// Drops the `barriers` credits each peer gave this lane in this call.
inline void Epilogue(const Cells& c, int64_t p, int64_t me, int32_t barriers) {
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) TNOTIFY(c.cell(q), -barriers, NotifyOp::AtomicAdd);
  }
  PublishFence();
}

// Per-peer lanes (LaunchWidthRule::kPerPeer): B blocks of one rank share a
// [P] signal. Block 0 alone runs the cross-rank barriers and the epilogue;
// the rank's own cell, which no barrier touches, gates the other blocks:
// block 0 adds 1 after barrier 1 (go), every block adds 1 when its transfers
// are published (done), and block 0 waits for 1 + B before barrier 2, then
// clears the cell. The launch is sync-start, so every block is resident.
inline void LanesGo(const Cells& c, int64_t me, int64_t block) {
  if (block == 0) {
    TNOTIFY(c.cell(me), 1, NotifyOp::AtomicAdd);
  } else {
    TWAIT(c.cell(me), 1, WaitCmp::GE);
  }
}

inline void LanesDone(const Cells& c, int64_t me) {
  PublishFence();
  TNOTIFY(c.cell(me), 1, NotifyOp::AtomicAdd);
}

// Block 0: every lane is done; then the cell is cleared for the next call.
inline void LanesJoin(const Cells& c, int64_t me, int64_t lanes) {
  TWAIT(c.cell(me), static_cast<int32_t>(1 + lanes), WaitCmp::GE);
  TNOTIFY(c.cell(me), static_cast<int32_t>(-(1 + lanes)), NotifyOp::AtomicAdd);
}

// Elements per UB tile: two tiles of kTileBytes fit every platform's UB.
inline constexpr uint64_t kTileBytes = 32 * 1024;
inline constexpr uint64_t kUbTileA = 0x0;
inline constexpr uint64_t kUbTileB = kTileBytes;

template <typename T>
constexpr uint64_t TileElems() {
  return kTileBytes / sizeof(T);
}

// dst[i] = a[i] op b[i] on UB tiles.
template <Reduce kOp, typename T>
void ReduceTiles(Tile<T>& dst, const Tile<T>& a, const Tile<T>& b) {
  if constexpr (kOp == Reduce::sum) {
    TADD(dst, a, b);
  } else if constexpr (kOp == Reduce::max) {
    TMAX(dst, a, b);
  } else if constexpr (kOp == Reduce::min) {
    TMIN(dst, a, b);
  } else {
    TMUL(dst, a, b);
  }
}

// remote[0, n) = local[0, n) (TPUT to a peer window, or a local copy),
// staged in UB.
template <typename T>
void PutGm(T* remote, const T* local, uint64_t n) {
  if (n == 0) return;
  Tile<T> stage = TASSIGN<T>(kUbTileA, TileElems<T>());
  TPUT(GlobalTensor<T>{remote, n}, GlobalTensor<T>{const_cast<T*>(local), n}, stage);
}

// local[0, n) = remote[0, n) (TGET from a peer window), staged in UB.
template <typename T>
void GetGm(T* local, const T* remote, uint64_t n) {
  if (n == 0) return;
  Tile<T> stage = TASSIGN<T>(kUbTileA, TileElems<T>());
  TGET(GlobalTensor<T>{local, n}, GlobalTensor<T>{const_cast<T*>(remote), n}, stage);
}

// The fold(op) of source(0)[begin, begin + n), source(1)[...], ... in that
// order, left in UB tile A (tile B is the scratch).
template <Reduce kOp, typename T, typename SourceFn>
Tile<T> FoldToUb(int64_t count, SourceFn source, uint64_t begin, uint64_t n) {
  Tile<T> a = TASSIGN<T>(kUbTileA, n);
  Tile<T> b = TASSIGN<T>(kUbTileB, n);
  TLOAD(a, GlobalTensor<T>{const_cast<T*>(source(0)) + begin, n});
  for (int64_t k = 1; k < count; ++k) {
    TLOAD(b, GlobalTensor<T>{const_cast<T*>(source(k)) + begin, n});
    ReduceTiles<kOp>(a, a, b);
  }
  return a;
}

// acc[begin, begin + n) = FoldToUb(...); `acc` may be one of the sources
// (each tile is read before it is stored).
template <Reduce kOp, typename T, typename SourceFn>
void FoldTile(T* acc, int64_t count, SourceFn source, uint64_t begin, uint64_t n) {
  Tile<T> a = FoldToUb<kOp, T>(count, source, begin, n);
  TSTORE(GlobalTensor<T>{acc + begin, n}, a);
}

// Number of elements of a tensor descriptor.
inline int64_t Numel(const TensorDesc* t) {
  int64_t n = 1;
  for (uint32_t i = 0; i < t->ndims; ++i) n *= static_cast<int64_t>(t->shape[i]);
  return n;
}

}  // namespace pto::builtins::collective

#endif  // PTO_RUNTIME_BUILTINS_COLLECTIVE_KERNEL_H_
