// A DeviceCore over plain memory whose signals are atomics, for tests that
// run kernel blocks on OS threads (one ThreadCore per thread): blocks can
// wait on each other's TNOTIFY. UB is a per-core byte array, transfers are
// memmove; no time and no cache are modelled (sim/aiv is the timed model),
// so it checks results only. Fault throws std::runtime_error.
#ifndef PTO_RUNTIME_DEVICE_THREAD_CORE_H_
#define PTO_RUNTIME_DEVICE_THREAD_CORE_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/device/device_core.h"

namespace pto::testing {

class ThreadCore : public DeviceCore {
 public:
  uint8_t* UbBase() override { return ub_.data(); }
  uint64_t UbBytes() override { return ub_.size(); }
  void CheckUb(const void* p, uint64_t bytes, const char* what) override {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    if (b < ub_.data() || b + bytes > ub_.data() + ub_.size()) Fault(what);
  }
  void Load(void* ub, const void* gm, uint64_t bytes) override {
    CheckUb(ub, bytes, "Load outside UB");
    std::memmove(ub, gm, bytes);
  }
  void Store(void* gm, const void* ub, uint64_t bytes) override {
    CheckUb(ub, bytes, "Store outside UB");
    std::memmove(gm, ub, bytes);
  }
  void Copy(void* dst, const void* src, uint64_t bytes, void* stage,
            uint64_t stage_bytes) override {
    CheckUb(stage, stage_bytes, "Copy stage outside UB");
    std::memmove(dst, src, bytes);
  }
  void StoreAdd(void* gm, const void* ub, uint64_t bytes, AddInto add) override {
    CheckUb(ub, bytes, "StoreAdd outside UB");
    // One lock for every core's adds: no update is lost.
    static std::mutex adds;
    std::lock_guard<std::mutex> lock(adds);
    add(gm, ub, bytes);
  }
  void Notify(int32_t* signal, int32_t value, NotifyOp op) override {
    std::atomic_ref<int32_t> s(*signal);
    if (op == NotifyOp::Set) {
      s.store(value);
    } else {
      s.fetch_add(value);
    }
  }
  void Wait(const int32_t* signal, int32_t value, WaitCmp cmp) override {
    std::atomic_ref<int32_t> s(*const_cast<int32_t*>(signal));
    for (int64_t polls = 0; polls < kMaxPolls; ++polls) {
      if (CompareSignal(s.load(), value, cmp)) return;
      std::this_thread::yield();
    }
    Fault("Wait was never satisfied");
  }
  void PipeBarrier(Pipe) override {}
  void SetFlag(Pipe, Pipe, int) override {}
  void WaitFlag(Pipe, Pipe, int) override {}
  void Dsb() override { std::atomic_thread_fence(std::memory_order_seq_cst); }
  void Dcci(const void*, DcciMode) override {}
  void ScalarRead(const void* gm, void* out, int bytes) override { std::memcpy(out, gm, bytes); }
  void ScalarWrite(void* gm, const void* in, int bytes) override { std::memcpy(gm, in, bytes); }
  void Vector(VecOp, const void*, const void*, const void*, uint64_t) override {}
  uint64_t UrmaPost(bool, void*, void*, uint64_t) override {
    throw std::runtime_error("URMA is not modelled here");
  }
  void DeferCompletion(uint64_t) override {}
  [[noreturn]] void Fault(const char* what) override { throw std::runtime_error(what); }

 private:
  // A bounded number of polls, not a time: a wait nobody satisfies faults.
  static constexpr int64_t kMaxPolls = 200'000'000;
  static constexpr uint64_t kUbBytes = 256 * 1024;  // the largest UB of the platforms
  std::vector<uint8_t> ub_ = std::vector<uint8_t>(kUbBytes);
};

}  // namespace pto::testing

#endif  // PTO_RUNTIME_DEVICE_THREAD_CORE_H_
