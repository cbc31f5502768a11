// ConvertToSSA: the diagnostics, SSA input left alone, and the SSAForm
// property of the output (the rewriting itself is covered by
// test/convert_to_ssa.pto).
#include "compiler/passes/convert_to_ssa.h"

#include <optional>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/property_verifiers.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

constexpr char kHeader[] =
    "import pypto.language as pl\n"
    "import pypto.language.distributed as pld\n"
    "\n"
    "@pl.program\n"
    "class P:\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n";

ir::ProgramPtr Parse(const std::string& body) {
  auto p = parser::ParseProgramText("t.pto", kHeader + body);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(ConvertToSSATest, SSAInputIsReturnedUnchanged) {
  ir::ProgramPtr p = Parse(
      "        s = n + 0\n"
      "        for i, (a,) in pl.range(4, init_values=(s,)):\n"
      "            b = a + i\n"
      "            r = pl.yield_(b)\n"
      "        return r\n");
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(VerifyProperty(IRProperty::kSSAForm, p).ok());
  ConvertToSSAPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

// The input breaks SSAForm; the output has it, verifies, and a second run
// changes nothing.
TEST(ConvertToSSATest, OutputIsSSA) {
  ir::ProgramPtr p = Parse(
      "        s = n + 0\n"
      "        for i, (a,) in pl.range(4, init_values=(n,)):\n"
      "            s = s + a\n"
      "            if s > 8:\n"
      "                s = s - 8\n"
      "            pl.yield_(a + 1)\n"
      "        return s\n");
  ASSERT_NE(p, nullptr);
  absl::Status before = VerifyProperty(IRProperty::kSSAForm, p);
  EXPECT_FALSE(before.ok());
  ConvertToSSAPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::PrintProgram(*out);
  EXPECT_TRUE(VerifyProperty(IRProperty::kSSAForm, *out).ok()) << ir::PrintProgram(*out);
  auto twice = pass.Run(*out);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, *out);
  // The loop that had an iter arg without results now has one per iter arg.
  EXPECT_NE(ir::PrintProgram(*out).find("            a, s = pl.yield_(a + 1, s_2)\n"), std::string::npos)
      << ir::PrintProgram(*out);
}

TEST(ConvertToSSATest, CarriedValueInLoopWithBreakIsAnError) {
  ir::ProgramPtr p = Parse(
      "        s = n + 0\n"
      "        for i in pl.range(4):\n"
      "            s = s + i\n"
      "            if s > 8:\n"
      "                break\n"
      "        return s\n");
  ASSERT_NE(p, nullptr);
  ConvertToSSAPass pass;
  auto out = pass.Run(p);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "ConvertToSSA: 's' is reassigned in a loop that has 'break'; run CtrlFlowTransform "
            "(03) before ConvertToSSA");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 12);
  EXPECT_EQ(loc->col, 17);
}

}  // namespace
}  // namespace pto::passes
