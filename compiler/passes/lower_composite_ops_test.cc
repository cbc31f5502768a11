// LowerCompositeOps: the spec §6 cases of test_lower_composite_ops.py, the
// rewrite sites, the credit-barrier invariants, identity when untouched, and
// the checks only builder-made IR reaches. The emitted protocol of each
// collective is pinned text-in/text-out in test/lower_composite_ops*.pto.
#include "compiler/passes/lower_composite_ops.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
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

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

constexpr char kHeader[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
)";

constexpr char kA2avParams[] =
    "self, inp: pl.Tensor[[4, 8], pl.FP32], data: pld.DistributedTensor[[4, 8], pl.FP32], "
    "signal: pld.DistributedTensor[[2, 1], pl.INT32], counts: pl.Tensor[[2], pl.INT32], "
    "recv: pld.DistributedTensor[[2, 1], pl.INT32]";

std::string Kernel(const std::string& decorator, const std::string& body,
                   const std::string& params = kA2avParams) {
  return std::string(kHeader) + "    @pl.function(" + decorator + ")\n    def f(" + params +
         ") -> pld.DistributedTensor[[4, 8], pl.FP32]:\n" + body;
}

constexpr char kA2avAssign[] =
    "        data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=1)\n"
    "        return data\n";

TEST(LowerCompositeOpsTest,
     test_all_to_all_v_in_chip_orchestrator_is_left_for_l2_collective_lowering) {
  ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.Orchestration", kA2avAssign));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, in);  // identity: the CHIP rail owns it
}

TEST(LowerCompositeOpsTest, every_orchestrator_body_is_skipped) {
  // S1 rule: role Orchestrator also skips (HOST orchestrators, Graph bodies).
  for (const char* decorator :
       {"level=pl.Level.HOST, role=pl.Role.Orchestrator", "type=pl.FunctionType.Graph",
        "level=pl.Level.CHIP, role=pl.Role.Orchestrator"}) {
    ir::ProgramPtr in = Parse(Kernel(decorator, kA2avAssign));
    LowerCompositeOps pass;
    auto out = pass.Run(in);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, in) << decorator;
  }
}

TEST(LowerCompositeOpsTest, incore_all_to_all_v_is_lowered_and_keeps_the_result_var) {
  ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.InCore", kA2avAssign));
  auto in_seq = ir::As<ir::SeqStmts>(in->GetFunction("f")->body());
  ir::VarPtr original = ir::As<ir::AssignStmt>(in_seq->stmts()[0])->var();
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_NE(*out, in);
  auto seq = ir::As<ir::SeqStmts>((*out)->GetFunction("f")->body());
  ASSERT_NE(seq, nullptr);
  // `data = data` binds the original Var (same object) to the target.
  auto bind = ir::As<ir::AssignStmt>(seq->stmts()[seq->stmts().size() - 2]);
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->var(), original);
  EXPECT_EQ(bind->value(), in->GetFunction("f")->params()[1]);
  auto ret = ir::As<ir::ReturnStmt>(seq->stmts().back());
  EXPECT_EQ(ret->value()[0], original);
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
  // No collective survives.
  EXPECT_EQ(Count(ir::PrintProgram(*out), "pld.tensor.all_to_all_v"), 0);
}

