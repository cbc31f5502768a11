#include "compiler/ir/visitor.h"

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

// Counts every visited node by kind, plus var definitions and uses by name.
class Counter : public IRVisitor {
 public:
  void VisitStmt(const StmtPtr& stmt) override {
    if (stmt != nullptr) ++kinds[stmt->kind()];
    IRVisitor::VisitStmt(stmt);
  }
  void VisitExpr(const ExprPtr& expr) override {
    if (expr != nullptr) ++kinds[expr->kind()];
    IRVisitor::VisitExpr(expr);
  }
  void VisitType(const TypePtr& type) override {
    if (type != nullptr) ++kinds[type->kind()];
    IRVisitor::VisitType(type);
  }

  std::map<NodeKind, int> kinds;
  std::map<std::string, int> defs;
  std::map<std::string, int> uses;
  std::vector<std::string> trace;

 protected:
  void VisitVarDef(const VarPtr& var) override {
    ++defs[var->name_hint()];
    trace.push_back("def " + var->name_hint());
    IRVisitor::VisitVarDef(var);
  }
  void VisitVar(const VarPtr& var) override {
    ++uses[var->name_hint()];
    trace.push_back("use " + var->name_hint());
    IRVisitor::VisitVar(var);
  }
  void VisitIterArg(const IterArgPtr& var) override {
    ++uses[var->name_hint()];
    trace.push_back("use " + var->name_hint());
    IRVisitor::VisitIterArg(var);
  }
};

// f(n: INDEX, x: Tensor[[n, 128], FP32]):
//   for i, (acc,) in range(0, n, 1, init_values=(x,)):
//     y = pl.tensor.add(acc, x)
//     self.g(y, device=i)
//     yield y
//   return acc_out
FunctionPtr MakeLoopFunction() {
  FunctionBuilder fb("f", FunctionType::kOrchestration);
  VarPtr n = fb.Param("n", ScalarOf(DataType::kIndex));
  auto tensor =
      std::make_shared<TensorType>(std::vector<ExprPtr>{n, ConstIndex(128)}, DataType::kFP32);
  VarPtr x = fb.Param("x", tensor);
  std::vector<VarPtr> out =
      fb.For("i", ConstIndex(0), n, ConstIndex(1), {{"acc", x}},
             [&](const VarPtr& i, const std::vector<IterArgPtr>& acc) {
               VarPtr y = fb.Let("y", MakeOpCall("pl.tensor.add", {acc[0], x}, tensor));
               fb.Eval(MakeGlobalCall("g", {y}, UnknownType::Get(), {{"device", ExprPtr(i)}}));
               return std::vector<ExprPtr>{y};
             });
  fb.Return({out[0]});
  return *fb.Build();
}

TEST(IRVisitorTest, CountsNodesOfAFunction) {
  Counter c;
  c.VisitFunction(MakeLoopFunction());
  EXPECT_EQ(c.kinds[NodeKind::kForStmt], 1);
  EXPECT_EQ(c.kinds[NodeKind::kAssignStmt], 1);
  EXPECT_EQ(c.kinds[NodeKind::kEvalStmt], 1);
  EXPECT_EQ(c.kinds[NodeKind::kYieldStmt], 1);
  EXPECT_EQ(c.kinds[NodeKind::kReturnStmt], 1);
  EXPECT_EQ(c.kinds[NodeKind::kSeqStmts], 2);  // function body and loop body
  EXPECT_EQ(c.kinds[NodeKind::kCall], 2);
  EXPECT_EQ(c.kinds[NodeKind::kOp], 1);
  EXPECT_EQ(c.kinds[NodeKind::kGlobalVar], 1);
  // Every definition site once.
  EXPECT_EQ(c.defs, (std::map<std::string, int>{
                        {"n", 1}, {"x", 1}, {"i", 1}, {"acc", 1}, {"y", 1}, {"acc_out", 1}}));
  // i is used by the device attr; acc by the add; y by the call and the yield.
  EXPECT_EQ(c.uses["i"], 1);
  EXPECT_EQ(c.uses["acc"], 1);
  EXPECT_EQ(c.uses["y"], 2);
  EXPECT_EQ(c.uses["acc_out"], 1);
  // x: the init value and the add. n: the stop bound, plus once inside every
  // visited [n, 128] tensor type: the defs of x, acc, y, acc_out; the uses of
  // x (2), acc, y (2), acc_out; the add's result type; the return type.
  EXPECT_EQ(c.uses["x"], 2);
  EXPECT_EQ(c.uses["n"], 1 + 12);
}

