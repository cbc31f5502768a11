// MaterializeCommDomainScopes: what text cannot show (object identity of the
// shared WindowBuffer, untouched functions, idempotence by pointer) and the
// internal invariants that only malformed, builder-made IR can reach. The
// text-in/text-out cases are in test/materialize_comm_domain_scopes*.pto.
#include "compiler/passes/materialize_comm_domain_scopes.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/property_verifiers.h"
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

ir::ProgramPtr RunPass(const ir::ProgramPtr& p) {
  MaterializeCommDomainScopes pass;
  auto out = pass.Run(p);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : nullptr;
}

absl::Status RunPassStatus(const ir::ProgramPtr& p) {
  MaterializeCommDomainScopes pass;
  return pass.Run(p).status();
}

constexpr char kMultiView[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pld.DistributedTensor[[4], pl.FP32], y: pld.DistributedTensor[[2, 2], pl.FP32]):
        pass

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        buf = pld.alloc_window_buffer(16)
        flat = pld.window(buf, [4], dtype=pl.FP32)
        square = pld.window(buf, [2, 2], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(flat, square, device=r)
)";

// Every AssignStmt and every call of a program function.
class Collect : public ir::IRVisitor {
 public:
  std::vector<std::shared_ptr<const ir::AssignStmt>> assigns;
  std::vector<ir::CallPtr> dispatches;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    assigns.push_back(s);
    IRVisitor::VisitAssignStmt(s);
  }
  void VisitCall(const ir::CallPtr& c) override {
    if (ir::Is<ir::GlobalVar>(c->op())) dispatches.push_back(c);
    IRVisitor::VisitCall(c);
  }
};

TEST(MaterializeCommDomainScopesTest, test_multi_view_per_alloc_shares_wb_instance) {
  ir::ProgramPtr out = RunPass(Parse(kMultiView));
  ASSERT_NE(out, nullptr);
  ir::FunctionPtr host = out->GetFunction("host");
  auto scope = ir::As<ir::CommDomainScopeStmt>(host->body());
  ASSERT_NE(scope, nullptr);
  EXPECT_EQ(scope->name_hint(), "comm_d0");
  EXPECT_TRUE(scope->devices().empty());
  ASSERT_EQ(scope->slots().size(), 1u);
  const ir::WindowBufferPtr& wb = scope->slots()[0];

  Collect c;
  c.VisitStmt(host->body());
  ASSERT_EQ(c.assigns.size(), 3u);
  // The WindowBuffer wraps the allocation's Ptr var and size.
  EXPECT_EQ(wb->base(), c.assigns[0]->var());
  EXPECT_EQ(wb->size(), ir::As<ir::Call>(c.assigns[0]->value())->args()[0]);
  EXPECT_EQ(wb->name_hint(), "buf");
  EXPECT_FALSE(wb->load_from_host());
  EXPECT_FALSE(wb->store_to_host());
  // Both views carry the very same object.
  for (int i : {1, 2}) {
    auto t = ir::As<ir::DistributedTensorType>(c.assigns[i]->var()->type());
    ASSERT_NE(t, nullptr);
    ASSERT_TRUE(t->window_buffer().has_value());
    EXPECT_EQ(*t->window_buffer(), wb);
  }
  // The dispatch uses the retyped views.
  ASSERT_EQ(c.dispatches.size(), 1u);
  EXPECT_EQ(c.dispatches[0]->args()[0], c.assigns[1]->var());
  EXPECT_EQ(c.dispatches[0]->args()[1], c.assigns[2]->var());
  EXPECT_TRUE(VerifyProperty(IRProperty::kCommDomainScopesMaterialized, out).ok());
}

TEST(MaterializeCommDomainScopesTest, test_chip_orch_param_types_keep_window_buffer_nullopt) {
  ir::ProgramPtr in = Parse(kMultiView);
  ir::ProgramPtr out = RunPass(in);
  ASSERT_NE(out, nullptr);
  ir::FunctionPtr chip = out->GetFunction("chip");
  EXPECT_EQ(chip, in->GetFunction("chip"));
  for (const ir::VarPtr& p : chip->params()) {
    auto t = ir::As<ir::DistributedTensorType>(p->type());
    ASSERT_NE(t, nullptr);
    EXPECT_FALSE(t->window_buffer().has_value());
  }
}

TEST(MaterializeCommDomainScopesTest, test_idempotent) {
  ir::ProgramPtr once = RunPass(Parse(kMultiView));
  ASSERT_NE(once, nullptr);
  EXPECT_EQ(RunPass(once), once);
  // Also after a print/parse round trip (the scope then sits in a sequence).
  ir::ProgramPtr reparsed = Parse(ir::PrintProgram(once));
  EXPECT_EQ(RunPass(reparsed), reparsed);
}

TEST(MaterializeCommDomainScopesTest, test_no_alloc_window_buffer_no_op) {
  ir::ProgramPtr in = Parse(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[4], pl.FP32]):
        y = pl.tensor.add(x, x)
)");
  EXPECT_EQ(RunPass(in), in);
}

