#include "compiler/ir/verifier.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/support/diagnostics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

class VerifierTest : public ::testing::Test {
 protected:
  // Spans point into this file; only line:col matter here.
  Span At(int line, int col) { return Span(file_, line, col, line, col + 1); }

  static ProgramPtr Prog(std::vector<FunctionPtr> functions) {
    absl::StatusOr<ProgramPtr> p = Program::Create(std::move(functions), "P");
    EXPECT_TRUE(p.ok()) << p.status();
    return *p;
  }

  static FunctionPtr Build(FunctionBuilder& fb) {
    absl::StatusOr<FunctionPtr> f = fb.Build();
    EXPECT_TRUE(f.ok()) << f.status();
    return *f;
  }

  static void ExpectError(const absl::Status& s, int line, int col, const std::string& message) {
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(IsUserError(s)) << s;
    EXPECT_EQ(std::string(s.message()), message);
    std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s);
    ASSERT_TRUE(loc.has_value()) << s;
    EXPECT_EQ(loc->path, "prog.pto");
    EXPECT_EQ(loc->line, line);
    EXPECT_EQ(loc->col, col);
  }

  TypePtr T() { return TensorOf({64}, DataType::kFP32); }
  TypePtr Idx() { return ScalarOf(DataType::kIndex); }
  CallPtr Add(ExprPtr a, ExprPtr b, Span span) {
    return MakeOpCall("pl.tensor.add", {std::move(a), std::move(b)}, T(), {}, {}, span);
  }
  static StmtPtr Seq(std::vector<StmtPtr> s) { return std::make_shared<SeqStmts>(std::move(s)); }
  static StmtPtr Yield(std::vector<ExprPtr> v, Span span = Span()) {
    return std::make_shared<YieldStmt>(std::move(v), std::move(span));
  }
  static StmtPtr Assign(VarPtr v, ExprPtr e, Span span) {
    return std::make_shared<AssignStmt>(std::move(v), std::move(e), std::move(span));
  }

  SourceFilePtr file_ = std::make_shared<SourceFile>("prog.pto", "# test program\n");
};

// A well-formed program exercising every scoping rule.
TEST_F(VerifierTest, AcceptsWellFormedProgram) {
  FunctionBuilder chip("chip", FunctionType::kOrchestration);
  VarPtr a = chip.Param("a", T());
  chip.Param("ctx", CommCtxType::Get());  // bound later; callers may omit it
  chip.Return({a});

  FunctionBuilder host("host");
  host.SetLevel(Level::kHost).SetRole(Role::kOrchestrator);
  VarPtr n = host.Param("n", Idx());
  auto dyn = std::make_shared<TensorType>(std::vector<ExprPtr>{n}, DataType::kFP32);
  VarPtr x = host.Param("x", dyn);  // its type names another param
  VarPtr buf = host.Let(
      "buf", MakeOpCall("pld.tensor.alloc_window_buffer", {ConstIndex(256)}, PtrType::Get()));
  auto wb = std::make_shared<WindowBuffer>(buf, ConstIndex(256));
  // The var may be more specific than the value (window buffer bound).
  VarPtr data =
      host.Let("data", DistTensorOf({64}, DataType::kFP32, wb),
               MakeOpCall("pld.tensor.window", {buf}, DistTensorOf({64}, DataType::kFP32)));
  std::vector<VarPtr> out =
      host.For("r", ConstIndex(0), n, ConstIndex(1), {{"acc", x}},
               [&](const VarPtr& r, const std::vector<IterArgPtr>& acc) {
                 host.Eval(MakeGlobalCall("chip", {x}, T(), {{"device", ExprPtr(r)}}));
                 ExprPtr c = host.Binary(BinaryOp::kLt, r, n);
                 std::vector<VarPtr> z = host.If(
                     c, [&] { return std::vector<ExprPtr>{acc[0]}; },
                     [&] { return std::vector<ExprPtr>{x}; }, {"z"});
                 return std::vector<ExprPtr>{z[0]};
               });
  // A while loop whose condition reads its iter arg.
  auto w = std::make_shared<IterArg>("w", Idx(), ConstIndex(0));
  VarPtr w_out = MakeVar("w_out", Idx());
  host.Emit(std::make_shared<WhileStmt>(
      *MakeBinary(BinaryOp::kLt, w, n), std::vector<IterArgPtr>{w},
      Seq({Yield({*MakeBinary(BinaryOp::kAdd, w, ConstIndex(1))})}), std::vector<VarPtr>{w_out}));
  host.Emit(std::make_shared<CommDomainScopeStmt>(
      "comm_d0", std::vector<int64_t>{}, std::vector<WindowBufferPtr>{wb},
      Seq({Assign(MakeVar("inner", Idx()), w_out, Span())})));
  host.Return({out[0], data});
  EXPECT_TRUE(VerifyProgram(Prog({Build(chip), Build(host)})).ok())
      << VerifyProgram(Prog({Build(chip), Build(host)}));
}