TEST(LowerCompositeOpsTest, rejects_core_num_not_one_in_incore_body) {
  ir::ProgramPtr in = Parse(
      Kernel("type=pl.FunctionType.InCore",
             "        data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=2)\n"
             "        return data\n"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(IsUserError(out.status()));
  EXPECT_EQ(out.status().message(),
            "InCore pld.tensor.all_to_all_v requires a compile-time core_num=1, got 2; call it "
            "from a CHIP Orchestration function to use the managed multi-AIV path");
  auto loc = GetDiagnosticLocation(out.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 8);
  EXPECT_EQ(loc->col, 16);
}

TEST(LowerCompositeOpsTest, rejects_dynamic_core_num_in_incore_body) {
  ir::ProgramPtr in =
      Parse(Kernel("type=pl.FunctionType.InCore",
                   "        data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, n)\n"
                   "        return data\n",
                   std::string(kA2avParams) + ", n: pl.Scalar[pl.INDEX]"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "InCore pld.tensor.all_to_all_v requires a compile-time core_num=1, got a dynamic "
            "value; call it from a CHIP Orchestration function to use the managed multi-AIV "
            "path");
}

TEST(LowerCompositeOpsTest, positional_core_num_one_is_accepted) {
  ir::ProgramPtr in =
      Parse(Kernel("type=pl.FunctionType.InCore",
                   "        data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, 1)\n"
                   "        return data\n"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(*out, in);
}

TEST(LowerCompositeOpsTest, program_without_collectives_is_returned_unchanged) {
  ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.InCore", "        return data\n"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, in);
}

TEST(LowerCompositeOpsTest, return_embedded_collective_is_lifted_to_a_fresh_result_var) {
  ir::ProgramPtr in = Parse(Kernel(
      "type=pl.FunctionType.InCore",
      "        return pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=1)\n"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  auto seq = ir::As<ir::SeqStmts>((*out)->GetFunction("f")->body());
  ASSERT_NE(seq, nullptr);
  auto lifted = ir::As<ir::AssignStmt>(seq->stmts()[seq->stmts().size() - 2]);
  ASSERT_NE(lifted, nullptr);
  EXPECT_EQ(lifted->var()->name_hint(), "ret0_all_to_all_v_result");
  EXPECT_EQ(ir::As<ir::ReturnStmt>(seq->stmts().back())->value()[0], lifted->var());
}

// Credit-barrier invariants on every rule: waits are Ge, signal cells only
// see AtomicAdd (Set is used only on recv_counts), the epilogue self-notify
// happens once per call.
TEST(LowerCompositeOpsTest, credit_barrier_uses_ge_waits_atomic_adds_and_one_epilogue) {
  const std::string sig1 = "signal: pld.DistributedTensor[[2, 1], pl.INT32]";
  const std::string sig4 = "signal: pld.DistributedTensor[[4, 1], pl.INT32]";
  struct Case {
    std::string params, body;
  } cases[] = {
      {kA2avParams, kA2avAssign},
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32], " + sig1,
       "        pld.tensor.barrier(signal)\n        return data\n"},
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32], " + sig1,
       "        data = pld.tensor.broadcast(data, signal, root=0)\n        return data\n"},
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32], " + sig1,
       "        data = pld.tensor.reduce_scatter(data, signal, op=0)\n        return data\n"},
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32], " + sig1,
       "        data = pld.tensor.allreduce(data, signal, op=0)\n        return data\n"},
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32], signal: "
       "pld.DistributedTensor[[2, 2], pl.INT32]",
       "        data = pld.tensor.allreduce(data, signal, op=0, mode=\"ring\")\n"
       "        return data\n"},
      {"self, inp: pl.Tensor[[1, 8], pl.FP32], data: pld.DistributedTensor[[4, 8], pl.FP32], " +
           sig4,
       "        data = pld.tensor.allgather(inp, data, signal)\n        return data\n"},
      {"self, inp: pl.Tensor[[4, 8], pl.FP32], data: pld.DistributedTensor[[4, 8], pl.FP32], " +
           sig4,
       "        data = pld.tensor.all_to_all(inp, data, signal)\n        return data\n"},
  };
  for (const Case& c : cases) {
    ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.InCore", c.body, c.params));
    ASSERT_NE(in, nullptr) << c.body;
    LowerCompositeOps pass;
    auto out = pass.Run(in);
    ASSERT_TRUE(out.ok()) << c.body << out.status();
    std::string text = ir::PrintProgram(*out);
    EXPECT_EQ(Count(text, "cmp=0"), 0) << text;
    EXPECT_EQ(Count(text, "pld.system.wait("), Count(text, "cmp=1")) << text;
    EXPECT_EQ(Count(text, "pld.system.notify(signal, my_rank"), 1) << text;
    // No Set at all: packed cells set by several chips lose updates on a2a3
    // (pto-isa#322), so counts travel by atomic adds too.
    EXPECT_EQ(Count(text, "op=1)"), 0) << text;
    EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out) << text;
  }
}

// A ring over an element count NR does not divide: balanced segments (the
// first numel % NR one longer), a guarded shorter last chunk for the short
// segments, and the same credit rounds on every rank.
TEST(LowerCompositeOpsTest, ring_allreduce_takes_a_count_nr_does_not_divide) {
  ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.InCore",
                                   "        data = pld.tensor.allreduce(data, signal, op=0, "
                                   "mode=\"ring\")\n        return data\n",
                                   "self, data: pld.DistributedTensor[[1, 9], pl.FP32], signal: "
                                   "pld.DistributedTensor[[2, 2], pl.INT32]"));
  ASSERT_NE(in, nullptr);
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = ir::PrintProgram(*out);
  // Segments of 5 and 4: a long chunk of 5 and a short one of 4.
  EXPECT_GE(Count(text, "[1, 5]"), 1) << text;
  EXPECT_GE(Count(text, "[1, 4]"), 1) << text;
  EXPECT_GE(Count(text, "pl.min("), 1) << text;
  EXPECT_EQ(Count(text, "pld.tensor.allreduce"), 0) << text;
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out) << text;
}

