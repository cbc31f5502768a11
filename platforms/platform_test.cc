#include "platforms/platform.h"

#include <string>
#include <utility>
#include <vector>

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
  EXPECT_DOUBLE_EQ(p->fabric().chip_egress_gbps(), 79.7);
  EXPECT_FALSE(p->urma().present());
}

// The egress cap is a full mesh's; elsewhere, or negative, it is refused.
TEST(PlatformTest, ChipEgressIsAFullMeshFigure) {
  Platform p = *LoadPlatform("a2a3");
  p.mutable_fabric()->set_chip_egress_gbps(-1);
  EXPECT_EQ(ValidatePlatform(p).message(), "platform 'a2a3': fabric.chip_egress_gbps < 0");
  p = *LoadPlatform("a5");
  p.mutable_fabric()->set_chip_egress_gbps(80);
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a5': fabric.chip_egress_gbps needs kind FULL_MESH");
  EXPECT_DOUBLE_EQ(LoadPlatform("a2a3_cluster")->fabric().chip_egress_gbps(), 0);
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

TEST(PlatformTest, CubeBuffersAreTassignsCapacities) {
  absl::StatusOr<Platform> a2 = LoadPlatform("a2a3");
  ASSERT_TRUE(a2.ok()) << a2.status();
  EXPECT_EQ(a2->cube().l1_bytes(), 512u * 1024);
  EXPECT_EQ(a2->cube().l0a_bytes(), 64u * 1024);
  EXPECT_EQ(a2->cube().l0c_bytes(), 128u * 1024);
  EXPECT_EQ(a2->cube().bias_bytes(), 1024u);
  absl::StatusOr<Platform> a5 = LoadPlatform("a5");
  ASSERT_TRUE(a5.ok()) << a5.status();
  EXPECT_EQ(a5->cube().l0c_bytes(), 256u * 1024);
  EXPECT_EQ(a5->cube().bias_bytes(), 4096u);
  // The scale platforms inherit their base's cube.
  absl::StatusOr<Platform> a3 = LoadPlatform("a3");
  ASSERT_TRUE(a3.ok()) << a3.status();
  EXPECT_EQ(a3->cube().l0c_bytes(), 128u * 1024);
  a2->mutable_cube()->set_l0b_bytes(0);
  EXPECT_NE(ValidatePlatform(*a2).message().find("cube: every buffer"), std::string::npos);
  a2 = LoadPlatform("a2a3");
  a2->mutable_cube()->set_fix_gm_bytes_per_cycle(0);
  EXPECT_NE(ValidatePlatform(*a2).message().find("cube: every pipe rate"), std::string::npos);
}

TEST(PlatformTest, UnknownNameIsNotFoundAndListsTheKnownOnes) {
  absl::Status s = LoadPlatform("tpu").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "unknown platform 'tpu' (known platforms: a2a3, a5, a2a3_cluster, a3, "
                         "a5_supernode, a2a3_word_safe_set)");
}

TEST(PlatformTest, EveryBuiltInPlatformLoads) {
  EXPECT_EQ(PlatformNames(), (std::vector<std::string>{"a2a3", "a5", "a2a3_cluster", "a3",
                                                       "a5_supernode", "a2a3_word_safe_set"}));
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

TEST(PlatformTest, ScalePlatformsAreTieredFabrics) {
  absl::StatusOr<Platform> a3 = LoadPlatform("a3");
  ASSERT_TRUE(a3.ok()) << a3.status();
  EXPECT_EQ(a3->fabric().kind(), FabricSpec::HIERARCHY);
  EXPECT_EQ(a3->fabric().max_chips(), 768u);
  ASSERT_EQ(a3->fabric().tiers_size(), 2);
  EXPECT_EQ(a3->fabric().tiers(0).group_chips(), 16u);
  EXPECT_TRUE(a3->fabric().tiers(1).via_inner_ports());
  absl::StatusOr<Platform> cluster = LoadPlatform("a2a3_cluster");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EXPECT_EQ(cluster->fabric().tiers(0).kind(), FabricTier::MESH);
  EXPECT_EQ(cluster->fabric().tiers(1).link_bandwidth_gbps(), 25);
}

TEST(PlatformTest, BadTiersAreRejectedWithTheTierNamed) {
  Platform p = *LoadPlatform("a3");
  p.mutable_fabric()->mutable_tiers(1)->set_group_chips(24);  // not a multiple of 16
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a3': fabric.tiers[1] (UB L2): group_chips 24 must be a multiple > 1 of "
            "the tier below's 16");
  p = *LoadPlatform("a3");
  p.mutable_fabric()->set_max_chips(512);
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a3': the last fabric tier's group_chips 768 must equal max_chips 512");
  p = *LoadPlatform("a2a3_cluster");
  p.mutable_fabric()->mutable_tiers(1)->set_kind(FabricTier::MESH);
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a2a3_cluster': fabric.tiers[1] (RoCE): only tier 0 may be a MESH");
  p = *LoadPlatform("a2a3_cluster");
  p.mutable_fabric()->mutable_tiers(1)->set_via_inner_ports(true);
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a2a3_cluster': fabric.tiers[1] (RoCE): via_inner_ports needs a SWITCH "
            "tier below");
  p = *LoadPlatform("a2a3_cluster");
  p.mutable_fabric()->clear_tiers();
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a2a3_cluster': a HIERARCHY fabric needs tiers");
  p = *LoadPlatform("a2a3");
  *p.mutable_fabric()->add_tiers() = LoadPlatform("a3")->fabric().tiers(0);
  EXPECT_EQ(ValidatePlatform(p).message(), "platform 'a2a3': fabric.tiers need kind HIERARCHY");
}

