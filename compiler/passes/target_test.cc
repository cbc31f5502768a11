#include "compiler/passes/target.h"
#include "compiler/passes/tcvt_table.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"

namespace pto::passes {
namespace {

// The compiler keeps no copy of platform facts: every field comes from
// platforms/<name>.textproto, so a changed platform changes the Target.
TEST(TargetTest, EveryBuiltInPlatformComesFromItsTextproto) {
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(name);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<Target> t = TargetForPlatform(name);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->platform, name);
    EXPECT_EQ(t->aiv_cores, static_cast<int64_t>(p->aiv_cores()));
    EXPECT_EQ(t->urma, p->urma().present());
    EXPECT_EQ(t->ub_bytes, static_cast<int64_t>(p->ub_bytes()));
    EXPECT_EQ(t->ub_block_bytes, static_cast<int64_t>(p->ub_block_bytes()));
    EXPECT_EQ(UbBlockBytes(*t), static_cast<int64_t>(p->ub_block_bytes()));
  }
}

// LegalizeTileCast needs the pto.tcvt table of every platform it may target.
TEST(TargetTest, EveryBuiltInPlatformHasATcvtTable) {
  for (const std::string& name : platforms::PlatformNames()) {
    EXPECT_NE(TcvtTableForPlatform(name), nullptr) << name;
  }
  EXPECT_EQ(TcvtTableForPlatform("nosuch"), nullptr);
  EXPECT_TRUE(TcvtTableForPlatform("a5")->IsNative(ir::DataType::kFP32, ir::DataType::kHF8));
  EXPECT_FALSE(TcvtTableForPlatform("a2a3")->IsNative(ir::DataType::kFP32, ir::DataType::kHF8));
}

// Without a target tiles are aligned for every built-in platform.
TEST(TargetTest, NoTargetAlignsToTheCoarsestUbBlock) {
  int64_t coarsest = 0;
  for (const std::string& name : platforms::PlatformNames()) {
    coarsest = std::max<int64_t>(coarsest, platforms::LoadPlatform(name)->ub_block_bytes());
  }
  EXPECT_EQ(UbBlockBytes(Target{}), coarsest);
  EXPECT_FALSE(Target{}.ub_bytes.has_value());
}

TEST(TargetTest, A2a3AndA5) {
  absl::StatusOr<Target> a2a3 = TargetForPlatform("a2a3");
  ASSERT_TRUE(a2a3.ok());
  EXPECT_EQ(a2a3->aiv_cores, 48);
  EXPECT_FALSE(a2a3->urma);
  EXPECT_THAT(a2a3->urma_platforms, testing::ElementsAre("a5", "a5_supernode"));
  absl::StatusOr<Target> a5 = TargetForPlatform("a5");
  ASSERT_TRUE(a5.ok());
  EXPECT_EQ(a5->aiv_cores, 72);
  EXPECT_TRUE(a5->urma);
}

TEST(TargetTest, UnknownPlatformIsAUsageErrorNamingTheKnownOnes) {
  absl::Status s = TargetForPlatform("a9").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown platform 'a9' (known platforms: a2a3, a5, a2a3_cluster, a3, "
                         "a5_supernode)");
}

}  // namespace
}  // namespace pto::passes
