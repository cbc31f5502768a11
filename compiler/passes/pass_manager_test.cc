#include "compiler/passes/pass_manager.h"

#include <memory>
#include <optional>
#include <sstream>

#include "compiler/ir/builder.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_registry.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

using ir::DataType;

// f(a) -> a
ir::ProgramPtr MakeProgram() {
  ir::FunctionBuilder fb("f", ir::FunctionType::kOpaque);
  ir::VarPtr a = fb.Param("a", ir::ScalarOf(DataType::kIndex));
  fb.SetReturnTypes({ir::ScalarOf(DataType::kIndex)});
  fb.Return({a});
  auto program = ir::ProgramBuilder("P").Add(fb.Build()).Build();
  EXPECT_TRUE(program.ok()) << program.status();
  return *program;
}

// Changes nothing; produces a property.
class NoOpPass : public Pass {
 public:
  std::string_view name() const override { return "NoOp"; }
  IRPropertySet produced() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& p) override { return p; }
};

// Needs what NoOp produces; renames the program (a real change).
class NeedsSSAPass : public Pass {
 public:
  std::string_view name() const override { return "NeedsSSA"; }
  IRPropertySet required() const override { return {IRProperty::kSSAForm}; }
  IRPropertySet invalidated() const override { return {IRProperty::kSSAForm}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& p) override {
    std::vector<ir::FunctionPtr> fs;
    for (const auto& [gv, f] : p->functions()) fs.push_back(f);
    return ir::Program::Create(fs, "Renamed");
  }
};

// Needs a property that has no verifier (only a pass can vouch for it).
class NeedsMemRefsPass : public Pass {
 public:
  std::string_view name() const override { return "NeedsMemRefs"; }
  IRPropertySet required() const override { return {IRProperty::kHasMemRefs}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& p) override { return p; }
};

// Returns a variable nobody defined: the verifier must catch it.
class BreakerPass : public Pass {
 public:
  std::string_view name() const override { return "Breaker"; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& p) override {
    const ir::FunctionPtr& f = p->functions()[0].second;
    auto ghost = ir::MakeVar("ghost", ir::ScalarOf(DataType::kIndex));
    auto body = std::make_shared<ir::ReturnStmt>(std::vector<ir::ExprPtr>{ghost});
    return ir::Program::Create({f->WithBody(body)}, p->name());
  }
};

TEST(PassManagerTest, UnchangedProgramIsTheSameObjectAndPropertiesFlow) {
  ir::ProgramPtr in = MakeProgram();
  std::ostringstream dump;
  PassManager pm({.verify_each = true, .print_after_all = true, .timing = true, .dump = &dump});
  pm.AddPass(std::make_unique<NoOpPass>());
  pm.AddPass(std::make_unique<NeedsSSAPass>());
  IRPropertySet props;
  auto out = pm.Run(in, &props);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)->name(), "Renamed");
  EXPECT_FALSE(props.Contains(IRProperty::kSSAForm));  // produced, then invalidated
  ASSERT_EQ(pm.timings().size(), 2u);
  EXPECT_FALSE(pm.timings()[0].changed);
  EXPECT_TRUE(pm.timings()[1].changed);
  EXPECT_NE(dump.str().find("# IR after NoOp (unchanged)\n"), std::string::npos);
  EXPECT_NE(dump.str().find("# IR after NeedsSSA\n"), std::string::npos);
  EXPECT_NE(dump.str().find("class Renamed:"), std::string::npos);
  EXPECT_NE(pm.TimingReport().find("NoOp (unchanged)"), std::string::npos);
}

TEST(PassManagerTest, PrintAfterOnlyTheNamedPass) {
  std::ostringstream dump;
  PassManagerOptions opts;
  opts.print_after = {"NeedsSSA"};
  opts.dump = &dump;
  PassManager pm(opts);
  pm.AddPass(std::make_unique<NoOpPass>());
  pm.AddPass(std::make_unique<NeedsSSAPass>());
  ASSERT_TRUE(pm.Run(MakeProgram()).ok());
  EXPECT_EQ(dump.str().find("after NoOp"), std::string::npos);
  EXPECT_NE(dump.str().find("# IR after NeedsSSA\n"), std::string::npos);
}

TEST(PassManagerTest, MissingRequiredPropertyIsRefused) {
  PassManager pm;
  pm.AddPass(std::make_unique<NeedsMemRefsPass>());
  auto out = pm.Run(MakeProgram());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(),
            "pass NeedsMemRefs requires IR properties that the program does not have: "
            "HasMemRefs (run a pass that produces them first)");
}

