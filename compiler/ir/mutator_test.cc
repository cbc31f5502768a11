#include "compiler/ir/mutator.h"

#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/structural_equal.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

// f(n: INDEX, x: Tensor[[n, 128], FP32]):
//   for i, (acc,) in range(0, n, 1, init_values=(x,)):
//     y: Tensor[[n, 128], FP32] = pl.tensor.add(acc, x)
//     self.g(y, device=i, core_num=n)
//     yield y
//   return acc_out
struct LoopFunction {
  VarPtr n, x;
  FunctionPtr func;
};

LoopFunction MakeLoopFunction(const std::string& name = "f") {
  LoopFunction lf;
  FunctionBuilder fb(name, FunctionType::kOrchestration);
  lf.n = fb.Param("n", ScalarOf(DataType::kIndex));
  auto tensor =
      std::make_shared<TensorType>(std::vector<ExprPtr>{lf.n, ConstIndex(128)}, DataType::kFP32);
  lf.x = fb.Param("x", tensor);
  VarPtr x = lf.x;
  VarPtr n = lf.n;
  std::vector<VarPtr> out =
      fb.For("i", ConstIndex(0), n, ConstIndex(1), {{"acc", x}},
             [&](const VarPtr& i, const std::vector<IterArgPtr>& acc) {
               VarPtr y = fb.Let("y", MakeOpCall("pl.tensor.add", {acc[0], x}, tensor));
               fb.Eval(MakeGlobalCall("g", {y}, UnknownType::Get(),
                                      {{"device", ExprPtr(i)}, {"core_num", ExprPtr(n)}}));
               return std::vector<ExprPtr>{y};
             });
  fb.Return({out[0]});
  lf.func = *fb.Build();
  return lf;
}

TEST(IRMutatorTest, IdentityWhenUntouched) {
  LoopFunction lf = MakeLoopFunction();
  IRMutator m;
  EXPECT_EQ(m.MutateFunction(lf.func), lf.func);
  EXPECT_EQ(m.MutateStmt(lf.func->body()), lf.func->body());
  EXPECT_EQ(m.MutateType(lf.x->type()), lf.x->type());

  ProgramBuilder pb("P");
  pb.Add(lf.func).Add(MakeLoopFunction("h").func);
  ProgramPtr p = *pb.Build();
  EXPECT_EQ(IRMutator().MutateProgram(p), p);
}

// Rewrites ConstInt 128 to 256 everywhere.
class Widen : public IRMutator {
 protected:
  ExprPtr MutateLeafExpr(const ExprPtr& expr) override {
    if (GetConstInt(expr) == 128) return ConstIndex(256);
    return expr;
  }
};

// Rewrites `pl.tensor.add` to `pl.tensor.sub` only.
class AddToSub : public IRMutator {
 protected:
  ExprPtr MutateCall(const CallPtr& call) override {
    ExprPtr base = IRMutator::MutateCall(call);
    auto c = As<Call>(base);
    if (c->op()->name() != "pl.tensor.add") return base;
    return std::make_shared<Call>(std::make_shared<Op>("pl.tensor.sub"), c->args(), c->kwargs(),
                                  c->attrs(), c->type(), c->span());
  }
};

TEST(IRMutatorTest, ProgramRebuiltOnlyWhenAFunctionChanged) {
  LoopFunction f = MakeLoopFunction("f");
  FunctionBuilder gb("g");
  VarPtr a = gb.Param("a", ScalarOf(DataType::kIndex));
  gb.Return({a});
  FunctionPtr g = *gb.Build();
  ProgramPtr p = *ProgramBuilder("P").Add(f.func).Add(g).Build();

  ProgramPtr q = AddToSub().MutateProgram(p);
  ASSERT_NE(q, p);
  EXPECT_EQ(q->name(), "P");
  ASSERT_EQ(q->functions().size(), 2u);
  EXPECT_NE(q->functions()[0].second, f.func);
  EXPECT_EQ(q->functions()[1].second, g);                       // untouched function kept
  EXPECT_EQ(q->functions()[0].first, p->functions()[0].first);  // GlobalVars kept
  EXPECT_FALSE(StructuralEqual(p, q));
}

