#include "compiler/ir/printer.h"

#include <memory>

#include "gtest/gtest.h"

namespace pto::ir {
namespace {

ExprPtr I(int64_t v) { return std::make_shared<ConstInt>(v); }
TypePtr Idx() { return ScalarType::Get(DataType::kIndex); }
ExprPtr Bin(BinaryOp op, ExprPtr a, ExprPtr b) {
  return std::make_shared<BinaryExpr>(op, std::move(a), std::move(b), Idx());
}
VarPtr V(std::string name, TypePtr t = Idx()) {
  return std::make_shared<Var>(std::move(name), std::move(t));
}

FunctionPtr Fn(std::string name, std::vector<VarPtr> params, std::vector<TypePtr> rets,
               std::vector<StmtPtr> body, FunctionType t = FunctionType::kOpaque) {
  std::vector<ParamDirection> dirs(params.size(), ParamDirection::kIn);
  auto f = Function::Create(std::move(name), std::move(params), std::move(dirs), std::move(rets),
                            std::make_shared<SeqStmts>(std::move(body)), t);
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

TEST(PrinterTest, PrecedenceAndNegativeLiterals) {
  auto a = V("a");
  auto b = V("b");
  EXPECT_EQ(PrintExpr(Bin(BinaryOp::kMul, Bin(BinaryOp::kAdd, a, b), I(2))), "(a + b) * 2");
  EXPECT_EQ(PrintExpr(Bin(BinaryOp::kSub, a, Bin(BinaryOp::kSub, b, I(1)))), "a - (b - 1)");
  EXPECT_EQ(PrintExpr(Bin(BinaryOp::kSub, Bin(BinaryOp::kSub, a, b), I(-1))), "a - b - -1");
  EXPECT_EQ(PrintExpr(Bin(BinaryOp::kPow, I(-2), I(2))), "(-2) ** 2");
  EXPECT_EQ(PrintExpr(std::make_shared<UnaryExpr>(UnaryOp::kNeg, I(-5), Idx())), "-(-5)");
  EXPECT_EQ(PrintExpr(Bin(BinaryOp::kMax, a, b)), "pl.max(a, b)");
  EXPECT_EQ(PrintExpr(std::make_shared<ConstInt>(3, DataType::kInt32)), "pl.const(3, pl.INT32)");
  EXPECT_EQ(PrintExpr(std::make_shared<ConstFloat>(0.1)), "0.1");
  EXPECT_EQ(PrintExpr(std::make_shared<ConstFloat>(2.0)), "2.0");
  EXPECT_EQ(PrintExpr(std::make_shared<ConstFloat>(1e30)), "1e+30");
}

TEST(PrinterTest, Types) {
  auto t = std::make_shared<TensorType>(std::vector<ExprPtr>{I(64), I(128)}, DataType::kFP32);
  EXPECT_EQ(PrintType(t), "pl.Tensor[[64, 128], pl.FP32]");
  TensorView view;
  view.layout = TensorLayout::kDN;
  view.valid_shape = {I(32), I(128)};
  auto tv = std::make_shared<TensorType>(std::vector<ExprPtr>{I(64), I(128)}, DataType::kFP16,
                                         std::nullopt, view);
  EXPECT_EQ(PrintType(tv),
            "pl.Tensor[[64, 128], pl.FP16, pl.TensorView(layout=pl.TensorLayout.DN, "
            "valid_shape=[32, 128])]");
  auto buf = V("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(buf, I(1024));
  auto dt = std::make_shared<DistributedTensorType>(std::vector<ExprPtr>{I(256)}, DataType::kFP32,
                                                    std::nullopt, std::nullopt, wb);
  EXPECT_EQ(PrintType(dt), "pld.DistributedTensor[[256], pl.FP32, pld.WindowBuffer(\"buf\")]");
  EXPECT_EQ(PrintType(std::make_shared<TupleType>(std::vector<TypePtr>{Idx(), CommCtxType::Get()})),
            "tuple[pl.Scalar[pl.INDEX], pld.CommCtx]");
}

TEST(PrinterTest, RebindKeepsNameWhenOldValueIsDead) {
  // x = a + 1; x = x * 2; return x   -> both print as `x`.
  auto a = V("a");
  auto x1 = V("x");
  auto x2 = V("x");
  auto f = Fn("f", {a}, {Idx()},
              {std::make_shared<AssignStmt>(x1, Bin(BinaryOp::kAdd, a, I(1))),
               std::make_shared<AssignStmt>(x2, Bin(BinaryOp::kMul, x1, I(2))),
               std::make_shared<ReturnStmt>(std::vector<ExprPtr>{x2})});
  EXPECT_EQ(PrintFunction(f),
            "    @pl.function\n"
            "    def f(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "        x: pl.Scalar[pl.INDEX] = a + 1\n"
            "        x: pl.Scalar[pl.INDEX] = x * 2\n"
            "        return x\n");
}

TEST(PrinterTest, RenamesWhenOldValueIsStillUsed) {
  // x = a; x' = a + 1; return x + x'  -> the second prints as x_1.
  auto a = V("a");
  auto x1 = V("x");
  auto x2 = V("x");
  auto f = Fn("f", {a}, {Idx()},
              {std::make_shared<AssignStmt>(x1, a),
               std::make_shared<AssignStmt>(x2, Bin(BinaryOp::kAdd, a, I(1))),
               std::make_shared<ReturnStmt>(std::vector<ExprPtr>{Bin(BinaryOp::kAdd, x1, x2)})});
  std::string text = PrintFunction(f);
  EXPECT_NE(text.find("x_1: pl.Scalar[pl.INDEX] = a + 1"), std::string::npos) << text;
  EXPECT_NE(text.find("return x + x_1"), std::string::npos) << text;
}

TEST(PrinterTest, ForWithIterArgsAndYield) {
  auto n = V("n");
  auto i = V("i");
  auto acc0 = V("acc0");
  auto acc = std::make_shared<IterArg>("acc", Idx(), acc0);
  auto next = V("next");
  auto out = V("acc_out");
  auto body = std::make_shared<SeqStmts>(std::vector<StmtPtr>{
      std::make_shared<AssignStmt>(next, Bin(BinaryOp::kAdd, acc, i)),
      std::make_shared<YieldStmt>(std::vector<ExprPtr>{next})});
  auto loop = std::make_shared<ForStmt>(i, I(0), n, I(1), std::vector<IterArgPtr>{acc}, body,
                                        std::vector<VarPtr>{out});
  auto f = Fn("f", {n}, {Idx()},
              {std::make_shared<AssignStmt>(acc0, I(0)), loop,
               std::make_shared<ReturnStmt>(std::vector<ExprPtr>{out})});
  EXPECT_EQ(PrintFunction(f),
            "    @pl.function\n"
            "    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "        acc0: pl.Scalar[pl.INDEX] = 0\n"
            "        for i, (acc,) in pl.range(n, init_values=(acc0,)):\n"
            "            next: pl.Scalar[pl.INDEX] = acc + i\n"
            "            acc_out = pl.yield_(next)\n"
            "        return acc_out\n");
}

TEST(PrinterTest, CommDomainScopeAndCallAttrs) {
  auto buf = V("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(buf, I(1024));
  auto size = I(1024);
  auto alloc = std::make_shared<Call>(std::make_shared<Op>("pld.tensor.alloc_window_buffer"),
                                      std::vector<ExprPtr>{size},
                                      AttrList{{"name", std::string("buf")}}, AttrList{},
                                      PtrType::Get());
  auto r = V("r");
  auto call = std::make_shared<Call>(std::make_shared<GlobalVar>("chip"), std::vector<ExprPtr>{r},
                                     AttrList{}, AttrList{{"device", ExprPtr(r)}},
                                     UnknownType::Get());
  auto scope = std::make_shared<CommDomainScopeStmt>(
      "comm_d0", std::vector<int64_t>{0, 1}, std::vector<WindowBufferPtr>{wb},
      std::make_shared<SeqStmts>(std::vector<StmtPtr>{
          std::make_shared<AssignStmt>(buf, alloc), std::make_shared<EvalStmt>(call)}));
  EXPECT_EQ(PrintStmt(scope),
            "with pld.comm_domain(\"comm_d0\", devices=[0, 1], slots=[\"buf\"]):\n"
            "    buf: pl.Ptr = pld.tensor.alloc_window_buffer(1024)\n"
            "    self.chip(r, device=r)\n");
}

}  // namespace
}  // namespace pto::ir
