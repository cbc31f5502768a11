// The helpers generated HOST orchestrations call, as the code generator
// writes the calls (unqualified).
#include "runtime/api/host_orchestration_support.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace {

TEST(HostOrchestrationSupportTest, TypedRetypesAndReshapesAView) {
  pto::rt::Tensor t;
  t.base = 0x1000;
  t.bytes = 2048;
  const pto::rt::Tensor v = Typed(t, 4, {8, 64});
  EXPECT_EQ(v.elem_bytes, 4u);
  EXPECT_EQ(v.ndims, 2u);
  EXPECT_EQ(v.shape[0], 8u);
  EXPECT_EQ(v.shape[1], 64u);
  EXPECT_EQ(v.addr(), t.addr());
}

TEST(HostOrchestrationSupportTest, RankOfFindsTheDeviceOrNothing) {
  pto::rt::Domain d;
  d.ranks.resize(2);
  d.ranks[0].device = 3;
  d.ranks[1].device = 5;
  d.ranks[1].domain_rank = 1;
  ASSERT_NE(RankOf(d, 5), nullptr);
  EXPECT_EQ(RankOf(d, 5)->domain_rank, 1);
  EXPECT_EQ(RankOf(d, 4), nullptr);
}

TEST(HostOrchestrationSupportTest, FindLooksACallableUpByName) {
  std::map<std::string, pto::rt::ChipCallable> callables;
  callables["stage_pipeline"].name = "stage_pipeline";
  ASSERT_NE(Find(callables, "stage_pipeline"), nullptr);
  EXPECT_EQ(Find(callables, "stage_pipeline")->name, "stage_pipeline");
  EXPECT_EQ(Find(callables, "missing"), nullptr);
}

TEST(HostOrchestrationSupportTest, FloorDivAndModArePythons) {
  EXPECT_EQ(FloorDiv(int64_t{-7}, int64_t{2}), -4);
  EXPECT_EQ(FloorMod(int64_t{-1}, int64_t{4}), 3);
  EXPECT_EQ(FloorMod(int64_t{5}, int64_t{4}), 1);
}

}  // namespace
