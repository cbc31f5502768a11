// A DeviceCore over plain host memory, for unit tests of runtime code that
// kernels run (kernel_support.h, builtin kernels) without a backend: UB is a
// byte array, transfers are memcpy, and it records each transfer so tests
// can check how a helper splits a copy. Fault throws MemoryCoreFault so a
// test can assert the message. It models no time and no cache; the timed
// model is sim/aiv.
#ifndef PTO_RUNTIME_DEVICE_MEMORY_CORE_H_
#define PTO_RUNTIME_DEVICE_MEMORY_CORE_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/device/device_core.h"

namespace pto::testing {

struct MemoryCoreFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MemoryCore : public DeviceCore {
 public:
  struct Transfer {
    char kind;  // 'L' load, 'S' store, 'A' atomic-add store, 'C' copy
    const void* dst;
    const void* src;
    uint64_t bytes;
  };

  explicit MemoryCore(uint64_t ub_bytes = 192 * 1024) : ub_(ub_bytes) {
    SetCurrentCore(this);
  }
  ~MemoryCore() override { SetCurrentCore(nullptr); }

  const std::vector<Transfer>& transfers() const { return transfers_; }

  uint8_t* UbBase() override { return ub_.data(); }
  uint64_t UbBytes() override { return ub_.size(); }
  void CheckUb(const void* p, uint64_t bytes, const char* what) override {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    if (b < ub_.data() || b + bytes > ub_.data() + ub_.size()) Fault(what);
  }
  void Load(void* ub, const void* gm, uint64_t bytes) override {
    CheckUb(ub, bytes, "Load outside UB");
    transfers_.push_back({'L', ub, gm, bytes});
    std::memmove(ub, gm, bytes);
  }
  void Store(void* gm, const void* ub, uint64_t bytes) override {
    CheckUb(ub, bytes, "Store outside UB");
    transfers_.push_back({'S', gm, ub, bytes});
    std::memmove(gm, ub, bytes);
  }
  void Copy(void* dst, const void* src, uint64_t bytes, void* stage,
            uint64_t stage_bytes) override {
    CheckUb(stage, stage_bytes, "Copy stage outside UB");
    transfers_.push_back({'C', dst, src, bytes});
    std::memmove(dst, src, bytes);
  }
  void StoreAdd(void* gm, const void* ub, uint64_t bytes, AddInto add) override {
    CheckUb(ub, bytes, "StoreAdd outside UB");
    transfers_.push_back({'A', gm, ub, bytes});
    add(gm, ub, bytes);
  }
  void Notify(int32_t* signal, int32_t value, NotifyOp op) override {
    *signal = op == NotifyOp::Set ? value : *signal + value;
  }
  void Wait(const int32_t* signal, int32_t value, WaitCmp cmp) override {
    // One core, nobody else writes: an unmet wait could never end.
    if (!CompareSignal(*signal, value, cmp)) Fault("Wait would never end");
  }
  void PipeBarrier(Pipe) override {}
  void SetFlag(Pipe, Pipe, int) override {}
  void WaitFlag(Pipe, Pipe, int) override {}
  void Dsb() override {}
  void Dcci(const void*, DcciMode) override {}
  void ScalarRead(const void* gm, void* out, int bytes) override {
    std::memcpy(out, gm, bytes);
  }
  void ScalarWrite(void* gm, const void* in, int bytes) override {
    std::memcpy(gm, in, bytes);
  }
  void Vector(VecOp, const void*, const void*, const void*, uint64_t) override {}
  uint64_t UrmaPost(bool, void*, void*, uint64_t) override {
    throw MemoryCoreFault("URMA is not modelled by MemoryCore");
  }
  void DeferCompletion(uint64_t) override {}
  [[noreturn]] void Fault(const char* what) override { throw MemoryCoreFault(what); }

 private:
  std::vector<uint8_t> ub_;
  std::vector<Transfer> transfers_;
};

}  // namespace pto::testing

#endif  // PTO_RUNTIME_DEVICE_MEMORY_CORE_H_
