#include "compiler/ir/builder.h"

#include <array>
#include <string>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

TEST(BuilderTest, TypesFromIntShapes) {
  auto t = TensorOf({64, 128}, DataType::kFP32);
  ASSERT_EQ(t->shape().size(), 2u);
  EXPECT_EQ(GetConstInt(t->shape()[0]), 64);
  EXPECT_EQ(GetConstInt(t->shape()[1]), 128);
  EXPECT_EQ(As<ConstInt>(t->shape()[0])->dtype(), DataType::kIndex);
  EXPECT_EQ(t->dtype(), DataType::kFP32);
  auto wb = std::make_shared<WindowBuffer>(MakeVar("buf", PtrType::Get()), ConstIndex(1024));
  auto d = DistTensorOf({256}, DataType::kFP32, wb);
  EXPECT_EQ(*d->window_buffer(), wb);
  EXPECT_EQ(TileOf({16, 16}, DataType::kFP16)->kind(), NodeKind::kTileType);
  EXPECT_EQ(ReturnTypeOf({}), UnknownType::Get());
  EXPECT_EQ(ReturnTypeOf({t}), t);
  EXPECT_TRUE(Is<TupleType>(ReturnTypeOf({t, t})));
}

TEST(ArenaTest, MakeNodeTakesTheScopesArenaAndNodesOutliveIt) {
  EXPECT_EQ(CurrentArena(), nullptr);
  VarPtr kept;
  std::vector<ExprPtr> many;
  NodeArena* arena = nullptr;
  {
    ArenaScope scope;
    arena = scope.arena();
    EXPECT_EQ(CurrentArena(), arena);
    EXPECT_EQ(arena->ref_count(), 1);
    kept = MakeVar("x", ScalarType::Get(DataType::kInt32));
    EXPECT_EQ(arena->ref_count(), 2);  // the scope's and the node's
    // Enough nodes for several chunks; each holds one reference.
    for (int i = 0; i < 20000; ++i) many.push_back(ConstIndex(i));
    EXPECT_EQ(arena->ref_count(), 20002);
    EXPECT_GT(arena->reserved_bytes(), size_t{256} << 10);
    {
      ArenaScope inner;  // nested: a fresh arena, the outer one restored after
      EXPECT_NE(CurrentArena(), arena);
      ExprPtr temp = ConstIndex(7);
      EXPECT_EQ(inner.arena()->ref_count(), 2);
    }
    EXPECT_EQ(CurrentArena(), arena);
    // A node freed inside the scope gives its reference back.
    many.pop_back();
    EXPECT_EQ(arena->ref_count(), 20001);
  }
  EXPECT_EQ(CurrentArena(), nullptr);
  // The nodes outlive the scope (ASan checks they are still valid memory).
  EXPECT_EQ(arena->ref_count(), 20000);
  EXPECT_EQ(kept->name_hint(), "x");
  EXPECT_EQ(GetConstInt(many[1234]), 1234);
  // Outside any scope MakeNode is make_shared.
  ExprPtr heap = ConstIndex(1);
  EXPECT_EQ(arena->ref_count(), 20000);
  many.clear();
  EXPECT_EQ(arena->ref_count(), 1);
  kept.reset();  // the last node: the arena frees its chunks (LSan checks)
}

TEST(ArenaTest, LargeAllocationsGetTheirOwnChunk) {
  ArenaScope scope;
  NodeArena* arena = scope.arena();
  auto big = std::allocate_shared<std::array<char, 200000>>(
      ArenaAllocator<std::array<char, 200000>>(arena));
  big->fill(1);
  size_t after_big = arena->reserved_bytes();
  EXPECT_GE(after_big, sizeof(*big));
  // Small nodes still come from a normal chunk.
  ExprPtr small = ConstIndex(3);
  EXPECT_GT(arena->reserved_bytes(), after_big);
  EXPECT_EQ(arena->ref_count(), 3);
  big.reset();
  EXPECT_EQ(arena->ref_count(), 2);
  EXPECT_EQ(GetConstInt(small), 3);
}

