// The device ABI every communicating kernel receives (runtime-and-sim.md §2.1).
// The layout is pinned: up to kCommMaxRankNum ranks it is byte-identical to
// pto-isa's HcclDeviceContext mirror (1056 bytes). A wider domain, which only
// the simulator's scale platforms form, keeps the header and windowsIn at the
// same offsets and grows both tables to rankNum entries (docs/simulator.md
// "Rank caps"); read the tables through CommWindowsIn / CommWindowsOut.
#ifndef PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_
#define PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_

#include <cstddef>
#include <cstdint>

namespace pto {

// The ABI's rank-table size (simpler's COMM_MAX_RANK_NUM).
inline constexpr int kCommMaxRankNum = 64;
// The ranks one domain may hold: the largest fabric.max_chips of //platforms
// (a5_supernode, the Atlas 950 SuperPoD's 8,192 NPUs; a3 needs 768 device
// ids), so any platform's devices form one domain; a test checks every
// platform against it. LayOutDomain refuses wider domains.
inline constexpr int kCommMaxDomainRanks = 8192;

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
static_assert(offsetof(CommContext, windowsOut) == 544);
static_assert(sizeof(CommContext) == 1056);

// Entries of each rank table of a context of `rank_num` ranks: the ABI's 64,
// or rank_num for a wider domain.
constexpr uint64_t CommTableEntries(uint64_t rank_num) {
  return rank_num > kCommMaxRankNum ? rank_num : kCommMaxRankNum;
}
// Bytes of such a context: sizeof(CommContext) up to kCommMaxRankNum ranks.
constexpr uint64_t CommContextBytes(uint64_t rank_num) {
  return offsetof(CommContext, windowsIn) + 2 * 8 * CommTableEntries(rank_num);
}
static_assert(CommContextBytes(kCommMaxRankNum) == sizeof(CommContext));

// The rank tables, valid for rankNum entries at any width.
inline const uint64_t* CommWindowsIn(const CommContext* ctx) {
  return reinterpret_cast<const uint64_t*>(reinterpret_cast<const unsigned char*>(ctx) +
                                           offsetof(CommContext, windowsIn));
}
inline uint64_t* CommWindowsIn(CommContext* ctx) {
  return const_cast<uint64_t*>(CommWindowsIn(static_cast<const CommContext*>(ctx)));
}
inline uint64_t* CommWindowsOut(CommContext* ctx) {
  return CommWindowsIn(ctx) + CommTableEntries(ctx->rankNum);
}

// The same offset inside peer `pe`'s window: windowsIn[pe] + (local - mine).
template <typename T>
inline T* CommRemotePtr(const CommContext* ctx, T* local, uint32_t pe) {
  const uint64_t* in = CommWindowsIn(ctx);
  const uint64_t offset = reinterpret_cast<uint64_t>(local) - in[ctx->rankId];
  return reinterpret_cast<T*>(in[pe] + offset);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_COMM_CONTEXT_H_
