// Property verifiers (spec §1.9) and their use by the pass manager: with
// verify_each, the properties a pass produces are verified after it.
#include "compiler/passes/property_verifiers.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/materialize_comm_domain_scopes.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

using ir::DataType;

ir::ProgramPtr Parse(const std::string& text) {
  auto p = parser::ParseProgramText("t.pto", text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

std::string Loc(const absl::Status& s) {
  auto loc = GetDiagnosticLocation(s);
  return loc ? pto::StrCat(loc->line, ":", loc->col) : "none";
}

constexpr char kHost[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pld.DistributedTensor[[4], pl.FP32]):
        pass

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        a = pld.alloc_window_buffer(16)
        b = pld.alloc_window_buffer(16)
        va = pld.window(a, [4], dtype=pl.FP32)
        vb = pld.window(b, [4], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(va, device=r)
        self.chip(vb, device=1)
)";

TEST(CommDomainScopesMaterializedTest, test_verifier_passes_on_pass_output) {
  MaterializeCommDomainScopes pass;
  auto out = pass.Run(Parse(kHost));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(VerifyProperty(IRProperty::kCommDomainScopesMaterialized, *out).ok());
}

// host() { with comm_d0(slots=outer): with comm_d1(slots=inner): pass }
ir::ProgramPtr TwoScopes(std::vector<ir::WindowBufferPtr> outer,
                         std::vector<ir::WindowBufferPtr> inner) {
  auto empty = std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{});
  auto d1 = std::make_shared<ir::CommDomainScopeStmt>("comm_d1", std::vector<int64_t>{},
                                                      std::move(inner), empty);
  auto d0 = std::make_shared<ir::CommDomainScopeStmt>("comm_d0", std::vector<int64_t>{0},
                                                      std::move(outer), d1);
  ir::FunctionBuilder fb("host");
  fb.SetLevel(ir::Level::kHost).SetRole(ir::Role::kOrchestrator);
  fb.Emit(d0);
  auto p = ir::ProgramBuilder("P").Add(fb.Build()).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

ir::WindowBufferPtr Buffer(const std::string& name) {
  return std::make_shared<ir::WindowBuffer>(ir::MakeVar(name, ir::PtrType::Get()),
                                            ir::ConstIndex(16));
}

TEST(CommDomainScopesMaterializedTest, test_verifier_flags_duplicate_slot_across_scopes) {
  ir::WindowBufferPtr buf = Buffer("buf");
  absl::Status s =
      VerifyProperty(IRProperty::kCommDomainScopesMaterialized, TwoScopes({buf}, {buf}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(),
            "WindowBuffer 'buf' appears in multiple CommDomainScopeStmts ('comm_d0' and "
            "'comm_d1')");
  // Listed twice in one scope is not "multiple scopes".
  EXPECT_TRUE(VerifyProperty(IRProperty::kCommDomainScopesMaterialized,
                             TwoScopes({buf, buf}, {Buffer("other")}))
                  .ok());
}

TEST(CommDomainScopesMaterializedTest, ScopeWithoutSlots) {
  ir::ProgramPtr p = Parse(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        with pld.comm_domain("comm_d7", devices=[], slots=[]):
            pass
)");
  absl::Status s = VerifyProperty(IRProperty::kCommDomainScopesMaterialized, p);
  EXPECT_EQ(s.message(),
            "CommDomainScopeStmt 'comm_d7' has no slots — every comm-domain scope must carry at "
            "least one WindowBuffer");
  EXPECT_EQ(Loc(s), "8:9");
}

TEST(CommDomainScopesMaterializedTest, NullSlot) {
  absl::Status s = VerifyProperty(IRProperty::kCommDomainScopesMaterialized,
                                  TwoScopes({Buffer("a")}, {nullptr}));
  EXPECT_EQ(s.message(), "CommDomainScopeStmt 'comm_d1' has a null slot");
}

TEST(CommDomainScopesMaterializedTest, NullScope) {
  absl::Status s = VerifyCommDomainScopes({nullptr});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "null CommDomainScopeStmt in IR");
}

constexpr char kCtxMessage[] =
    "' still calls pld.system.get_comm_ctx. Only host orchestration may query a communication "
    "context at runtime; chip orchestrations and device kernels must receive it as an explicit "
    "CommCtx parameter (run MaterializeDistTensorCtx).";

std::string CtxProgram(const std::string& decorator) {
  return R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    )" + decorator + R"(
    def f(self, x: pld.DistributedTensor[[4], pl.FP32]):
        ctx = pld.system.get_comm_ctx(x)
)";
}

TEST(DistTensorCtxMaterializedTest, DeviceAndChipOrchGetCommCtxAreFlagged) {
  for (const char* decorator : {"@pl.function(type=pl.FunctionType.InCore)",
                                "@pl.function(type=pl.FunctionType.Orchestration)"}) {
    absl::Status s = VerifyProperty(IRProperty::kDistTensorCtxMaterialized,
                                    Parse(CtxProgram(decorator)));
    EXPECT_EQ(s.message(), pto::StrCat("Function 'f", kCtxMessage)) << decorator;
    EXPECT_EQ(Loc(s), "8:15") << decorator;
  }
}

TEST(DistTensorCtxMaterializedTest, HostOrchMayQueryAndCleanProgramPasses) {
  EXPECT_TRUE(VerifyProperty(IRProperty::kDistTensorCtxMaterialized,
                             Parse(CtxProgram("@pl.function(level=pl.Level.HOST, "
                                              "role=pl.Role.Orchestrator)")))
                  .ok());
  EXPECT_TRUE(VerifyProperty(IRProperty::kDistTensorCtxMaterialized, Parse(kHost)).ok());
}

TEST(VerifyPropertyTest, PropertiesWithoutVerifierHold) {
  EXPECT_TRUE(VerifyProperty(IRProperty::kSSAForm, Parse(kHost)).ok());
}

// SSAForm: a value first assigned in a loop body and read after the loop (the
// parser's non-SSA form) breaks it, at the read.
TEST(SSAFormTest, ReadAfterTheDefiningLoopIsFlagged) {
  constexpr char kEscaping[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(n):
            y = i + 1
        return y
)";
  absl::Status s = VerifyProperty(IRProperty::kSSAForm, Parse(kEscaping));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "property SSAForm: 'y' is defined inside a loop body and is not visible here");
  EXPECT_EQ(Loc(s), "9:9");
}

