// DeriveCallDirections (spec §3.6): identity, idempotence, the property
// contract and the CallDirectionsResolved check. The rules themselves are
// pinned text-in/text-out in test/derive_call_directions.pto.
#include "compiler/passes/derive_call_directions.h"

#include <string>

#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

constexpr char kProgram[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        r = self.k(a, b)
        return r
)";

ir::ProgramPtr Parse(const std::string& text) {
  auto p = parser::ParseProgramText("t.pto", text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(DeriveCallDirectionsTest, PropertyContract) {
  DeriveCallDirectionsPass pass;
  EXPECT_EQ(pass.name(), "DeriveCallDirections");
  EXPECT_EQ(pass.required(), IRPropertySet({IRProperty::kSplitIncoreOrch}));  // as PyPTO
  EXPECT_EQ(pass.produced(), IRPropertySet({IRProperty::kCallDirectionsResolved}));
}

TEST(DeriveCallDirectionsTest, ResolvesAndIsIdempotent) {
  ir::ProgramPtr p = Parse(kProgram);
  EXPECT_FALSE(VerifyCallDirectionsResolved(p).ok());
  DeriveCallDirectionsPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_NE(*out, p);
  EXPECT_TRUE(VerifyCallDirectionsResolved(*out).ok()) << VerifyCallDirectionsResolved(*out);
  auto again = pass.Run(*out);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *out);  // pre-populated vectors are authoritative
}

TEST(DeriveCallDirectionsTest, NoCallsIsIdentity) {
  std::string text = kProgram;
  const std::string call = "        r = self.k(a, b)\n        return r";
  text.replace(text.find(call), call.size(), "        return b");
  ir::ProgramPtr p = Parse(text);
  DeriveCallDirectionsPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

TEST(DeriveCallDirectionsTest, VerifierNamesTheCallWithAShortVector) {
  std::string text = kProgram;
  text.replace(text.find("self.k(a, b)"), 12,
               "self.k(a, b, arg_directions=[pl.ArgDirection.Input])");
  ir::ProgramPtr p = Parse(text);
  absl::Status s = VerifyCallDirectionsResolved(p);
  ASSERT_FALSE(s.ok());
  EXPECT_FALSE(IsUserError(s));
  EXPECT_EQ(s.message(),
            "CallDirectionsResolved: call of 'k' in function 'orch' has 1 arg_directions for 2 "
            "arguments");
  auto loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 12);
  EXPECT_EQ(loc->col, 13);
}

TEST(DeriveCallDirectionsTest, HostCollectivesAreLeftToTheirRail) {
  constexpr char kHost[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, d: pld.DistributedTensor[[4, 4], pl.FP32], s: pld.DistributedTensor[[4, 1], pl.INT32]):
        pld.tensor.barrier(s)
)";
  ir::ProgramPtr p = Parse(kHost);
  DeriveCallDirectionsPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

}  // namespace
}  // namespace pto::passes
