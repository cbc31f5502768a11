// The thread plumbing both RunConcurrently definitions share.
#ifndef PTO_HW_PTO_ISA_TESTING_RUN_THREADS_H_
#define PTO_HW_PTO_ISA_TESTING_RUN_THREADS_H_

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hw/pto_isa/testing/concurrent_blocks.h"
#include "runtime/device/device_core.h"

namespace pto::hw::testing {

// Runs each launch on a thread with the DeviceCore `make_core()` returns;
// a fault is an exception whose what() is kept.
inline std::string RunThreads(const std::vector<BlockLaunch>& launches,
                              const std::function<std::unique_ptr<DeviceCore>(const BlockLaunch&)>& make_core) {
  std::mutex mu;
  std::string fault;
  std::vector<std::thread> threads;
  for (const BlockLaunch& l : launches) {
    threads.emplace_back([&, l] {
      std::unique_ptr<DeviceCore> core = make_core(l);
      SetCurrentCore(core.get());
      LocalContext local{l.block_idx, l.block_num};
      GlobalContext global{l.core == BlockCore::kLane ? l.lane : 0, l.block_idx};
      std::array<int64_t, kKernelArgSlots> slots = l.slots;
      slots[kLocalContextIndex] = reinterpret_cast<int64_t>(&local);
      slots[kGlobalContextIndex] = reinterpret_cast<int64_t>(&global);
      try {
        l.kernel(slots.data());
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> g(mu);
        if (fault.empty()) fault = e.what();
      }
      SetCurrentCore(nullptr);
    });
  }
  for (std::thread& t : threads) t.join();
  return fault;
}

}  // namespace pto::hw::testing

#endif  // PTO_HW_PTO_ISA_TESTING_RUN_THREADS_H_
