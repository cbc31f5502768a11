#include "compiler/parser/parser.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser_test_util.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::parser {
namespace {

using ir::As;

using test_util::BodyOf;
using test_util::ExpectRoundTrip;
using test_util::InFunction;
using test_util::kHeader;
using test_util::Parse;
using test_util::ParseError;
using test_util::StmtsOf;

ir::DataType DTypeOf(const ir::ExprPtr& e) {
  return As<ir::ScalarType>(e->type())->dtype();
}

// ---------------------------------------------------------------------------
// A whole HOST + CHIP + InCore program.

constexpr char kExchange[] = R"(import pypto.language as pl
import pypto.language.distributed as pld
from typing import Tuple

NR = 2
MAX_RECV = 4
SIZE = 64
TOTAL = NR * MAX_RECV      # module constants: integers, arithmetic
ROW_BYTES = SIZE * pl.FP32.get_byte()


@pl.program
class Exchange:
    """Docstrings are ignored."""

    SCALE = 2

    @pl.function(type=pl.FunctionType.InCore, attrs={"vector_width": 8, "tag": "fill"})
    def fill(
        self,
        inp: pl.Tensor[[TOTAL, SIZE], pl.FP32],
        stage: pl.Out[pl.Tensor[[TOTAL, SIZE], pl.FP32]],
        counts: pl.Out[pl.Tensor[[NR], pl.INT32]],
    ) -> tuple[pl.Tensor[[TOTAL, SIZE], pl.FP32], pl.Tensor[[NR], pl.INT32]]:
        """Doubles the input and records a count per peer."""
        doubled = pl.tensor.add(inp, inp)
        staged = pl.tensor.assemble(stage, doubled, [0, 0])
        for peer, (cnt,) in pl.range(NR, init_values=(counts,)):
            cnt_next = pl.tensor.write(cnt, [peer], pl.const(MAX_RECV * SCALE, pl.INT32))
            cnt_out = pl.yield_(cnt_next)
        return staged, cnt_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_pipeline(
        self,
        inp: pl.Tensor[[TOTAL, SIZE], pl.FP32],
        stage: pl.Tensor[[TOTAL, SIZE], pl.FP32],
        data: pld.DistributedTensor[[TOTAL, SIZE], pl.FP32],
        signal: pld.DistributedTensor[[NR, 1], pl.INT32],
        counts: pl.Tensor[[NR], pl.INT32],
        recv: pld.DistributedTensor[[NR, 1], pl.INT32],
    ) -> pld.DistributedTensor[[TOTAL, SIZE], pl.FP32]:
        stage, counts = self.fill(inp, stage, counts)
        data = pld.tensor.all_to_all_v(stage, data, signal, counts, recv, core_num=1)
        # hand the exchanged rows back
        return data

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, inputs: pl.Tensor[[NR, TOTAL, SIZE], pl.FP32]):
        buf = pld.alloc_window_buffer(TOTAL * ROW_BYTES)
        data = pld.window(buf, [TOTAL, SIZE], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer(NR * pl.INT32.get_byte())
        signal = pld.window(sig_buf, [NR, 1], dtype=pl.INT32)
        recv_buf = pld.alloc_window_buffer(NR * pl.INT32.get_byte())
        recv = pld.window(recv_buf, [NR, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            stage = pl.tensor.create([TOTAL, SIZE], dtype=pl.FP32)
            counts = pl.tensor.create([NR], dtype=pl.INT32)
            # one chip pipeline per rank
            # (device=r picks the card)
            self.chip_pipeline(inputs[r], stage, data, signal, counts, recv, device=r)
)";

TEST(ParserTest, WholeProgram) {
  ir::ProgramPtr p = Parse(kExchange);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name(), "Exchange");
  ASSERT_EQ(p->functions().size(), 3u);
  // Ordered by name.
  EXPECT_EQ(p->functions()[0].first->name(), "chip_pipeline");
  EXPECT_EQ(p->functions()[1].first->name(), "fill");
  EXPECT_EQ(p->functions()[2].first->name(), "host_orch");

  // InCore kernel.
  ir::FunctionPtr fill = p->GetFunction("fill");
  EXPECT_EQ(fill->func_type(), ir::FunctionType::kInCore);
  EXPECT_EQ(fill->level(), ir::Level::kChipDie);
  EXPECT_EQ(fill->role(), ir::Role::kSubWorker);
  EXPECT_EQ(fill->param_directions(),
            (std::vector<ir::ParamDirection>{ir::ParamDirection::kIn, ir::ParamDirection::kOut,
                                             ir::ParamDirection::kOut}));
  ASSERT_EQ(fill->return_types().size(), 2u);
  EXPECT_EQ(ir::PrintType(fill->return_types()[1]), "pl.Tensor[[2], pl.INT32]");
  EXPECT_EQ(ir::GetAttr<int64_t>(fill->attrs(), "vector_width"), 8);
  EXPECT_EQ(ir::GetAttr<std::string>(fill->attrs(), "tag"), "fill");
  auto inp_type = As<ir::TensorType>(fill->params()[0]->type());
  ASSERT_NE(inp_type, nullptr);
  EXPECT_EQ(ir::GetConstInt(inp_type->shape()[0]), 8);  // TOTAL = NR * MAX_RECV
  EXPECT_EQ(ir::GetConstInt(inp_type->shape()[1]), 64);
  std::vector<ir::StmtPtr> fill_body = BodyOf(fill);
  ASSERT_EQ(fill_body.size(), 4u);  // the docstring is dropped
  auto loop = As<ir::ForStmt>(fill_body[2]);
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->iter_args().size(), 1u);
  EXPECT_EQ(loop->iter_args()[0]->init_value(), fill->params()[2]);
  ASSERT_EQ(loop->return_vars().size(), 1u);
  auto write = As<ir::Call>(As<ir::AssignStmt>(StmtsOf(loop->body())[0])->value());
  auto count = As<ir::ConstInt>(write->args()[2]);
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->value(), 8);  // MAX_RECV * SCALE (class constant)
  EXPECT_EQ(count->dtype(), ir::DataType::kInt32);
  auto ret = As<ir::ReturnStmt>(fill_body[3]);
  ASSERT_EQ(ret->value().size(), 2u);
  EXPECT_EQ(ret->value()[1], loop->return_vars()[0]);

  // CHIP orchestrator: tuple unpacking through a temporary.
  ir::FunctionPtr chip = p->GetFunction("chip_pipeline");
  EXPECT_EQ(chip->level(), ir::Level::kChip);
  EXPECT_EQ(chip->role(), ir::Role::kOrchestrator);
  EXPECT_TRUE(chip->IsChipOrch());
  std::vector<ir::StmtPtr> chip_body = BodyOf(chip);
  ASSERT_EQ(chip_body.size(), 5u);
  auto tmp = As<ir::AssignStmt>(chip_body[0]);
  auto fill_call = As<ir::Call>(tmp->value());
  ASSERT_NE(fill_call, nullptr);
  EXPECT_TRUE(ir::Is<ir::GlobalVar>(fill_call->op()));
  EXPECT_EQ(fill_call->op()->name(), "fill");
  EXPECT_TRUE(ir::Is<ir::TupleType>(fill_call->type()));
  auto get1 = As<ir::TupleGetItem>(As<ir::AssignStmt>(chip_body[2])->value());
  ASSERT_NE(get1, nullptr);
  EXPECT_EQ(get1->tuple(), tmp->var());
  EXPECT_EQ(get1->index(), 1);
  auto a2av = As<ir::Call>(As<ir::AssignStmt>(chip_body[3])->value());
  EXPECT_EQ(a2av->op()->name(), "pld.tensor.all_to_all_v");
  EXPECT_EQ(a2av->args()[0], As<ir::AssignStmt>(chip_body[1])->var());  // the new `stage`
  EXPECT_EQ(ir::GetAttr<int64_t>(a2av->kwargs(), "core_num"), 1);
  auto chip_ret = As<ir::ReturnStmt>(chip_body[4]);
  EXPECT_EQ(chip_ret->leading_comments(), std::vector<std::string>{"hand the exchanged rows back"});

  // HOST orchestrator.
  ir::FunctionPtr host = p->GetFunction("host_orch");
  EXPECT_EQ(host->func_type(), ir::FunctionType::kOpaque);
  EXPECT_EQ(host->level(), ir::Level::kHost);
  EXPECT_EQ(host->role(), ir::Role::kOrchestrator);
  EXPECT_TRUE(host->IsHostOrch());
  EXPECT_TRUE(host->return_types().empty());
  std::vector<ir::StmtPtr> host_body = BodyOf(host);
  ASSERT_EQ(host_body.size(), 7u);
  auto alloc = As<ir::AssignStmt>(host_body[0]);
  EXPECT_EQ(alloc->var()->name_hint(), "buf");
  EXPECT_TRUE(ir::Is<ir::PtrType>(alloc->var()->type()));
  auto alloc_call = As<ir::Call>(alloc->value());
  EXPECT_EQ(alloc_call->op()->name(), "pld.tensor.alloc_window_buffer");
  EXPECT_EQ(ir::GetAttr<std::string>(alloc_call->kwargs(), "name"), "buf");
  auto size = As<ir::BinaryExpr>(alloc_call->args()[0]);
  ASSERT_NE(size, nullptr);  // TOTAL * ROW_BYTES: names are replaced, arithmetic kept
  EXPECT_EQ(ir::GetConstInt(size->lhs()), 8);
  EXPECT_EQ(ir::GetConstInt(size->rhs()), 256);  // SIZE * pl.FP32.get_byte()
  auto window = As<ir::AssignStmt>(host_body[1]);
  EXPECT_EQ(ir::PrintType(window->var()->type()), "pld.DistributedTensor[[8, 64], pl.FP32]");
  auto dispatch_loop = As<ir::ForStmt>(host_body[6]);
  ASSERT_NE(dispatch_loop, nullptr);
  EXPECT_EQ(As<ir::Call>(dispatch_loop->stop())->op()->name(), "pld.system.world_size");
  EXPECT_EQ(DTypeOf(dispatch_loop->loop_var()), ir::DataType::kIndex);
  std::vector<ir::StmtPtr> loop_body = StmtsOf(dispatch_loop->body());
  ASSERT_EQ(loop_body.size(), 3u);
  auto dispatch = As<ir::EvalStmt>(loop_body[2]);
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->leading_comments(),
            (std::vector<std::string>{"one chip pipeline per rank", "(device=r picks the card)"}));
  auto call = As<ir::Call>(dispatch->expr());
  EXPECT_EQ(call->op()->name(), "chip_pipeline");
  auto device = ir::GetAttr<ir::ExprPtr>(call->attrs(), "device");
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(*device, dispatch_loop->loop_var());
  auto index = As<ir::Call>(call->args()[0]);
  EXPECT_EQ(index->op()->name(), "pl.tensor.index");  // inputs[r]
  EXPECT_EQ(ir::PrintType(index->type()), "pl.Tensor[[8, 64], pl.FP32]");

  ExpectRoundTrip(p);
}