// `extends`: the base's figures, then every field the text sets; a message
// field replaces the base's whole message (a3's fabric keeps nothing of
// a2a3's full mesh).
TEST(PlatformTest, ExtendsInheritsTheBaseAndReplacesWhatTheFileSets) {
  absl::StatusOr<Platform> p = ParsePlatform(R"pb(
    name: "mine" extends: "a2a3" clock_ghz: 2.0
    fabric { kind: SWITCH max_chips: 4 link_bandwidth_gbps: 100 hop_latency_ns: 10 }
  )pb");
  ASSERT_TRUE(p.ok()) << p.status();
  const Platform base = *LoadPlatform("a2a3");
  EXPECT_EQ(p->name(), "mine");
  EXPECT_TRUE(p->extends().empty());
  EXPECT_DOUBLE_EQ(p->clock_ghz(), 2.0);
  EXPECT_EQ(p->aiv_cores(), base.aiv_cores());
  EXPECT_EQ(p->ub_bytes(), base.ub_bytes());
  EXPECT_EQ(p->aicpu().task_window(), base.aicpu().task_window());
  EXPECT_DOUBLE_EQ(p->gm().latency_ns(), base.gm().latency_ns());
  EXPECT_EQ(p->fabric().kind(), FabricSpec::SWITCH);
  EXPECT_EQ(p->fabric().links_per_chip(), 0u);  // not a2a3's 7: the message is replaced
  // The built-in scale platforms share their chip's figures with the base.
  for (const auto& [name, base_name] : std::vector<std::pair<std::string, std::string>>{
           {"a3", "a2a3"}, {"a2a3_cluster", "a2a3"}, {"a5_supernode", "a5"}}) {
    const Platform d = *LoadPlatform(name);
    const Platform b = *LoadPlatform(base_name);
    EXPECT_EQ(d.ub_bytes(), b.ub_bytes()) << name;
    EXPECT_DOUBLE_EQ(d.mte_bytes_per_cycle(), b.mte_bytes_per_cycle()) << name;
    EXPECT_DOUBLE_EQ(d.clock_ghz(), b.clock_ghz()) << name;
    EXPECT_EQ(d.urma().present(), b.urma().present()) << name;
    EXPECT_NE(d.fabric().kind(), b.fabric().kind()) << name;
  }
}

TEST(PlatformTest, ExtendsErrorsNameThePlatform) {
  EXPECT_EQ(ParsePlatform(R"pb(name: "mine" extends: "tpu")pb").status().message(),
            "platform 'mine': extends: unknown platform 'tpu' (known platforms: a2a3, a5, "
            "a2a3_cluster, a3, a5_supernode, a2a3_word_safe_set)");
  // The merged result is validated like any platform.
  EXPECT_EQ(ParsePlatform(R"pb(name: "mine" extends: "a2a3" fabric { max_chips: 8 })pb")
                .status()
                .message(),
            "platform 'mine': fabric.kind must be FULL_MESH, SWITCH or HIERARCHY");
}

// Every built-in platform says how its TNOTIFY Set publishes (pto-isa#322);
// a platform that does not is refused rather than given a default.
TEST(PlatformTest, NotifySetPathIsPlatformData) {
  for (const std::string& name : PlatformNames()) {
    EXPECT_EQ(LoadPlatform(name)->notify_set(), name == "a2a3_word_safe_set"
                                                    ? NOTIFY_SET_ATOMIC_DELTA
                                                    : NOTIFY_SET_LINE_WRITEBACK)
        << name;
  }
  absl::StatusOr<Platform> fixed =
      ParsePlatform(R"pb(name: "mine" extends: "a2a3" notify_set: NOTIFY_SET_ATOMIC_DELTA)pb");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(fixed->notify_set(), NOTIFY_SET_ATOMIC_DELTA);
  Platform p = *LoadPlatform("a5");
  p.clear_notify_set();
  EXPECT_EQ(ValidatePlatform(p).message(),
            "platform 'a5': notify_set must be NOTIFY_SET_LINE_WRITEBACK or "
            "NOTIFY_SET_ATOMIC_DELTA");
}

}  // namespace
}  // namespace pto::platforms
