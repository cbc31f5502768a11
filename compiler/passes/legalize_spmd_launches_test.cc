// LegalizeSpmdLaunches (spec §3.5): property contract, identity, the guard and
// the missing-output diagnostic (the parser cannot build a short call, so it is
// made here).
#include "compiler/passes/legalize_spmd_launches.h"

#include <string>

#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

constexpr char kProgram[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]], c: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]], c: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
        r = self.k(a, b, c, core_num=n)
        return r
)";

ir::ProgramPtr Parse(const std::string& text) {
  LegalizeSpmdLaunchesPass register_ops;  // task_dummy must exist before parsing
  auto p = parser::ParseProgramText("t.pto", text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(LegalizeSpmdLaunchesTest, PropertyContract) {
  LegalizeSpmdLaunchesPass pass;
  EXPECT_EQ(pass.name(), "LegalizeSpmdLaunches");
  EXPECT_TRUE(pass.required().empty());
  EXPECT_EQ(pass.produced(),
            IRPropertySet({IRProperty::kNormalizedStmtStructure}));
  EXPECT_EQ(pass.invalidated(), IRPropertySet({IRProperty::kCallDirectionsResolved,
                                               IRProperty::kRuntimeScopesMaterialized,
                                               IRProperty::kIterArgCarryClassified}));
}

TEST(LegalizeSpmdLaunchesTest, ProvenLaunchIsIdentity) {
  std::string text = kProgram;
  text.replace(text.find("core_num=n"), 10, "core_num=2");
  ir::ProgramPtr p = Parse(text);
  LegalizeSpmdLaunchesPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

TEST(LegalizeSpmdLaunchesTest, GuardedLaunchVerifiesAndIsIdempotent) {
  ir::ProgramPtr p = Parse(kProgram);
  LegalizeSpmdLaunchesPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_NE(*out, p);
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
  std::string printed = ir::PrintFunction((*out)->GetFunction("orch"));
  EXPECT_NE(printed.find("if n > 0:"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.system.task_dummy(attrs={\"dummy_task\": True})"), std::string::npos)
      << printed;
  auto again = pass.Run(*out);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *out);
}

// Drops the trailing arguments of every kernel call down to `keep`.
class ShortenCalls : public ir::IRMutator {
 public:
  explicit ShortenCalls(size_t keep) : keep_(keep) {}

 protected:
  ir::ExprPtr MutateCall(const ir::CallPtr& c) override {
    if (c->op()->kind() != ir::NodeKind::kGlobalVar) return IRMutator::MutateCall(c);
    std::vector<ir::ExprPtr> args(c->args().begin(), c->args().begin() + keep_);
    return std::make_shared<const ir::Call>(c->op(), args, c->kwargs(), c->attrs(), c->type(),
                                            c->span());
  }

 private:
  size_t keep_;
};

TEST(LegalizeSpmdLaunchesTest, MissingOutputsAreListed) {
  ir::ProgramPtr p = Parse(kProgram);
  ShortenCalls shorten(1);
  ir::ProgramPtr short_calls = shorten.MutateProgram(p);
  LegalizeSpmdLaunchesPass pass;
  auto out = pass.Run(short_calls);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(IsUserError(out.status()));
  EXPECT_EQ(out.status().message(),
            "SPMD launch of 'k' does not pass its output parameters 'b', 'c'; every Tensor "
            "Out/InOut parameter of a possibly-empty launch needs a caller-provided argument, "
            "which the empty launch returns");
  auto loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 11);
  EXPECT_EQ(loc->col, 13);
}

TEST(LegalizeSpmdLaunchesTest, OneMissingOutputIsSingular) {
  ir::ProgramPtr p = Parse(kProgram);
  ShortenCalls shorten(2);
  LegalizeSpmdLaunchesPass pass;
  auto out = pass.Run(shorten.MutateProgram(p));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "SPMD launch of 'k' does not pass its output parameter 'c'; every Tensor "
            "Out/InOut parameter of a possibly-empty launch needs a caller-provided argument, "
            "which the empty launch returns");
}

TEST(LegalizeSpmdLaunchesTest, TaskDummyTakesNoArguments) {
  std::string text = kProgram;
  text.replace(text.find("        r = self.k"), 0, "        pl.system.task_dummy(a)\n");
  LegalizeSpmdLaunchesPass register_ops;
  auto p = parser::ParseProgramText("t.pto", text);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "pl.system.task_dummy takes no arguments, got 1");
  auto loc = GetDiagnosticLocation(p.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 11);
  EXPECT_EQ(loc->col, 9);
}

TEST(LegalizeSpmdLaunchesTest, ResultThatIsNotAParameterIsInternal) {
  constexpr char kFresh[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        t = pl.tensor.create([4], dtype=pl.FP32)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
        r = self.k(a, core_num=n)
        return r
)";
  ir::ProgramPtr p = Parse(kFresh);
  LegalizeSpmdLaunchesPass pass;
  auto out = pass.Run(p);
  ASSERT_FALSE(out.ok());
  EXPECT_FALSE(IsUserError(out.status()));
  EXPECT_EQ(out.status().message(),
            "LegalizeSpmdLaunches: result 0 of 'k' is not one of its parameters "
            "(ReturnParamsExplicit)");
  auto loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 12);
  EXPECT_EQ(loc->col, 13);
}

}  // namespace
}  // namespace pto::passes