TEST(ParserTest, ProgramNameOverrideAndEmptyBodies) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program(name=\"Renamed\")\n"
                           "class X():\n"
                           "    @pl.function\n"
                           "    def a(self):\n"
                           "        ...\n"
                           "    @pl.function()\n"
                           "    def b(self) -> None:\n"
                           "        \"\"\"Only a docstring.\"\"\"\n"
                           "    @pl.function(runtime_binding=True, type=pl.FunctionType.AIV)\n"
                           "    def c(self): pass\n");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name(), "Renamed");
  for (const auto& [gv, f] : p->functions()) EXPECT_TRUE(BodyOf(f).empty()) << gv->name();
  EXPECT_TRUE(p->GetFunction("c")->requires_runtime_binding());
  EXPECT_EQ(p->GetFunction("c")->level(), ir::Level::kAIV);
  ExpectRoundTrip(p);
}

TEST(ParserTest, ForwardCallsUseTheCalleeSignature) {
  // `later` is defined after its caller; its result shape names its param `n`,
  // which becomes the caller's argument.
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function\n"
                           "    def early(self, x: pl.Tensor[[4, 8], pl.FP32]):\n"
                           "        a, b = self.later(4, x)\n"
                           "        c = self.nothing()\n"
                           "    @pl.function\n"
                           "    def later(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[n, 8], "
                           "pl.FP32]) -> tuple[pl.Scalar[pl.INDEX], pl.Tensor[[n, 8], pl.FP32]]:\n"
                           "        return n, x\n"
                           "    @pl.function\n"
                           "    def nothing(self):\n"
                           "        pass\n");
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("early"));
  ASSERT_EQ(body.size(), 4u);
  EXPECT_EQ(As<ir::AssignStmt>(body[0])->var()->name_hint(), "_tuple_tmp");
  EXPECT_EQ(ir::PrintType(As<ir::AssignStmt>(body[2])->var()->type()),
            "pl.Tensor[[4, 8], pl.FP32]");
  EXPECT_TRUE(ir::Is<ir::UnknownType>(As<ir::AssignStmt>(body[3])->var()->type()));
  ExpectRoundTrip(p);
}

