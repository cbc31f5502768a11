// The helpers generated kernels call (compiler/codegen/kernel_codegen.cc
// emits `#include "runtime/device/kernel_support.h"` and calls them as
// pto::kernels::internal::*): index arithmetic on tensor descriptors, GM
// <-> UB box copies, remote views of window tensors through the
// CommContext. Written only against the device API (device_api.h), so every
// backend shares this one implementation. Inline and templates: identical in
// every kernel of a build, so several kernels link together.
#ifndef PTO_RUNTIME_DEVICE_KERNEL_SUPPORT_H_
#define PTO_RUNTIME_DEVICE_KERNEL_SUPPORT_H_

#include <cstddef>
#include <cstdint>

#include "common/floor_div.h"
#include "runtime/device/comm_context.h"
#include "runtime/device/device_api.h"
#include "runtime/device/kernel_abi.h"

namespace pto::kernels::internal {

// Dim k of `t` (a descriptor of ndims 0 is 1-D over its bytes).
inline int64_t Dim(const pto::TensorDesc* t, uint32_t k) {
  return t->ndims == 0 ? static_cast<int64_t>(t->bytes / t->elem_bytes)
                       : static_cast<int64_t>(t->shape[k]);
}

// Faults unless `t` has `rank` dims of `elem_bytes` elements.
inline void CheckTensor(const pto::TensorDesc* t, uint32_t rank,
                        uint32_t elem_bytes, const char* what) {
  if (t->elem_bytes != elem_bytes || (t->ndims != rank && !(t->ndims == 0 && rank == 1))) {
    pto::CurrentCore()->Fault(what);
  }
}

// Whether `t` is a strided view (explicit strides, not row-major).
inline bool Strided(const pto::TensorDesc* t) {
  return t->ndims > 0 && t->ndims <= 5 && t->strides[t->ndims - 1] != 0;
}

// Element offset of `idx` in `t` (row-major, or by the strides of a strided
// view); faults outside the shape.
template <size_t N>
int64_t Offset(const pto::TensorDesc* t, const int64_t (&idx)[N]) {
  const bool strided = Strided(t);
  int64_t off = 0;
  for (uint32_t k = 0; k < N; ++k) {
    if (idx[k] < 0 || idx[k] >= Dim(t, k)) pto::CurrentCore()->Fault("index out of range");
    off = strided ? off + idx[k] * static_cast<int64_t>(t->strides[k]) : off * Dim(t, k) + idx[k];
  }
  return off;
}

// Whether the box of `shape` at `off` is one run of `t`'s elements (dims
// after the first whole, `t` not strided). A strided view's rows are runs:
// its innermost stride is 1 (the runtime's submit check).
template <size_t N>
bool BoxIsOneRun(const pto::TensorDesc* t, const int64_t (&off)[N], const int64_t (&shape)[N]) {
  if (Strided(t)) return false;
  for (uint32_t k = 1; k < N; ++k) {
    if (off[k] != 0 || shape[k] != Dim(t, k)) return false;
  }
  return true;
}

// Copies between the GM box of `shape` at `off` in `t` and the row-major UB
// tile `tile`: one transfer when the box is contiguous in GM and in UB, else
// one per innermost row. `pitch` > 0 is the tile's innermost dim when the box
// is its valid region (PyPTO's `pl.load(..., valid_shape=)`): box row i sits
// at tile element i * pitch, and the rest of the tile is not touched. A store
// with `atomic` AtomicAdd adds the box into GM (pl.store(..., atomic=Add)).
template <typename T, size_t N>
void CopyBox(bool load, pto::Tile<T>& tile, const pto::TensorDesc* t,
             const int64_t (&off)[N], const int64_t (&shape)[N], int64_t pitch = 0,
             pto::AtomicType atomic = pto::AtomicType::AtomicNone) {
  int64_t count = 1;
  for (uint32_t k = 0; k < N; ++k) {
    if (off[k] < 0 || shape[k] < 0 || off[k] + shape[k] > Dim(t, k)) {
      pto::CurrentCore()->Fault("tile box outside the tensor");
    }
    count *= shape[k];
  }
  const bool contiguous = BoxIsOneRun(t, off, shape);
  if (count == 0) return;
  const int64_t width = shape[N - 1];
  const int64_t row = pitch > 0 ? pitch : width;
  if (row < width || (count / width - 1) * row + width > static_cast<int64_t>(tile.count)) {
    pto::CurrentCore()->Fault("tile box larger than the tile");
  }
  const int64_t run = contiguous && row == width ? count : width;
  for (int64_t done = 0; done < count; done += run) {
    int64_t idx[N];
    int64_t rest = done / width;
    idx[N - 1] = off[N - 1];
    for (int k = static_cast<int>(N) - 2; k >= 0; --k) {
      idx[k] = off[k] + rest % shape[k];
      rest /= shape[k];
    }
    pto::Tile<T> part{tile.data + done / width * row, static_cast<uint64_t>(run)};
    pto::GlobalTensor<T> gm{t->data<T>() + Offset(t, idx), static_cast<uint64_t>(run)};
    if (load) {
      pto::TLOAD(part, gm);
    } else {
      pto::TSTORE(gm, part, atomic);
    }
  }
}

// A scalar GM write, written back at once so DMA, peers and the host see it.
template <typename T, size_t N>
void WriteElement(const pto::TensorDesc* t, const int64_t (&idx)[N], T value) {
  T* p = t->data<T>() + Offset(t, idx);
  pto::WriteGm(p, value);
  pto::dcci(p, pto::SINGLE_CACHE_LINE);
}

template <typename T, size_t N>
T ReadElement(const pto::TensorDesc* t, const int64_t (&idx)[N]) {
  return pto::ReadGm(t->data<T>() + Offset(t, idx));
}

// `t` with the shape `shape` (the same elements, row-major); faults when the
// element counts differ.
template <size_t N>
pto::TensorDesc Reshape(const pto::TensorDesc* t, const int64_t (&shape)[N]) {
  int64_t have = 1;
  for (uint32_t k = 0; k < (t->ndims == 0 ? 1 : t->ndims); ++k) have *= Dim(t, k);
  int64_t want = 1;
  for (uint32_t k = 0; k < N; ++k) want *= shape[k];
  if (N > 5 || have != want) pto::CurrentCore()->Fault("reshape changes the element count");
  if (Strided(t)) pto::CurrentCore()->Fault("reshape of a strided view");
  pto::TensorDesc r = *t;
  r.ndims = N;
  for (uint32_t k = 0; k < N; ++k) r.shape[k] = static_cast<uint64_t>(shape[k]);
  return r;
}

// Window tensor `t` of this rank as peer `pe` holds it: the same offset in
// pe's window (CommRemotePtr). Faults for a bad peer or a tensor outside
// this rank's window.
inline pto::TensorDesc RemoteView(const pto::CommContext* ctx, const pto::TensorDesc* t,
                                  int64_t pe) {
  if (pe < 0 || pe >= static_cast<int64_t>(ctx->rankNum)) {
    pto::CurrentCore()->Fault("peer rank out of range");
  }
  const uint64_t base = pto::CommWindowsIn(ctx)[ctx->rankId];
  if (t->addr < base || t->addr + t->start_offset + t->bytes > base + ctx->winSize) {
    pto::CurrentCore()->Fault("a remote access to a tensor outside the communication window");
  }
  pto::TensorDesc r = *t;
  r.addr = reinterpret_cast<uint64_t>(
      pto::CommRemotePtr(ctx, reinterpret_cast<char*>(t->addr), static_cast<uint32_t>(pe)));
  return r;
}

// The int32 signal cell at `idx` of window `t` on peer `pe`.
template <size_t N>
int32_t* RemoteCell(const pto::CommContext* ctx, const pto::TensorDesc* t,
                    const int64_t (&idx)[N], int64_t pe) {
  const pto::TensorDesc r = RemoteView(ctx, t, pe);
  return r.data<int32_t>() + Offset(&r, idx);
}

template <size_t N>
int32_t* LocalCell(const pto::TensorDesc* t, const int64_t (&idx)[N]) {
  return t->data<int32_t>() + Offset(t, idx);
}

// Whether the box of `shape` at `off` is one contiguous run of `t`; faults
// when it leaves the tensor.
template <size_t N>
bool ContiguousBox(const pto::TensorDesc* t, const int64_t (&off)[N],
                   const int64_t (&shape)[N]) {
  for (uint32_t k = 0; k < N; ++k) {
    if (off[k] < 0 || shape[k] < 0 || off[k] + shape[k] > Dim(t, k)) {
      pto::CurrentCore()->Fault("transfer box outside the tensor");
    }
  }
  return BoxIsOneRun(t, off, shape);
}

// GM -> GM copy of the box `shape` from `src` at `src_off` to `dst` at
// `dst_off` through the UB tile `stage`: TPUT when `dst` is the remote side,
// else TGET. One transfer when the box is contiguous on both sides (the
// builtin kernel's one TPUT per destination), else one per innermost row.
// A put with `atomic` AtomicAdd adds the box into the peer's GM.
template <typename T, size_t N>
void CopyGmBox(bool put, const pto::TensorDesc* dst, const int64_t (&dst_off)[N],
               const pto::TensorDesc* src, const int64_t (&src_off)[N],
               const int64_t (&shape)[N], pto::Tile<T>& stage,
               pto::AtomicType atomic = pto::AtomicType::AtomicNone) {
  const bool contiguous =
      ContiguousBox(dst, dst_off, shape) & ContiguousBox(src, src_off, shape);
  int64_t count = 1;
  for (uint32_t k = 0; k < N; ++k) count *= shape[k];
  if (count == 0) return;
  const int64_t run = contiguous ? count : shape[N - 1];
  for (int64_t done = 0; done < count; done += run) {
    int64_t di[N];
    int64_t si[N];
    int64_t rest = done / shape[N - 1];
    di[N - 1] = dst_off[N - 1];
    si[N - 1] = src_off[N - 1];
    for (int k = static_cast<int>(N) - 2; k >= 0; --k) {
      di[k] = dst_off[k] + rest % shape[k];
      si[k] = src_off[k] + rest % shape[k];
      rest /= shape[k];
    }
    pto::GlobalTensor<T> d{dst->data<T>() + Offset(dst, di), static_cast<uint64_t>(run)};
    pto::GlobalTensor<T> s{src->data<T>() + Offset(src, si), static_cast<uint64_t>(run)};
    // A transfer onto itself (e.g. the root's get of its own data) is a no-op.
    if (d.data == s.data) continue;
    if (put) {
      pto::TPUT(d, s, stage, atomic);
    } else {
      pto::TGET(d, s, stage);
    }
  }
}

// Generated kernels call pto::kernels::internal::FloorDiv / FloorMod.
using ::pto::FloorDiv;
using ::pto::FloorMod;

}  // namespace pto::kernels::internal

#endif  // PTO_RUNTIME_DEVICE_KERNEL_SUPPORT_H_
