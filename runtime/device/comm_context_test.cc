#include "runtime/device/comm_context.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device/kernel_abi.h"

namespace pto {
namespace {

TEST(CommContextTest, LayoutIsTheDocumentedOne) {
  // Byte-level check on top of the static_asserts: a reader of the raw
  // bytes finds each field at its documented offset, the last rank's
  // windowsOut entry in the struct's last 8 bytes.
  CommContext ctx{};
  ctx.rankId = 3;
  ctx.rankNum = 8;
  ctx.winSize = 0x1234;
  ctx.windowsIn[2] = 0xAA;
  ctx.windowsOut[kCommMaxRankNum - 1] = 0xBB;
  unsigned char raw[sizeof(CommContext)];
  std::memcpy(raw, &ctx, sizeof(ctx));
  uint32_t u32;
  uint64_t u64;
  std::memcpy(&u32, raw + 16, 4);
  EXPECT_EQ(u32, 3u);
  std::memcpy(&u32, raw + 20, 4);
  EXPECT_EQ(u32, 8u);
  std::memcpy(&u64, raw + 24, 8);
  EXPECT_EQ(u64, 0x1234u);
  std::memcpy(&u64, raw + 32 + 2 * 8, 8);
  EXPECT_EQ(u64, 0xAAu);
  EXPECT_EQ(sizeof(CommContext), 1056u);
  std::memcpy(&u64, raw + 544 + (kCommMaxRankNum - 1) * 8, 8);
  EXPECT_EQ(u64, 0xBBu);
  // Up to 64 ranks the accessors read the ABI's tables.
  ctx.rankNum = kCommMaxRankNum;
  EXPECT_EQ(CommWindowsIn(&ctx), ctx.windowsIn);
  EXPECT_EQ(CommWindowsOut(&ctx), ctx.windowsOut);
  EXPECT_EQ(CommContextBytes(1), sizeof(CommContext));
}

TEST(CommContextTest, AWiderDomainGrowsBothTablesInPlace) {
  // 65 ranks: the header and windowsIn stay where the ABI has them, each
  // table has 65 entries and windowsOut follows windowsIn.
  constexpr uint32_t kRanks = kCommMaxRankNum + 1;
  EXPECT_EQ(CommContextBytes(kRanks), 32u + 16u * kRanks);
  std::vector<unsigned char> raw(CommContextBytes(kRanks));
  auto* ctx = reinterpret_cast<CommContext*>(raw.data());
  ctx->rankId = 64;
  ctx->rankNum = kRanks;
  CommWindowsIn(ctx)[64] = 0x40000;
  CommWindowsIn(ctx)[0] = 0x10000;
  CommWindowsOut(ctx)[64] = 0xCC;
  uint64_t u64;
  std::memcpy(&u64, raw.data() + 32 + 64 * 8, 8);
  EXPECT_EQ(u64, 0x40000u);
  std::memcpy(&u64, raw.data() + 32 + 8 * kRanks + 64 * 8, 8);
  EXPECT_EQ(u64, 0xCCu);
  EXPECT_EQ(raw.size(), 32u + 16u * kRanks);
  int32_t* local = reinterpret_cast<int32_t*>(0x40010);
  EXPECT_EQ(reinterpret_cast<uint64_t>(CommRemotePtr(ctx, local, 0)), 0x10010u);
}

TEST(CommContextTest, RemotePtrKeepsTheOffsetInsideThePeerWindow) {
  CommContext ctx{};
  ctx.rankId = 1;
  ctx.rankNum = 3;
  ctx.windowsIn[0] = 0x10000;
  ctx.windowsIn[1] = 0x20000;
  ctx.windowsIn[2] = 0x90000;
  int32_t* local = reinterpret_cast<int32_t*>(0x20040);
  EXPECT_EQ(reinterpret_cast<uint64_t>(CommRemotePtr(&ctx, local, 0)),
            0x10040u);
  EXPECT_EQ(reinterpret_cast<uint64_t>(CommRemotePtr(&ctx, local, 2)),
            0x90040u);
  EXPECT_EQ(CommRemotePtr(&ctx, local, 1), local);
}

TEST(KernelAbiTest, BlockIndexComesFromTheLocalContextSlot) {
  LocalContext lc{5, 12};
  GlobalContext gc{1, 30};
  int64_t args[kKernelArgSlots] = {};
  args[kLocalContextIndex] = reinterpret_cast<int64_t>(&lc);
  args[kGlobalContextIndex] = reinterpret_cast<int64_t>(&gc);
  EXPECT_EQ(get_block_idx(args), 5);
  EXPECT_EQ(get_block_num(args), 12);
  EXPECT_EQ(get_subblockid(args), 1);
}

}  // namespace
}  // namespace pto