// ---------------------------------------------------------------------------
// Scalars and expressions.

TEST(ParserTest, ScalarExpressionsAndDTypes) {
  ir::ProgramPtr p = Parse(InFunction(
      "        a: pl.Scalar[pl.INT32] = 3\n"
      "        b = a + 1\n"
      "        c = a * pl.const(2, pl.INT64)\n"
      "        d = 2.5 * n\n"
      "        e: pl.Scalar[pl.FP16] = -0.25\n"
      "        f = e + 1\n"
      "        g = n < 3 and not b == 4\n"
      "        h = pl.cast(a, pl.INDEX) // 3 % 2 ** 2\n"
      "        i = pl.min(n, 4) + pl.max(1, n) + pl.abs(-n)\n"
      "        j = (n & 3) | (n ^ 5) << 1 >> 2\n"
      "        k = -7\n"
      "        m = ~n\n"
      "        k += 2\n"
      "        return h\n",
      "self, n: pl.Scalar[pl.INDEX]", " -> pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  auto value = [&](int i) { return As<ir::AssignStmt>(body[i])->value(); };
  auto a = As<ir::ConstInt>(value(0));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->dtype(), ir::DataType::kInt32);
  EXPECT_EQ(DTypeOf(value(1)), ir::DataType::kInt32);  // a literal takes the other side's dtype
  EXPECT_EQ(DTypeOf(value(2)), ir::DataType::kInt64);  // wider wins
  EXPECT_EQ(DTypeOf(value(3)), ir::DataType::kFP32);   // float literal over an integer
  auto e = As<ir::ConstFloat>(value(4));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->value(), -0.25);
  EXPECT_EQ(e->dtype(), ir::DataType::kFP16);
  EXPECT_EQ(DTypeOf(value(5)), ir::DataType::kFP16);
  EXPECT_EQ(DTypeOf(value(6)), ir::DataType::kBool);
  EXPECT_EQ(As<ir::BinaryExpr>(value(6))->op(), ir::BinaryOp::kAnd);
  auto h = As<ir::BinaryExpr>(value(7));
  EXPECT_EQ(h->op(), ir::BinaryOp::kFloorMod);  // (cast // 3) % (2 ** 2)
  EXPECT_TRUE(ir::Is<ir::Cast>(As<ir::BinaryExpr>(h->lhs())->lhs()));
  EXPECT_EQ(As<ir::BinaryExpr>(h->rhs())->op(), ir::BinaryOp::kPow);
  auto k = As<ir::ConstInt>(value(10));
  ASSERT_NE(k, nullptr);  // -7 is a literal, not a negation
  EXPECT_EQ(k->value(), -7);
  EXPECT_EQ(As<ir::UnaryExpr>(value(11))->op(), ir::UnaryOp::kBitNot);
  EXPECT_EQ(As<ir::BinaryExpr>(value(12))->lhs(), As<ir::AssignStmt>(body[10])->var());
  ExpectRoundTrip(p);
}

TEST(ParserTest, ConstantFolding) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "A = 7 // 2 + 2 ** 10 - (1 << 4)\n"
                           "B = -7 // 2\n"
                           "C = 7.0 / 2\n"
                           "D = True and 3\n"
                           "E = \"ab\" \"c\"\n"
                           "DT = pl.BF16\n"
                           "SHAPE = [A, 2]\n"
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function\n"
                           "    def f(self, x: pl.Tensor[SHAPE, DT]):\n"
                           "        a = A\n"
                           "        b = B\n"
                           "        c = C\n"
                           "        d = D\n"
                           "        e = pl.tensor.create([B, 1], dtype=DT)\n"
                           "        g = DT.get_byte()\n");
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr f = p->GetFunction("f");
  EXPECT_EQ(ir::PrintType(f->params()[0]->type()), "pl.Tensor[[1011, 2], pl.BF16]");
  std::vector<ir::StmtPtr> body = BodyOf(f);
  auto value = [&](int i) { return As<ir::AssignStmt>(body[i])->value(); };
  EXPECT_EQ(ir::GetConstInt(value(0)), 1011);
  EXPECT_EQ(ir::GetConstInt(value(1)), -4);  // floor division
  EXPECT_EQ(As<ir::ConstFloat>(value(2))->value(), 3.5);
  EXPECT_EQ(ir::GetConstInt(value(3)), 3);
  EXPECT_EQ(ir::GetConstInt(value(5)), 2);
  ExpectRoundTrip(p);
}

TEST(ParserTest, CallKeywordsBecomeAttrs) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function(type=pl.FunctionType.InCore)\n"
                           "    def k(self, a: pl.Tensor[[4], pl.FP32], b: pl.Out[pl.Tensor[[4], "
                           "pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:\n"
                           "        return b\n"
                           "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                           "    def o(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], "
                           "pl.FP32]:\n"
                           "        b = pl.tensor.create([4], dtype=pl.FP32, attrs={\"hint\": 3, "
                           "\"core_num\": 2})\n"
                           "        c = self.k(a, b, core_num=4, sync_start=True, "
                           "arg_directions=[pl.ArgDirection.Input, pl.ArgDirection.OutputExisting], "
                           "manual_dep_edges=[a], priority=2.5, name=\"x\", sizes=[1, 2])\n"
                           "        return c\n");
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("o"));
  auto create = As<ir::Call>(As<ir::AssignStmt>(body[0])->value());
  EXPECT_EQ(ir::GetAttr<ir::DataType>(create->kwargs(), "dtype"), ir::DataType::kFP32);
  EXPECT_EQ(ir::GetAttr<int64_t>(create->attrs(), "hint"), 3);
  EXPECT_TRUE(ir::GetAttr<ir::ExprPtr>(create->attrs(), "core_num").has_value());
  auto call = As<ir::Call>(As<ir::AssignStmt>(body[1])->value());
  const ir::AttrList& attrs = call->attrs();
  EXPECT_EQ(ir::GetConstInt(*ir::GetAttr<ir::ExprPtr>(attrs, "core_num")), 4);
  EXPECT_EQ(ir::GetAttr<bool>(attrs, "sync_start"), true);
  EXPECT_EQ(call->GetArgDirections(),
            (std::vector<ir::ArgDirection>{ir::ArgDirection::kInput,
                                           ir::ArgDirection::kOutputExisting}));
  auto edges = ir::GetAttr<std::vector<ir::ExprPtr>>(attrs, "manual_dep_edges");
  ASSERT_TRUE(edges.has_value());
  EXPECT_EQ((*edges)[0], p->GetFunction("o")->params()[0]);
  EXPECT_EQ(ir::GetAttr<double>(attrs, "priority"), 2.5);
  EXPECT_EQ(ir::GetAttr<std::string>(attrs, "name"), "x");
  EXPECT_EQ(ir::GetAttr<std::vector<int64_t>>(attrs, "sizes"), (std::vector<int64_t>{1, 2}));
  ExpectRoundTrip(p);
}

