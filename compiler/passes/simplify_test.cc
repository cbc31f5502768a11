// Simplify (spec §3.13): folding with Python semantics, folding inside types,
// loop bounds and alloc sizes, constant propagation, dead-scalar removal.
#include "compiler/passes/simplify.h"

#include <string>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

using ir::BinaryOp;
using ir::DataType;
using ir::ExprPtr;

constexpr char kHeader[] =
    "import pypto.language as pl\n"
    "import pypto.language.distributed as pld\n"
    "\n"
    "@pl.program\n"
    "class P:\n";

ir::ProgramPtr Parse(const std::string& body) {
  auto p = parser::ParseProgramText("t.pto", kHeader + body);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

ir::ProgramPtr Simplified(const ir::ProgramPtr& p) {
  SimplifyPass pass;
  auto out = pass.Run(p);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return nullptr;
  absl::Status v = ir::VerifyProgram(*out);
  EXPECT_TRUE(v.ok()) << v << "\n" << ir::PrintProgram(*out);
  // The output re-parses, and Simplify is idempotent.
  auto again = parser::ParseProgramText("o.pto", ir::PrintProgram(*out));
  EXPECT_TRUE(again.ok()) << again.status();
  auto twice = pass.Run(*out);
  EXPECT_TRUE(twice.ok() && *twice == *out) << "second run changed the program";
  return *out;
}

// The printed function `name` after Simplify.
std::string Lowered(const std::string& body, const std::string& name) {
  ir::ProgramPtr p = Parse(body);
  if (p == nullptr) return "";
  ir::ProgramPtr out = Simplified(p);
  return out ? ir::PrintFunction(out->GetFunction(name)) : "";
}

// The printed fold of `lhs op rhs`, or "none".
std::string Fold(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
  auto e = ir::MakeBinary(op, std::move(lhs), std::move(rhs));
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return "";
  ExprPtr c = FoldConstantExpr(*e);
  return c ? ir::PrintExpr(c) : "none";
}

ExprPtr I(int64_t v) { return ir::ConstIndex(v); }
ExprPtr I8(int64_t v) { return ir::MakeConstInt(v, DataType::kInt8); }
ExprPtr F(double v) { return ir::MakeConstFloat(v); }

TEST(SimplifyFoldTest, IntegerFloorDivisionAndModuloFollowPython) {
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, I(-7), I(2)), "-4");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, I(-7), I(2)), "1");
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, I(7), I(-2)), "-4");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, I(7), I(-2)), "-1");
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, I(-8), I(2)), "-4");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, I(-8), I(-3)), "-2");
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, I(7), I(2)), "3");
}

TEST(SimplifyFoldTest, DivisionByZeroIsNotFolded) {
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, I(5), I(0)), "none");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, I(5), I(0)), "none");
  EXPECT_EQ(Fold(BinaryOp::kDiv, I(5), I(0)), "none");
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, F(5.0), F(0.0)), "none");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, F(5.0), F(0.0)), "none");
  EXPECT_EQ(Fold(BinaryOp::kPow, F(0.0), F(-1.0)), "none");
}

TEST(SimplifyFoldTest, FloatArithmeticFollowsPython) {
  EXPECT_EQ(Fold(BinaryOp::kFloorDiv, F(-7.5), F(2.0)), "-4.0");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, F(-7.5), F(2.0)), "0.5");
  EXPECT_EQ(Fold(BinaryOp::kFloorMod, F(7.5), F(-2.0)), "-0.5");
  EXPECT_EQ(Fold(BinaryOp::kMul, F(1.5), F(2.0)), "3.0");
  EXPECT_EQ(Fold(BinaryOp::kDiv, I(7), I(2)), "3.5");  // int / int is a float
  EXPECT_EQ(Fold(BinaryOp::kAdd, I(1), F(0.5)), "1.5");
  EXPECT_EQ(Fold(BinaryOp::kPow, F(-8.0), F(0.5)), "none");  // complex in Python
}