TEST_F(VerifierTest, UseBeforeDefinition) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  VarPtr b = MakeVar("b", T());
  VarPtr a = fb.Let("a", Add(x, b, At(2, 9)), At(2, 5));
  fb.Emit(Assign(b, Add(x, x, At(3, 9)), At(3, 5)));
  fb.Return({a});
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 9, "use of 'b' before its definition");
}

TEST_F(VerifierTest, UndefinedVariable) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Return({x, MakeVar("ghost", T())}, At(4, 5));
  fb.SetReturnTypes({T(), T()});
  ExpectError(VerifyProgram(Prog({Build(fb)})), 4, 5, "use of undefined variable 'ghost'");
}

TEST_F(VerifierTest, LoopBodyDefinitionNotVisibleAfterLoop) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  VarPtr y;
  fb.ForRange("i", ConstIndex(0), ConstIndex(4), ConstIndex(1),
              [&](const VarPtr&) { y = fb.Let("y", Add(x, x, At(3, 13)), At(3, 9)); });
  fb.Return({y}, At(5, 5));
  ProgramPtr p = Prog({Build(fb)});
  ExpectError(VerifyProgram(p, {.strict_scoping = true}), 5, 5,
              "'y' is defined inside a loop body and is not visible here");
  // Before SSA form an assignment's target outlives its loop (Python's
  // scoping; ConvertToSSA carries it out).
  EXPECT_TRUE(VerifyProgram(p).ok()) << VerifyProgram(p);
}

TEST_F(VerifierTest, IfBranchDefinitionNotVisibleAfterIf) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  VarPtr k = fb.Param("k", ScalarOf(DataType::kBool));
  VarPtr y;
  fb.If(
      k,
      [&] {
        y = fb.Let("y", Add(x, x, At(3, 13)), At(3, 9));
        return std::vector<ExprPtr>{};
      },
      nullptr);
  fb.Let("z", Add(y, x, At(4, 9)), At(4, 5));
  fb.Return();
  ProgramPtr p = Prog({Build(fb)});
  ExpectError(VerifyProgram(p, {.strict_scoping = true}), 4, 9,
              "'y' is defined inside an if branch and is not visible here");
  EXPECT_TRUE(VerifyProgram(p).ok()) << VerifyProgram(p);
}

TEST_F(VerifierTest, LoopVarVisibleOnlyInBody) {
  FunctionBuilder fb("f");
  VarPtr i;
  fb.ForRange("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), [&](const VarPtr& v) { i = v; });
  fb.Return({*MakeBinary(BinaryOp::kAdd, i, ConstIndex(1), At(6, 12))});
  ExpectError(VerifyProgram(Prog({Build(fb)})), 6, 12,
              "loop variable 'i' is visible only in the loop body");
}

TEST_F(VerifierTest, IterArgVisibleOnlyInBody) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  IterArgPtr acc;
  fb.For("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), {{"acc", x}},
         [&](const VarPtr&, const std::vector<IterArgPtr>& ia) {
           acc = ia[0];
           return std::vector<ExprPtr>{ia[0]};
         });
  fb.Eval(Add(acc, x, At(7, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 7, 5,
              "iter arg 'acc' is visible only in the loop body");
}

// Before ConvertToSSA a visible Var may be assigned again (here a parameter,
// inside a loop); that is a reassignment, not a second definition.
TEST_F(VerifierTest, VarReassignedWhereVisible) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T(), ParamDirection::kIn, At(1, 7));
  fb.Emit(Assign(x, Add(x, x, At(2, 9)), At(2, 5)));
  fb.ForRange("i", ConstIndex(0), ConstIndex(4), ConstIndex(1),
              [&](const VarPtr&) { fb.Emit(Assign(x, Add(x, x, At(4, 13)), At(4, 9))); });
  fb.Return();
  EXPECT_TRUE(VerifyProgram(Prog({Build(fb)})).ok());
}