// NoNestedCalls: a call only as the whole value of an assignment or an
// expression statement (a while condition is not checked).
TEST(NoNestedCallsTest, NestedCallIsFlaggedAtTheCall) {
  constexpr char kNested[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INT64]:
        for (m,) in pl.while_(init_values=(0,)):
            pl.cond(m < pld.world_size())
            m = pl.yield_(m + 1)
        a = pld.world_size()
        return pld.world_size()
)";
  absl::Status s = VerifyProperty(IRProperty::kNoNestedCalls, Parse(kNested));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "property NoNestedCalls: a call nested in another expression or "
                         "statement in function 'f'");
  EXPECT_EQ(Loc(s), "12:16");
  EXPECT_TRUE(VerifyProperty(IRProperty::kNormalizedStmtStructure, Parse(kNested)).ok());
}

// Claims CommDomainScopesMaterialized but produces a scope without slots.
class LyingPass : public Pass {
 public:
  std::string_view name() const override { return "Lying"; }
  IRPropertySet produced() const override { return {IRProperty::kCommDomainScopesMaterialized}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& p) override {
    return TwoScopes({Buffer("a")}, {});
  }
};

TEST(PassManagerPropertyTest, VerifyEachChecksProducedProperties) {
  ir::ProgramPtr in = Parse(kHost);
  PassManager checked(PassManagerOptions{.verify_each = true});
  checked.AddPass(std::make_unique<LyingPass>());
  auto out = checked.Run(in);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(out.status().message(),
            "IR verification failed after pass Lying (property CommDomainScopesMaterialized): "
            "CommDomainScopeStmt 'comm_d1' has no slots — every comm-domain scope must carry at "
            "least one WindowBuffer");
  // Without verify_each nothing is checked.
  PassManager unchecked;
  unchecked.AddPass(std::make_unique<LyingPass>());
  EXPECT_TRUE(unchecked.Run(in).ok());
  // The real pass keeps its promise.
  PassManager real(PassManagerOptions{.verify_each = true});
  ASSERT_TRUE(real.AddPass("MaterializeCommDomainScopes").ok());
  IRPropertySet props;
  auto good = real.Run(in, &props);
  EXPECT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(props.Contains(IRProperty::kCommDomainScopesMaterialized));
}

}  // namespace
}  // namespace pto::passes

namespace pto::passes {
namespace {

constexpr char kLoopOrch[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4], pl.FP32], b: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipe(self, a: pl.Tensor[[4], pl.FP32], out: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        for i, (acc,) in pl.range(2, init_values=(out,)):
            r = self.k(a, acc)
            acc2 = pl.yield_(r)
        return acc2
)";

// Until MaterializeRuntimeScopes ran, a chip orchestration has no placed
// scopes; until ClassifyIterArgCarry ran, its loop carry has no plan. After
// the default pipeline both hold.
TEST(RuntimeScopesAndCarryTest, FlaggedBeforeTheirPassesAndHoldAfter) {
  ir::ProgramPtr p = Parse(kLoopOrch);
  absl::Status scopes = VerifyProperty(IRProperty::kRuntimeScopesMaterialized, p);
  EXPECT_EQ(scopes.message(),
            "chip orchestration 'pipe' has no placed runtime scopes (auto_scope is not False; run "
            "MaterializeRuntimeScopes)");
  EXPECT_EQ(Loc(scopes), "10:5");  // the def
  absl::Status carry = VerifyProperty(IRProperty::kIterArgCarryClassified, p);
  EXPECT_EQ(carry.message(),
            "a loop of 'pipe' carries an iter_arg without an iter_arg_rebind plan (run "
            "ClassifyIterArgCarry)");
  EXPECT_EQ(Loc(carry), "11:9");
  PassManager pm;
  ASSERT_TRUE(pm.AddPipeline("default").ok());
  absl::StatusOr<ir::ProgramPtr> lowered = pm.Run(p);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_TRUE(VerifyProperty(IRProperty::kRuntimeScopesMaterialized, *lowered).ok());
  EXPECT_TRUE(VerifyProperty(IRProperty::kIterArgCarryClassified, *lowered).ok());
}

}  // namespace
}  // namespace pto::passes
