// Builtin kernels by template rendering (docs/codegen.md,
// seed 000 "Kernel 源码：一份实现，两条通路"): the HOST and CHIP renderings
// of all_to_all_v are byte-identical, the path layout and variant names, and
// every error.
#include "compiler/codegen/builtin_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "compiler/codegen/codegen_test_util.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/support/diagnostics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::codegen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;
using ::testing::Pair;

constexpr char kHandle[] = ":pypto.runtime.builtins.collectives.all_to_all_v";

using test_util::Lower;
using test_util::Parse;
using test_util::ReadFile;

// The example with its element type FP32 replaced by `dtype` (e.g. "INT8").
std::string Example(const std::string& file, const std::string& dtype) {
  return absl::StrReplaceAll(ReadFile("examples/" + file), {{"pl.FP32", "pl." + dtype}});
}

int ErrorLine(const absl::Status& status) {
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(status);
  return loc ? loc->line : -1;
}

// --- The seed's ST assertion, on the real template -------------------------

struct DTypeCase {
  const char* dtype;      // DSL name
  const char* suffix;     // variant suffix
  const char* dtype_cpp;  // what {{dtype_cpp}} becomes
};

class ByteIdentityTest : public ::testing::TestWithParam<DTypeCase> {};

TEST_P(ByteIdentityTest, HostAndChipRenderTheSameKernel) {
  const DTypeCase& c = GetParam();
  DirectoryTemplateSource templates("runtime/builtins");
  ir::ProgramPtr chip = Lower(Example("all_to_all_v_chip.pto", c.dtype));
  ir::ProgramPtr host = Lower(Example("all_to_all_v_host.pto", c.dtype));
  ASSERT_NE(chip, nullptr);
  ASSERT_NE(host, nullptr);
  absl::StatusOr<Bundle> chip_bundle = RenderBuiltinKernels(chip, templates);
  absl::StatusOr<Bundle> host_bundle = RenderBuiltinKernels(host, templates);
  ASSERT_TRUE(chip_bundle.ok()) << chip_bundle.status();
  ASSERT_TRUE(host_bundle.ok()) << host_bundle.status();

  // CHIP: only the kernel, inside the calling pipeline's sub-build; no
  // next_levels/builtin.tensor.* build (§4.11).
  const std::string chip_path =
      std::string("next_levels/chip_pipeline/kernels/aiv/__builtin_all_to_all_v__") + c.suffix +
      ".cpp";
  EXPECT_THAT(*chip_bundle, ElementsAre(Key(chip_path)));
  const std::string entry = std::string("builtin_tensor_all_to_all_v__") + c.suffix;
  const std::string host_path = std::string("next_levels/builtin.tensor.all_to_all_v__") +
                                c.suffix + "/kernels/aiv/" + entry + "_kernel.cpp";
  ASSERT_EQ(host_bundle->count(host_path), 1u);

  EXPECT_EQ(chip_bundle->at(chip_path), host_bundle->at(host_path));
  // ... and it is the template with its one key replaced.
  std::string expected = absl::StrReplaceAll(
      ReadFile("runtime/builtins/all_to_all_v/kernel.cpp.in"), {{"{{dtype_cpp}}", c.dtype_cpp}});
  EXPECT_EQ(chip_bundle->at(chip_path), expected);
}

INSTANTIATE_TEST_SUITE_P(AllToAllV, ByteIdentityTest,
                         ::testing::Values(DTypeCase{"FP32", "fp32", "float"},
                                           DTypeCase{"INT8", "int8", "int8_t"}),
                         [](const auto& info) { return std::string(info.param.suffix); });