// ---- Builder-made IR for the internal invariants. ----

ir::FunctionPtr Chip() {
  ir::FunctionBuilder fb("chip", ir::FunctionType::kOrchestration);
  fb.Param("x", ir::DistTensorOf({4}, DataType::kFP32));
  auto f = fb.Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

ir::CallPtr Alloc(std::vector<ir::ExprPtr> args, ir::AttrList kwargs) {
  return ir::MakeOpCall("pld.tensor.alloc_window_buffer", std::move(args), ir::PtrType::Get(),
                        std::move(kwargs));
}

ir::CallPtr Window(const ir::VarPtr& buf) {
  auto shape = std::make_shared<ir::MakeTuple>(ir::ShapeOf({4}));
  return ir::MakeOpCall("pld.tensor.window", {buf, shape}, ir::DistTensorOf({4}, DataType::kFP32),
                        {{"dtype", DataType::kFP32}});
}

ir::CallPtr Dispatch(const ir::ExprPtr& view, ir::AttrValue device) {
  return ir::MakeGlobalCall("chip", {view}, ir::ReturnTypeOf({}), {{"device", std::move(device)}});
}

ir::ProgramPtr HostProgram(const std::function<void(ir::FunctionBuilder&)>& body) {
  ir::FunctionBuilder fb("host");
  fb.SetLevel(ir::Level::kHost).SetRole(ir::Role::kOrchestrator);
  body(fb);
  auto p = ir::ProgramBuilder("P").Add(Chip()).Add(fb.Build()).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

TEST(MaterializeCommDomainScopesTest, AllocWithTwoArgsIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    fb.Let("buf", Alloc({ir::ConstIndex(16), ir::ConstIndex(1)}, {{"name", std::string("buf")}}));
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "pld.tensor.alloc_window_buffer expects exactly one arg (size)");
}

TEST(MaterializeCommDomainScopesTest, AllocWithoutNameIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    fb.Let("buf", Alloc({ir::ConstIndex(16)}, {{"name", std::string("")}}));
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "pld.tensor.alloc_window_buffer requires a non-empty 'name' kwarg");
}

TEST(MaterializeCommDomainScopesTest, DuplicateAllocationNameInOneDomainIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    for (const char* var : {"a", "b"}) {
      ir::VarPtr buf = fb.Let(var, Alloc({ir::ConstIndex(16)}, {{"name", std::string("same")}}));
      ir::VarPtr view = fb.Let(std::string(var) + "_view", Window(buf));
      fb.Eval(Dispatch(view, ir::ConstIndex(0)));
    }
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "duplicate allocation name 'same' within the same comm domain");
}

TEST(MaterializeCommDomainScopesTest, WindowResultThatIsNotADistributedTensorIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    ir::VarPtr buf = fb.Let("buf", Alloc({ir::ConstIndex(16)}, {{"name", std::string("buf")}}));
    ir::VarPtr view = fb.Let("view", ir::TensorOf({4}, DataType::kFP32), Window(buf));
    fb.Eval(Dispatch(view, ir::ConstIndex(0)));
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "pld.tensor.window result 'view' is not a DistributedTensor");
}

TEST(MaterializeCommDomainScopesTest, DeviceAttrAsPlainIntegerIsAConstant) {
  ir::ProgramPtr out = RunPass(HostProgram([](ir::FunctionBuilder& fb) {
    ir::VarPtr buf = fb.Let("buf", Alloc({ir::ConstIndex(16)}, {{"name", std::string("buf")}}));
    ir::VarPtr view = fb.Let("view", Window(buf));
    fb.Eval(Dispatch(view, int64_t{3}));
  }));
  ASSERT_NE(out, nullptr);
  auto scope = ir::As<ir::CommDomainScopeStmt>(out->GetFunction("host")->body());
  ASSERT_NE(scope, nullptr);
  EXPECT_EQ(scope->devices(), std::vector<int64_t>{3});
}

TEST(MaterializeCommDomainScopesTest, DeviceAttrOfAnotherKindIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    ir::VarPtr buf = fb.Let("buf", Alloc({ir::ConstIndex(16)}, {{"name", std::string("buf")}}));
    ir::VarPtr view = fb.Let("view", Window(buf));
    fb.Eval(Dispatch(view, std::string("zero")));
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "device= attr must be an expression");
}

TEST(MaterializeCommDomainScopesTest, CollectiveArityIsInternal) {
  absl::Status s = RunPassStatus(HostProgram([](ir::FunctionBuilder& fb) {
    ir::VarPtr buf = fb.Let("buf", Alloc({ir::ConstIndex(16)}, {{"name", std::string("buf")}}));
    ir::VarPtr view = fb.Let("view", Window(buf));
    fb.Eval(Dispatch(view, ir::ConstIndex(0)));
    fb.Eval(ir::MakeOpCall("pld.tensor.all_to_all_v", {view, view, view}, view->type()));
  }));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "pld.tensor.all_to_all_v expects 5 positional args, got 3");
}

}  // namespace
}  // namespace pto::passes