TEST(LowerCompositeOpsTest, collectives_inside_loops_and_branches_are_lowered) {
  ir::ProgramPtr in = Parse(Kernel(
      "type=pl.FunctionType.InCore",
      "        for i in pl.range(3):\n"
      "            pld.tensor.barrier(signal)\n"
      "        if pl.tensor.read(counts, [0]) > 0:\n"
      "            d2 = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=1)\n"
      "        return data\n"));
  ASSERT_NE(in, nullptr);
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = ir::PrintProgram(*out);
  EXPECT_EQ(Count(text, "pld.tensor.barrier"), 0);
  EXPECT_EQ(Count(text, "pld.tensor.all_to_all_v"), 0);
  // Two calls, two comm setups; temp names stay unique across the rules.
  EXPECT_EQ(Count(text, "pld.system.get_comm_ctx("), 2);
  EXPECT_EQ(Count(text, "ctx_0: "), 1);
  EXPECT_EQ(Count(text, "_1: "), 1);  // nranks_1 only: no name reused by the second call
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
}

TEST(LowerCompositeOpsTest, rank2_send_counts_are_read_at_dest_0) {
  ir::ProgramPtr in = Parse(Kernel(
      "type=pl.FunctionType.InCore", kA2avAssign,
      "self, inp: pl.Tensor[[4, 8], pl.FP32], data: pld.DistributedTensor[[4, 8], pl.FP32], "
      "signal: pld.DistributedTensor[[2, 1], pl.INT32], counts: pl.Tensor[[2, 1], pl.INT32], "
      "recv: pld.DistributedTensor[[2, 1], pl.INT32]"));
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = ir::PrintProgram(*out);
  EXPECT_EQ(Count(text, "pl.tensor.read(counts, [dest_9, 0])"), 1) << text;
}

TEST(LowerCompositeOpsTest, all_to_all_v_stage_is_bounded_to_one_ub_chunk) {
  // A 16 KiB row (4096 FP32) leaves room for one staged row, not MAX_RECV = 2.
  ir::ProgramPtr in = Parse(std::string(kHeader) +
                            "    @pl.function(type=pl.FunctionType.InCore)\n"
                            "    def f(self, inp: pl.Tensor[[4, 4096], pl.FP32], data: "
                            "pld.DistributedTensor[[4, 4096], pl.FP32], signal: "
                            "pld.DistributedTensor[[2, 1], pl.INT32], counts: pl.Tensor[[2], "
                            "pl.INT32], recv: pld.DistributedTensor[[2, 1], pl.INT32]):\n"
                            "        data = pld.tensor.all_to_all_v(inp, data, signal, counts, "
                            "recv, core_num=1)\n");
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = ir::PrintProgram(*out);
  EXPECT_EQ(Count(text, "pl.tile.create([1, 4096], dtype=pl.FP32"), 1) << text;
  EXPECT_EQ(Count(text, "[rows_11, 4096]"), 1) << text;
}

TEST(LowerCompositeOpsTest, collective_in_a_while_loop_is_lowered) {
  ir::ProgramPtr in = Parse(Kernel("type=pl.FunctionType.InCore",
                                   "        for (k,) in pl.while_(init_values=(0,)):\n"
                                   "            pl.cond(k < 3)\n"
                                   "            pld.tensor.barrier(signal)\n"
                                   "            k2 = pl.yield_(k + 1)\n"
                                   "        return data\n"));
  ASSERT_NE(in, nullptr);
  LowerCompositeOps pass;
  auto out = pass.Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = ir::PrintProgram(*out);
  EXPECT_EQ(Count(text, "pld.tensor.barrier"), 0) << text;
  EXPECT_EQ(Count(text, "pld.system.wait("), 1) << text;
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
}

// ---- checks only IR built without the deducers reaches ----

ir::VarPtr P(ir::FunctionBuilder& fb, const char* name, ir::TypePtr t) {
  return fb.Param(name, std::move(t));
}

