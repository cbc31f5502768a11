// On a device machine only (requires-hw, manual; docs/hw.md):
//   bazel test --config=ascend --test_tag_filters= //hw/host:hw_host_hw_test
// With PTO_HW_TEST_KERNEL_ELF=<an AIV ELF of a kernel that adds 1 to every
// int32 of tensor 0 into tensor 1> it also launches a kernel.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hw/host/hw_host.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/comm_context.h"

namespace pto::hw {
namespace {

void NoKernel(int64_t*) {}

absl::StatusOr<std::unique_ptr<HwHost>> Open(int devices, KernelBinaryFn binaries) {
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform("a2a3");
  if (!p.ok()) return p.status();
  return HwHost::Create({*p, devices, std::move(binaries)});
}

KernelBinaryFn NoBinaries() {
  return [](const std::string& c, const std::string& k) -> absl::StatusOr<std::string> {
    return absl::NotFoundError(c + "/" + k);
  };
}

TEST(HwHostHwTest, OrchestrationReadsAndWritesDeviceMemory) {
  absl::StatusOr<std::unique_ptr<HwHost>> host = Open(1, NoBinaries());
  ASSERT_TRUE(host.ok()) << host.status();
  absl::StatusOr<rt::Tensor> t = (*host)->Alloc(0, 64, "t");
  ASSERT_TRUE(t.ok()) << t.status();
  t->elem_bytes = 4;
  rt::ChipCallable c;
  c.name = "poke";
  c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
    const int32_t v = o.get_tensor_data<int32_t>(a.tensors[0], 3);
    o.set_tensor_data<int32_t>(a.tensors[0], 3, v + 7);
  };
  ASSERT_TRUE((*host)->Dispatch(0, c, {{*t}, {}}).ok());
  ASSERT_TRUE((*host)->Finish().ok());
  int32_t back[16] = {};
  ASSERT_TRUE((*host)->CopyFrom(back, *t, sizeof(back)).ok());
  EXPECT_EQ(back[3], 7);  // memory starts zeroed
  ASSERT_EQ((*host)->runs().size(), 1u);
  EXPECT_EQ((*host)->runs()[0].result.error_code, 0);
}

// Binaries are asked for when a task is launched, by the launch's binary
// name: a kernel's for AIV and AIC, "<aic>+<aiv0>+<aiv1>" for a MIX task.
TEST(HwHostHwTest, AKernelWithoutABinaryFailsTheRunWithItsName) {
  for (const bool mix : {false, true}) {
    std::vector<std::string> asked;
    absl::StatusOr<std::unique_ptr<HwHost>> host =
        Open(1, [&](const std::string& c, const std::string& k) -> absl::StatusOr<std::string> {
          asked.push_back(k);
          return absl::NotFoundError(c + "/" + k);
        });
    ASSERT_TRUE(host.ok()) << host.status();
    rt::ChipCallable c;
    c.name = "needs_kernel";
    c.kernels = {NoKernel, NoKernel};
    c.kernel_names = {"mm", "post"};
    c.entry = [mix](rt::Orchestrator& o, const rt::ChipArgs&) {
      rt::TaskArgs t;
      if (mix) {
        o.submit_mix_task({0, 1, -1}, t);
      } else {
        o.submit_aic_task(0, t);
      }
    };
    ASSERT_TRUE((*host)->Dispatch(0, c, {}).ok());
    const std::string want = mix ? "needs_kernel/mm+post+-" : "needs_kernel/mm";
    EXPECT_NE((*host)->Finish().message().find(want), std::string::npos) << want;
    EXPECT_EQ(asked, std::vector<std::string>{mix ? "mm+post+-" : "mm"});
  }
}

TEST(HwHostHwTest, DomainContextsNameEveryWindow) {
  absl::StatusOr<int> n = InitAndCountDevices();
  ASSERT_TRUE(n.ok()) << n.status();
  if (*n < 2) GTEST_SKIP() << "needs two devices";
  absl::StatusOr<std::unique_ptr<HwHost>> host = Open(2, NoBinaries());
  ASSERT_TRUE(host.ok()) << host.status();
  absl::StatusOr<rt::Domain> d = (*host)->CreateDomain({"ep", {0, 1}, 1 << 20, {{"buf", 4096}}});
  ASSERT_TRUE(d.ok()) << d.status();
  for (int r = 0; r < 2; ++r) {
    CommContext ctx{};
    ASSERT_TRUE((*host)->CopyFrom(&ctx, d->ranks[r].device_ctx, sizeof(ctx)).ok());
    EXPECT_EQ(ctx.rankId, static_cast<uint32_t>(r));
    EXPECT_EQ(ctx.rankNum, 2u);
    EXPECT_EQ(ctx.windowsIn[r], d->ranks[r].local_window_base);
    EXPECT_EQ(d->ranks[r].buffers.at("buf").base, d->ranks[r].local_window_base);
  }
}

TEST(HwHostHwTest, AKernelRunsOnTheDevice) {
  const char* path = std::getenv("PTO_HW_TEST_KERNEL_ELF");
  if (path == nullptr) GTEST_SKIP() << "set PTO_HW_TEST_KERNEL_ELF to an add-one AIV ELF";
  std::ifstream f(path, std::ios::binary);
  std::stringstream elf;
  elf << f.rdbuf();
  const std::string bytes = elf.str();
  absl::StatusOr<std::unique_ptr<HwHost>> host = Open(
      1,
      [&](const std::string&, const std::string&) -> absl::StatusOr<std::string> { return bytes; });
  ASSERT_TRUE(host.ok()) << host.status();
  absl::StatusOr<rt::Tensor> in = (*host)->Alloc(0, 1024, "in");
  absl::StatusOr<rt::Tensor> out = (*host)->Alloc(0, 1024, "out");
  ASSERT_TRUE(in.ok() && out.ok());
  in->elem_bytes = out->elem_bytes = 4;
  std::vector<int32_t> data(256);
  for (int i = 0; i < 256; ++i) data[i] = i;
  ASSERT_TRUE((*host)->CopyTo(*in, data.data(), 1024).ok());
  rt::ChipCallable c;
  c.name = "add_one";
  c.kernels = {NoKernel};
  c.kernel_names = {"add_one"};
  c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
    rt::TaskArgs t;
    t.add_input(a.tensors[0]);
    t.add_output(a.tensors[1]);
    o.submit_aiv_task(0, t);
  };
  ASSERT_TRUE((*host)->Dispatch(0, c, {{*in, *out}, {}}).ok());
  ASSERT_TRUE((*host)->Finish().ok());
  std::vector<int32_t> back(256);
  ASSERT_TRUE((*host)->CopyFrom(back.data(), *out, 1024).ok());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(back[i], i + 1);
  ASSERT_EQ((*host)->runs()[0].result.tasks.size(), 1u);
  EXPECT_GT((*host)->runs()[0].result.tasks[0].device_ns, 0);
}

}  // namespace
}  // namespace pto::hw