// ---------------------------------------------------------------------------
// Statements.

TEST(ParserTest, IfElifElseWithYields) {
  ir::ProgramPtr p = Parse(InFunction(
      "        if n > 10:\n"
      "            y = n * 2\n"
      "            r = pl.yield_(y)\n"
      "        elif n > 5:\n"
      "            r = pl.yield_(n + 1)\n"
      "        else:\n"
      "            r = pl.yield_(n)\n"
      "        if n == 0:\n"
      "            pass\n"
      "        return r\n",
      "self, n: pl.Scalar[pl.INDEX]", " -> pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 3u);
  auto top = As<ir::IfStmt>(body[0]);
  ASSERT_EQ(top->return_vars().size(), 1u);
  EXPECT_EQ(top->return_vars()[0]->name_hint(), "r");
  std::vector<ir::StmtPtr> else_body = StmtsOf(*top->else_body());
  ASSERT_EQ(else_body.size(), 2u);  // the nested if and a yield of its result
  auto nested = As<ir::IfStmt>(else_body[0]);
  auto yield = As<ir::YieldStmt>(else_body[1]);
  EXPECT_EQ(yield->value()[0], nested->return_vars()[0]);
  EXPECT_FALSE(As<ir::IfStmt>(body[1])->else_body().has_value());
  EXPECT_EQ(As<ir::ReturnStmt>(body[2])->value()[0], top->return_vars()[0]);
  ExpectRoundTrip(p);
}

TEST(ParserTest, LoopsWithCarriedValues) {
  ir::ProgramPtr p = Parse(InFunction(
      "        acc0 = 0\n"
      "        for i, (acc, t) in pl.parallel(1, n, 2, init_values=(acc0, x), attrs={\"u\": 1}):\n"
      "            acc_out, t_out = pl.yield_(acc + i, t)\n"
      "        for (s,) in pl.while_(init_values=(acc_out,)):\n"
      "            pl.cond(s < 100)\n"
      "            s_out = pl.yield_(s + 1)\n"
      "        while n > 0:\n"
      "            pass\n"
      "        for j in pl.unroll(4):\n"
      "            k = j\n"
      "        return s_out\n",
      "self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[4], pl.FP32]", " -> pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 6u);
  auto loop = As<ir::ForStmt>(body[1]);
  EXPECT_EQ(loop->for_kind(), ir::ForKind::kParallel);
  EXPECT_EQ(ir::GetConstInt(loop->start()), 1);
  EXPECT_EQ(ir::GetConstInt(loop->step()), 2);
  EXPECT_EQ(ir::GetAttr<int64_t>(loop->attrs(), "u"), 1);
  ASSERT_EQ(loop->iter_args().size(), 2u);
  EXPECT_EQ(loop->iter_args()[1]->init_value(), p->GetFunction("f")->params()[1]);
  ASSERT_EQ(loop->return_vars().size(), 2u);
  EXPECT_TRUE(ir::Is<ir::TensorType>(loop->return_vars()[1]->type()));
  auto wl = As<ir::WhileStmt>(body[2]);
  ASSERT_NE(wl, nullptr);
  ASSERT_EQ(wl->iter_args().size(), 1u);
  auto cond = As<ir::BinaryExpr>(wl->condition());
  EXPECT_EQ(cond->lhs(), wl->iter_args()[0]);
  EXPECT_EQ(StmtsOf(wl->body()).size(), 1u);  // pl.cond is not a body statement
  auto plain = As<ir::WhileStmt>(body[3]);
  EXPECT_TRUE(plain->iter_args().empty());
  EXPECT_EQ(As<ir::ForStmt>(body[4])->for_kind(), ir::ForKind::kUnroll);
  ExpectRoundTrip(p);
}

TEST(ParserTest, CommDomainSharesWindowBuffers) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
                           "    def host(self):\n"
                           "        with pld.comm_domain(\"comm_d0\", devices=[0, 1], "
                           "slots=[\"buf\", \"sig\"]):\n"
                           "            buf: pl.Ptr = pld.tensor.alloc_window_buffer(1024)\n"
                           "            sig = pld.alloc_window_buffer(8)\n"
                           "            w: pld.DistributedTensor[[256], pl.FP32, "
                           "pld.WindowBuffer(\"buf\")] = pld.tensor.window(buf, [256], "
                           "dtype=pl.FP32)\n"
                           "            v: pld.DistributedTensor[[16, 16], pl.FP32, "
                           "pld.WindowBuffer(\"buf\")] = pld.tensor.window(buf, [16, 16], "
                           "dtype=pl.FP32)\n"
                           "        with pl.runtime_scope(\"s\", manual=True):\n"
                           "            x = pld.world_size()\n"
                           "        with pl.runtime_scope(manual=False):\n"
                           "            y = x\n");
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("host"));
  ASSERT_EQ(body.size(), 3u);
  auto domain = As<ir::CommDomainScopeStmt>(body[0]);
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(domain->name_hint(), "comm_d0");
  EXPECT_EQ(domain->devices(), (std::vector<int64_t>{0, 1}));
  ASSERT_EQ(domain->slots().size(), 2u);
  std::vector<ir::StmtPtr> scope = StmtsOf(domain->body());
  const ir::WindowBufferPtr& wb = domain->slots()[0];
  EXPECT_EQ(wb->base(), As<ir::AssignStmt>(scope[0])->var());
  EXPECT_EQ(wb->name_hint(), "buf");
  EXPECT_EQ(ir::GetConstInt(wb->size()), 1024);
  EXPECT_EQ(domain->slots()[1]->base(), As<ir::AssignStmt>(scope[1])->var());
  // Every view of the allocation shares the one WindowBuffer object.
  auto w = As<ir::DistributedTensorType>(As<ir::AssignStmt>(scope[2])->var()->type());
  auto v = As<ir::DistributedTensorType>(As<ir::AssignStmt>(scope[3])->var()->type());
  ASSERT_TRUE(w->window_buffer().has_value());
  EXPECT_EQ(*w->window_buffer(), wb);
  EXPECT_EQ(*v->window_buffer(), wb);
  auto rt = As<ir::RuntimeScopeStmt>(body[1]);
  EXPECT_EQ(rt->name_hint(), "s");
  EXPECT_TRUE(rt->manual());
  EXPECT_FALSE(As<ir::RuntimeScopeStmt>(body[2])->manual());
  ExpectRoundTrip(p);
}

TEST(ParserTest, TypeForms) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function\n"
                           "    def f(self,\n"
                           "          a: pl.Tensor[[64, 128], pl.FP16, pl.TensorView(stride=[128, "
                           "1], layout=pl.TensorLayout.DN, valid_shape=[32, 128], "
                           "pad=pl.PadValue.zero), pl.MemRef(pl.MemorySpace.DDR, 0, 16384, 1)],\n"
                           "          b: pl.Tile[[16, 16], pl.FP16, pl.TileView(valid_shape=[8, "
                           "16]), pl.MemRef(pl.MemorySpace.UB, 64, 512, 2)],\n"
                           "          c: pl.Tile[[16, 16], pl.FP16, pl.MemRef(pl.MemorySpace.UB, "
                           "64, 512, 2)],\n"
                           "          d: pl.Ptr, e: pl.MemRefType, g: pld.WindowBufferType,\n"
                           "          h: pld.CommCtx, i: pl.Unknown,\n"
                           "          j: pl.InOut[pl.Tuple[pl.Scalar[pl.BOOL], Tuple[pl.Scalar[pl.UINT8]]]],\n"
                           "          k: tuple[()]):\n"
                           "        pass\n");
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr f = p->GetFunction("f");
  auto a = As<ir::TensorType>(f->params()[0]->type());
  ASSERT_TRUE(a->tensor_view().has_value());
  EXPECT_EQ(a->tensor_view()->layout, ir::TensorLayout::kDN);
  EXPECT_EQ(a->tensor_view()->pad, ir::PadValue::kZero);
  EXPECT_EQ(a->tensor_view()->stride.size(), 2u);
  ASSERT_TRUE(a->memref().has_value());
  EXPECT_EQ((*a->memref())->size(), 16384);
  auto b = As<ir::TileType>(f->params()[1]->type());
  auto c = As<ir::TileType>(f->params()[2]->type());
  EXPECT_EQ(b->valid_shape().size(), 2u);
  EXPECT_EQ(*b->memref(), *c->memref());  // one MemRef object per buffer
  EXPECT_TRUE(ir::Is<ir::PtrType>(f->params()[3]->type()));
  EXPECT_TRUE(ir::Is<ir::MemRefType>(f->params()[4]->type()));
  EXPECT_TRUE(ir::Is<ir::WindowBufferType>(f->params()[5]->type()));
  EXPECT_TRUE(ir::Is<ir::CommCtxType>(f->params()[6]->type()));
  EXPECT_TRUE(ir::Is<ir::UnknownType>(f->params()[7]->type()));
  EXPECT_EQ(f->param_directions()[8], ir::ParamDirection::kInOut);
  EXPECT_EQ(ir::PrintType(f->params()[8]->type()),
            "tuple[pl.Scalar[pl.BOOL], tuple[pl.Scalar[pl.UINT8]]]");
  EXPECT_TRUE(As<ir::TupleType>(f->params()[9]->type())->types().empty());
  ExpectRoundTrip(p);
}

