#include "runtime/core/device_error.h"

#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {
namespace {

TEST(DeviceErrorTest, SuccessIsOk) {
  EXPECT_TRUE(AclStatus("aclrtMalloc", 0).ok());
  EXPECT_TRUE(HcclStatus("HcclBarrier", 0).ok());
}

TEST(DeviceErrorTest, KnownAclCodesMapToOurCodes) {
  EXPECT_EQ(MapAclError(507014).runtime_error, kErrorSchedulerTimeout);
  EXPECT_EQ(MapAclError(507015).runtime_error, kErrorAicoreFault);
  EXPECT_EQ(MapAclError(207001).status, absl::StatusCode::kResourceExhausted);
  absl::Status s = AclStatus("aclrtMalloc", 207001);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "aclrtMalloc failed: 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)");
  EXPECT_EQ(AclStatus("aclrtSynchronizeStream", 507046).code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST(DeviceErrorTest, UnknownCodesAreInternalAndKeepTheNumber) {
  absl::Status s = AclStatus("aclrtSetDevice", 123456);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "aclrtSetDevice failed: 123456 (unknown CANN error)");
  EXPECT_EQ(MapAclError(123456).runtime_error, kErrorNone);
}

TEST(DeviceErrorTest, HcclCodes) {
  EXPECT_EQ(HcclStatus("HcclCommInitRootInfo", 9).message(),
            "HcclCommInitRootInfo failed: 9 (HCCL_E_TIMEOUT)");
  EXPECT_EQ(HcclStatus("HcclCommInitRootInfo", 9).code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(HcclStatus("HcclBarrier", 77).message(), "HcclBarrier failed: 77 (unknown HCCL error)");
}

TEST(DeviceErrorTest, AStatusCarriesItsRuntimeError) {
  EXPECT_EQ(RuntimeErrorOf(AclStatus("aclrtSynchronizeEventWithTimeout", 507014)),
            kErrorSchedulerTimeout);
  EXPECT_EQ(RuntimeErrorOf(AclStatus("aclrtMalloc", 207001)), kErrorHeapRingDeadlock);
  EXPECT_EQ(RuntimeErrorOf(AclStatus("rtKernelLaunchWithHandleV2", 107000)), kErrorInvalidArgs);
  // No row: a device fault; a bare deadline: a timeout.
  EXPECT_EQ(RuntimeErrorOf(AclStatus("aclrtSetDevice", 123456)), kErrorAicoreFault);
  EXPECT_EQ(RuntimeErrorOf(absl::DeadlineExceededError("waited")), kErrorSchedulerTimeout);
  EXPECT_EQ(RuntimeErrorOf(absl::OkStatus()), kErrorNone);
}

}  // namespace
}  // namespace pto::rt