absl::Status RunOnKernel(const std::function<void(ir::FunctionBuilder&)>& build) {
  ir::FunctionBuilder fb("k", ir::FunctionType::kInCore);
  build(fb);
  auto f = fb.Build();
  if (!f.ok()) return f.status();
  auto prog = ir::ProgramBuilder("p").Add(*f).Build();
  if (!prog.ok()) return prog.status();
  LowerCompositeOps pass;
  return pass.Run(*prog).status();
}

// all_to_all_v(input, target, signal, send_counts, recv_counts) with the
// given operand types, typed like the target.
absl::Status RunA2av(ir::TypePtr in_t, ir::TypePtr tg_t, ir::TypePtr sig_t, ir::TypePtr sc_t,
                     ir::TypePtr rc_t, size_t n_args = 5) {
  return RunOnKernel([&](ir::FunctionBuilder& fb) {
    std::vector<ir::ExprPtr> args = {P(fb, "inp", in_t), P(fb, "data", tg_t),
                                     P(fb, "signal", sig_t), P(fb, "counts", sc_t),
                                     P(fb, "recv", rc_t)};
    args.resize(n_args, ir::ConstIndex(1));
    fb.Eval(ir::MakeOpCall("pld.tensor.all_to_all_v", args, tg_t));
    fb.Return({});
  });
}

TEST(LowerCompositeOpsTest, all_to_all_v_internal_operand_checks) {
  auto t48 = ir::TensorOf({4, 8}, DataType::kFP32);
  auto w48 = ir::DistTensorOf({4, 8}, DataType::kFP32);
  auto sig = ir::DistTensorOf({2, 1}, DataType::kInt32);
  auto sc = ir::TensorOf({2}, DataType::kInt32);
  auto rc = ir::DistTensorOf({2, 1}, DataType::kInt32);
  auto scalar = ir::ScalarOf(DataType::kIndex);
  struct Case {
    absl::Status status;
    std::string message;
  } cases[] = {
      {RunA2av(t48, w48, sig, sc, rc, 4),
       "pld.tensor.all_to_all_v expects 5 args (input, target, signal, send_counts, "
       "recv_counts; core_num as a kwarg), got 4"},
      {RunA2av(scalar, w48, sig, sc, rc), "pld.tensor.all_to_all_v input must be a tensor"},
      {RunA2av(t48, t48, sig, sc, rc),
       "pld.tensor.all_to_all_v target must be a rank-2 DistributedTensor"},
      {RunA2av(t48, w48, sig, ir::TensorOf({2, 1, 1}, DataType::kInt32), rc),
       "pld.tensor.all_to_all_v send_counts must be a rank-1 or rank-2 tensor"},
      {RunA2av(t48, w48, sig, sc, ir::DistTensorOf({2}, DataType::kInt32)),
       "pld.tensor.all_to_all_v recv_counts must be a rank-2 DistributedTensor"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), absl::StatusCode::kInternal) << c.status;
    EXPECT_EQ(c.status.message(), c.message);
  }
}

TEST(LowerCompositeOpsTest, all_to_all_v_geometry_checks) {
  auto t48 = ir::TensorOf({4, 8}, DataType::kFP32);
  auto sc = ir::TensorOf({2}, DataType::kInt32);
  auto rc = ir::DistTensorOf({2, 1}, DataType::kInt32);
  auto n = ir::MakeVar("n", ir::ScalarOf(DataType::kIndex));
  auto dyn_rows = std::make_shared<ir::DistributedTensorType>(
      std::vector<ir::ExprPtr>{n, ir::ConstIndex(8)}, DataType::kFP32);
  auto dyn_sig = std::make_shared<ir::DistributedTensorType>(
      std::vector<ir::ExprPtr>{n, ir::ConstIndex(1)}, DataType::kInt32);
  auto w48 = ir::DistTensorOf({4, 8}, DataType::kFP32);
  absl::Status s = RunA2av(t48, dyn_rows, ir::DistTensorOf({2, 1}, DataType::kInt32), sc, rc);
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.all_to_all_v target dim 0 must be a compile-time constant (it is split "
            "as NR * MAX_RECV rows, one equal-capacity slot per sender)");
  s = RunA2av(t48, w48, dyn_sig, sc, rc);
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.all_to_all_v signal dim 0 (NR) must be a positive compile-time constant");
  s = RunA2av(t48, w48, ir::DistTensorOf({3, 1}, DataType::kInt32), sc, rc);
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.all_to_all_v target dim 0 (4) must be divisible by NR (3): every sender "
            "needs an equal-capacity slot");
  s = RunA2av(t48, w48, ir::TensorOf({2, 1}, DataType::kInt32), sc, rc);
  EXPECT_TRUE(IsUserError(s)) << s;
  EXPECT_EQ(s.message(),
            "pld.tensor.all_to_all_v signal must be a DistributedTensor (a window view)");
}