TEST(ParserTest, ExamplesRoundTrip) {
  // Python syntax the printer never writes: comments, continuations, tabs,
  // parenthesised targets, semicolons, inline bodies.
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\n"
                           "class P:\n"
                           "\t@pl.function\n"
                           "\tdef f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
                           "\t\tx = n + \\\n"
                           "\t\t    1; y = x\n"
                           "\t\tfor i in range(3): z = i\n"
                           "\t\tif y > 2: w = pl.yield_(y)\n"
                           "\t\telse: w = pl.yield_(x)\n"
                           "\t\treturn (w)\n");
  ExpectRoundTrip(p);
}

TEST(ParserTest, ModuleNamesAlwaysMeanModulesAndStringsAreNoOps) {
  ir::ProgramPtr p = Parse(InFunction(
      "        \"a note\"\n"
      "        builtin = n + 1\n"
      "        pl = builtin\n"
      "        x = pl.const(3, pl.INT32)\n"
      "        \"another\"\n"
      "        return pl\n",
      "self, n: pl.Scalar[pl.INDEX]", " -> pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 4u);
  EXPECT_EQ(As<ir::ConstInt>(As<ir::AssignStmt>(body[2])->value())->dtype(), ir::DataType::kInt32);
  EXPECT_EQ(As<ir::ReturnStmt>(body[3])->value()[0], As<ir::AssignStmt>(body[1])->var());
  ExpectRoundTrip(p);
}

// ---------------------------------------------------------------------------
// Diagnostics: exact message and line:col.

TEST(ParserErrorTest, UnknownName) {
  EXPECT_EQ(ParseError(InFunction("        x = n + foo\n")), "8:17: unknown name 'foo'");
  EXPECT_EQ(ParseError(InFunction("        x = np.zeros(n)\n")), "8:13: unknown name 'np'");
  EXPECT_EQ(ParseError(InFunction("        x = self.g(n)\n")), "8:13: unknown function 'self.g'");
  EXPECT_EQ(ParseError(InFunction("        x = pl.tensor.nope(n)\n")),
            "8:13: unknown operator 'pl.tensor.nope'");
}

// A loop variable ends with its loop.
TEST(ParserErrorTest, NameDefinedInsideABlock) {
  EXPECT_EQ(ParseError(InFunction("        for i in pl.range(n):\n"
                                  "            y = i + 1\n"
                                  "        z = i\n")),
            "10:13: unknown name 'i': it is defined inside the for loop body at line 8 and is "
            "not visible after it; pass the value out with pl.yield_ (e.g. `i = pl.yield_(...)`)");
  // A name the then branch assigns is not bound in the else branch.
  EXPECT_EQ(ParseError(InFunction("        if n > 1:\n"
                                  "            y = n + 1\n"
                                  "        else:\n"
                                  "            z = y\n")),
            "11:17: unknown name 'y'");
  // Branches giving a name values of different types leave no one Var.
  EXPECT_EQ(ParseError(InFunction("        if n > 1:\n"
                                  "            y = n + 1\n"
                                  "        else:\n"
                                  "            y = 1.5\n"
                                  "        z = y\n")),
            "12:13: unknown name 'y': it is defined inside the if statement (its branches give it "
            "values of different types) at line 9 and is not visible after it; pass the value "
            "out with pl.yield_ (e.g. `y = pl.yield_(...)`)");
}

// A name first assigned inside a loop or if body stays bound after it, as in
// Python: to the Var of that assignment (the else branch assigns the same Var
// as the then branch). ConvertToSSA carries the value out.
TEST(ParserTest, NameFirstAssignedInsideABlockEscapes) {
  ir::ProgramPtr p = Parse(InFunction("        for i in pl.range(n):\n"
                                      "            y = i + 1\n"
                                      "            y = y + 2\n"
                                      "        if n > 1:\n"
                                      "            z = y\n"
                                      "        else:\n"
                                      "            z = n\n"
                                      "        w = z\n"));
  ASSERT_NE(p, nullptr);
  const auto& body = As<ir::SeqStmts>(p->functions()[0].second->body())->stmts();
  auto loop = As<ir::ForStmt>(body[0]);
  auto second = As<ir::AssignStmt>(As<ir::SeqStmts>(loop->body())->stmts()[1]);
  auto branch = As<ir::IfStmt>(body[1]);
  auto then_z = As<ir::AssignStmt>(As<ir::SeqStmts>(branch->then_body())->stmts()[0]);
  auto else_z = As<ir::AssignStmt>(As<ir::SeqStmts>((*branch->else_body()))->stmts()[0]);
  auto after = As<ir::AssignStmt>(body[2]);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(then_z->value(), second->var());  // the body's last value of y
  EXPECT_EQ(else_z->var(), then_z->var());
  EXPECT_EQ(after->value(), then_z->var());
  ExpectRoundTrip(p);
}

// A name of the enclosing block assigned inside a loop or branch is a
// reassignment of the same Var (the non-SSA form ConvertToSSA converts), so a
// use after the block sees the block's value, as in Python.
TEST(ParserTest, NameReassignedInsideABlockIsTheSameVar) {
  ir::ProgramPtr p = Parse(InFunction("        y = n + 0\n"
                                      "        for i in pl.range(n):\n"
                                      "            if i > 1:\n"
                                      "                y = y + i\n"
                                      "        z = y\n"));
  ASSERT_NE(p, nullptr);
  const auto& body = As<ir::SeqStmts>(p->functions()[0].second->body())->stmts();
  auto first = As<ir::AssignStmt>(body[0]);
  auto loop = As<ir::ForStmt>(body[1]);
  auto branch = As<ir::IfStmt>(As<ir::SeqStmts>(loop->body())->stmts()[0]);
  auto inner = As<ir::AssignStmt>(As<ir::SeqStmts>(branch->then_body())->stmts()[0]);
  auto after = As<ir::AssignStmt>(body[2]);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->var(), first->var());
  EXPECT_EQ(after->value(), first->var());
  // Printed, it reads back the same way.
  EXPECT_NE(ir::PrintProgram(p).find("                y: pl.Scalar[pl.INDEX] = y + i\n"),
            std::string::npos);
}

// A name whose binding cannot be reassigned in place (an iter arg, or a value
// of another type) gets a new Var in the block; using it after the block
// would read the old value, so it is an error. The else branch does not run
// after the then branch: there the name is still the outer value.
TEST(ParserErrorTest, NameReboundInsideABlock) {
  EXPECT_EQ(ParseError(InFunction("        for i, (a,) in pl.range(n, init_values=(n,)):\n"
                                  "            if i > 1:\n"
                                  "                a = a + 1\n"
                                  "            r = pl.yield_(a)\n")),
            "11:27: 'a' is rebound inside the if branch at line 10 to a new value that is not "
            "visible after it (a loop-carried iter arg, or a value of another type, is not "
            "reassigned in place); carry it out of the block with pl.yield_ (e.g. `a = "
            "pl.yield_(...)`), or give the new value another name");
  EXPECT_EQ(ParseError(InFunction("        y = n + 0\n"
                                  "        for i in pl.range(n):\n"
                                  "            y = 1.5\n"
                                  "        z = y\n")),
            "11:13: 'y' is rebound inside the for loop body at line 10 to a new value that is "
            "not visible after it (a loop-carried iter arg, or a value of another type, is not "
            "reassigned in place); carry it out of the block with pl.yield_ (e.g. `y = "
            "pl.yield_(...)`), or give the new value another name");
  EXPECT_NE(Parse(InFunction("        for i, (a,) in pl.range(n, init_values=(n,)):\n"
                             "            if i > 1:\n"
                             "                a = a + 1\n"
                             "                b = pl.yield_(a)\n"
                             "            else:\n"
                             "                b = pl.yield_(a)\n"
                             "            r = pl.yield_(b)\n")),
            nullptr);
}

// A rebinding used only inside its block, or a name defined again after the
// block, is fine.
TEST(ParserTest, ReassignedNameRedefinedAfterTheBlock) {
  EXPECT_NE(Parse(InFunction("        y = n + 0\n"
                             "        for i in pl.range(n):\n"
                             "            y = y + i\n"
                             "            w = y\n"
                             "        y = n + 1\n"
                             "        z = y\n")),
            nullptr);
}

// A tensor is reassigned like any value (ConvertToSSA carries it).
TEST(ParserTest, TensorReboundInsideABlockIsAccepted) {
  EXPECT_NE(Parse(InFunction("        for i in pl.range(n):\n"
                             "            x = pl.add(x, x)\n"
                             "        return x\n",
                             "self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[4], pl.FP32]")),
            nullptr);
}

TEST(ParserErrorTest, BadIndentation) {
  EXPECT_EQ(ParseError(InFunction("        x = n\n      y = n\n")),
            "9:1: unindent does not match any outer indentation level");
  EXPECT_EQ(ParseError(InFunction("        x = n\n            y = n\n")), "9:13: unexpected indent");
  EXPECT_EQ(ParseError(InFunction("        if n:\n        x = n\n")),
            "9:9: expected an indented block after 'if' statement on line 8");
}

TEST(ParserErrorTest, TruncatedFile) {
  EXPECT_EQ(ParseError(InFunction("        x = pl.min(n,\n")), "8:19: '(' was never closed");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P:\n    @pl.function\n    def f(self):"),
            "7:17: expected an indented block after 'def' statement on line 7");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P:\n    @pl.function\n    def f("),
            "7:10: '(' was never closed");
  EXPECT_EQ(ParseError(std::string(kHeader)), "1:1: no @pl.program class and no @pl.jit function in this file");
}

