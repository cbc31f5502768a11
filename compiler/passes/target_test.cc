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

// LegalizeTileCast needs the pto.tcvt table of every platform it may target:
// each built-in platform names an architecture, and each architecture the
// platform files can name has a table.
TEST(TargetTest, EveryBuiltInPlatformHasATcvtTable) {
  for (const std::string& name : platforms::PlatformNames()) {
    absl::StatusOr<Target> t = TargetForPlatform(name);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_NE(TcvtTableForArch(t->arch), nullptr) << name;
  }
  const google::protobuf::EnumDescriptor* archs = platforms::Arch_descriptor();
  for (int i = 0; i < archs->value_count(); ++i) {
    const int arch = archs->value(i)->number();
    if (arch == platforms::ARCH_UNSPECIFIED) continue;
    EXPECT_NE(TcvtTableForArch(ArchName(arch)), nullptr) << archs->value(i)->name();
  }
  EXPECT_EQ(ArchName(platforms::ARCH_UNSPECIFIED), "");
  EXPECT_EQ(TcvtTableForArch(""), nullptr);
  EXPECT_EQ(TcvtTableForArch("nosuch"), nullptr);
  EXPECT_TRUE(TcvtTableForArch("Ascend950")->IsNative(ir::DataType::kFP32, ir::DataType::kHF8));
  EXPECT_FALSE(TcvtTableForArch("Ascend910B")->IsNative(ir::DataType::kFP32, ir::DataType::kHF8));
}

// The architecture is a platform fact inherited through `extends`: the scale
// platforms get their chip's, and so does a user's file.
TEST(TargetTest, ArchIsInheritedThroughExtends) {
  EXPECT_EQ(TargetForPlatform("a2a3")->arch, "Ascend910B");
  EXPECT_EQ(TargetForPlatform("a3")->arch, "Ascend910B");
  EXPECT_EQ(TargetForPlatform("a2a3_cluster")->arch, "Ascend910B");
  EXPECT_EQ(TargetForPlatform("a5")->arch, "Ascend950");
  EXPECT_EQ(TargetForPlatform("a5_supernode")->arch, "Ascend950");
  absl::StatusOr<platforms::Platform> mine =
      platforms::ParsePlatform(R"pb(name: "mine" extends: "a2a3" aiv_cores: 40)pb");
  ASSERT_TRUE(mine.ok()) << mine.status();
  Target t = TargetFromPlatform(*mine);
  EXPECT_EQ(t.platform, "mine");
  EXPECT_EQ(t.aiv_cores, 40);
  EXPECT_EQ(t.arch, "Ascend910B");
  EXPECT_EQ(TcvtTableForArch(t.arch), TcvtTableForArch("Ascend910B"));
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
                         "a5_supernode, a2a3_word_safe_set)");
}

}  // namespace
}  // namespace pto::passes
