#include "python/ext/kernel_config_py.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::python {
namespace {

using ::testing::HasSubstr;
using ::testing::Key;
using ::testing::UnorderedElementsAre;

constexpr char kConfig[] = R"(# proto-file: runtime/builtins/kernel_config.proto
runtime_config { runtime: "tensormap_and_ringbuffer" aicpu_thread_num: 0 }
orchestration {
  source: "orchestration/chip_pipeline.cpp"
  function_name: "aicpu_orchestration_entry"
  signature: [IN, OUT]
}
kernels { func_id: 0 name: "stage" source: "kernels/aiv/stage.cpp" core_type: AIV
          signature: [IN, OUT, OUT] }
kernels { func_id: 1 name: "mm" source: "kernels/aic/mm.cpp" core_type: AIC }
)";

TEST(KernelConfigPyTest, RendersEveryFactOfTheTextproto) {
  absl::StatusOr<std::string> py = KernelConfigPy(kConfig);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_THAT(*py, HasSubstr("_ROOT_DIR = Path(__file__).parent\n"));
  EXPECT_THAT(*py, HasSubstr(R"(RUNTIME_CONFIG = {
    "runtime": "tensormap_and_ringbuffer",
    "aicpu_thread_num": 0,
}
)"));
  EXPECT_THAT(*py, HasSubstr(R"(ORCHESTRATION = {
    "source": str(_ROOT_DIR / "orchestration" / "chip_pipeline.cpp"),
    "function_name": "aicpu_orchestration_entry",
    "signature": ["IN", "OUT"],
}
)"));
  EXPECT_THAT(*py, HasSubstr(R"(KERNELS = [
    {"func_id": 0, "name": "stage", "source": str(_ROOT_DIR / "kernels" / "aiv" / "stage.cpp"), "core_type": "aiv", "signature": ["IN", "OUT", "OUT"]},
    {"func_id": 1, "name": "mm", "source": str(_ROOT_DIR / "kernels" / "aic" / "mm.cpp"), "core_type": "aic"},
]
)"));
}

TEST(KernelConfigPyTest, TextThatDoesNotParseIsAnError) {
  absl::StatusOr<std::string> py = KernelConfigPy("kernels { func_id: \"x\" }");
  ASSERT_FALSE(py.ok());
  EXPECT_EQ(py.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(KernelConfigPyTest, EveryTextprotoOfABundleGetsItsPythonTwin) {
  const std::map<std::string, std::string> bundle = {
      {"program.cc", "int x;"},
      {"next_levels/a/kernel_config.textproto", kConfig},
      {"next_levels/b/kernel_config.textproto", kConfig},
      {"next_levels/c/not_kernel_config.textproto", "garbage {"},
  };
  auto out = WithKernelConfigPy(bundle);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, UnorderedElementsAre(Key("program.cc"),
                                         Key("next_levels/a/kernel_config.textproto"),
                                         Key("next_levels/a/kernel_config.py"),
                                         Key("next_levels/b/kernel_config.textproto"),
                                         Key("next_levels/b/kernel_config.py"),
                                         Key("next_levels/c/not_kernel_config.textproto")));
}

TEST(KernelConfigPyTest, ABadTextprotoInABundleNamesItsPath) {
  auto out = WithKernelConfigPy({{"next_levels/a/kernel_config.textproto", "kernels {"}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("next_levels/a/kernel_config.textproto"));
}

}  // namespace
}  // namespace pto::python