// As PyPTO's VerificationInstrument: a required property no pass produced is
// checked on the program by its verifier.
TEST(PassManagerTest, RequiredPropertyWithAVerifierIsCheckedOnTheProgram) {
  PassManager pm;
  pm.AddPass(std::make_unique<NeedsSSAPass>());
  auto ok = pm.Run(MakeProgram());
  ASSERT_TRUE(ok.ok()) << ok.status();

  // f(a): b = a; b = a; return b — `b` is assigned twice.
  auto a = ir::MakeVar("a", ir::ScalarOf(DataType::kIndex));
  auto b = ir::MakeVar("b", ir::ScalarOf(DataType::kIndex));
  Span second(std::make_shared<SourceFile>("t.pto", "x\ny\nz\n"), 3, 5, 3, 6);
  auto body = std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{
      std::make_shared<ir::AssignStmt>(b, a),
      std::make_shared<ir::AssignStmt>(b, a, second),
      std::make_shared<ir::ReturnStmt>(std::vector<ir::ExprPtr>{b})});
  auto f = ir::Function::Create("f", {a}, {ir::ParamDirection::kIn},
                                {ir::ScalarOf(DataType::kIndex)}, body,
                                ir::FunctionType::kOpaque);
  ASSERT_TRUE(f.ok()) << f.status();
  auto program = ir::Program::Create({*f}, "P");
  ASSERT_TRUE(program.ok()) << program.status();
  PassManager refused;
  refused.AddPass(std::make_unique<NeedsSSAPass>());
  auto out = refused.Run(*program);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(),
            "pass NeedsSSA requires IR property SSAForm, which the program does not have: "
            "property SSAForm: 'b' is assigned more than once in function 'f'");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 3);
  EXPECT_EQ(loc->col, 5);
}

TEST(PassManagerTest, PrintBeforeTheNamedPass) {
  std::ostringstream dump;
  PassManagerOptions opts;
  opts.print_before = {"NeedsSSA"};
  opts.dump = &dump;
  PassManager pm(opts);
  pm.AddPass(std::make_unique<NoOpPass>());
  pm.AddPass(std::make_unique<NeedsSSAPass>());
  ASSERT_TRUE(pm.Run(MakeProgram()).ok());
  EXPECT_EQ(dump.str().find("before NoOp"), std::string::npos);
  // The program before the renaming pass still has its old name.
  EXPECT_NE(dump.str().find("# IR before NeedsSSA\n"), std::string::npos);
  EXPECT_NE(dump.str().find("class P:"), std::string::npos);
  EXPECT_EQ(dump.str().find("class Renamed:"), std::string::npos);
}

TEST(PassManagerTest, VerifyEachCatchesAPassThatBreaksTheIR) {
  PassManager pm({.verify_each = true});
  pm.AddPass(std::make_unique<BreakerPass>());
  auto out = pm.Run(MakeProgram());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(out.status().message().find("IR verification failed after pass Breaker: "),
            absl::string_view::npos)
      << out.status();
  // Without verification the broken program goes through unnoticed.
  PassManager unchecked;
  unchecked.AddPass(std::make_unique<BreakerPass>());
  EXPECT_TRUE(unchecked.Run(MakeProgram()).ok());
}

TEST(PassManagerTest, UnknownNamesAreNotFound) {
  PassManager pm;
  absl::Status s = pm.AddPass("NoSuchPass");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("unknown pass 'NoSuchPass'"), absl::string_view::npos);
  EXPECT_EQ(pm.AddPipeline("fastest").code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(pm.AddPipeline("default").ok());
}

// The front end reads scopes and break/continue that no pass lowers yet; a
// pipeline stops at them with a located error instead of passing them on.
TEST(PassManagerTest, UnloweredConstructsAreLocatedErrors) {
  auto parsed = parser::ParseProgramText("t.pto",
                                         "import pypto.language as pl\n"
                                         "@pl.program\n"
                                         "class P:\n"
                                         "    @pl.function\n"
                                         "    def f(self, n: pl.Scalar[pl.INDEX]):\n"
                                         "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                         "            m = n + 1\n"
                                         "        return m\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  PassManager pm;
  pm.AddPass(std::make_unique<NoOpPass>());
  absl::StatusOr<ir::ProgramPtr> out = pm.Run(*parsed);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(IsUserError(out.status()));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 6);
  EXPECT_EQ(loc->col, 9);
  EXPECT_EQ(out.status().message(),
            "a `with pl.at(level=pl.Level.CORE_GROUP)` scope is lowered by pass 08 "
            "OutlineIncoreScopes, which this pass list (starting at NoOp) does not run; add it "
            "(--passes=NoOp,OutlineIncoreScopes) or run the default pipeline");
}

}  // namespace
}  // namespace pto::passes