TEST(ParserErrorTest, UnsupportedConstructs) {
  EXPECT_EQ(ParseError(InFunction("        x = lambda a: a\n")),
            "8:13: unsupported Python construct: lambda (define another function of the program and call it)");
  EXPECT_EQ(ParseError(InFunction("        x = [a for a in n]\n")),
            "8:16: unsupported Python construct: comprehension (write a for loop over pl.range(...))");
  EXPECT_EQ(ParseError(InFunction("        x = n if n else 1\n")),
            "8:15: unsupported Python construct: conditional expression (x if c else y; write an if statement whose branches end with pl.yield_)");
  EXPECT_EQ(ParseError(InFunction("        try:\n            pass\n")),
            "8:9: unsupported Python construct: try statement (remove it; the compiler reports errors)");
  EXPECT_EQ(ParseError(InFunction("        global n\n")),
            "8:9: unsupported Python construct: global statement (use a module constant NAME = value)");
  EXPECT_EQ(ParseError(InFunction("        import os\n")),
            "8:9: unsupported Python construct: import inside a function (move it to the top of the file)");
  EXPECT_EQ(ParseError(InFunction("        x = pl.min(*n)\n")),
            "8:20: unsupported Python construct: star-arguments (*args / **kwargs)");
  EXPECT_EQ(ParseError(InFunction("        x = 1 < n < 3\n")),
            "8:19: unsupported Python construct: chained comparison (write a < b and b < c)");
  EXPECT_EQ(ParseError(InFunction("        with open(n):\n            pass\n")),
            "8:14: unsupported with-statement context: the contexts are pl.at(...), "
            "pl.spmd(...), pl.cluster(...), pl.scope(...), pl.manual_scope(), "
            "pl.runtime_scope(...) and pld.comm_domain(...)");
  EXPECT_EQ(ParseError(InFunction("        with pl.runtime_scope() as s:\n            pass\n")),
            "8:36: `with pl.runtime_scope(...) as name` is not supported: only pl.at(...) and "
            "pl.spmd(...) name their task id");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP) as t[0]:\n"
                                  "            pass\n")),
            "8:50: `as` target on `with pl.at(...)` must be a plain variable name");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P(Base):\n    pass\n"),
            "5:9: unsupported Python construct: class inheritance (write `class Name:`)");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P:\n    @staticmethod\n"
                                              "    def f(self):\n        pass\n"),
            "6:6: unsupported decorator: methods of a @pl.program class need @pl.function");
  EXPECT_EQ(ParseError(InFunction("        return n[0:2]\n")),
            "8:16: cannot subscript a value of type pl.Scalar[pl.INDEX]");
}