// A Var whose first definition is no longer visible cannot be defined again.
// (In SSA form, where a loop body's definitions end with it.)
TEST_F(VerifierTest, VarDefinedTwice) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  VarPtr y = MakeVar("y", T(), At(3, 9));
  fb.ForRange("i", ConstIndex(0), ConstIndex(4), ConstIndex(1),
              [&](const VarPtr&) { fb.Emit(Assign(y, Add(x, x, At(3, 13)), At(3, 9))); });
  fb.Emit(Assign(y, Add(x, x, At(4, 9)), At(4, 5)));
  fb.Return();
  ProgramPtr p = Prog({Build(fb)});
  ExpectError(VerifyProgram(p, {.strict_scoping = true}), 4, 5,
              "'y' is defined more than once (first definition at prog.pto:3:9)");
  // Before SSA form `y` is visible after the loop: a reassignment.
  EXPECT_TRUE(VerifyProgram(p).ok()) << VerifyProgram(p);
}

// An iter arg is never a reassignment target.
TEST_F(VerifierTest, IterArgAssigned) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.For("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), {{"acc", x}},
         [&](const VarPtr&, const std::vector<IterArgPtr>& ia) {
           fb.Emit(Assign(ia[0], Add(x, x, At(5, 13)), At(5, 9)));
           return std::vector<ExprPtr>{ia[0]};
         });
  fb.Return();
  absl::Status s = VerifyProgram(Prog({Build(fb)}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::StartsWith("'acc' is defined more than once"));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value()) << s;
  EXPECT_EQ(loc->line, 5);
  EXPECT_EQ(loc->col, 9);
}

TEST_F(VerifierTest, VarInAnnotationUsedBeforeDefinition) {
  FunctionBuilder fb("f");
  VarPtr m = MakeVar("m", Idx());
  auto dyn = std::make_shared<TensorType>(std::vector<ExprPtr>{m}, DataType::kFP32);
  fb.Let("y", dyn, MakeOpCall("pl.tensor.create", {}, dyn, {}, {}, At(2, 9)), At(2, 5));
  fb.Emit(Assign(m, ConstIndex(4), At(3, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5, "use of 'm' before its definition");
}

TEST_F(VerifierTest, AssignTypeMismatch) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Let("y", TensorOf({64}, DataType::kFP16), Add(x, x, At(2, 9)), At(2, 5));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "type of 'y' (pl.Tensor[[64], pl.FP16]) does not match the type of its value "
              "(pl.Tensor[[64], pl.FP32])");
}

TEST_F(VerifierTest, AssignRankAndFamilyMismatch) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Let("y", TensorOf({8, 8}, DataType::kFP32), Add(x, x, At(2, 9)), At(2, 5));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "type of 'y' (pl.Tensor[[8, 8], pl.FP32]) does not match the type of its value "
              "(pl.Tensor[[64], pl.FP32])");
  FunctionBuilder g("g");
  g.Let("s", Idx(), MakeConstInt(1, DataType::kInt32), At(3, 5));
  g.Return();
  ExpectError(VerifyProgram(Prog({Build(g)})), 3, 5,
              "type of 's' (pl.Scalar[pl.INDEX]) does not match the type of its value "
              "(pl.Scalar[pl.INT32])");
}