TEST(BuilderTest, PromotesDtypes) {
  using DT = DataType;
  EXPECT_EQ(PromoteDataTypes(DT::kInt32, DT::kInt32), DT::kInt32);
  EXPECT_EQ(PromoteDataTypes(DT::kInt32, DT::kIndex), DT::kInt32);
  EXPECT_EQ(PromoteDataTypes(DT::kIndex, DT::kInt64), DT::kInt64);
  EXPECT_EQ(PromoteDataTypes(DT::kInt8, DT::kInt32), DT::kInt32);
  EXPECT_EQ(PromoteDataTypes(DT::kInt32, DT::kUInt32), DT::kUInt32);
  EXPECT_EQ(PromoteDataTypes(DT::kInt32, DT::kFP16), DT::kFP16);
  EXPECT_EQ(PromoteDataTypes(DT::kFP16, DT::kFP32), DT::kFP32);
  EXPECT_EQ(PromoteDataTypes(DT::kFP16, DT::kBF16), DT::kFP32);
  EXPECT_EQ(PromoteDataTypes(DT::kBool, DT::kInt8), DT::kInt8);
  EXPECT_EQ(PromoteDataTypes(DT::kTaskId, DT::kInt64), std::nullopt);
}

TEST(BuilderTest, BinaryTypeDeduction) {
  VarPtr i = MakeVar("i", ScalarOf(DataType::kInt32));
  VarPtr f = MakeVar("f", ScalarOf(DataType::kFP16));
  auto dtype = [](const absl::StatusOr<ExprPtr>& e) {
    return As<ScalarType>((*e)->type())->dtype();
  };
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kAdd, i, ConstIndex(1))), DataType::kInt32);
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kMul, i, f)), DataType::kFP16);
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kLt, i, f)), DataType::kBool);
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kAnd, i, f)), DataType::kBool);
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kDiv, i, i)), DataType::kFP32);
  EXPECT_EQ(dtype(MakeBinary(BinaryOp::kShl, i, ConstIndex(2))), DataType::kInt32);
  EXPECT_EQ(dtype(MakeUnary(UnaryOp::kNot, i)), DataType::kBool);
  EXPECT_EQ(dtype(MakeUnary(UnaryOp::kNeg, f)), DataType::kFP16);

  auto file = std::make_shared<SourceFile>("a.pto", "x + t\n");
  Span span(file, 1, 3, 1, 4);
  VarPtr t = MakeVar("t", TensorOf({4}, DataType::kFP32));
  absl::StatusOr<ExprPtr> bad = MakeBinary(BinaryOp::kAdd, i, t, span);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(IsUserError(bad.status()));
  EXPECT_EQ(bad.status().message(), "operands of '+' must be scalars");
  EXPECT_EQ(GetDiagnosticLocation(bad.status())->col, 3);
  EXPECT_EQ(MakeBinary(BinaryOp::kBitAnd, f, i).status().message(),
            "operands of '&' must be integers, got FP16 and INT32");
  VarPtr task = MakeVar("task", ScalarOf(DataType::kTaskId));
  EXPECT_EQ(MakeBinary(BinaryOp::kAdd, task, i).status().message(),
            "operands of '+' have incompatible dtypes TASK_ID and INT32");
}

