#include "tools/single_chip.h"

#include <string>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::tools::run {
namespace {

using ::testing::HasSubstr;

constexpr char kHead[] = "import pypto.language as pl\n\n\n@pl.program\nclass P:\n";

constexpr char kKernel[] =
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def NAME(self, x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]) "
    "-> pl.Tensor[[64], pl.FP32]:\n"
    "        t = pl.load(x, [0], [64])\n"
    "        stored = pl.store(t, [0], y)\n"
    "        return stored\n\n";

constexpr char kOrch[] =
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def NAME(self, x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]) "
    "-> pl.Tensor[[64], pl.FP32]:\n"
    "        y = self.k(x, y)\n"
    "        return y\n\n";

std::string Fn(const char* text, const std::string& name) {
  std::string s = text;
  s.replace(s.find("NAME"), 4, name);
  return s;
}

ir::ProgramPtr Parse(const std::string& body) {
  absl::StatusOr<ir::ProgramPtr> p = parser::ParseProgramText("p.pto", kHead + body);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(SingleChipTest, TheOneOrchestrationIsTheEntry) {
  ir::ProgramPtr p = Parse(Fn(kKernel, "k") + Fn(kOrch, "pipeline"));
  absl::StatusOr<ChipEntry> e = ChooseChipEntry(p, "");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "pipeline");
  EXPECT_FALSE(e->kernel);
  // --entry may name the kernel instead.
  e = ChooseChipEntry(p, "k");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "k");
  EXPECT_TRUE(e->kernel);
}

TEST(SingleChipTest, TheOneKernelIsTheEntryWithoutAnOrchestration) {
  ir::ProgramPtr p = Parse(Fn(kKernel, "double"));
  EXPECT_FALSE(HasHostOrchestrator(p));
  absl::StatusOr<ChipEntry> e = ChooseChipEntry(p, "");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "double");
  EXPECT_TRUE(e->kernel);
}

TEST(SingleChipTest, SeveralCandidatesAreALocatedErrorListingThem) {
  absl::StatusOr<ChipEntry> e = ChooseChipEntry(Parse(Fn(kKernel, "a") + Fn(kKernel, "b")), "");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("2 kernels ('a', 'b')"));
  EXPECT_THAT(e.status().message(), HasSubstr("--entry=NAME"));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(e.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 5);  // the @pl.program class

  ir::ProgramPtr two = Parse(Fn(kKernel, "k") + Fn(kOrch, "o1") + Fn(kOrch, "o2"));
  e = ChooseChipEntry(two, "");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("2 CHIP orchestrations ('o1', 'o2')"));
  e = ChooseChipEntry(two, "o2");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "o2");

  e = ChooseChipEntry(two, "nope");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(),
              HasSubstr("--entry=nope: the program has no CHIP orchestration or kernel of that "
                        "name (candidates: 'o1', 'o2', 'k')"));
}

TEST(SingleChipTest, WrapKernelCallsItOnceAndReturnsItsResult) {
  ir::ProgramPtr p = Parse(Fn(kKernel, "double"));
  std::string orch;
  absl::StatusOr<ir::ProgramPtr> w = PrepareSingleChip(p, "", &orch);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(orch, "double_entry");
  ir::FunctionPtr f = (*w)->GetFunction(orch);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->IsChipOrch());
  EXPECT_EQ(f->param_directions(), (*w)->GetFunction("double")->param_directions());
  const std::string text = ir::PrintProgram(*w);
  EXPECT_THAT(text, HasSubstr("def double_entry(self, x: pl.Tensor[[64], pl.FP32], "
                              "y: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:"));
  EXPECT_THAT(text, HasSubstr("result: pl.Tensor[[64], pl.FP32] = self.double(x, y)"));
  EXPECT_THAT(text, HasSubstr("return result"));
  // The printed program parses again: the wrapper is ordinary IR.
  EXPECT_TRUE(parser::ParseProgramText("w.pto", text).ok());
}

TEST(SingleChipTest, WrapKernelAvoidsATakenName) {
  ir::ProgramPtr p = Parse(Fn(kKernel, "k") + Fn(kKernel, "k_entry"));
  std::string orch;
  absl::StatusOr<ir::ProgramPtr> w = WrapKernel(p, "k", &orch);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(orch, "k_entry2");
}

// PyPTO's Opaque function with a `pl.at` scope becomes the orchestration
// once the pipeline outlines the scope, so it is the entry.
TEST(SingleChipTest, AnOpaqueFunctionWithAScopeIsTheOrchestration) {
  ir::ProgramPtr p = Parse(
      "    @pl.function(type=pl.FunctionType.Opaque)\n"
      "    def main(self, x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]) "
      "-> pl.Tensor[[64], pl.FP32]:\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            t = pl.load(x, [0], [64])\n"
      "            y = pl.store(t, [0], y)\n"
      "        return y\n");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<ChipEntry> e = ChooseChipEntry(p, "");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "main");
  EXPECT_FALSE(e->kernel);
}

TEST(SingleChipTest, NothingToRunIsAnError) {
  absl::StatusOr<ChipEntry> e = ChooseChipEntry(
      Parse("    @pl.function(type=pl.FunctionType.Opaque)\n"
            "    def w(self, x: pl.Tensor[[4], pl.FP32]):\n        return\n"),
      "");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("pto-run has nothing to run"));
}

}  // namespace
}  // namespace pto::tools::run
