// The kernel config of a chip pipeline's sub-build (spec §4.11, §4.12).
#include "compiler/codegen/kernel_config.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "compiler/codegen/chip_orchestration.h"
#include "compiler/codegen/codegen_test_util.h"
#include "compiler/codegen/program_codegen.h"
#include "compiler/codegen/template_source.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/support/diagnostics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::codegen {
namespace {

using ::testing::HasSubstr;

using test_util::Parse;

// The seed's pipeline after the default pipeline: the builtin kernel is
// listed with the name and path its CHIP rendering gets.
TEST(ChipKernelConfigTest, ListsTheSeedPipelinesKernelsInCallOrder) {
  std::ifstream in("examples/all_to_all_v_chip.pto");
  std::ostringstream text;
  text << in.rdbuf();
  ir::ProgramPtr program = Parse(text.str());
  ASSERT_NE(program, nullptr);
  passes::PassManager pm;
  ASSERT_TRUE(pm.AddPipeline("default").ok());
  absl::StatusOr<ir::ProgramPtr> lowered = pm.Run(program);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::string> config = ChipKernelConfig(*lowered, "chip_pipeline");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(*config, R"(# proto-file: runtime/builtins/kernel_config.proto
# proto-message: pto.builtins.KernelConfig
# Kernel config of chip pipeline chip_pipeline.
runtime_config {
  runtime: "tensormap_and_ringbuffer"
  aicpu_thread_num: 0
}
orchestration {
  source: "orchestration/chip_pipeline.cpp"
  function_name: "aicpu_orchestration_entry"
  signature: [IN, OUT, IN, IN, IN, IN, IN]
}
kernels {
  func_id: 0
  name: "stage_step"
  source: "kernels/aiv/stage_step.cpp"
  core_type: AIV
  signature: [IN, OUT, OUT]
}
kernels {
  func_id: 1
  name: "__builtin_all_to_all_v__fp32"
  source: "kernels/aiv/__builtin_all_to_all_v__fp32.cpp"
  core_type: AIV
  signature: [IN, OUT, OUT, IN, OUT]
}
kernels {
  func_id: 2
  name: "consume_step"
  source: "kernels/aiv/consume_step.cpp"
  core_type: AIV
  signature: [IN, IN, OUT]
}
)");
}

constexpr char kProgram[] = R"(import pypto.language as pl

@pl.program
class K:
    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, x: pl.InOut[pl.Tensor[[8], pl.FP32]], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[8], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipe(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        y = self.mm(x, 2)
        return self.mm(y, 3)

    @pl.function(type=pl.FunctionType.Orchestration)
    def outer(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return self.pipe(x)
)";

TEST(ChipKernelConfigTest, AnAicKernelOnceWithItsTensorSignatureAndRuntime) {
  ir::ProgramPtr program = Parse(kProgram);
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> config = ChipKernelConfig(program, "pipe", "sim_runtime");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(*config, HasSubstr("runtime: \"sim_runtime\""));
  EXPECT_THAT(*config, HasSubstr("signature: [IN]\n}\nkernels {\n  func_id: 0\n  name: \"mm\"\n"
                                 "  source: \"kernels/aic/mm.cpp\"\n  core_type: AIC\n"
                                 "  signature: [OUT]\n}\n"));
  EXPECT_THAT(*config, ::testing::Not(HasSubstr("func_id: 1")));
}

TEST(ChipKernelConfigTest, ACalleeThatIsNotAKernelIsALocatedUserError) {
  ir::ProgramPtr program = Parse(kProgram);
  ASSERT_NE(program, nullptr);
  absl::Status status = ChipKernelConfig(program, "outer").status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("'pipe' called from chip pipeline 'outer' is not a kernel"));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(status);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 16);  // `return self.pipe(x)`
}

// An InCore function whose tiles InferTileMemorySpace put in the cube
// buffers is an AIC kernel; a vector one stays AIV.
TEST(ChipKernelConfigTest, AnInCoreFunctionOfCubeWorkIsAnAicKernel) {
  ir::ProgramPtr program = Parse(R"(import pypto.language as pl

@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 16], pl.FP16], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        u = pl.matmul(t, t)
        c = pl.store(u, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def add(self, c: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(c, [0, 0], [16, 16])
        u = pl.add(t, t)
        o = pl.store(u, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipe(self, a: pl.Tensor[[16, 16], pl.FP16], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = self.mm(a, c)
        o = self.add(c, o)
        return o
)");
  ASSERT_NE(program, nullptr);
  passes::PassManager pm;
  ASSERT_TRUE(pm.AddPipeline("default").ok());
  absl::StatusOr<ir::ProgramPtr> lowered = pm.Run(program);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::string> config = ChipKernelConfig(*lowered, "pipe");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(*config, HasSubstr("name: \"mm\"\n  source: \"kernels/aic/mm.cpp\"\n  core_type: AIC"));
  EXPECT_THAT(*config, HasSubstr("name: \"add\"\n  source: \"kernels/aiv/add.cpp\"\n  core_type: AIV"));
  // The orchestration submits it as an AIC task, the bundle holds it where
  // the config says.
  absl::StatusOr<std::string> orch = GenerateChipOrchestration(*lowered, "pipe");
  ASSERT_TRUE(orch.ok()) << orch.status();
  EXPECT_THAT(*orch, HasSubstr("orch.submit_aic_task(0, args0);"));
  EXPECT_THAT(*orch, HasSubstr("orch.submit_aiv_task(1, args1);"));
  MapTemplateSource templates({});
  absl::StatusOr<Bundle> bundle = GenerateProgram(*lowered, templates);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(bundle->contains("kernels/aic/mm.cpp"));
  EXPECT_TRUE(bundle->contains("kernels/aiv/add.cpp"));
}

TEST(ChipKernelConfigTest, AnUnknownPipelineIsNotFound) {
  ir::ProgramPtr program = Parse(kProgram);
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(ChipKernelConfig(program, "nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace pto::codegen