TEST(SimplifyFoldTest, IntegerOverflowAndOutOfRangeResultsAreNotFolded) {
  EXPECT_EQ(Fold(BinaryOp::kMul, I(int64_t{1} << 62), I(4)), "none");
  EXPECT_EQ(Fold(BinaryOp::kAdd, I8(100), I8(100)), "none");
  EXPECT_EQ(Fold(BinaryOp::kAdd, I8(100), I8(27)), "pl.const(127, pl.INT8)");
  EXPECT_EQ(Fold(BinaryOp::kPow, I(2), I(10)), "1024");
  EXPECT_EQ(Fold(BinaryOp::kPow, I(2), I(64)), "none");
  EXPECT_EQ(Fold(BinaryOp::kPow, I(2), I(-1)), "none");
  EXPECT_EQ(Fold(BinaryOp::kShl, I(1), I(-1)), "none");
  EXPECT_EQ(Fold(BinaryOp::kShl, I(3), I(4)), "48");
  EXPECT_EQ(Fold(BinaryOp::kShr, I(-17), I(2)), "-5");
}

TEST(SimplifyFoldTest, ComparisonsLogicBitsMinMax) {
  EXPECT_EQ(Fold(BinaryOp::kLt, I(3), I(4)), "True");
  EXPECT_EQ(Fold(BinaryOp::kEq, I(2), F(2.0)), "True");
  EXPECT_EQ(Fold(BinaryOp::kAnd, ir::MakeConstBool(true), ir::MakeConstBool(false)), "False");
  EXPECT_EQ(Fold(BinaryOp::kBitXor, I(6), I(3)), "5");
  EXPECT_EQ(Fold(BinaryOp::kMin, I(-2), I(3)), "-2");
  EXPECT_EQ(Fold(BinaryOp::kMax, F(-2.0), F(3.0)), "3.0");
}

TEST(SimplifyFoldTest, UnaryAndCast) {
  auto neg = ir::MakeUnary(ir::UnaryOp::kNeg, I(5));
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(ir::PrintExpr(FoldConstantExpr(*neg)), "-5");
  auto cast = std::make_shared<ir::Cast>(F(-2.7), DataType::kInt32);
  EXPECT_EQ(ir::PrintExpr(FoldConstantExpr(cast)), "pl.const(-2, pl.INT32)");
  auto narrow = std::make_shared<ir::Cast>(I(300), DataType::kInt8);
  EXPECT_EQ(FoldConstantExpr(narrow), nullptr);
}

TEST(SimplifyTest, UnchangedProgramIsTheSameObject) {
  ir::ProgramPtr p = Parse(R"(
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        m = n + 1
        return m
)");
  SimplifyPass pass;
  auto out = pass.Run(p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, p);
}

TEST(SimplifyTest, FoldsAndPropagatesScalarConstants) {
  EXPECT_EQ(Lowered(R"(
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], pl.Scalar[pl.FP32], pl.Scalar[pl.INDEX]]:
        a = -7 // 2
        b = -7 % 2
        c = a * b + n
        d = 1.5 * 2.0
        e = 5 // 0
        g = n + 0
        return a, c, e, d, g
)", "f"), R"pto(    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], pl.Scalar[pl.FP32], pl.Scalar[pl.INDEX]]:
        c: pl.Scalar[pl.INDEX] = -4 + n
        e: pl.Scalar[pl.INDEX] = 5 // 0
        g: pl.Scalar[pl.INDEX] = n
        return -4, c, e, 3.0, g
)pto");
}

