#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "tools/golden/golden_file.h"

namespace pto::golden {
namespace {

std::vector<std::string>* files = nullptr;

std::map<std::string, Golden> Load() {
  std::map<std::string, Golden> out;
  for (const std::string& f : *files) {
    absl::StatusOr<Golden> g = ReadGoldenFile(f);
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok()) continue;
    const std::string base = f.substr(f.rfind('/') + 1);
    out[base.substr(0, base.size() - std::string(".textproto").size())] = *g;
  }
  return out;
}

TEST(PublishedTest, EveryGoldenIsAHardwareFigureWithItsSource) {
  std::map<std::string, Golden> all = Load();
  EXPECT_EQ(all.size(), 11u);
  for (const auto& [name, g] : all) {
    EXPECT_EQ(g.backend(), "hw") << name;
    EXPECT_EQ(g.provenance().recorder(), "published") << name;
    EXPECT_FALSE(g.provenance().note().empty()) << name << " has no source";
    ASSERT_EQ(g.kernels_size(), 1) << name;
    EXPECT_GT(g.kernels(0).total_ps(), 0) << name;
  }
  // The six rows of PyPTO's baseline table.
  EXPECT_EQ(all["a2av_ep2_8kib"].kernels(0).total_ps(), 29'000'000);
  EXPECT_EQ(all["a2av_ep8_1mib"].kernels(0).total_ps(), 18'000'000'000);
  EXPECT_EQ(all["a2av_ep8_24960b"].ranks(), 8);
}

// The platform fields that are published figures must be those figures.
TEST(PublishedTest, A2a3PlatformAgreesWithThePublishedFigures) {
  std::map<std::string, Golden> all = Load();
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform("a2a3");
  ASSERT_TRUE(p.ok());
  auto ps = [&](const std::string& name) { return all[name].kernels(0).total_ps(); };
  EXPECT_EQ(static_cast<int64_t>(p->aicpu().dispatch_ns() * 1000), ps("simpler_dispatch"));
  EXPECT_EQ(static_cast<int64_t>(p->aicpu().completion_ns() * 1000), ps("simpler_completion"));
  EXPECT_EQ(static_cast<int64_t>(p->aicpu().reg_read_ns() * 1000), ps("simpler_reg_read"));
  EXPECT_EQ(static_cast<int64_t>(p->host().dispatch_round_trip_ns() * 1000),
            ps("simpler_l3_round_trip"));
  const double link_ps = 56e6 / (p->fabric().link_bandwidth_gbps() * 1e9) * 1e12;
  EXPECT_EQ(static_cast<int64_t>(std::llround(link_ps)), ps("hccs_link"));
}

}  // namespace
}  // namespace pto::golden

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  pto::golden::files = &args;
  return RUN_ALL_TESTS();
}