TEST(BuilderTest, FunctionWithLoopAndIf) {
  FunctionBuilder fb("f", FunctionType::kOrchestration);
  VarPtr x = fb.Param("x", TensorOf({64}, DataType::kFP32), ParamDirection::kInOut);
  VarPtr n = fb.Param("n", ScalarOf(DataType::kIndex));
  std::vector<VarPtr> out =
      fb.For("i", ConstIndex(0), n, ConstIndex(1), {{"acc", x}},
             [&](const VarPtr& i, const std::vector<IterArgPtr>& acc) {
               ExprPtr even = fb.Binary(
                   BinaryOp::kEq, fb.Binary(BinaryOp::kFloorMod, i, ConstIndex(2)), ConstIndex(0));
               std::vector<VarPtr> r = fb.If(
                   even,
                   [&] {
                     return std::vector<ExprPtr>{
                         fb.Let("y", MakeOpCall("pl.tensor.add", {acc[0], x}, x->type()))};
                   },
                   [&] { return std::vector<ExprPtr>{acc[0]}; }, {"z"});
               return std::vector<ExprPtr>{r[0]};
             });
  fb.Return({out[0]});
  absl::StatusOr<FunctionPtr> f = fb.Build();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->level(), Level::kChip);
  EXPECT_EQ((*f)->param_directions()[0], ParamDirection::kInOut);
  ASSERT_EQ((*f)->return_types().size(), 1u);
  EXPECT_TRUE(StructuralEqual((*f)->return_types()[0], x->type()));

  auto body = As<SeqStmts>((*f)->body());
  ASSERT_EQ(body->stmts().size(), 2u);
  auto loop = As<ForStmt>(body->stmts()[0]);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->iter_args()[0]->init_value(), x);
  EXPECT_EQ(loop->return_vars()[0]->name_hint(), "acc_out");
  auto loop_body = As<SeqStmts>(loop->body())->stmts();
  ASSERT_EQ(loop_body.size(), 2u);
  auto if_stmt = As<IfStmt>(loop_body[0]);
  ASSERT_NE(if_stmt, nullptr);
  EXPECT_EQ(As<ScalarType>(if_stmt->condition()->type())->dtype(), DataType::kBool);
  ASSERT_TRUE(if_stmt->else_body().has_value());
  EXPECT_EQ(As<YieldStmt>(loop_body[1])->value()[0], if_stmt->return_vars()[0]);
  EXPECT_EQ(As<ReturnStmt>(body->stmts()[1])->value()[0], loop->return_vars()[0]);
}

TEST(BuilderTest, FirstErrorIsReportedByBuild) {
  FunctionBuilder fb("f");
  VarPtr t = fb.Param("t", TensorOf({4}, DataType::kFP32));
  fb.Let("u", fb.Binary(BinaryOp::kAdd, t, ConstIndex(1)));
  fb.Return();
  absl::StatusOr<FunctionPtr> f = fb.Build();
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "operands of '+' must be scalars");

  FunctionBuilder loop("g");
  loop.For("i", ConstIndex(0), ConstIndex(4), ConstIndex(1), {{"a", ConstIndex(0)}},
           [](const VarPtr&, const std::vector<IterArgPtr>&) { return std::vector<ExprPtr>{}; });
  EXPECT_EQ(loop.Build().status().message(), "loop body yields 0 values for 1 iter args");
}

TEST(BuilderTest, ProgramBuilderOrdersAndRejectsDuplicates) {
  FunctionBuilder b("b");
  b.Return();
  FunctionBuilder a("a");
  a.Eval(MakeFunctionCall(*b.Build(), {}));
  a.Return();
  absl::StatusOr<ProgramPtr> p = ProgramBuilder("P").Add(b.Build()).Add(a.Build()).Build();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->functions()[0].first->name(), "a");
  EXPECT_EQ((*p)->functions()[1].first->name(), "b");
  EXPECT_EQ((*p)->name(), "P");

  absl::StatusOr<ProgramPtr> dup = ProgramBuilder("P").Add(b.Build()).Add(b.Build()).Build();
  EXPECT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(),
            "function 'b' is defined more than once (GlobalVar names must be unique)");

  FunctionBuilder bad("bad");
  bad.Let("v", nullptr);
  absl::StatusOr<ProgramPtr> err = ProgramBuilder("P").Add(bad.Build()).Build();
  EXPECT_FALSE(err.ok());
}

TEST(BuilderTest, CallsAreTypedByTheirCallee) {
  FunctionBuilder g("g");
  VarPtr a = g.Param("a", ScalarOf(DataType::kInt32));
  g.Return({a, a});
  FunctionPtr callee = *g.Build();
  CallPtr call =
      MakeFunctionCall(callee, {MakeConstInt(1, DataType::kInt32)}, {{"device", ConstIndex(0)}});
  EXPECT_TRUE(Is<GlobalVar>(call->op()));
  EXPECT_EQ(call->op()->name(), "g");
  auto tuple = As<TupleType>(call->type());
  ASSERT_NE(tuple, nullptr);
  EXPECT_EQ(tuple->types().size(), 2u);
  EXPECT_TRUE(HasAttr(call->attrs(), kAttrDevice));
}

}  // namespace
}  // namespace pto::ir