TEST(IRMutatorTest, ChangedTypeRebuildsEachVarOnceAndConsistently) {
  LoopFunction lf = MakeLoopFunction();
  FunctionPtr g = Widen().MutateFunction(lf.func);
  ASSERT_NE(g, lf.func);
  // The param x got a new type [n, 256] and a new object.
  VarPtr x2 = g->params()[1];
  EXPECT_NE(x2, lf.x);
  EXPECT_EQ(GetConstInt(As<TensorType>(x2->type())->shape()[1]), 256);
  // n did not change.
  EXPECT_EQ(g->params()[0], lf.n);
  // Every use of x is the one new object: the init value and the add's arg.
  auto body = As<SeqStmts>(g->body());
  auto loop = As<ForStmt>(body->stmts()[0]);
  EXPECT_EQ(loop->iter_args()[0]->init_value(), x2);
  auto assign = As<AssignStmt>(As<SeqStmts>(loop->body())->stmts()[0]);
  EXPECT_EQ(As<Call>(assign->value())->args()[1], x2);
  // The iter arg is rebuilt (new type and init value); its use follows it.
  EXPECT_EQ(As<Call>(assign->value())->args()[0], loop->iter_args()[0]);
  // The return var's new object is what the return statement uses.
  auto ret = As<ReturnStmt>(body->stmts()[1]);
  EXPECT_EQ(ret->value()[0], loop->return_vars()[0]);
  EXPECT_EQ(GetConstInt(As<TensorType>(g->return_types()[0])->shape()[1]), 256);
}

TEST(IRMutatorTest, SubstituteRewritesUsesAttrsAndTypes) {
  LoopFunction lf = MakeLoopFunction();
  FunctionPtr g = Substitute(lf.func, VarSubstMap{{lf.n.get(), ConstIndex(64)}});
  ASSERT_NE(g, lf.func);
  // n remains a param (a definition is replaced only by a Var).
  EXPECT_EQ(g->params()[0], lf.n);
  auto x2 = g->params()[1];
  EXPECT_EQ(GetConstInt(As<TensorType>(x2->type())->shape()[0]), 64);
  auto loop = As<ForStmt>(As<SeqStmts>(g->body())->stmts()[0]);
  EXPECT_EQ(GetConstInt(loop->stop()), 64);
  auto eval = As<EvalStmt>(As<SeqStmts>(loop->body())->stmts()[1]);
  auto call = As<Call>(eval->expr());
  // device=i untouched, core_num=n replaced.
  EXPECT_EQ(*GetAttr<ExprPtr>(call->attrs(), kAttrDevice), loop->loop_var());
  EXPECT_EQ(GetConstInt(*GetAttr<ExprPtr>(call->attrs(), kAttrCoreNum)), 64);
  // The loop var's type had no n: same object.
  EXPECT_EQ(loop->loop_var(), As<ForStmt>(As<SeqStmts>(lf.func->body())->stmts()[0])->loop_var());
}

TEST(IRMutatorTest, SubstituteVarByVarAtDefinitionAndUse) {
  VarPtr a = MakeVar("a", ScalarOf(DataType::kIndex));
  VarPtr b = MakeVar("b", ScalarOf(DataType::kIndex));
  VarPtr c = MakeVar("c", ScalarOf(DataType::kIndex));
  StmtPtr s = std::make_shared<SeqStmts>(std::vector<StmtPtr>{
      std::make_shared<AssignStmt>(a, *MakeBinary(BinaryOp::kAdd, c, ConstIndex(1))),
      std::make_shared<ReturnStmt>(std::vector<ExprPtr>{a})});
  StmtPtr t = Substitute(s, VarSubstMap{{a.get(), b}});
  auto seq = As<SeqStmts>(t);
  EXPECT_EQ(As<AssignStmt>(seq->stmts()[0])->var(), b);
  EXPECT_EQ(As<ReturnStmt>(seq->stmts()[1])->value()[0], b);
  // The untouched statement's value subtree is shared.
  EXPECT_EQ(As<AssignStmt>(seq->stmts()[0])->value(),
            As<AssignStmt>(As<SeqStmts>(s)->stmts()[0])->value());
}