TEST_F(VerifierTest, DifferentWindowBuffersDisagree) {
  VarPtr p = MakeVar("p", PtrType::Get());
  auto w1 = std::make_shared<WindowBuffer>(p, ConstIndex(256));
  auto w2 = std::make_shared<WindowBuffer>(p, ConstIndex(256));
  FunctionBuilder fb("f");
  fb.Emit(Assign(p, MakeOpCall("pld.tensor.alloc_window_buffer", {ConstIndex(256)}, PtrType::Get()),
                 At(1, 5)));
  fb.Let("d", DistTensorOf({64}, DataType::kFP32, w1),
         MakeOpCall("pld.tensor.window", {p}, DistTensorOf({64}, DataType::kFP32, w2)), At(2, 5));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "type of 'd' (pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer(\"p\")]) "
              "does not match the type of its value (pld.DistributedTensor[[64], pl.FP32, "
              "pld.WindowBuffer(\"p\")])");
}

TEST_F(VerifierTest, IfConditionMustBeScalar) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T(), ParamDirection::kIn, At(1, 7));
  fb.Emit(std::make_shared<IfStmt>(x, Seq({}), std::nullopt, std::vector<VarPtr>{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "if condition must be a scalar, got pl.Tensor[[64], pl.FP32]");
}

TEST_F(VerifierTest, WhileConditionMustBeScalar) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Emit(std::make_shared<WhileStmt>(Add(x, x, At(2, 11)), std::vector<IterArgPtr>{}, Seq({}),
                                      std::vector<VarPtr>{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 11,
              "while condition must be a scalar, got pl.Tensor[[64], pl.FP32]");
}

TEST_F(VerifierTest, ForBoundsMustBeIntegerScalars) {
  FunctionBuilder fb("f");
  fb.ForRange("i", ConstIndex(0), MakeConstFloat(4.0, DataType::kFP32, At(2, 23)), ConstIndex(1),
              nullptr, ForKind::kSequential, At(2, 5));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 23,
              "for loop stop must be an integer scalar, got pl.Scalar[pl.FP32]");
}

TEST_F(VerifierTest, LoopBodyMustEndWithYield) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  auto acc = std::make_shared<IterArg>("acc", T(), x);
  fb.Emit(std::make_shared<ForStmt>(MakeVar("i", Idx()), ConstIndex(0), ConstIndex(4),
                                    ConstIndex(1), std::vector<IterArgPtr>{acc}, Seq({}),
                                    std::vector<VarPtr>{MakeVar("r", T())}, ForKind::kSequential,
                                    AttrList{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "loop body must end with a pl.yield_ of 1 values");
}

TEST_F(VerifierTest, LoopYieldArity) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  auto acc = std::make_shared<IterArg>("acc", T(), x);
  fb.Emit(std::make_shared<ForStmt>(
      MakeVar("i", Idx()), ConstIndex(0), ConstIndex(4), ConstIndex(1),
      std::vector<IterArgPtr>{acc}, Seq({Yield({acc, x}, At(3, 9))}),
      std::vector<VarPtr>{MakeVar("r", T())}, ForKind::kSequential, AttrList{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 3, 9,
              "pl.yield_ yields 2 values but the loop has 1 iter args");
}

TEST_F(VerifierTest, LoopReturnVarCount) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  auto acc = std::make_shared<IterArg>("acc", T(), x);
  fb.Emit(std::make_shared<ForStmt>(MakeVar("i", Idx()), ConstIndex(0), ConstIndex(4),
                                    ConstIndex(1), std::vector<IterArgPtr>{acc},
                                    Seq({Yield({acc})}),
                                    std::vector<VarPtr>{MakeVar("r", T()), MakeVar("s", T())},
                                    ForKind::kSequential, AttrList{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5, "loop has 1 iter args but 2 return vars");
}

TEST_F(VerifierTest, LoopYieldType) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.For("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), {{"acc", x}},
         [&](const VarPtr&, const std::vector<IterArgPtr>&) {
           return std::vector<ExprPtr>{MakeConstInt(1, DataType::kInt32, At(3, 19))};
         });
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 3, 19,
              "type of yielded value 0 (pl.Scalar[pl.INT32]) does not match iter arg 'acc' "
              "(pl.Tensor[[64], pl.FP32])");
}

TEST_F(VerifierTest, IterArgInitType) {
  FunctionBuilder fb("f");
  auto acc = std::make_shared<IterArg>("acc", T(), ConstIndex(0, At(2, 30)));
  fb.Emit(std::make_shared<ForStmt>(MakeVar("i", Idx()), ConstIndex(0), ConstIndex(4),
                                    ConstIndex(1), std::vector<IterArgPtr>{acc},
                                    Seq({Yield({acc})}), std::vector<VarPtr>{},
                                    ForKind::kSequential, AttrList{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 30,
              "type of iter arg 'acc' (pl.Tensor[[64], pl.FP32]) does not match its init value "
              "(pl.Scalar[pl.INDEX])");
}

TEST_F(VerifierTest, ReturnVarTypeAgainstIterArg) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  auto acc = std::make_shared<IterArg>("acc", T(), x);
  fb.Emit(std::make_shared<ForStmt>(MakeVar("i", Idx()), ConstIndex(0), ConstIndex(4),
                                    ConstIndex(1), std::vector<IterArgPtr>{acc},
                                    Seq({Yield({acc})}), std::vector<VarPtr>{MakeVar("r", Idx())},
                                    ForKind::kSequential, AttrList{}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "type of return var 'r' (pl.Scalar[pl.INDEX]) does not match iter arg 'acc' "
              "(pl.Tensor[[64], pl.FP32])");
}

TEST_F(VerifierTest, IfYieldArityAndType) {
  FunctionBuilder fb("f");
  VarPtr k = fb.Param("k", ScalarOf(DataType::kBool));
  VarPtr x = fb.Param("x", T());
  fb.Emit(std::make_shared<IfStmt>(k, Seq({Yield({x})}), Seq({Yield({x, x}, At(4, 9))}),
                                   std::vector<VarPtr>{MakeVar("r", T())}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 4, 9,
              "pl.yield_ yields 2 values but the if statement has 1 return vars");

  FunctionBuilder g("g");
  k = g.Param("k", ScalarOf(DataType::kBool));
  x = g.Param("x", T());
  g.Emit(std::make_shared<IfStmt>(k, Seq({Yield({ConstIndex(0, At(3, 19))})}), Seq({Yield({x})}),
                                  std::vector<VarPtr>{MakeVar("r", T())}, At(2, 5)));
  g.Return();
  ExpectError(VerifyProgram(Prog({Build(g)})), 3, 19,
              "type of yielded value 0 (pl.Scalar[pl.INDEX]) does not match return var 'r' "
              "(pl.Tensor[[64], pl.FP32])");
}

TEST_F(VerifierTest, IfWithReturnVarsNeedsElseAndYields) {
  FunctionBuilder fb("f");
  VarPtr k = fb.Param("k", ScalarOf(DataType::kBool));
  VarPtr x = fb.Param("x", T());
  fb.Emit(std::make_shared<IfStmt>(k, Seq({Yield({x})}), std::nullopt,
                                   std::vector<VarPtr>{MakeVar("r", T())}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "if statement with 1 return values needs an else branch");

  FunctionBuilder g("g");
  k = g.Param("k", ScalarOf(DataType::kBool));
  x = g.Param("x", T());
  g.Emit(std::make_shared<IfStmt>(k, Seq({Yield({x})}), Seq({}),
                                  std::vector<VarPtr>{MakeVar("r", T())}, At(2, 5)));
  g.Return();
  ExpectError(VerifyProgram(Prog({Build(g)})), 2, 5,
              "if branch must end with a pl.yield_ of 1 values");
}

TEST_F(VerifierTest, YieldOutsideLoopOrIfBody) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.For("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), {{"acc", x}},
         [&](const VarPtr&, const std::vector<IterArgPtr>& acc) {
           fb.Yield({acc[0]}, At(3, 9));  // not the last statement
           return std::vector<ExprPtr>{acc[0]};
         });
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 3, 9,
              "pl.yield_ must be the last statement of a loop or if body");
}

TEST_F(VerifierTest, ReturnCountAndType) {
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.SetReturnTypes({T()});
  fb.Return({x, x}, At(2, 5));
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5,
              "function 'f' returns 2 values but is declared to return 1");

  FunctionBuilder g("g");
  g.SetReturnTypes({T()});
  g.Return({MakeConstInt(3, DataType::kInt32, At(3, 12))}, At(3, 5));
  ExpectError(VerifyProgram(Prog({Build(g)})), 3, 12,
              "return value 0 of function 'g' has type pl.Scalar[pl.INT32] but the declared "
              "type is pl.Tensor[[64], pl.FP32]");
}

// PyPTO's DistributedTensorType is a TensorType: a function declared to return
// a Tensor may return a window view; a different dtype is still an error.
TEST_F(VerifierTest, ReturnsWindowViewAsTensor) {
  FunctionBuilder fb("f");
  VarPtr w = fb.Param("w", DistTensorOf({64}, DataType::kFP32));
  fb.SetReturnTypes({T()});
  fb.Return({w}, At(2, 5));
  EXPECT_TRUE(VerifyProgram(Prog({Build(fb)})).ok());

  FunctionBuilder g("g");
  VarPtr v = g.Param("v", DistTensorOf({64}, DataType::kInt32));
  g.SetReturnTypes({T()});
  g.Return({v}, At(3, 5));
  ExpectError(VerifyProgram(Prog({Build(g)})), 3, 5,
              "return value 0 of function 'g' has type pld.DistributedTensor[[64], pl.INT32] but "
              "the declared type is pl.Tensor[[64], pl.FP32]");
}

TEST_F(VerifierTest, CallOfUnknownFunction) {
  FunctionBuilder fb("f");
  fb.Eval(MakeGlobalCall("nope", {}, UnknownType::Get(), {}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 2, 5, "call to unknown function 'nope'");
}

TEST_F(VerifierTest, CallArgumentCount) {
  FunctionBuilder callee("g");
  callee.Param("a", T());
  callee.Param("b", T());
  callee.Param("ctx", CommCtxType::Get());
  callee.Return();
  FunctionPtr g = Build(callee);

  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Eval(MakeFunctionCall(g, {x, x}, {}, At(2, 5)));  // ctx omitted: fine
  fb.Eval(MakeFunctionCall(g, {x}, {}, At(3, 5)));     // b missing
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb), g})), 3, 5,
              "function 'g' takes 3 arguments but 1 were given");

  FunctionBuilder h("h");
  x = h.Param("x", T());
  h.Eval(MakeFunctionCall(g, {x, x, x, x}, {}, At(4, 5)));
  h.Return();
  ExpectError(VerifyProgram(Prog({Build(h), g})), 4, 5,
              "function 'g' takes 3 arguments but 4 were given");
}

