// What generated AIC kernels use beside the cube API (cube_api.h): the GM
// view of a tensor descriptor at a tile's offsets, as TLOAD / TSTORE take it,
// and the scalar unit's read of one GM element (a count that bounds a loop).
#ifndef PTO_RUNTIME_DEVICE_CUBE_SUPPORT_H_
#define PTO_RUNTIME_DEVICE_CUBE_SUPPORT_H_

#include <cstdint>
#include <initializer_list>

#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/device_core.h"
#include "runtime/device/kernel_abi.h"

namespace pto {

template <typename T>
struct CubeGmView {
  GlobalTensor<T> gm;
  uint64_t row_stride = 0;  // elements from one row of the tile to the next
};

// The elements of `t` from `offsets` (one per dim) on, and the distance of
// its second-to-last dim: a tile's rows in GM. Faults when the last dim is
// strided, the offsets lie outside the view or their count is not t's rank.
template <typename T>
CubeGmView<T> CubeView(const TensorDesc* t, std::initializer_list<int64_t> offsets) {
  const uint32_t rank = t->ndims;
  if (offsets.size() != rank || rank == 0 || rank > 5) {
    CurrentCore()->Fault("cube GM view: offsets do not match the tensor's rank");
  }
  if (t->elem_bytes != sizeof(T)) CurrentCore()->Fault("cube GM view: wrong element type");
  uint64_t stride[5];
  uint64_t dense = 1;
  for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
    stride[d] = t->strides[d] != 0 ? t->strides[d] : dense;
    dense *= t->shape[d];
  }
  if (stride[rank - 1] != 1) CurrentCore()->Fault("cube GM view: a strided last dim");
  uint64_t off = 0;
  int d = 0;
  for (int64_t o : offsets) {
    if (o < 0 || static_cast<uint64_t>(o) >= t->shape[d]) {
      CurrentCore()->Fault("cube GM view: offset outside the tensor");
    }
    off += static_cast<uint64_t>(o) * stride[d++];
  }
  const uint64_t count = t->bytes / sizeof(T);
  CubeGmView<T> v;
  v.gm = GlobalTensor<T>{t->data<T>() + off, count - off};
  v.row_stride = rank >= 2 ? stride[rank - 2] : t->shape[0];
  return v;
}

// Element `idx` of `t` (one index per dim), read by the AIC's scalar unit
// (pl.tensor.read); faults as CubeView does.
template <typename T>
T CubeReadElement(const TensorDesc* t, std::initializer_list<int64_t> idx) {
  return ReadGm(CubeView<T>(t, idx).gm.data);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_CUBE_SUPPORT_H_
