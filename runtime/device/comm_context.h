// The device ABI every communicating kernel receives (runtime-and-sim.md §2.1).
// The field order and the header are those of pto-isa's HcclDeviceContext
// mirror; the rank tables are sized for the largest domain a platform of
// //platforms holds instead of that mirror's 64 (docs/simulator.md "Rank
// caps"), so windowsOut moves with kCommMaxRankNum.
#ifndef PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_
#define PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_

#include <cstddef>
#include <cstdint>

namespace pto {

// Ranks one domain may hold: the largest fabric.max_chips of //platforms
// (a5_supernode, the Atlas 950 SuperPoD's 8,192 NPUs; a3 needs 768 device
// ids), so any platform's devices form one domain; a test checks every
// platform against it. LayOutDomain refuses wider domains. The tables cost
// 128 KiB per rank and domain, which the simulator's lazy GM maps on write.
inline constexpr int kCommMaxRankNum = 8192;

struct CommContext {
  uint64_t workSpace;       // async-DMA workspace; 0 if none
  uint64_t workSpaceSize;
  uint32_t rankId;          // dense rank in the domain
  uint32_t rankNum;
  uint64_t winSize;         // per-rank window bytes
  uint64_t windowsIn[kCommMaxRankNum];   // every rank's window, as seen here
  uint64_t windowsOut[kCommMaxRankNum];  // the sim mirrors windowsIn
};

static_assert(offsetof(CommContext, workSpace) == 0);
static_assert(offsetof(CommContext, workSpaceSize) == 8);
static_assert(offsetof(CommContext, rankId) == 16);
static_assert(offsetof(CommContext, rankNum) == 20);
static_assert(offsetof(CommContext, winSize) == 24);
static_assert(offsetof(CommContext, windowsIn) == 32);
static_assert(offsetof(CommContext, windowsOut) == 32 + 8 * kCommMaxRankNum);
static_assert(sizeof(CommContext) == 32 + 16 * kCommMaxRankNum);

// The same offset inside peer `pe`'s window: windowsIn[pe] + (local - mine).
template <typename T>
inline T* CommRemotePtr(const CommContext* ctx, T* local, uint32_t pe) {
  const uint64_t offset =
      reinterpret_cast<uint64_t>(local) - ctx->windowsIn[ctx->rankId];
  return reinterpret_cast<T*>(ctx->windowsIn[pe] + offset);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_