TEST(LowerCompositeOpsTest, other_rules_internal_operand_checks) {
  auto w48 = ir::DistTensorOf({4, 8}, DataType::kFP32);
  auto t48 = ir::TensorOf({4, 8}, DataType::kFP32);
  auto sig = ir::DistTensorOf({2, 1}, DataType::kInt32);
  auto run = [&](const char* op, std::vector<ir::TypePtr> types) {
    return RunOnKernel([&](ir::FunctionBuilder& fb) {
      std::vector<ir::ExprPtr> args;
      for (size_t i = 0; i < types.size(); ++i) {
        args.push_back(fb.Param(pto::StrCat("a", i), types[i]));
      }
      fb.Eval(ir::MakeOpCall(op, args, w48));
      fb.Return({});
    });
  };
  struct Case {
    absl::Status status;
    std::string message;
  } cases[] = {
      {run("pld.tensor.all_to_all", {t48, t48, sig}),
       "pld.tensor.all_to_all expects (input, target [NR, SIZE] window, signal)"},
      {run("pld.tensor.allgather", {t48}),
       "pld.tensor.allgather expects (input, target [NR, SIZE] window, signal)"},
      {run("pld.tensor.barrier", {t48}), "pld.tensor.barrier expects (signal window)"},
      {run("pld.tensor.broadcast", {t48, sig}),
       "pld.tensor.broadcast expects (target window, signal)"},
      {run("pld.tensor.reduce_scatter", {ir::DistTensorOf({8}, DataType::kFP32), sig}),
       "pld.tensor.reduce_scatter expects (target [NR, SIZE] window, signal)"},
      {run("pld.tensor.allreduce", {t48, sig}),
       "pld.tensor.allreduce target must be a DistributedTensor"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), absl::StatusCode::kInternal) << c.status;
    EXPECT_EQ(c.status.message(), c.message);
  }
}

// The InCore rail's own lists from the CollectiveDef: the public op accepts
// the union of the rails' dtypes and reduce ops.
TEST(LowerCompositeOpsTest, incore_rail_checks_its_dtypes_and_reduce_ops) {
  const std::string sig = ", signal: pld.DistributedTensor[[2, 1], pl.INT32]";
  struct Case {
    std::string params, body, message;
  } cases[] = {
      {"self, data: pld.DistributedTensor[[4, 8], pl.FP32]" + sig,
       "        data = pld.tensor.reduce_scatter(data, signal, op=1)\n        return data\n",
       "pld.tensor.reduce_scatter on the InCore rail supports op sum, got max"},
      {"self, data: pld.DistributedTensor[[4, 8], pl.INT32]" + sig,
       "        data = pld.tensor.allreduce(data, signal, op=0)\n        return data\n",
       "pld.tensor.allreduce supports FP16, FP32 on the InCore rail, got INT32"},
  };
  for (const Case& c : cases) {
    const std::string text = Kernel("type=pl.FunctionType.InCore", c.body, c.params);
    ir::ProgramPtr in = Parse(text);
    ASSERT_NE(in, nullptr) << c.body;
    LowerCompositeOps pass;
    auto out = pass.Run(in);
    ASSERT_FALSE(out.ok()) << c.body;
    EXPECT_TRUE(IsUserError(out.status()));
    EXPECT_EQ(out.status().message(), c.message);
    std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(out.status());
    ASSERT_TRUE(loc.has_value());
    const size_t at = text.find("pld.tensor.");
    EXPECT_EQ(loc->line, std::count(text.begin(), text.begin() + at, '\n') + 1);
    EXPECT_EQ(loc->col, static_cast<int>(at - text.rfind('\n', at)));
  }
}

TEST(LowerCompositeOpsTest, emit_barrier_from_a_nested_builder_is_internal) {
  absl::Status s = lower_composite_ops_internal::EmitBarrierInNestedBuilderForTesting();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(),
            "EmitBarrier must only be called from a top-level lowering rule; a loop-resident "
            "barrier must hand-roll its call-local expected values");
}

TEST(LowerCompositeOpsTest, second_epilogue_reset_is_internal) {
  absl::Status s = lower_composite_ops_internal::EmitEpilogueResetTwiceForTesting();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "EmitEpilogueReset must be called exactly once per lowered call");
}

}  // namespace
}  // namespace pto::passes
