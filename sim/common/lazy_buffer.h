// Zero-filled host memory that costs nothing until touched: an anonymous
// mapping the kernel backs page by page on first write. GM regions and UB
// use it, so a window or tile the run never writes (timing-only mode's
// payload) holds no memory however large it is.
#ifndef PTO_SIM_COMMON_LAZY_BUFFER_H_
#define PTO_SIM_COMMON_LAZY_BUFFER_H_

#include <sys/mman.h>

#include <cstdint>
#include <utility>

namespace pto::sim {

class LazyBuffer {
 public:
  LazyBuffer() = default;
  // bytes == 0 or a failed mapping leaves data() null. `guard_bytes` of
  // inaccessible address space follow the buffer, so the next mapping does
  // not start right after it (an overrun then lands outside every buffer).
  explicit LazyBuffer(uint64_t bytes, uint64_t guard_bytes = 0)
      : bytes_(bytes), mapped_(bytes + guard_bytes) {
    if (bytes == 0) return;
    void* p = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return;
    if (mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) {
      munmap(p, mapped_);
      return;
    }
    data_ = static_cast<uint8_t*>(p);
  }
  LazyBuffer(LazyBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        bytes_(std::exchange(o.bytes_, 0)),
        mapped_(std::exchange(o.mapped_, 0)) {}
  LazyBuffer& operator=(LazyBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      mapped_ = std::exchange(o.mapped_, 0);
    }
    return *this;
  }
  LazyBuffer(const LazyBuffer&) = delete;
  LazyBuffer& operator=(const LazyBuffer&) = delete;
  ~LazyBuffer() { Release(); }

  uint8_t* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }

 private:
  void Release() {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = nullptr;
  }
  uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
  uint64_t mapped_ = 0;
};

}  // namespace pto::sim

#endif  // PTO_SIM_COMMON_LAZY_BUFFER_H_