// PyPTO's `with pl.at(...) as tid:`: the scope's task id is a Scalar[TASK_ID]
// of the enclosing block (the scope attr task_id_var), usable after the scope
// (deps=[tid], a return) and printed back as the `as` target.
TEST(ParserTest, ScopeTaskIdTarget) {
  auto p = Parse(std::string(kHeader) +
                 "@pl.program\nclass P:\n"
                 "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                 "    def f(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Scalar[pl.TASK_ID]:\n"
                 "        with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
                 "            y = pl.add(x, x)\n"
                 "        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as t2:\n"
                 "            z = pl.add(x, x)\n"
                 "        return t2\n");
  ASSERT_NE(p, nullptr);
  auto body = BodyOf(p->functions().begin()->second);
  ASSERT_EQ(body.size(), 3u);
  auto first = ir::As<ir::ExecScopeStmt>(body[0]);
  ASSERT_NE(first, nullptr);
  auto tid = ir::GetAttr<ir::ExprPtr>(first->attrs(), ir::kAttrTaskIdVar);
  ASSERT_TRUE(tid.has_value());
  auto var = ir::As<ir::Var>(*tid);
  ASSERT_NE(var, nullptr);
  EXPECT_EQ(var->name_hint(), "tid");
  EXPECT_EQ(ir::PrintType(var->type()), "pl.Scalar[pl.TASK_ID]");
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("with pl.at(level=pl.Level.CORE_GROUP) as tid:"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("attrs={\"deps\": [tid]}) as t2:"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  // The name is the scope's result: its body does not see it.
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
                                  "            u = tid\n")),
            "9:17: unknown name 'tid'");
}

TEST(ParserErrorTest, TypeErrors) {
  EXPECT_EQ(ParseError(InFunction("        x: pl.Scalar[pl.INT32] = n\n")),
            "8:12: type annotation pl.Scalar[pl.INT32] does not match the value's type "
            "pl.Scalar[pl.INDEX]");
  EXPECT_EQ(ParseError(InFunction("        x: pl.Tensor[[4], pl.FP16] = t\n",
                                  "self, t: pl.Tensor[[4], pl.FP32]")),
            "8:12: type annotation pl.Tensor[[4], pl.FP16] does not match the value's type "
            "pl.Tensor[[4], pl.FP32]");
  EXPECT_EQ(ParseError(InFunction("        x = t + 1\n", "self, t: pl.Tensor[[4], pl.FP32]")),
            "8:13: operator '+' needs scalar operands, got pl.Tensor[[4], pl.FP32] (use tensor "
            "operators such as pl.tensor.add for tensors)");
  EXPECT_EQ(ParseError(InFunction("        x = pl.tensor.add(n, n)\n")),
            "8:13: pl.tensor.add lhs must be a Tensor, got Scalar[INDEX]");
  EXPECT_EQ(ParseError(InFunction("        pass\n", "self, x: pl.FP32")),
            "7:20: expected a type, got the data type pl.FP32 (did you mean pl.Scalar[pl.FP32]?)");
}