TEST(SimplifyTest, FoldsShapesLoopBoundsAndAllocSizes) {
  EXPECT_EQ(Lowered(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, n: pl.Scalar[pl.INDEX]):
        rows = 4 * 16
        t = pl.tensor.create([rows, 2 * 8], dtype=pl.FP32)
        u = pl.tensor.create([n * 2, rows // 3], dtype=pl.FP32)
        for i in pl.range(2 * 3, rows + n, 10 - 9):
            v = pl.tensor.create([i, 8 - 4], dtype=pl.FP32)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        nbytes = 16 * 4
        buf = pld.alloc_window_buffer(nbytes * 2)
        data = pld.window(buf, [16 * 2], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(r * 1, device=r)
)", "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, n: pl.Scalar[pl.INDEX]):
        t: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.create([64, 16], dtype=pl.FP32)
        u: pl.Tensor[[n * 2, 21], pl.FP32] = pl.tensor.create([n * 2, 21], dtype=pl.FP32)
        for i in pl.range(6, 64 + n):
            v: pl.Tensor[[i, 4], pl.FP32] = pl.tensor.create([i, 4], dtype=pl.FP32)
)pto");
}

// A slice's extent written `k0 + 128 - k0` (PyPTO's `a[:, k0 : k0 + 128]`)
// is the constant 128 whatever k0 is; other differences stay.
TEST(SimplifyTest, CancelsAVarAddedAndSubtracted) {
  EXPECT_EQ(Lowered(R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 512], pl.FP32], j: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]):
        k0 = j * 128
        s = pl.tensor.slice(a, [64, k0 + 128 - k0], [0, k0])
        t = pl.tensor.slice(a, [64 + n - n, 8 + k0 - k0], [0, 0])
        u = pl.tensor.slice(a, [n - k0 + 0, 8], [0, 0])
)", "k"), R"pto(    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 512], pl.FP32], j: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]):
        k0: pl.Scalar[pl.INDEX] = j * 128
        s: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.slice(a, [64, 128], [0, k0])
        t: pl.Tensor[[64, 8], pl.FP32] = pl.tensor.slice(a, [64, 8], [0, 0])
        u: pl.Tensor[[n - k0, 8], pl.FP32] = pl.tensor.slice(a, [n - k0, 8], [0, 0])
)pto");
}

TEST(SimplifyTest, FoldsAllocSizesAndWindowShapesInHost) {
  EXPECT_EQ(Lowered(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, n: pl.Scalar[pl.INDEX]):
        pass

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        nbytes = 16 * 4
        buf = pld.alloc_window_buffer(nbytes * 2)
        data = pld.window(buf, [16 * 2], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(r * 1, device=r)
)", "host"), R"pto(    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        buf: pl.Ptr = pld.tensor.alloc_window_buffer(128)
        data: pld.DistributedTensor[[32], pl.FP32] = pld.tensor.window(buf, [32], dtype=pl.FP32)
        for r in pl.range(pld.system.world_size()):
            self.chip(r, device=r)
)pto");
}

TEST(SimplifyTest, FoldsTensorViewsInParamTypes) {
  EXPECT_EQ(Lowered(R"(
    @pl.function
    def f(self, x: pl.Tensor[[8, 2 * 4], pl.FP32, pl.TensorView(stride=[2 * 4, 1], valid_shape=[8, 3 + 3])]):
        pass
)", "f"), R"pto(    @pl.function
    def f(self, x: pl.Tensor[[8, 8], pl.FP32, pl.TensorView(stride=[8, 1], valid_shape=[8, 6])]):
        pass
)pto");
}

TEST(SimplifyTest, RemovesOnlyUnusedSideEffectFreeScalars) {
  EXPECT_EQ(Lowered(R"(
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[4], pl.FP32], task: pl.Scalar[pl.TASK_ID]):
        keep_task = task
        a = n * 2
        b = a + 1
        ws = pld.system.world_size()
        used = n - 1
        y = pl.tensor.create([used], dtype=pl.FP32)
        for i in pl.range(n):
            dead = i * 3
)", "host"), R"pto(    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[4], pl.FP32], task: pl.Scalar[pl.TASK_ID]):
        keep_task: pl.Scalar[pl.TASK_ID] = task
        ws: pl.Scalar[pl.INT64] = pld.system.world_size()
        used: pl.Scalar[pl.INDEX] = n - 1
        y: pl.Tensor[[used], pl.FP32] = pl.tensor.create([used], dtype=pl.FP32)
        for i in pl.range(n):
            pass
)pto");
}

}  // namespace
}  // namespace pto::passes
