// AutoDeriveTaskDependencies (spec §3.7): contract, identity and idempotence;
// the edges are pinned in test/auto_derive_task_dependencies*.pto.
#include "compiler/passes/auto_derive_task_dependencies.h"

#include <string>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/derive_call_directions.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

constexpr char kProgram[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.FP32]], c: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        x = self.k(a, b)
        y = self.k(x, c)
        return y
)";

ir::ProgramPtr Directed(const std::string& text) {
  auto p = parser::ParseProgramText("t.pto", text);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return nullptr;
  DeriveCallDirectionsPass derive;
  auto d = derive.Run(*p);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : nullptr;
}

TEST(AutoDeriveTaskDependenciesTest, PropertyContract) {
  AutoDeriveTaskDependenciesPass pass;
  EXPECT_EQ(pass.name(), "AutoDeriveTaskDependencies");
  EXPECT_EQ(pass.required(),
            IRPropertySet({IRProperty::kSplitIncoreOrch, IRProperty::kCallDirectionsResolved}));
  EXPECT_EQ(pass.produced(), IRPropertySet({IRProperty::kCallDirectionsResolved}));
}

TEST(AutoDeriveTaskDependenciesTest, RecordsTheProducerAndIsIdempotent) {
  ir::ProgramPtr p = Directed(kProgram);
  AutoDeriveTaskDependenciesPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_NE(*out, p);
  std::string printed = ir::PrintFunction((*out)->GetFunction("orch"));
  EXPECT_NE(printed.find("compiler_manual_dep_edges=[x])"), std::string::npos) << printed;
  auto again = pass.Run(*out);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *out);
}

TEST(AutoDeriveTaskDependenciesTest, IndependentTasksAreIdentity) {
  std::string text = kProgram;
  text.replace(text.find("self.k(x, c)"), 12, "self.k(a, c)");
  ir::ProgramPtr p = Directed(text);
  AutoDeriveTaskDependenciesPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

TEST(AutoDeriveTaskDependenciesTest, CallsWithoutDirectionsAreNotTasks) {
  auto p = parser::ParseProgramText("t.pto", kProgram);
  ASSERT_TRUE(p.ok());
  AutoDeriveTaskDependenciesPass pass;
  auto out = pass.Run(*p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, *p);
}

}  // namespace
}  // namespace pto::passes
