#include "platforms/platform.h"

#include "gtest/gtest.h"

namespace pto::platforms {
namespace {

TEST(PlatformTest, A2a3HasTheDocumentedFigures) {
  absl::StatusOr<Platform> p = LoadPlatform("a2a3");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->aic_cores(), 24u);
  EXPECT_EQ(p->aiv_cores(), 48u);
  EXPECT_DOUBLE_EQ(p->clock_ghz(), 1.85);
  EXPECT_EQ(p->ub_bytes(), 192u * 1024);
  EXPECT_EQ(p->ub_block_bytes(), 32u);
  EXPECT_EQ(p->fabric().kind(), FabricSpec::FULL_MESH);
  EXPECT_EQ(p->fabric().links_per_chip(), 7u);
  EXPECT_DOUBLE_EQ(p->fabric().link_bandwidth_gbps(), 56);
  EXPECT_FALSE(p->urma().present());
}

TEST(PlatformTest, A5HasTheDocumentedFigures) {
  absl::StatusOr<Platform> p = LoadPlatform("a5");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->aic_cores(), 36u);
  EXPECT_EQ(p->aiv_cores(), 72u);
  EXPECT_EQ(p->ub_bytes(), 248u * 1024);
  EXPECT_EQ(p->fabric().kind(), FabricSpec::SWITCH);
  EXPECT_TRUE(p->urma().present());
  EXPECT_EQ(p->urma().max_wqe_bytes(), 256u << 20);
}

TEST(PlatformTest, UnknownNameIsNotFoundAndListsTheKnownOnes) {
  absl::Status s = LoadPlatform("tpu").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "unknown platform 'tpu' (known platforms: a2a3, a5)");
}

TEST(PlatformTest, EveryBuiltInPlatformLoads) {
  EXPECT_EQ(PlatformNames(), (std::vector<std::string>{"a2a3", "a5"}));
  for (const std::string& name : PlatformNames()) {
    absl::StatusOr<Platform> p = LoadPlatform(name);
    ASSERT_TRUE(p.ok()) << name << ": " << p.status();
    EXPECT_EQ(p->name(), name);
  }
}

TEST(PlatformTest, SyntaxErrorIsReported) {
  EXPECT_EQ(ParsePlatform("name: ").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PlatformTest, ValidationNamesTheBadField) {
  absl::StatusOr<Platform> p = LoadPlatform("a2a3");
  ASSERT_TRUE(p.ok());
  p->mutable_fabric()->set_links_per_chip(3);
  absl::Status s = ValidatePlatform(*p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("links_per_chip"), std::string::npos) << s;
  p = LoadPlatform("a2a3");
  p->set_mte_burst_bytes(48);
  EXPECT_NE(ValidatePlatform(*p).message().find("mte_burst_bytes"),
            std::string::npos);
  p = LoadPlatform("a2a3");
  p->set_ub_block_bytes(24);
  EXPECT_NE(ValidatePlatform(*p).message().find("ub_block_bytes"), std::string::npos);
  p = LoadPlatform("a2a3");
  p->mutable_gm()->set_bandwidth_gbps(0);
  EXPECT_NE(ValidatePlatform(*p).message().find("gm.bandwidth_gbps"),
            std::string::npos);
}

}  // namespace
}  // namespace pto::platforms
