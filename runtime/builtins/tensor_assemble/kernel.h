// The kernel of `pl.tensor.assemble` in a chip orchestration: a copy of a
// source tensor into a box of a target (a `pl.tensor.slice` view aliases
// the box instead; pass 36 turns a create assembled once into one).
// Generated programs include this header (compiler/codegen/chip_callees.cc)
// and register
// pto::kernels::builtin_tensor_assemble like any kernel. Inline: one
// definition however many programs of a build include it.
#ifndef PTO_RUNTIME_BUILTINS_TENSOR_ASSEMBLE_KERNEL_H_
#define PTO_RUNTIME_BUILTINS_TENSOR_ASSEMBLE_KERNEL_H_

#include <algorithm>
#include <cstdint>

#include "runtime/device/device_api.h"
#include "runtime/device/kernel_abi.h"

namespace pto::kernels {

// Copies tensor args[1] into the box of its shape at element offsets
// args[2 ..] of tensor args[0], through UB: one run when both are row-major
// and the box is contiguous in the target, else one per innermost row.
// Either tensor may be a strided view (TensorDesc::strides).
inline void builtin_tensor_assemble(int64_t* args) {
  const pto::TensorDesc* dst = pto::TensorArg(args, 0);
  const pto::TensorDesc* src = pto::TensorArg(args, 1);
  auto rank = [](const pto::TensorDesc* t) -> uint32_t { return t->ndims == 0 ? 1 : t->ndims; };
  auto dim = [](const pto::TensorDesc* t, uint32_t k) -> uint64_t {
    return t->ndims == 0 ? t->bytes / t->elem_bytes : t->shape[k];
  };
  auto strided = [](const pto::TensorDesc* t) {
    return t->ndims > 0 && t->ndims <= 5 && t->strides[t->ndims - 1] != 0;
  };
  // Element offset of `idx` in `t`: by its strides, or row-major.
  auto at = [&](const pto::TensorDesc* t, const uint64_t* idx) {
    uint64_t off = 0;
    for (uint32_t k = 0; k < rank(t); ++k) {
      off = strided(t) ? off + idx[k] * t->strides[k] : off * dim(t, k) + idx[k];
    }
    return off;
  };
  const uint32_t n = rank(dst);
  if (rank(src) != n || src->elem_bytes != dst->elem_bytes) {
    pto::CurrentCore()->Fault("tensor.assemble: source and target differ in rank or dtype");
    return;
  }
  const uint64_t eb = dst->elem_bytes;
  uint64_t off[5] = {};
  uint64_t count = 1;
  bool contiguous = !strided(dst) && !strided(src);
  for (uint32_t k = 0; k < n; ++k) {
    off[k] = static_cast<uint64_t>(args[2 + k]);
    if (off[k] + dim(src, k) > dim(dst, k)) {
      pto::CurrentCore()->Fault("tensor.assemble: the box is outside the target");
      return;
    }
    if (k > 0 && (off[k] != 0 || dim(src, k) != dim(dst, k))) contiguous = false;
    count *= dim(src, k);
  }
  const uint64_t width = dim(src, n - 1);
  const uint64_t run = (contiguous ? count : width) * eb;
  const uint64_t chunk = std::min<uint64_t>(run, 32 * 1024);
  if (chunk == 0) return;
  pto::Tile<uint8_t> stage = pto::TASSIGN<uint8_t>(0, chunk);
  for (uint64_t done = 0; done < count * eb; done += run) {
    // The source and target index of the first source element of this run.
    uint64_t rest = done / eb;
    uint64_t si[5] = {};
    uint64_t di[5] = {};
    for (int k = static_cast<int>(n) - 1; k >= 0; --k) {
      si[k] = rest % dim(src, k);
      di[k] = off[k] + si[k];
      rest /= dim(src, k);
    }
    const uint64_t from = at(src, si) * eb;
    const uint64_t to = at(dst, di) * eb;
    for (uint64_t b = 0; b < run; b += chunk) {
      const uint64_t len = std::min(chunk, run - b);
      pto::Tile<uint8_t> part{stage.data, len};
      pto::TLOAD(part, pto::GlobalTensor<uint8_t>{src->data<uint8_t>() + from + b, len});
      pto::TSTORE(pto::GlobalTensor<uint8_t>{dst->data<uint8_t>() + to + b, len}, part);
    }
  }
}

}  // namespace pto::kernels

#endif  // PTO_RUNTIME_BUILTINS_TENSOR_ASSEMBLE_KERNEL_H_
