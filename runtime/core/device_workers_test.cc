#include "runtime/core/device_workers.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace pto::rt {
namespace {

class Log {
 public:
  void Add(const std::string& s) {
    std::lock_guard<std::mutex> l(mu_);
    lines_.push_back(s);
  }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> l(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST(DeviceWorkersTest, EachDeviceRunsItsDispatchesInOrderOnItsOwnThread) {
  std::vector<std::thread::id> bound(2);
  DeviceWorkers w({0, 1}, [&](int d) {
    bound[d] = std::this_thread::get_id();
    return absl::OkStatus();
  });
  Log log;
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(w.Enqueue(1, [&, k] {
                   EXPECT_EQ(std::this_thread::get_id(), bound[1]);
                   log.Add("d1 job" + std::to_string(k));
                   return absl::OkStatus();
                 }).ok());
  }
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(log.lines(), (std::vector<std::string>{"d1 job0", "d1 job1", "d1 job2"}));
  EXPECT_EQ(w.Enqueue(7, [] { return absl::OkStatus(); }).message(), "no device 7");
}

TEST(DeviceWorkersTest, AGroupStartsOnlyWhenEveryMemberIsFree) {
  DeviceWorkers w({0, 1}, nullptr);
  std::atomic<bool> member1_started{false};
  // Device 0 is busy with an earlier dispatch; device 1 reaches the gate
  // first and must wait there for it.
  ASSERT_TRUE(w.Enqueue(0, [&] {
                 while (w.waiting_at_gates() < 1) std::this_thread::yield();
                 EXPECT_FALSE(member1_started.load());
                 return absl::OkStatus();
               }).ok());
  std::vector<DeviceWorkers::Job> jobs;
  jobs.push_back([] { return absl::OkStatus(); });
  jobs.push_back([&] {
    member1_started = true;
    return absl::OkStatus();
  });
  ASSERT_TRUE(w.EnqueueGroup({0, 1}, std::move(jobs)).ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_TRUE(member1_started.load());
  EXPECT_EQ(w.EnqueueGroup({1, 1}, {nullptr, nullptr}).message(), "device 1 twice in one group");
}

TEST(DeviceWorkersTest, AFailureDropsLaterJobsAndReleasesTheGang) {
  DeviceWorkers w({0, 1}, nullptr);
  std::atomic<int> ran{0};
  ASSERT_TRUE(w.Enqueue(0, [] { return absl::InternalError("aclrtMalloc failed"); }).ok());
  std::vector<DeviceWorkers::Job> jobs(2, [&] {
    ++ran;
    return absl::OkStatus();
  });
  ASSERT_TRUE(w.EnqueueGroup({0, 1}, std::move(jobs)).ok());
  ASSERT_TRUE(w.Enqueue(1, [&] {
                 ++ran;
                 return absl::OkStatus();
               }).ok());
  absl::Status s = w.Finish();
  EXPECT_EQ(s.message(), "device 0: aclrtMalloc failed");
  EXPECT_EQ(ran.load(), 0);
}

TEST(DeviceWorkersTest, AFailedBindFailsTheRun) {
  DeviceWorkers w({3}, [](int d) {
    return absl::UnavailableError("aclrtSetDevice failed: 107001 (ACL_ERROR_RT_INVALID_DEVICEID)");
  });
  bool ran = false;
  ASSERT_TRUE(w.Enqueue(3, [&] {
                 ran = true;
                 return absl::OkStatus();
               }).ok());
  EXPECT_EQ(w.Finish().message(),
            "device 3: aclrtSetDevice failed: 107001 (ACL_ERROR_RT_INVALID_DEVICEID)");
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace pto::rt