TEST(ParserErrorTest, MissingParameterAnnotation) {
  EXPECT_EQ(ParseError(InFunction("        pass\n", "self, a: pl.Scalar[pl.INDEX], b")),
            "7:41: parameter 'b' of function 'f' needs a type annotation");
  EXPECT_EQ(ParseError(InFunction("        pass\n", "a: pl.Scalar[pl.INDEX]")),
            "7:11: the first parameter of @pl.function method 'f' must be 'self'");
}

TEST(ParserErrorTest, ConflictingLevel) {
  EXPECT_EQ(ParseError(std::string(kHeader) +
                       "@pl.program\n"
                       "class P:\n"
                       "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.HOST)\n"
                       "    def kern(self):\n"
                       "        pass\n"),
            "7:5: Function 'kern' has func_type=InCore which implies level=CHIP_DIE, but explicit "
            "level=HOST was provided");
}

TEST(ParserErrorTest, DuplicateFunction) {
  EXPECT_EQ(ParseError(std::string(kHeader) +
                       "@pl.program\n"
                       "class P:\n"
                       "    @pl.function\n"
                       "    def f(self):\n"
                       "        pass\n"
                       "\n"
                       "    @pl.function\n"
                       "    def f(self):\n"
                       "        pass\n"),
            "11:9: function 'f' is defined more than once (GlobalVar names must be unique)");
}

TEST(ParserErrorTest, BinaryGarbage) {
  EXPECT_EQ(ParseError(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)),
            "1:8: source contains a NUL byte");
  EXPECT_EQ(ParseError("\x7f" "ELF\x02\x01\x01"), "1:1: invalid control character 0x7F");
  EXPECT_EQ(ParseError(std::string(kHeader) + "X = 1\xff\n"), "4:6: invalid UTF-8 byte 0xFF");
  EXPECT_EQ(ParseError(std::string(kHeader) + std::string("X = 1\0\n", 7)),
            "4:6: source contains a NUL byte");
}

TEST(ParserErrorTest, ConstantExpressions) {
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = 1 // 0\n"),
            "4:5: division by zero in constant expression");
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = 2 ** 64\n"),
            "4:5: integer overflow in constant expression");
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = B + 1\n"), "4:5: unknown name 'B'");
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = pl.tensor.create([4], dtype=pl.FP32)\n"),
            "4:5: this call is not a compile-time constant");
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = \"x\" + 1\n"),
            "4:5: unsupported operand types for +: 'str' and 'int'");
  std::string doubling = std::string(kHeader) + "S0 = \"abcdefgh\"\n";
  for (int i = 0; i < 30; ++i) {
    doubling += "S" + std::to_string(i + 1) + " = S" + std::to_string(i) + " + S" +
                std::to_string(i) + "\n";
  }
  EXPECT_EQ(ParseError(doubling), "22:7: string constant is too long (more than 1 MiB)");
}

TEST(ParserErrorTest, YieldRules) {
  EXPECT_EQ(ParseError(InFunction("        for i in pl.range(n):\n"
                                  "            pl.yield_()\n"
                                  "            x = 1\n")),
            "9:13: pl.yield_ must be the last statement of a loop or if body");
  EXPECT_EQ(ParseError(InFunction("        x = pl.yield_(n)\n")),
            "8:9: pl.yield_ outside of a loop or if body");
  EXPECT_EQ(ParseError(InFunction("        for i, (a,) in pl.range(n, init_values=(n,)):\n"
                                  "            b = a\n")),
            "8:9: the body of a loop with init_values must end with pl.yield_(...) of its 1 "
            "loop-carried value");
  EXPECT_EQ(ParseError(InFunction("        if n:\n            a = pl.yield_(n)\n")),
            "9:13: an if whose body yields values needs an else branch that yields the same names");
  EXPECT_EQ(ParseError(InFunction("        for (a,) in pl.while_(init_values=(n,)):\n"
                                  "            a2 = pl.yield_(a)\n")),
            "9:13: the body of a pl.while_ loop must start with pl.cond(...)");
}

TEST(ParserErrorTest, WindowBuffers) {
  EXPECT_EQ(ParseError(InFunction(
                "        w: pld.DistributedTensor[[4], pl.FP32, pld.WindowBuffer(\"buf\")] = x\n",
                "self, x: pld.DistributedTensor[[4], pl.FP32]")),
            "8:48: pld.WindowBuffer(\"buf\") does not name a window allocation made earlier in "
            "this function (expected `buf = pld.tensor.alloc_window_buffer(size)` before it)");
  EXPECT_EQ(ParseError(InFunction("        with pld.comm_domain(\"d\", devices=[], slots=[\"b\"]):\n"
                                  "            pass\n")),
            "8:54: comm_domain slot 'b' names no window allocation in this function (expected `b "
            "= pld.tensor.alloc_window_buffer(size)`)");
  EXPECT_EQ(ParseError(InFunction("        b = pld.alloc_window_buffer(4)\n"
                                  "        b = pld.alloc_window_buffer(8)\n")),
            "9:9: window buffer 'b' is allocated twice in function 'f' (first at line 8); each "
            "allocation needs its own name");
  EXPECT_EQ(ParseError(InFunction("        pld.alloc_window_buffer(4)\n")),
            "8:9: pld.alloc_window_buffer(...) must be assigned to a name, e.g. `buf = "
            "pld.tensor.alloc_window_buffer(size)`");
}

TEST(ParserErrorTest, NestingLimits) {
  // 150 nested lists are fine; 250 unary minus signs are not.
  EXPECT_EQ(ParseError(InFunction("        x = " + std::string(150, '[') + "n" +
                                  std::string(150, ']') + "\n")),
            "<no error>");
  EXPECT_EQ(ParseError(InFunction("        x = " + std::string(250, '-') + "n\n")),
            "8:212: too deeply nested (more than 200 levels)");
  std::string chain = "n";
  for (int i = 0; i < 1200; ++i) chain += " + n";
  EXPECT_EQ(ParseError(InFunction("        x = " + chain + "\n")),
            "8:13: expression is too deeply nested (more than 1000 levels)");
  std::string elifs = "        if n == 0:\n            pass\n";
  for (int i = 0; i < 250; ++i) elifs += "        elif n == 1:\n            pass\n";
  EXPECT_EQ(ParseError(InFunction(elifs)), "404:20: too deeply nested (more than 200 levels)");
}

}  // namespace
}  // namespace pto::parser
