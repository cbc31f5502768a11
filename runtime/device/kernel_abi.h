// The kernel entry ABI (runtime-and-sim.md §1.8): kernel_entry(int64_t* args)
// with args[0..T-1] pointing at 128-byte tensor descriptors, then scalars;
// args[48] = &LocalContext and args[49] = &GlobalContext.
#ifndef PTO_RUNTIME_DEVICE_KERNEL_ABI_H_
#define PTO_RUNTIME_DEVICE_KERNEL_ABI_H_

#include <cstddef>
#include <cstdint>

namespace pto {

inline constexpr int kMaxTensorArgs = 32;   // CORE_MAX_TENSOR_ARGS
inline constexpr int kMaxScalarArgs = 16;   // CORE_MAX_SCALAR_ARGS
inline constexpr int kLocalContextIndex = 48;
inline constexpr int kGlobalContextIndex = 49;
inline constexpr int kKernelArgSlots = 50;

// A tensor as a kernel sees it (the role of simpler's ChipTensor, 128 B).
struct alignas(64) TensorDesc {
  uint64_t addr;          // base of the buffer (GM address)
  uint64_t start_offset;  // bytes from addr to the first element of the view
  uint64_t bytes;         // bytes of the view
  uint32_t elem_bytes;
  uint32_t ndims;
  uint64_t shape[5];
  // Elements from one index of a dim to the next (a strided view, simpler's
  // ChipTensor strides); all 0: row-major over `shape`.
  uint64_t strides[5];

  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(addr + start_offset);
  }
};
static_assert(sizeof(TensorDesc) == 128);

struct LocalContext {
  int32_t block_idx;
  int32_t block_num;
};

struct GlobalContext {
  int32_t sub_block_id;  // 0/1: AIV lane inside its cluster
  int32_t core_id;       // flattened physical id on the chip
};

using KernelEntry = void (*)(int64_t* args);

inline int32_t get_block_idx(const int64_t* args) {
  return reinterpret_cast<const LocalContext*>(args[kLocalContextIndex])
      ->block_idx;
}
inline int32_t get_block_num(const int64_t* args) {
  return reinterpret_cast<const LocalContext*>(args[kLocalContextIndex])
      ->block_num;
}
inline int32_t get_subblockid(const int64_t* args) {
  return reinterpret_cast<const GlobalContext*>(args[kGlobalContextIndex])
      ->sub_block_id;
}
inline const TensorDesc* TensorArg(const int64_t* args, int i) {
  return reinterpret_cast<const TensorDesc*>(args[i]);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_KERNEL_ABI_H_
