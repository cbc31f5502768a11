// On a device machine only (requires-hw, manual; docs/hw.md):
//   bazel test --config=ascend //hw/device:hw_device_hw_test
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hw/device/hw_device.h"
#include "hw/device/vmm_window.h"
#include "runtime/core/domain.h"
#include "runtime/device/comm_context.h"

namespace pto::hw {
namespace {

TEST(HwDeviceHwTest, MemoryRoundTripsAndStartsZeroed) {
  absl::StatusOr<std::unique_ptr<HwDevice>> d = HwDevice::Open(0);
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<uint64_t> p = (*d)->Malloc(4096);
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<uint8_t> back(4096, 0xff);
  ASSERT_TRUE((*d)->CopyFrom(back.data(), *p, back.size()).ok());
  EXPECT_EQ(back, std::vector<uint8_t>(4096, 0));
  std::vector<uint8_t> data(4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE((*d)->CopyTo(*p, data.data(), data.size()).ok());
  ASSERT_TRUE((*d)->CopyFrom(back.data(), *p, back.size()).ok());
  EXPECT_EQ(back, data);
  EXPECT_TRUE((*d)->Free(*p).ok());
}

TEST(HwDeviceHwTest, ABadDeviceIdIsAnError) {
  absl::StatusOr<std::unique_ptr<HwDevice>> d = HwDevice::Open(4096);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HwDeviceHwTest, TwoDeviceWindowsSeeEachOther) {
  absl::StatusOr<int> n = InitAndCountDevices();
  ASSERT_TRUE(n.ok()) << n.status();
  if (*n < 2) GTEST_SKIP() << "needs two devices";
  absl::StatusOr<LocalWindow> w0 = CreateLocalWindow(0, 1 << 20);
  absl::StatusOr<LocalWindow> w1 = CreateLocalWindow(1, 1 << 20);
  ASSERT_TRUE(w0.ok() && w1.ok());
  absl::StatusOr<std::vector<uint64_t>> bases =
      ImportPeerWindows(*w0, {0, 1}, {w0->shareable, w1->shareable}, 0);
  ASSERT_TRUE(bases.ok()) << bases.status();
  CommContext ctx{};
  rt::FillCommContext(&ctx, 0, *bases, 1 << 20);
  EXPECT_EQ(ctx.rankNum, 2u);
  EXPECT_EQ(ctx.windowsIn[0], w0->base);
  EXPECT_NE(ctx.windowsIn[1], 0u);
  EXPECT_TRUE(ReleaseLocalWindow(*w0).ok());
  EXPECT_TRUE(ReleaseLocalWindow(*w1).ok());
}

}  // namespace
}  // namespace pto::hw