// Typed deps (PyPTO's Submit::deps_): only a pl.submit carries deps=, each
// entry a task-id variable.
TEST_F(VerifierTest, DepsAreTaskIdsOfASubmit) {
  FunctionBuilder callee("g");
  callee.Param("a", T());
  callee.Return();
  FunctionPtr g = Build(callee);
  FunctionBuilder fb("f");
  VarPtr x = fb.Param("x", T());
  fb.Eval(MakeFunctionCall(g, {x}, {{kAttrDeps, std::vector<ExprPtr>{x}}}, At(2, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb), g})), 2, 5,
              "deps= on a call that is not a pl.submit(...)");
  FunctionBuilder sb("s");
  x = sb.Param("x", T());
  sb.Eval(MakeFunctionCall(g, {x}, {{kAttrSubmit, true}, {kAttrDeps, std::vector<ExprPtr>{x}}},
                           At(3, 5)));
  sb.Return();
  ExpectError(VerifyProgram(Prog({Build(sb), g})), 3, 5,
              "pl.submit deps= entry is not a Scalar[TASK_ID] or Array[N, TASK_ID] variable");
}

TEST_F(VerifierTest, SlotInTwoCommDomainScopes) {
  VarPtr p = MakeVar("buf_a", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(p, ConstIndex(256));
  FunctionBuilder fb("host");
  fb.Emit(Assign(p, MakeOpCall("pld.tensor.alloc_window_buffer", {ConstIndex(256)}, PtrType::Get()),
                 At(1, 5)));
  fb.Emit(std::make_shared<CommDomainScopeStmt>("comm_d0", std::vector<int64_t>{0, 1},
                                                std::vector<WindowBufferPtr>{wb}, Seq({}),
                                                AttrList{}, At(2, 5)));
  fb.Emit(std::make_shared<CommDomainScopeStmt>("comm_d1", std::vector<int64_t>{},
                                                std::vector<WindowBufferPtr>{wb}, Seq({}),
                                                AttrList{}, At(3, 5)));
  fb.Return();
  ExpectError(VerifyProgram(Prog({Build(fb)})), 3, 5,
              "WindowBuffer 'buf_a' appears in multiple CommDomainScopeStmts ('comm_d0' and "
              "'comm_d1')");
}

TEST_F(VerifierTest, GlobalVarNamesUnique) {
  auto make = [&](int line) {
    FunctionBuilder fb("f", FunctionType::kOpaque, At(line, 1));
    fb.Return();
    return Build(fb);
  };
  FunctionPtr f1 = make(1);
  FunctionPtr f2 = make(5);
  // Program::Create rejects this; a pass building the Program directly may not.
  auto p = std::make_shared<const Program>(
      Program::Private{},
      std::vector<std::pair<GlobalVarPtr, FunctionPtr>>{{std::make_shared<GlobalVar>("f"), f1},
                                                        {std::make_shared<GlobalVar>("f"), f2}},
      "P", Span());
  ExpectError(VerifyProgram(p), 5, 1,
              "function 'f' is defined more than once (GlobalVar names must be unique)");

  auto q = std::make_shared<const Program>(
      Program::Private{},
      std::vector<std::pair<GlobalVarPtr, FunctionPtr>>{{std::make_shared<GlobalVar>("g"), f1}},
      "P", Span());
  ExpectError(VerifyProgram(q), 1, 1, "GlobalVar 'g' names function 'f'");
}

TEST_F(VerifierTest, FirstErrorInProgramOrderWins) {
  FunctionBuilder a("a");
  a.Return({MakeVar("u", Idx())}, At(3, 5));
  a.SetReturnTypes({Idx()});
  FunctionBuilder b("b");
  b.Return({MakeVar("v", Idx())}, At(1, 5));
  b.SetReturnTypes({Idx()});
  ExpectError(VerifyProgram(Prog({Build(b), Build(a)})), 3, 5, "use of undefined variable 'u'");
}

TEST_F(VerifierTest, VerifyFunctionAlone) {
  FunctionBuilder fb("f");
  fb.Eval(MakeGlobalCall("elsewhere", {}, UnknownType::Get()));  // not checked without a program
  fb.Return();
  EXPECT_TRUE(VerifyFunction(Build(fb)).ok());
}

TEST(TypesAgreeTest, Rules) {
  auto wb = std::make_shared<WindowBuffer>(MakeVar("p", PtrType::Get()), ConstIndex(4));
  TypePtr t = TensorOf({4}, DataType::kFP32);
  TypePtr d = DistTensorOf({4}, DataType::kFP32);
  TypePtr dw = DistTensorOf({4}, DataType::kFP32, wb);
  EXPECT_TRUE(TypesAgree(t, TensorOf({8}, DataType::kFP32)));  // shapes may be symbolic
  EXPECT_TRUE(TypesAgree(d, t));                               // more specific expected side
  EXPECT_FALSE(TypesAgree(t, d));
  EXPECT_TRUE(TypesAgree(dw, d));
  EXPECT_TRUE(TypesAgree(d, dw));
  EXPECT_FALSE(TypesAgree(t, TileOf({4}, DataType::kFP32)));
  EXPECT_TRUE(TypesAgree(PtrType::Get(), PtrType::Get()));
  EXPECT_FALSE(TypesAgree(PtrType::Get(), CommCtxType::Get()));
}

}  // namespace
}  // namespace pto::ir
