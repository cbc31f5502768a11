// Every rendered HOST-rail kernel config (argv) parses as
// pto.builtins.KernelConfig and names its variant's entry and kernel
// (docs/codegen.md).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/builtins/kernel_config.pb.h"

namespace pto::builtins {
namespace {

using ::testing::ElementsAre;

std::vector<std::string>* g_paths = nullptr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(KernelConfigTest, EveryRenderingParsesAndNamesItsVariant) {
  ASSERT_EQ(g_paths->size(), 2u);
  for (const std::string& path : *g_paths) {
    SCOPED_TRACE(path);
    // .../next_levels/builtin.tensor.all_to_all_v__<suffix>/kernel_config...
    const std::string suffix =
        path.find("__fp32/") != std::string::npos ? "fp32" : "int8";
    const std::string entry = "builtin_tensor_all_to_all_v__" + suffix;
    KernelConfig config;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(Slurp(path), &config));
    EXPECT_EQ(config.runtime_config().runtime(), "tensormap_and_ringbuffer");
    EXPECT_EQ(config.runtime_config().aicpu_thread_num(), 0);
    EXPECT_EQ(config.orchestration().source(),
              absl::StrCat("orchestration/", entry, ".cpp"));
    EXPECT_EQ(config.orchestration().function_name(),
              "aicpu_orchestration_entry");
    EXPECT_THAT(config.orchestration().signature(),
                ElementsAre(IN, OUT, OUT, IN, OUT));
    ASSERT_EQ(config.kernels_size(), 1);
    const Kernel& k = config.kernels(0);
    EXPECT_EQ(k.func_id(), 0);
    EXPECT_EQ(k.name(), entry + "_kernel");
    EXPECT_EQ(k.source(), absl::StrCat("kernels/aiv/", entry, "_kernel.cpp"));
    EXPECT_EQ(k.core_type(), AIV);
    EXPECT_THAT(k.signature(), ElementsAre(IN, OUT, OUT, IN, OUT));
  }
}

}  // namespace
}  // namespace pto::builtins

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  pto::builtins::g_paths = &paths;
  return RUN_ALL_TESTS();
}
