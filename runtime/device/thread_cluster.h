// The cores of one 1C2V cluster on OS threads, for tests that run MIX and AIC
// kernel blocks on threads (testing/golden:hw_model_test, hw/pto_isa): an
// AIC (ThreadCubeCore: ThreadCore + the cube buffers, CubeCore) and AIV
// lanes (ThreadLaneCore), whose TPUSH / TPOP go through the cluster's
// pipes (ThreadPipes: a ring of slots per pipe in plain memory, a full push
// or an empty pop blocks on a condition variable). The kernels compute
// through the reference semantics (cube_api.h, pipe_api.h); nothing is
// timed (sim/aic is the timed model). A pipe both ends do not declare alike,
// or a wait nobody satisfies, faults (std::runtime_error).
#ifndef PTO_RUNTIME_DEVICE_THREAD_CLUSTER_H_
#define PTO_RUNTIME_DEVICE_THREAD_CLUSTER_H_

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/device/cube_core.h"
#include "runtime/device/pipe_core.h"
#include "runtime/device/thread_core.h"

namespace pto::testing {

// The pipes of one cluster, shared by its cores' threads.
class ThreadPipes {
 public:
  // A pipe nobody serves for this long faults (a deadlock, not a slow test).
  static constexpr std::chrono::seconds kWaitLimit{20};

  void* Acquire(const PipeSpec& p, int lane, bool push) {
    std::unique_lock<std::mutex> l(mu_);
    Ring& r = Get(p, lane);
    const bool ok = cv_.wait_for(l, kWaitLimit, [&] { return push ? r.full < p.slots : r.full > 0; });
    if (!ok) throw std::runtime_error(Name(p, lane) + (push ? " stays full" : " stays empty"));
    const uint32_t i = push ? (r.head + r.full) % p.slots : r.head;
    return r.bytes.data() + static_cast<uint64_t>(i) * p.slot_bytes;
  }
  void Release(const PipeSpec& p, int lane, bool push) {
    {
      std::lock_guard<std::mutex> l(mu_);
      Ring& r = Get(p, lane);
      if (push) {
        ++r.full;
      } else {
        r.head = (r.head + 1) % p.slots;
        --r.full;
      }
    }
    cv_.notify_all();
  }

 private:
  struct Ring {
    PipeSpec spec;
    std::vector<uint8_t> bytes;
    uint32_t head = 0;  // the oldest full slot
    uint32_t full = 0;
  };
  static std::string Name(const PipeSpec& p, int lane) {
    return "pipe " + std::to_string(p.id) + " (lane " + std::to_string(lane) + ")";
  }
  // Called with mu_ held.
  Ring& Get(const PipeSpec& p, int lane) {
    auto [it, fresh] = rings_.try_emplace({p.id, lane});
    Ring& r = it->second;
    if (fresh) {
      r.spec = p;
      r.bytes.assign(static_cast<uint64_t>(p.slots) * p.slot_bytes, 0);
    } else if (r.spec.dir != p.dir || r.spec.slots != p.slots ||
               r.spec.slot_bytes != p.slot_bytes) {
      throw std::runtime_error(Name(p, lane) + ": its two ends declare it differently");
    }
    return r;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int, int>, Ring> rings_;
};

// An AIV lane of a cluster: its sub-block id names its end of every pipe.
class ThreadLaneCore : public ThreadCore, public PipeCore {
 public:
  ThreadLaneCore(ThreadPipes* pipes, int lane) : pipes_(pipes), lane_(lane) {}
  void* PipeAcquire(const PipeSpec& p, bool push) override {
    return pipes_->Acquire(p, lane_, push);
  }
  void PipeRelease(const PipeSpec& p, bool push) override { pipes_->Release(p, lane_, push); }

 private:
  ThreadPipes* pipes_;
  int lane_;
};

// The AIC of a cluster (or of an AIC task: no pipes): the cube buffers of
// `caps` bytes (Mat, Left, Right, Acc, Bias: a platform's cube sizes).
class ThreadCubeCore : public ThreadCore, public CubeCore, public PipeCore {
 public:
  ThreadCubeCore(ThreadPipes* pipes, const std::array<uint64_t, kNumTileKinds>& caps)
      : pipes_(pipes) {
    for (int i = 0; i < kNumTileKinds; ++i) bufs_[i].assign(caps[i], 0);
  }
  uint8_t* CubeBase(TileKind k) override { return bufs_[static_cast<int>(k)].data(); }
  uint64_t CubeBytes(TileKind k) override { return bufs_[static_cast<int>(k)].size(); }
  void Cube(const CubeInstr&) override {}  // one thread: instructions run in issue order
  void CubeSetFlag(int, int, int) override {}
  void CubeWaitFlag(int, int, int) override {}
  void CubePipeBarrier(int) override {}
  // The AIC names the lane at the other end of each pipe.
  void* PipeAcquire(const PipeSpec& p, bool push) override {
    if (pipes_ == nullptr) Fault("TPUSH/TPOP in an AIC task (no cluster)");
    return pipes_->Acquire(p, p.lane, push);
  }
  void PipeRelease(const PipeSpec& p, bool push) override { pipes_->Release(p, p.lane, push); }

 private:
  ThreadPipes* pipes_;
  std::vector<uint8_t> bufs_[kNumTileKinds];
};

}  // namespace pto::testing

#endif  // PTO_RUNTIME_DEVICE_THREAD_CLUSTER_H_
