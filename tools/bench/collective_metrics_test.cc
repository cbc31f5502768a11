#include "tools/bench/collective_metrics.h"

#include <cstring>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "sim/system/system.h"

namespace pto::bench {
namespace {

sim::TaskStat Task(int chip, int run, const std::string& kernel, int64_t start, int64_t end) {
  sim::TaskStat t;
  t.set_chip(chip);
  t.set_run(run);
  t.set_kernel(kernel);
  t.set_start_ps(start);
  t.set_end_ps(end);
  return t;
}

TEST(CollectiveMetricsTest, LinkModelComesFromThePlatform) {
  platforms::Platform p;
  p.mutable_fabric()->set_hop_latency_ns(1000);
  p.mutable_fabric()->set_link_bandwidth_gbps(56);
  p.mutable_gm()->set_atomic_ns(100);
  p.mutable_gm()->set_latency_ns(400);
  const LinkModel m = LinkModelOf(p);
  EXPECT_DOUBLE_EQ(m.alpha_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(m.link_bytes_per_s, 56e9);
  EXPECT_DOUBLE_EQ(FullMeshBusBound(m, 8), 392e9);
  // 56 KB on one link takes 1 us after alpha.
  EXPECT_DOUBLE_EQ(FullMeshTimeBound(m, 56e3), 3.5e-6);
  // (n-1) * m / t: 7 peers x 1 MB in 20 us.
  EXPECT_DOUBLE_EQ(AllToAllBusBandwidth(7e6, 20e-6), 350e9);
  EXPECT_EQ(AllToAllBusBandwidth(1, 0), 0);
}

TEST(CollectiveMetricsTest, RoundTripsAreDistinctDispatchesPerChip) {
  sim::RunReport r;
  *r.add_tasks() = Task(0, 0, "stage", 0, 1);
  *r.add_tasks() = Task(0, 0, "consume", 1, 2);  // same dispatch
  *r.add_tasks() = Task(0, 1, "x", 2, 3);
  *r.add_tasks() = Task(1, 0, "stage", 0, 1);
  *r.add_tasks() = Task(1, 1, "x", 1, 2);
  *r.add_tasks() = Task(1, 2, "consume", 2, 3);
  EXPECT_EQ(RoundTripsPerChip(r), (std::map<int, int>{{0, 2}, {1, 3}}));
}

TEST(CollectiveMetricsTest, KernelSpanCoversEveryMatchingTask) {
  sim::RunReport r;
  *r.add_tasks() = Task(0, 0, "stage", 0, 50);
  *r.add_tasks() = Task(0, 0, "__builtin_all_to_all_v__fp32", 100, 300);
  *r.add_tasks() = Task(1, 0, "__builtin_all_to_all_v__fp32", 80, 250);
  *r.add_tasks() = Task(1, 0, "consume", 300, 400);
  absl::StatusOr<TaskSpan> s = KernelSpan(r, "all_to_all_v");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->start_ps, 80);
  EXPECT_EQ(s->end_ps, 300);
  EXPECT_DOUBLE_EQ(s->seconds(), 220e-12);
  EXPECT_EQ(KernelSpan(r, "allreduce").status().code(), absl::StatusCode::kNotFound);
}

TEST(CollectiveMetricsTest, StageParamPutsOneShapedCopyOnEveryDevice) {
  sim::SimOptions o;
  o.chips = 2;
  o.trace = false;
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
  ASSERT_TRUE(sys.ok()) << sys.status();
  absl::StatusOr<std::vector<rt::Tensor>> p = StageParam(
      **sys, {2, 3}, 4, "p", [](int d) { return std::string(24, static_cast<char>('a' + d)); });
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 2u);
  for (int d = 0; d < 2; ++d) {
    const rt::Tensor& t = (*p)[d];
    EXPECT_EQ(t.device, d);
    EXPECT_EQ(t.ndims, 2u);
    EXPECT_EQ(t.shape[0], 2u);
    EXPECT_EQ(t.shape[1], 3u);
    EXPECT_EQ(t.elem_bytes, 4u);
    std::string back(24, '\0');
    ASSERT_TRUE((*sys)->CopyFrom(back.data(), t, 24).ok());
    EXPECT_EQ(back, std::string(24, static_cast<char>('a' + d)));
  }
  // Empty contents keep the zeroed allocation; a wrong size is an error.
  absl::StatusOr<std::vector<rt::Tensor>> zero =
      StageParam(**sys, {4}, 4, "z", [](int) { return std::string(); });
  ASSERT_TRUE(zero.ok()) << zero.status();
  std::string back(16, 'x');
  ASSERT_TRUE((*sys)->CopyFrom(back.data(), (*zero)[1], 16).ok());
  EXPECT_EQ(back, std::string(16, '\0'));
  EXPECT_FALSE(StageParam(**sys, {4}, 4, "bad", [](int) { return std::string(3, 'x'); }).ok());
  EXPECT_FALSE(StageParam(**sys, {}, 4, "bad", [](int) { return std::string(); }).ok());
}

}  // namespace
}  // namespace pto::bench
