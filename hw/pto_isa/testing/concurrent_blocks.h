// Running kernel blocks at once on OS threads, one thread per block, for
// the comparison of the pto-isa device layer with the simulator's kernel
// API (kernel_runs.cc). Each backend's file defines RunConcurrently with
// the DeviceCore its kernels report faults to.
#ifndef PTO_HW_PTO_ISA_TESTING_CONCURRENT_BLOCKS_H_
#define PTO_HW_PTO_ISA_TESTING_CONCURRENT_BLOCKS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device/kernel_abi.h"
#include "runtime/device/thread_cluster.h"

namespace pto::hw::testing {

// Which core a block runs on: an AIV (no cluster), the AIC of a cluster or
// of an AIC task, or AIV lane `lane` of a cluster.
enum class BlockCore { kAiv, kAic, kLane };

struct BlockLaunch {
  KernelEntry kernel = nullptr;
  BlockCore core = BlockCore::kAiv;
  int lane = 0;                              // kLane: the sub-block id
  pto::testing::ThreadPipes* pipes = nullptr;  // the cluster's (kAic of a MIX, kLane)
  std::array<int64_t, kKernelArgSlots> slots{};  // LocalContext is set per block
  int32_t block_idx = 0;
  int32_t block_num = 1;
};

// Runs every launch on its own thread, all started together (their kernels
// may wait on each other). Returns "" or the first fault message.
std::string RunConcurrently(const std::vector<BlockLaunch>& launches);

// Which kernel API the binary's kernels were built against.
const char* BackendName();

}  // namespace pto::hw::testing

#endif  // PTO_HW_PTO_ISA_TESTING_CONCURRENT_BLOCKS_H_
