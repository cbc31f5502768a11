#include "runtime/core/kernel_launch.h"

#include "gtest/gtest.h"

namespace pto::rt {
namespace {

TEST(KernelLaunchTest, WidthWithinTheChipIsAccepted) {
  EXPECT_TRUE(CheckLaunchWidth(1, 48, "a2a3").ok());
  EXPECT_TRUE(CheckLaunchWidth(48, 48, "a2a3").ok());
}

TEST(KernelLaunchTest, WidthOutsideTheChipIsRejected) {
  EXPECT_EQ(CheckLaunchWidth(49, 48, "a2a3").message(), "launch of 49 blocks on a2a3 (1..48 cores)");
  EXPECT_EQ(CheckLaunchWidth(0, 72, "a5").message(), "launch of 0 blocks on a5 (1..72 cores)");
}

TEST(KernelLaunchTest, SlotsFollowTheKernelAbi) {
  absl::StatusOr<KernelArgSlots> s = MarshalKernelArgs({0x1000, 0x2000}, {7, 9}, 0xaa, 0xbb);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], 0x1000);
  EXPECT_EQ((*s)[1], 0x2000);
  EXPECT_EQ((*s)[2], 7);
  EXPECT_EQ((*s)[3], 9);
  EXPECT_EQ((*s)[4], 0);
  EXPECT_EQ((*s)[kLocalContextIndex], 0xaa);
  EXPECT_EQ((*s)[kGlobalContextIndex], 0xbb);
  // What a kernel reads back through the ABI helpers.
  LocalContext local{3, 8};
  absl::StatusOr<KernelArgSlots> k =
      MarshalKernelArgs({}, {}, reinterpret_cast<uint64_t>(&local), 0);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(get_block_idx(k->data()), 3);
  EXPECT_EQ(get_block_num(k->data()), 8);
}

TEST(KernelLaunchTest, TooManyArgumentsAreRejected) {
  EXPECT_EQ(MarshalKernelArgs(std::vector<uint64_t>(33, 1), {}, 0, 0).status().message(),
            "33 tensor arguments (at most 32)");
  EXPECT_EQ(MarshalKernelArgs({}, std::vector<uint64_t>(17, 1), 0, 0).status().message(),
            "17 scalar arguments (at most 16)");
  EXPECT_TRUE(MarshalKernelArgs(std::vector<uint64_t>(32, 1), std::vector<uint64_t>(16, 2), 0, 0)
                  .ok());
}

}  // namespace
}  // namespace pto::rt