TEST(IRVisitorTest, InitValueIsVisitedOnceBeforeTheIterArgIsDefined) {
  Counter c;
  c.VisitFunction(MakeLoopFunction());
  auto pos = [&](const std::string& s) {
    for (size_t i = 0; i < c.trace.size(); ++i) {
      if (c.trace[i] == s) return static_cast<int>(i);
    }
    return -1;
  };
  // The init value x is the second use of x overall (after n in its type).
  ASSERT_GE(pos("def acc"), 0);
  ASSERT_GE(pos("use x"), 0);
  EXPECT_LT(pos("use x"), pos("def acc"));
  EXPECT_LT(pos("def i"), pos("def acc"));
  EXPECT_LT(pos("def acc"), pos("def y"));
  EXPECT_LT(pos("def y"), pos("def acc_out"));
}

TEST(IRVisitorTest, VisitsExpressionsInsideTypes) {
  VarPtr n = MakeVar("n", ScalarOf(DataType::kIndex));
  VarPtr s = MakeVar("s", ScalarOf(DataType::kIndex));
  VarPtr v = MakeVar("v", ScalarOf(DataType::kIndex));
  VarPtr base = MakeVar("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(base, ConstIndex(1024));
  auto mem = std::make_shared<MemRef>("m", MemorySpace::kDDR, ConstIndex(0), 64, 0);
  TensorView view;
  view.stride = {s, ConstIndex(1)};
  view.valid_shape = {v, ConstIndex(4)};
  auto type = std::make_shared<DistributedTensorType>(std::vector<ExprPtr>{n, ConstIndex(4)},
                                                      DataType::kFP32, mem, view, wb);
  Counter c;
  c.VisitType(type);
  EXPECT_EQ(c.uses["n"], 1);
  EXPECT_EQ(c.uses["s"], 1);
  EXPECT_EQ(c.uses["v"], 1);
  EXPECT_EQ(c.kinds[NodeKind::kMemRef], 1);
  EXPECT_EQ(c.kinds[NodeKind::kWindowBuffer], 1);
  EXPECT_EQ(c.uses["buf"], 1);  // the window buffer's base
}

TEST(IRVisitorTest, VisitsAttrExprsAndScopeSlots) {
  VarPtr base = MakeVar("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(base, ConstIndex(1024));
  VarPtr d = MakeVar("d", ScalarOf(DataType::kIndex));
  VarPtr e = MakeVar("e", ScalarOf(DataType::kIndex));
  StmtPtr body = std::make_shared<EvalStmt>(MakeGlobalCall(
      "g", {}, UnknownType::Get(),
      {{"device", ExprPtr(d)}, {"deps", std::vector<ExprPtr>{e, e}}, {"flag", true}}));
  auto scope = std::make_shared<CommDomainScopeStmt>("comm_d0", std::vector<int64_t>{},
                                                     std::vector<WindowBufferPtr>{wb}, body);
  Counter c;
  c.VisitStmt(scope);
  EXPECT_EQ(c.uses["d"], 1);
  EXPECT_EQ(c.uses["e"], 2);
  EXPECT_EQ(c.kinds[NodeKind::kWindowBuffer], 1);
  EXPECT_EQ(c.kinds[NodeKind::kCommDomainScopeStmt], 1);
}

// An override that does not call the base stops the descent.
class CallArgsSkipper : public Counter {
 protected:
  void VisitCall(const CallPtr&) override {}
};

TEST(IRVisitorTest, OverrideWithoutBaseStopsRecursion) {
  CallArgsSkipper c;
  c.VisitFunction(MakeLoopFunction());
  EXPECT_EQ(c.kinds[NodeKind::kCall], 2);
  EXPECT_EQ(c.kinds[NodeKind::kOp], 0);
  EXPECT_EQ(c.uses["i"], 0);
}

TEST(IRVisitorTest, VisitsEveryFunctionOfAProgram) {
  FunctionBuilder g("g");
  g.Return();
  ProgramBuilder pb("P");
  pb.Add(MakeLoopFunction()).Add(g.Build());
  absl::StatusOr<ProgramPtr> p = pb.Build();
  ASSERT_TRUE(p.ok()) << p.status();
  Counter c;
  c.VisitProgram(*p);
  EXPECT_EQ(c.kinds[NodeKind::kReturnStmt], 2);
}

TEST(IRVisitorTest, WhileConditionSeesIterArgsAfterTheirDefinition) {
  VarPtr x = MakeVar("x", ScalarOf(DataType::kIndex));
  auto a = std::make_shared<IterArg>("a", ScalarOf(DataType::kIndex), x);
  auto cond = *MakeBinary(BinaryOp::kLt, a, ConstIndex(10));
  auto body = std::make_shared<SeqStmts>(
      std::vector<StmtPtr>{std::make_shared<YieldStmt>(std::vector<ExprPtr>{a})});
  auto loop = std::make_shared<WhileStmt>(cond, std::vector<IterArgPtr>{a}, body,
                                          std::vector<VarPtr>{MakeVar("r", a->type())});
  Counter c;
  c.VisitStmt(loop);
  EXPECT_EQ(c.trace, (std::vector<std::string>{"use x", "def a", "use a", "use a", "def r"}));
}

}  // namespace
}  // namespace pto::ir
