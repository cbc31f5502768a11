#include "runtime/core/domain.h"

#include <numeric>
#include <string>

#include "gtest/gtest.h"
#include "platforms/platform.h"

namespace pto::rt {
namespace {

TEST(DomainTest, BuffersStartAtThirtyTwoByteMultiplesInOrder) {
  DomainSpec s{"d", {0, 1}, 4096, {{"a", 10}, {"b", 100}, {"c", 64}}};
  absl::StatusOr<DomainLayout> l = LayOutDomain(s, 2);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->buffer_offsets, std::vector<uint64_t>({0, 32, 160}));
  EXPECT_EQ(l->used_bytes, 224u);
}

// collectives.md §1.6: the window is the sum of the 32-byte-rounded slots.
TEST(DomainTest, WindowOfTheRoundedSlotSumFitsExactly) {
  DomainSpec s{"d", {0}, 32 + 96 + 32, {{"a", 4}, {"b", 96}, {"c", 20}}};
  absl::StatusOr<DomainLayout> l = LayOutDomain(s, 1);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->buffer_offsets, std::vector<uint64_t>({0, 32, 128}));
  s.window_size = 32 + 96 + 20 - 1;  // the last buffer no longer fits
  EXPECT_FALSE(LayOutDomain(s, 1).ok());
}

TEST(DomainTest, RejectsBadSpecsBeforeAllocating) {
  EXPECT_FALSE(LayOutDomain({"d", {}, 64, {}}, 2).ok());
  EXPECT_FALSE(LayOutDomain({"d", {0, 0}, 64, {}}, 2).ok());
  EXPECT_FALSE(LayOutDomain({"d", {0, 2}, 64, {}}, 2).ok());
  EXPECT_FALSE(LayOutDomain({"d", {0}, 64, {{"a", 8}, {"a", 8}}}, 1).ok());
  absl::Status big =
      LayOutDomain({"d", {0}, 100, {{"a", 64}, {"b", 64}}}, 1).status();
  EXPECT_NE(big.message().find("buffers need 128 bytes but window_size is 100"),
            std::string::npos)
      << big;
}

// The rank table's cap: a domain of kCommMaxDomainRanks devices is laid out, one
// more is refused with the cap named.
TEST(DomainTest, RankCapBoundary) {
  std::vector<int> devices(kCommMaxDomainRanks + 1);
  std::iota(devices.begin(), devices.end(), 0);
  DomainSpec s{"ep", {devices.begin(), devices.end() - 1}, 64, {{"sig", 64}}};
  ASSERT_TRUE(LayOutDomain(s, kCommMaxDomainRanks + 1).ok());
  s.devices = devices;
  absl::Status st = LayOutDomain(s, kCommMaxDomainRanks + 1).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "domain 'ep' needs 1..8192 devices (the CommContext rank table), got 8193");
}

// Every platform's devices fit one domain: the cap follows the widest fabric.
TEST(DomainTest, EveryPlatformFitsTheRankTable) {
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(name);
    ASSERT_TRUE(p.ok()) << name << ": " << p.status();
    EXPECT_LE(p->fabric().max_chips(), static_cast<uint32_t>(kCommMaxDomainRanks)) << name;
  }
}

TEST(DomainTest, CommContextMapsEveryRanksWindow) {
  CommContext ctx{};
  ctx.workSpace = 0x77;  // the header is always written
  FillCommContext(&ctx, 2, {0x1000, 0x2000, 0x3000}, 0x800);
  EXPECT_EQ(ctx.rankId, 2u);
  EXPECT_EQ(ctx.rankNum, 3u);
  EXPECT_EQ(ctx.winSize, 0x800u);
  EXPECT_EQ(ctx.windowsIn[1], 0x2000u);
  EXPECT_EQ(ctx.windowsOut[1], 0x2000u);
  EXPECT_EQ(ctx.windowsIn[3], 0u);
  EXPECT_EQ(ctx.workSpace, 0u);
}

}  // namespace
}  // namespace pto::rt
