// SynthesizeAllReduceSignals: the structure of the synthesized signal, identity
// when untouched, and the checks only builder-made IR reaches. The text-in /
// text-out cases are in test/synthesize_allreduce_signals*.pto.
#include "compiler/passes/synthesize_allreduce_signals.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
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

constexpr char kProgram[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pld.DistributedTensor[[4], pl.FP32]) -> pld.DistributedTensor[[4], pl.FP32]:
        y = pld.tensor.allreduce(x, op=0)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        buf = pld.alloc_window_buffer(16)
        data = pld.window(buf, [4], dtype=pl.FP32)
        data = pld.tensor.allreduce(data, op=2, core_num=3)
)";

TEST(SynthesizeAllReduceSignalsTest, test_synthesize_allreduce_signals_normalizes_host_allreduce) {
  ir::ProgramPtr in = Parse(kProgram);
  SynthesizeAllReduceSignals pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  // Only host orchestrators change.
  EXPECT_EQ((*out)->GetFunction("kernel"), in->GetFunction("kernel"));

  auto seq = ir::As<ir::SeqStmts>((*out)->GetFunction("host")->body());
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->stmts().size(), 6u);
  auto ws = ir::As<ir::AssignStmt>(seq->stmts()[2]);
  auto buf = ir::As<ir::AssignStmt>(seq->stmts()[3]);
  auto sig = ir::As<ir::AssignStmt>(seq->stmts()[4]);
  auto ar = ir::As<ir::AssignStmt>(seq->stmts()[5]);
  ASSERT_TRUE(ws && buf && sig && ar);
  EXPECT_EQ(ws->var()->name_hint(), "__allreduce_signal_world_size_0");
  EXPECT_EQ(ir::PrintType(ws->var()->type()), "pl.Scalar[pl.INT64]");
  // The allocation's name kwarg is its var's name, so a reparse re-derives it.
  auto alloc = ir::As<ir::Call>(buf->value());
  EXPECT_EQ(ir::GetAttr<std::string>(alloc->kwargs(), "name"), "__allreduce_signal_buf_0");
  EXPECT_EQ(buf->var()->name_hint(), "__allreduce_signal_buf_0");
  EXPECT_TRUE(ir::Is<ir::PtrType>(buf->var()->type()));
  EXPECT_EQ(ir::PrintExpr(alloc->args()[0]),
            "__allreduce_signal_world_size_0 * pl.const(3, pl.INT64) * pl.const(4, pl.INT64)");
  auto sig_type = ir::As<ir::DistributedTensorType>(sig->var()->type());
  ASSERT_NE(sig_type, nullptr);
  EXPECT_EQ(sig_type->dtype(), DataType::kInt32);
  ASSERT_EQ(sig_type->shape().size(), 2u);
  EXPECT_EQ(sig_type->shape()[0], ws->var());
  EXPECT_EQ(ir::GetConstInt(sig_type->shape()[1]), 3);
  // The call keeps its kwargs and gains the signal.
  auto call = ir::As<ir::Call>(ar->value());
  ASSERT_EQ(call->args().size(), 2u);
  EXPECT_EQ(call->args()[1], sig->var());
  EXPECT_EQ(ir::GetAttr<int64_t>(call->kwargs(), "op"), 2);
  EXPECT_EQ(ir::GetAttr<int64_t>(call->kwargs(), "core_num"), 3);
}

TEST(SynthesizeAllReduceSignalsTest, UnchangedProgramIsTheSameObject) {
  ir::ProgramPtr in = Parse(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        buf = pld.alloc_window_buffer(16)
        sig_buf = pld.alloc_window_buffer(8)
        data = pld.window(buf, [4], dtype=pl.FP32)
        sig = pld.window(sig_buf, [2, 1], dtype=pl.INT32)
        data = pld.tensor.allreduce(data, sig, op=0)
)");
  SynthesizeAllReduceSignals pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, in);
}

// A host orchestrator calling pld.tensor.allreduce with `args` (builder-made:
// the op's deducer would reject these).
absl::Status RunOnHostAllReduce(int n_args, int64_t core_num) {
  ir::FunctionBuilder fb("host");
  fb.SetLevel(ir::Level::kHost).SetRole(ir::Role::kOrchestrator);
  ir::VarPtr x = fb.Param("x", ir::DistTensorOf({4}, DataType::kFP32));
  std::vector<ir::ExprPtr> args(n_args, x);
  fb.Eval(ir::MakeOpCall("pld.tensor.allreduce", args, x->type(),
                         {{"op", int64_t{0}}, {"core_num", core_num}}));
  auto p = ir::ProgramBuilder("P").Add(fb.Build()).Build();
  EXPECT_TRUE(p.ok()) << p.status();
  SynthesizeAllReduceSignals pass;
  return pass.Run(*p).status();
}

TEST(SynthesizeAllReduceSignalsTest, ThreeArgumentsAreRejected) {
  absl::Status s = RunOnHostAllReduce(3, 1);
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.allreduce expects target[, signal], got 3 positional arguments");
  s = RunOnHostAllReduce(0, 1);
  EXPECT_EQ(s.message(),
            "pld.tensor.allreduce expects target[, signal], got 0 positional arguments");
}

TEST(SynthesizeAllReduceSignalsTest, NonPositiveCoreNumIsInternal) {
  absl::Status s = RunOnHostAllReduce(1, 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_EQ(s.message(), "pld.tensor.allreduce core_num=0 outside [1, INT32_MAX]");
}

// A runtime core_num cannot size a synthesized signal: a located user error
// with the way out (an explicit signal), not an internal one.
TEST(SynthesizeAllReduceSignalsTest, RuntimeCoreNumWithoutSignalIsALocatedUserError) {
  ir::ProgramPtr p = Parse(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, n: pl.Scalar[pl.INT64]):
        buf = pld.alloc_window_buffer(16)
        data = pld.window(buf, [4], dtype=pl.FP32)
        data = pld.tensor.allreduce(data, op=0, core_num=n)
)");
  ASSERT_NE(p, nullptr);
  SynthesizeAllReduceSignals pass;
  absl::Status s = pass.Run(p).status();
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.allreduce without an explicit signal needs a compile-time core_num: the "
            "synthesized signal has core_num lanes per device. Pass an INT32 signal window of "
            "[world_size, L] for the largest L the call may request, or a constant core_num");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 10);
  EXPECT_EQ(loc->col, 16);
}

}  // namespace
}  // namespace pto::passes