// The real package supplies every key its HOST templates use.
TEST(HostRailTest, RendersTheRealPackageCompletely) {
  ir::ProgramPtr host = Lower(Example("all_to_all_v_host.pto", "INT8"));
  ASSERT_NE(host, nullptr);
  absl::StatusOr<Bundle> bundle =
      RenderBuiltinKernels(host, DirectoryTemplateSource("runtime/builtins"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const std::string dir = "next_levels/builtin.tensor.all_to_all_v__int8/";
  EXPECT_THAT(*bundle,
              ElementsAre(Key(dir + "kernel_config.textproto"),
                          Key(dir + "kernels/aiv/builtin_tensor_all_to_all_v__int8_kernel.cpp"),
                          Key(dir + "orchestration/builtin_tensor_all_to_all_v__int8.cpp")));
  for (const auto& [path, text] : *bundle) {
    EXPECT_THAT(text, ::testing::Not(HasSubstr("{{"))) << path;
  }
  EXPECT_THAT(bundle->at(dir + "kernel_config.textproto"),
              HasSubstr("kernels/aiv/builtin_tensor_all_to_all_v__int8_kernel.cpp"));
}

// The HOST example with a barrier on its [NR] counts window after the
// all_to_all_v.
std::string BarrierHost() {
  const std::string call = "data = pld.tensor.all_to_all_v(stage, data, signal, counts, recv)";
  return absl::StrReplaceAll(Example("all_to_all_v_host.pto", "FP32"),
                             {{call, call + "\n        counts = pld.tensor.barrier(counts)"}});
}

// A package with only its kernel gets the shared entry and kernel config,
// rendered with its CollectiveDef.
TEST(HostRailTest, TheSharedEntryAndConfigAreRenderedFromTheDef) {
  ir::ProgramPtr host = Lower(BarrierHost());
  ASSERT_NE(host, nullptr);
  MapTemplateSource templates(
      {{"all_to_all_v",
        {{"entry.cpp.in", "own"}, {"kernel.cpp.in", "a"}, {"kernel_config.textproto.in", "c"}}},
       {"barrier", {{"kernel.cpp.in", "k {{dtype_cpp}}"}}},
       {"host_rail",
        {{"entry.cpp.in", "{{read_only}} {{signal_index}} {{launch_width}} {{root_cpp}} {{operands}}"},
         {"kernel_config.textproto.in", "{{signature}}"}}}});
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(host, templates);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const std::string dir = "next_levels/builtin.tensor.barrier__fp32/";
  EXPECT_EQ(bundle->at(dir + "orchestration/builtin_tensor_barrier__fp32.cpp"),
            "{false} 0 pto::LaunchWidthRule::kOneBlock -1 [signal]");
  EXPECT_EQ(bundle->at(dir + "kernel_config.textproto"), "[OUT]");
  EXPECT_EQ(bundle->at(dir + "kernels/aiv/builtin_tensor_barrier__fp32_kernel.cpp"), "k float");
  // A package's own entry wins over the shared one.
  EXPECT_EQ(bundle->at("next_levels/builtin.tensor.all_to_all_v__fp32/orchestration/"
                       "builtin_tensor_all_to_all_v__fp32.cpp"),
            "own");
}

// The real shared templates leave no placeholder for a package that has only
// its kernel.
TEST(HostRailTest, RendersTheRealSharedTemplatesCompletely) {
  ir::ProgramPtr host = Lower(BarrierHost());
  ASSERT_NE(host, nullptr);
  absl::StatusOr<Bundle> bundle =
      RenderBuiltinKernels(host, DirectoryTemplateSource("runtime/builtins"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const std::string dir = "next_levels/builtin.tensor.barrier__fp32/";
  EXPECT_EQ(bundle->size(), 6u);  // all_to_all_v's three and barrier's three
  for (const auto& [path, text] : *bundle) {
    EXPECT_THAT(text, ::testing::Not(HasSubstr("{{"))) << path;
  }
  EXPECT_THAT(bundle->at(dir + "orchestration/builtin_tensor_barrier__fp32.cpp"),
              HasSubstr("/*read_only=*/{false}, /*signal_index=*/0,\n      "
                        "pto::LaunchWidthRule::kOneBlock, /*root=*/-1}"));
  EXPECT_THAT(bundle->at(dir + "kernel_config.textproto"), HasSubstr("signature: [OUT]"));
}

// --- HOST rail layout --------------------------------------------------------

// A package with every kind of template and every HOST variable.
MapTemplateSource HostPackage() {
  return MapTemplateSource({{"all_to_all_v",
                             {{"entry.cpp.in", "entry {{entry}} of {{variant}}\n"},
                              {"kernel.cpp.in", "kernel {{kernel_name}} {{dtype_cpp}}\n"},
                              {"kernel_config.textproto.in",
                               "runtime: \"{{runtime}}\" package: \"{{template_package}}\"\n"},
                              {"notes.txt.in", "{{variant}}\n"}}}});
}

TEST(HostRailTest, RendersEveryTemplateUnderTheVariantBuild) {
  ir::ProgramPtr host = Lower(Example("all_to_all_v_host.pto", "FP32"));
  ASSERT_NE(host, nullptr);
  BuiltinRenderOptions options;
  options.runtime = "sim_runtime";
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(host, HostPackage(), options);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const std::string dir = "next_levels/builtin.tensor.all_to_all_v__fp32/";
  EXPECT_THAT(
      *bundle,
      ElementsAre(
          Pair(dir + "kernel_config.textproto",
               "runtime: \"sim_runtime\" package: "
               "\"pypto.runtime.builtins.collectives.all_to_all_v\"\n"),
          Pair(dir + "kernels/aiv/builtin_tensor_all_to_all_v__fp32_kernel.cpp",
               "kernel builtin_tensor_all_to_all_v__fp32_kernel float\n"),
          Pair(dir + "notes.txt", "builtin.tensor.all_to_all_v__fp32\n"),
          Pair(dir + "orchestration/builtin_tensor_all_to_all_v__fp32.cpp",
               "entry builtin_tensor_all_to_all_v__fp32 of builtin.tensor.all_to_all_v__fp32\n")));
}

TEST(HostRailTest, DefaultRuntimeIsTensormapAndRingbuffer) {
  ir::ProgramPtr host = Lower(Example("all_to_all_v_host.pto", "FP32"));
  ASSERT_NE(host, nullptr);
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(host, HostPackage());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_THAT(bundle->at("next_levels/builtin.tensor.all_to_all_v__fp32/kernel_config.textproto"),
              HasSubstr("runtime: \"tensormap_and_ringbuffer\""));
}

// Two collectives of one dtype share one variant build (MarkBuiltinEmitted).
TEST(HostRailTest, OneBuildPerVariant) {
  std::string text = Example("all_to_all_v_host.pto", "FP32");
  const std::string call =
      "        data = pld.tensor.all_to_all_v(stage, data, signal, counts, recv)\n";
  ASSERT_NE(text.find(call), std::string::npos);
  text = absl::StrReplaceAll(text, {{call, call + call}});
  ir::ProgramPtr host = Lower(text);
  ASSERT_NE(host, nullptr);
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(host, HostPackage());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->size(), 4u);
}

TEST(HostRailTest, APackageWithoutTemplatesIsALocatedErrorAtTheCollective) {
  const std::string text = Example("all_to_all_v_host.pto", "FP32");
  ir::ProgramPtr host = Lower(text);
  ASSERT_NE(host, nullptr);
  absl::Status status = RenderBuiltinKernels(host, MapTemplateSource({})).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("has no templates"));
  // The line of the source collective (the dispatches carry its span).
  const size_t at = text.find("data = pld.tensor.all_to_all_v");
  EXPECT_EQ(ErrorLine(status), 1 + std::count(text.begin(), text.begin() + at, '\n'));
}

TEST(HostRailTest, AnUnknownTemplateKeyIsALocatedError) {
  ir::ProgramPtr host = Lower(Example("all_to_all_v_host.pto", "FP32"));
  ASSERT_NE(host, nullptr);
  MapTemplateSource templates({{"all_to_all_v", {{"entry.cpp.in", "{{nranks}}"}}}});
  absl::Status status = RenderBuiltinKernels(host, templates).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("entry.cpp.in"));
  EXPECT_GT(ErrorLine(status), 0);
}

// --- Variant naming (§3.11) --------------------------------------------------

ir::CallPtr Builtin(const std::string& name, ir::AttrList kwargs) {
  const ops::OpDef* def = ops::OpRegistry::Global().Find(name);
  EXPECT_NE(def, nullptr) << name;
  return std::make_shared<ir::Call>(def->op, std::vector<ir::ExprPtr>{}, std::move(kwargs),
                                    ir::AttrList{}, nullptr);
}

TEST(HostBuiltinVariantTest, NamesEveryBuiltinAsTheSpecSays) {
  using DT = ir::DataType;
  struct Case {
    std::string op;
    ir::AttrList kwargs;
    std::string variant;
  };
  const Case cases[] = {
      {"builtin.tensor.allreduce",
       {{"op", int64_t{0}}, {"dtype", DT::kFP32}},
       "builtin.tensor.allreduce__sum__fp32"},
      {"builtin.tensor.allreduce",
       {{"op", int64_t{1}}, {"dtype", DT::kFP16}},
       "builtin.tensor.allreduce__max__fp16"},
      {"builtin.tensor.allreduce_ring",
       {{"op", int64_t{2}}, {"dtype", DT::kFP32}},
       "builtin.tensor.allreduce_ring__min__fp32"},
      {"builtin.tensor.allreduce",
       {{"op", int64_t{3}}, {"dtype", DT::kFP32}},
       "builtin.tensor.allreduce__prod__fp32"},
      {"builtin.tensor.barrier", {}, "builtin.tensor.barrier__fp32"},
      {"builtin.tensor.broadcast",
       {{"root", int64_t{3}}, {"dtype", DT::kFP32}},
       "builtin.tensor.broadcast__root3__fp32"},
      {"builtin.tensor.reduce_scatter",
       {{"op", int64_t{0}}, {"dtype", DT::kFP32}},
       "builtin.tensor.reduce_scatter__sum__fp32"},
      {"builtin.tensor.allgather", {{"dtype", DT::kFP32}}, "builtin.tensor.allgather__fp32"},
      {"builtin.tensor.all_to_all", {{"dtype", DT::kInt8}}, "builtin.tensor.all_to_all__int8"},
      {"builtin.tensor.all_to_all_v", {{"dtype", DT::kInt8}}, "builtin.tensor.all_to_all_v__int8"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<BuiltinVariant> v = HostBuiltinVariant(Builtin(c.op, c.kwargs));
    ASSERT_TRUE(v.ok()) << c.op << ": " << v.status();
    EXPECT_EQ(v->op_name, c.op);
    EXPECT_EQ(v->variant, c.variant);
    EXPECT_EQ(v->entry, SanitizeSymbol(c.variant));
    EXPECT_EQ(v->kernel_name, v->entry + "_kernel");
    EXPECT_EQ(v->template_dir, ":pypto.runtime.builtins.collectives." + c.op.substr(15));
  }
}

TEST(HostBuiltinVariantTest, TemplateVars) {
  using DT = ir::DataType;
  absl::StatusOr<BuiltinVariant> a2av =
      HostBuiltinVariant(Builtin("builtin.tensor.all_to_all_v", {{"dtype", DT::kInt8}}));
  ASSERT_TRUE(a2av.ok()) << a2av.status();
  EXPECT_THAT(a2av->vars, ElementsAre(Pair("dtype_cpp", "int8_t")));
  absl::StatusOr<BuiltinVariant> bcast = HostBuiltinVariant(
      Builtin("builtin.tensor.broadcast", {{"root", int64_t{1}}, {"dtype", DT::kFP32}}));
  ASSERT_TRUE(bcast.ok()) << bcast.status();
  EXPECT_THAT(bcast->vars, ElementsAre(Pair("dtype_cpp", "float"), Pair("root_cpp", "1")));
}

TEST(HostBuiltinVariantTest, SanitizeSymbolKeepsOnlyIdentifierCharacters) {
  EXPECT_EQ(SanitizeSymbol("builtin.tensor.a-b c__fp32"), "builtin_tensor_a_b_c__fp32");
  EXPECT_EQ(SanitizeSymbol("Az09_"), "Az09_");
}

TEST(HostBuiltinVariantTest, DTypeCppOfTheKernelTypes) {
  EXPECT_EQ(DTypeCpp(ir::DataType::kFP32), "float");
  EXPECT_EQ(DTypeCpp(ir::DataType::kInt8), "int8_t");
  EXPECT_EQ(DTypeCpp(ir::DataType::kFP16), "half");
  EXPECT_EQ(DTypeCpp(ir::DataType::kFP8E4M3FN), std::nullopt);
}

TEST(HostBuiltinVariantTest, ADTypeWithoutCppTypeIsAUserError) {
  absl::Status status = HostBuiltinVariant(Builtin("builtin.tensor.all_to_all_v",
                                                   {{"dtype", ir::DataType::kFP8E4M3FN}}))
                            .status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("no kernel element type"));
}

TEST(HostBuiltinVariantTest, ANonBuiltinCallIsAnInternalError) {
  absl::Status status = HostBuiltinVariant(Builtin("pld.tensor.all_to_all_v", {})).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
}

// --- CHIP rail: hand-written lowered form ------------------------------------

// A template-backed AIV kernel called by two chip pipelines (and one dead one).
constexpr char kChipProgram[] = R"(import pypto.language as pl

@pl.program
class K:
    @pl.function(type=pl.FunctionType.AIV, attrs={"builtin_template_dir": DIR, "builtin_template_vars": VARS})
    def kern(self, x: pl.InOut[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.AIV, attrs={"builtin_template_dir": DEAD})
    def dead(self, x: pl.InOut[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipe_a(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return self.kern(x)

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipe_b(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return self.kern(x)
)";
constexpr int kKernLine = 6;  // `def kern`
constexpr int kDeadLine = 10;

ir::ProgramPtr ChipProgram(const std::string& dir, const std::string& vars,
                           const std::string& dead = "\":pypto.runtime.builtins.collectives.x\"") {
  return Parse(absl::StrReplaceAll(kChipProgram, {{"DIR", dir}, {"VARS", vars}, {"DEAD", dead}}));
}

MapTemplateSource ChipPackage() {
  return MapTemplateSource(
      {{"all_to_all_v",
        {{"entry.cpp.in", "never rendered on the CHIP rail {{entry}}"},
         {"kernel.cpp.in", "{{dtype_cpp}} {{extra}} from {{template_package}}\n"}}}});
}

TEST(ChipRailTest, RendersTheKernelIntoEveryCallingPipeline) {
  ir::ProgramPtr p =
      ChipProgram(std::string("\"") + kHandle + "\"", "\"dtype_cpp=float, extra=1\"");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(p, ChipPackage());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const std::string text = "float 1 from pypto.runtime.builtins.collectives.all_to_all_v\n";
  EXPECT_THAT(*bundle, ElementsAre(Pair("next_levels/pipe_a/kernels/aiv/kern.cpp", text),
                                   Pair("next_levels/pipe_b/kernels/aiv/kern.cpp", text)));
}

TEST(ChipRailTest, AHandleWithoutColonIsALocatedUserError) {
  ir::ProgramPtr p =
      ChipProgram("\"pypto.runtime.builtins.collectives.all_to_all_v\"", "\"dtype_cpp=float\"");
  ASSERT_NE(p, nullptr);
  absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("starting with ':'"));
  EXPECT_EQ(ErrorLine(status), kKernLine);
}

TEST(ChipRailTest, AnUncalledKernelStillHasItsHandleChecked) {
  ir::ProgramPtr p =
      ChipProgram(std::string("\"") + kHandle + "\"", "\"dtype_cpp=float\"", "\"no_colon\"");
  ASSERT_NE(p, nullptr);
  absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_EQ(ErrorLine(status), kDeadLine);
}

TEST(ChipRailTest, APackageWithoutTemplatesIsALocatedUserError) {
  ir::ProgramPtr p =
      ChipProgram("\":pypto.runtime.builtins.collectives.nothing\"", "\"dtype_cpp=float\"");
  ASSERT_NE(p, nullptr);
  absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("has no templates"));
  EXPECT_EQ(ErrorLine(status), kKernLine);
}

TEST(ChipRailTest, APackageWithoutKernelTemplateIsALocatedUserError) {
  ir::ProgramPtr p = ChipProgram(std::string("\"") + kHandle + "\"", "\"dtype_cpp=float\"");
  ASSERT_NE(p, nullptr);
  MapTemplateSource templates({{"all_to_all_v", {{"entry.cpp.in", "e"}}}});
  absl::Status status = RenderBuiltinKernels(p, templates).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("has no kernel.cpp.in"));
  EXPECT_EQ(ErrorLine(status), kKernLine);
}

TEST(ChipRailTest, MalformedTemplateVarsAreALocatedUserError) {
  ir::ProgramPtr p = ChipProgram(std::string("\"") + kHandle + "\"", "\"dtype_cpp\"");
  ASSERT_NE(p, nullptr);
  absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("builtin_template_vars of 'kern'"));
  EXPECT_EQ(ErrorLine(status), kKernLine);
}

TEST(ChipRailTest, AMissingTemplateVarIsALocatedUserError) {
  // kernel.cpp.in uses {{extra}}, which the vars do not give.
  ir::ProgramPtr p = ChipProgram(std::string("\"") + kHandle + "\"", "\"dtype_cpp=float\"");
  ASSERT_NE(p, nullptr);
  absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
  EXPECT_TRUE(IsUserError(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("kernel.cpp.in"));
  EXPECT_EQ(ErrorLine(status), kKernLine);
}

TEST(ChipRailTest, NonStringAttrsAreLocatedUserErrors) {
  for (const auto& [dir, vars] : {std::pair<std::string, std::string>{"3", "\"dtype_cpp=float\""},
                                  {std::string("\"") + kHandle + "\"", "3"}}) {
    ir::ProgramPtr p = ChipProgram(dir, vars);
    ASSERT_NE(p, nullptr);
    absl::Status status = RenderBuiltinKernels(p, ChipPackage()).status();
    EXPECT_TRUE(IsUserError(status)) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("must be a string"));
    EXPECT_EQ(ErrorLine(status), kKernLine);
  }
}

TEST(RenderBuiltinKernelsTest, AProgramWithoutBuiltinsRendersNothing) {
  ir::ProgramPtr p = Lower(ReadFile("examples/kernels.pto"));
  ASSERT_NE(p, nullptr);
  absl::StatusOr<Bundle> bundle = RenderBuiltinKernels(p, MapTemplateSource({}));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(bundle->empty());
}

// --- WriteBundle -----------------------------------------------------------------

TEST(WriteBundleTest, WritesEveryFileUnderTheDirectory) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/out";
  std::filesystem::remove_all(dir);
  Bundle bundle = {{"next_levels/a/kernels/aiv/k.cpp", "kernel\n"}, {"top.txt", ""}};
  ASSERT_TRUE(WriteBundle(bundle, dir).ok());
  for (const auto& [path, text] : bundle) EXPECT_EQ(ReadFile(dir + "/" + path), text);
  // Rewriting replaces the contents.
  ASSERT_TRUE(WriteBundle({{"top.txt", "new"}}, dir).ok());
  EXPECT_EQ(ReadFile(dir + "/top.txt"), "new");
}

TEST(WriteBundleTest, RejectsPathsThatLeaveTheDirectory) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/out2";
  for (const char* bad : {"../x", "/abs/x", "a/../../x", ""}) {
    EXPECT_EQ(WriteBundle({{bad, "x"}}, dir).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(WriteBundleTest, AnUnwritableDirectoryIsUnavailable) {
  const std::string file = std::string(std::getenv("TEST_TMPDIR")) + "/plain_file";
  std::ofstream(file) << "x";
  EXPECT_EQ(WriteBundle({{"sub/k.cpp", "x"}}, file).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace pto::codegen