TEST(IRMutatorTest, SubstituteOfAbsentVarIsIdentity) {
  LoopFunction lf = MakeLoopFunction();
  VarPtr other = MakeVar("other", ScalarOf(DataType::kIndex));
  EXPECT_EQ(Substitute(lf.func, VarSubstMap{{other.get(), ConstIndex(1)}}), lf.func);
  EXPECT_EQ(Substitute(lf.func->body(), VarSubstMap{}), lf.func->body());
}

TEST(IRMutatorTest, SharedWindowBufferStaysShared) {
  VarPtr buf = MakeVar("buf", PtrType::Get());
  VarPtr buf2 = MakeVar("buf2", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(buf, ConstIndex(1024));
  VarPtr a = MakeVar("a", DistTensorOf({256}, DataType::kFP32, wb));
  VarPtr b = MakeVar("b", DistTensorOf({256}, DataType::kFP32, wb));
  StmtPtr s = std::make_shared<ReturnStmt>(std::vector<ExprPtr>{a, b});
  auto r = As<ReturnStmt>(Substitute(s, VarSubstMap{{buf.get(), buf2}}));
  ASSERT_NE(r, nullptr);
  auto ta = As<DistributedTensorType>(r->value()[0]->type());
  auto tb = As<DistributedTensorType>(r->value()[1]->type());
  ASSERT_TRUE(ta->window_buffer().has_value() && tb->window_buffer().has_value());
  EXPECT_NE(*ta->window_buffer(), wb);
  EXPECT_EQ(*ta->window_buffer(), *tb->window_buffer());  // one object in, one out
  EXPECT_EQ((*ta->window_buffer())->base(), buf2);
}

// Deletes every EvalStmt.
class DropEvals : public IRMutator {
 protected:
  StmtPtr MutateEvalStmt(const std::shared_ptr<const EvalStmt>&) override { return nullptr; }
};

TEST(IRMutatorTest, NullStatementIsDeletedFromSequence) {
  LoopFunction lf = MakeLoopFunction();
  FunctionPtr g = DropEvals().MutateFunction(lf.func);
  auto loop = As<ForStmt>(As<SeqStmts>(g->body())->stmts()[0]);
  auto stmts = As<SeqStmts>(loop->body())->stmts();
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_TRUE(Is<AssignStmt>(stmts[0]));
  EXPECT_TRUE(Is<YieldStmt>(stmts[1]));
}

// Renames the function; the program re-keys it.
class Rename : public IRMutator {
 public:
  FunctionPtr MutateFunction(const FunctionPtr& f) override {
    if (f->name() != "a") return f;
    return *Function::Create("z", f->params(), f->param_directions(), f->return_types(), f->body(),
                             f->func_type());
  }
};

TEST(IRMutatorTest, RenamedFunctionIsReKeyedInOrder) {
  FunctionBuilder a("a");
  a.Return();
  FunctionBuilder b("b");
  b.Return();
  ProgramPtr p = *ProgramBuilder("P").Add(a.Build()).Add(b.Build()).Build();
  ProgramPtr q = Rename().MutateProgram(p);
  ASSERT_EQ(q->functions().size(), 2u);
  EXPECT_EQ(q->functions()[0].first->name(), "b");
  EXPECT_EQ(q->functions()[1].first->name(), "z");
  EXPECT_NE(q->GetFunction("z"), nullptr);
}

}  // namespace
}  // namespace pto::ir
