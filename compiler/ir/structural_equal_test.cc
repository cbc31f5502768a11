#include "compiler/ir/structural_equal.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/structural_hash.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

// f(x: Tensor[[64], FP32], n: INDEX) -> Tensor[[64], FP32]:
//   for i in range(0, n, 1) with acc = x:
//     y = pl.tensor.add(acc, x, attrs={device: i})
//     yield y
//   return acc_out
// Names are parameters so two copies can differ in names only.
FunctionPtr MakeFunction(const std::string& fname, const std::string& prefix, int64_t c = 1,
                         const std::string& file = "") {
  Span span;
  if (!file.empty()) span = Span(std::make_shared<SourceFile>(file, "x\n"), 1, 1, 1, 2);
  FunctionBuilder fb(fname, FunctionType::kOrchestration, span);
  VarPtr x = fb.Param(prefix + "x", TensorOf({64}, DataType::kFP32), ParamDirection::kIn, span);
  VarPtr n = fb.Param(prefix + "n", ScalarOf(DataType::kIndex));
  std::vector<VarPtr> out = fb.For(
      prefix + "i", ConstIndex(0), n, ConstIndex(c), {{prefix + "acc", x}},
      [&](const VarPtr& i, const std::vector<IterArgPtr>& acc) {
        VarPtr y = fb.Let(
            prefix + "y",
            MakeOpCall("pl.tensor.add", {acc[0], x}, x->type(), {}, {{"device", ExprPtr(i)}}, span),
            span);
        return std::vector<ExprPtr>{y};
      });
  fb.Return({out[0]});
  return *fb.Build();
}

TEST(StructuralEqualTest, NamesAndSpansAreIgnored) {
  FunctionPtr a = MakeFunction("f", "");
  FunctionPtr b = MakeFunction("g", "other_", 1, "b.pto");
  EXPECT_TRUE(StructuralEqual(a, b)) << *StructuralDiff(a, b);
  EXPECT_EQ(StructuralDiff(a, b), std::nullopt);
  ProgramPtr pa = *ProgramBuilder("P").Add(a).Build();
  ProgramPtr pb = *ProgramBuilder("Q").Add(b).Build();
  EXPECT_TRUE(StructuralEqual(pa, pb));
}

TEST(StructuralEqualTest, DiffNamesThePathOfTheFirstMismatch) {
  FunctionPtr a = MakeFunction("f", "");
  FunctionPtr b = MakeFunction("f", "", 2);
  EXPECT_FALSE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralDiff(a, b),
            "body.stmts[0].step: ConstInt value 1 vs 2 (in function 'f' vs 'f')");
  ProgramPtr pa = *ProgramBuilder("P").Add(a).Build();
  ProgramPtr pb = *ProgramBuilder("P").Add(b).Build();
  EXPECT_EQ(StructuralDiff(pa, pb),
            "functions[0].body.stmts[0].step: ConstInt value 1 vs 2 (in function 'f' vs 'f')");
}

TEST(StructuralEqualTest, DiffShowsSpansWhenKnown) {
  auto fa = std::make_shared<SourceFile>("a.pto", "x\n");
  auto fb = std::make_shared<SourceFile>("b.pto", "x\n");
  ExprPtr a = MakeConstInt(3, DataType::kInt32, Span(fa, 7, 12, 7, 13));
  ExprPtr b = MakeConstInt(4, DataType::kInt32, Span(fb, 7, 12, 7, 13));
  EXPECT_EQ(StructuralDiff(a, b), "<root>: ConstInt value 3 vs 4 [a.pto:7:12 vs b.pto:7:12]");
}

TEST(StructuralEqualTest, VarMappingIsBijective) {
  VarPtr x = MakeVar("x", ScalarOf(DataType::kIndex));
  VarPtr y = MakeVar("y", ScalarOf(DataType::kIndex));
  VarPtr a = MakeVar("a", ScalarOf(DataType::kIndex));
  VarPtr b = MakeVar("b", ScalarOf(DataType::kIndex));
  auto add = [](ExprPtr l, ExprPtr r) { return *MakeBinary(BinaryOp::kAdd, l, r); };
  // Free vars bind on first sight.
  EXPECT_TRUE(StructuralEqual(add(x, y), add(a, b)));
  EXPECT_TRUE(StructuralEqual(add(x, y), add(y, x)));
  EXPECT_FALSE(StructuralEqual(add(x, x), add(a, b)));  // x -> a, then x -> b
  EXPECT_FALSE(StructuralEqual(add(a, b), add(x, x)));  // a -> x, then b -> x
  EXPECT_EQ(StructuralDiff(add(x, x), add(a, b)),
            "rhs: 'x' corresponds to 'a' earlier but to 'b' here");
  EXPECT_EQ(StructuralDiff(add(a, b), add(x, x)),
            "rhs: 'x' corresponds to 'a' earlier but to 'b' here");
  // Types of vars matter at their first sight.
  VarPtr f = MakeVar("f", ScalarOf(DataType::kFP32));
  EXPECT_FALSE(StructuralEqual(ExprPtr(x), ExprPtr(f)));
}

TEST(StructuralEqualTest, DefinitionSitesBindParams) {
  // f(a, b) { return a } vs f(a, b) { return b }.
  auto make = [](int which) {
    FunctionBuilder fb("f");
    VarPtr p0 = fb.Param("p0", ScalarOf(DataType::kIndex));
    VarPtr p1 = fb.Param("p1", ScalarOf(DataType::kIndex));
    fb.Return({which == 0 ? p0 : p1});
    return *fb.Build();
  };
  EXPECT_TRUE(StructuralEqual(make(0), make(0)));
  EXPECT_FALSE(StructuralEqual(make(0), make(1)));
  EXPECT_EQ(StructuralDiff(make(0), make(1)),
            "body.stmts[0].value[0]: 'p0' corresponds to 'p0' earlier but to 'p1' here "
            "(in function 'f' vs 'f')");
}

TEST(StructuralEqualTest, WindowBufferParticipates) {
  VarPtr buf = MakeVar("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(buf, ConstIndex(1024));
  TypePtr bound = DistTensorOf({256}, DataType::kFP32, wb);
  TypePtr unbound = DistTensorOf({256}, DataType::kFP32);
  EXPECT_FALSE(StructuralEqual(bound, unbound));
  EXPECT_EQ(StructuralDiff(bound, unbound), "window_buffer: present vs absent");
  EXPECT_FALSE(StructuralEqual(TypePtr(TensorOf({256}, DataType::kFP32)), unbound));

  // Within one function, views of one buffer vs views of two buffers.
  auto host = [](bool two_buffers) {
    FunctionBuilder fb("host");
    VarPtr b0 = fb.Let(
        "b0", MakeOpCall("pld.tensor.alloc_window_buffer", {ConstIndex(1024)}, PtrType::Get()));
    VarPtr b1 = fb.Let(
        "b1", MakeOpCall("pld.tensor.alloc_window_buffer", {ConstIndex(1024)}, PtrType::Get()));
    auto w0 = std::make_shared<WindowBuffer>(b0, ConstIndex(1024));
    auto w1 = std::make_shared<WindowBuffer>(b1, ConstIndex(1024));
    TypePtr t0 = DistTensorOf({256}, DataType::kFP32, w0);
    TypePtr t1 = DistTensorOf({256}, DataType::kFP32, two_buffers ? w1 : w0);
    VarPtr v0 = fb.Let("v0", t0, MakeOpCall("pld.tensor.window", {b0}, t0));
    VarPtr v1 = fb.Let("v1", t1, MakeOpCall("pld.tensor.window", {b0}, t1));
    fb.Return({v0, v1});
    return *fb.Build();
  };
  EXPECT_TRUE(StructuralEqual(host(false), host(false)));
  EXPECT_TRUE(StructuralEqual(host(true), host(true)));
  EXPECT_FALSE(StructuralEqual(host(false), host(true)));
  EXPECT_EQ(StructuralHash(host(true)), StructuralHash(host(true)));
}

TEST(StructuralEqualTest, AttrsCompareInOrderWithExprValues) {
  VarPtr d = MakeVar("d", ScalarOf(DataType::kIndex));
  auto call = [&](AttrList attrs) {
    return ExprPtr(MakeGlobalCall("g", {}, UnknownType::Get(), std::move(attrs)));
  };
  ExprPtr ab = call({{"a", int64_t{1}}, {"b", int64_t{2}}});
  ExprPtr ba = call({{"b", int64_t{2}}, {"a", int64_t{1}}});
  EXPECT_TRUE(StructuralEqual(ab, call({{"a", int64_t{1}}, {"b", int64_t{2}}})));
  EXPECT_FALSE(StructuralEqual(ab, ba));
  EXPECT_EQ(StructuralDiff(ab, ba), "attrs[0]: key 'a' vs 'b'");
  EXPECT_FALSE(StructuralEqual(call({{"a", int64_t{1}}}), call({{"a", int64_t{2}}})));
  EXPECT_FALSE(StructuralEqual(call({{"a", int64_t{1}}}), call({{"a", true}})));
  // Expr values compare structurally, not by pointer.
  EXPECT_TRUE(
      StructuralEqual(call({{"device", ConstIndex(3)}}), call({{"device", ConstIndex(3)}})));
  EXPECT_EQ(StructuralDiff(call({{"device", ConstIndex(3)}}), call({{"device", ConstIndex(4)}})),
            "attrs['device']: ConstInt value 3 vs 4");
  EXPECT_TRUE(StructuralEqual(call({{"device", ExprPtr(d)}}),
                              call({{"device", ExprPtr(MakeVar("e", d->type()))}})));
}

TEST(StructuralEqualTest, GlobalVarsAndOpsCompareByName) {
  auto g1 = MakeGlobalCall("g", {}, UnknownType::Get());
  auto g2 = MakeGlobalCall("g", {}, UnknownType::Get());
  auto h = MakeGlobalCall("h", {}, UnknownType::Get());
  auto op = MakeOpCall("g", {}, UnknownType::Get());
  EXPECT_TRUE(StructuralEqual(ExprPtr(g1), ExprPtr(g2)));
  EXPECT_FALSE(StructuralEqual(ExprPtr(g1), ExprPtr(h)));
  EXPECT_EQ(StructuralDiff(ExprPtr(g1), ExprPtr(h)), "op: GlobalVar 'g' vs 'h'");
  EXPECT_EQ(StructuralDiff(ExprPtr(g1), ExprPtr(op)), "op: GlobalVar vs Op");
}

TEST(StructuralEqualTest, CommentsAreIgnored) {
  ExprPtr e = MakeGlobalCall("g", {}, UnknownType::Get());
  StmtPtr a = std::make_shared<EvalStmt>(e, std::vector<std::string>{"# hello"});
  StmtPtr b = std::make_shared<EvalStmt>(e);
  EXPECT_TRUE(StructuralEqual(a, b));
  StmtPtr ra = std::make_shared<ReturnStmt>(std::vector<ExprPtr>{}, std::vector<std::string>{"#"});
  StmtPtr rb = std::make_shared<ReturnStmt>(std::vector<ExprPtr>{});
  EXPECT_TRUE(StructuralEqual(ra, rb));
}

TEST(StructuralEqualTest, FunctionsCompareInProgramOrder) {
  auto ret = [](const std::string& name, int64_t v) {
    FunctionBuilder fb(name);
    fb.Return({ConstIndex(v)});
    return *fb.Build();
  };
  // Names are ignored, but the by-name order decides which pairs compare.
  ProgramPtr p = *ProgramBuilder("P").Add(ret("a", 1)).Add(ret("b", 2)).Build();
  ProgramPtr q = *ProgramBuilder("P").Add(ret("c", 1)).Add(ret("d", 2)).Build();
  ProgramPtr r = *ProgramBuilder("P").Add(ret("a", 2)).Add(ret("b", 1)).Build();
  EXPECT_TRUE(StructuralEqual(p, q));
  EXPECT_FALSE(StructuralEqual(p, r));
  ProgramPtr one = *ProgramBuilder("P").Add(ret("a", 1)).Build();
  EXPECT_EQ(StructuralDiff(p, one), "<root>: program has 2 vs 1 functions");
}

TEST(StructuralEqualTest, TypesCompareStructurally) {
  EXPECT_TRUE(StructuralEqual(TypePtr(TensorOf({64, 128}, DataType::kFP32)),
                              TypePtr(TensorOf({64, 128}, DataType::kFP32))));
  EXPECT_FALSE(StructuralEqual(TypePtr(TensorOf({64, 128}, DataType::kFP32)),
                               TypePtr(TensorOf({64, 128}, DataType::kFP16))));
  EXPECT_EQ(StructuralDiff(TypePtr(TensorOf({64, 128}, DataType::kFP32)),
                           TypePtr(TensorOf({64, 64}, DataType::kFP32))),
            "shape[1]: ConstInt value 128 vs 64");
  EXPECT_TRUE(StructuralEqual(TypePtr(PtrType::Get()), TypePtr(std::make_shared<PtrType>())));
  EXPECT_FALSE(StructuralEqual(TypePtr(PtrType::Get()), TypePtr(CommCtxType::Get())));
  TensorView v1;
  v1.stride = ShapeOf({128, 1});
  TensorView v2 = v1;
  v2.layout = TensorLayout::kDN;
  auto t1 = std::make_shared<TensorType>(ShapeOf({64, 128}), DataType::kFP32, std::nullopt, v1);
  auto t2 = std::make_shared<TensorType>(ShapeOf({64, 128}), DataType::kFP32, std::nullopt, v2);
  EXPECT_EQ(StructuralDiff(TypePtr(t1), TypePtr(t2)), "tensor_view: layout ND vs DN");
  TypePtr tup1 = std::make_shared<TupleType>(std::vector<TypePtr>{ScalarOf(DataType::kInt32)});
  TypePtr tup2 = std::make_shared<TupleType>(std::vector<TypePtr>{ScalarOf(DataType::kInt64)});
  EXPECT_EQ(StructuralDiff(tup1, tup2), "types[0]: scalar dtype INT32 vs INT64");
}

TEST(StructuralEqualTest, MemRefsCompareByFieldsThroughTheMapping) {
  auto m1 = std::make_shared<MemRef>("m1", MemorySpace::kUB, ConstIndex(0), 256, 0);
  auto m2 = std::make_shared<MemRef>("m2", MemorySpace::kUB, ConstIndex(0), 256, 0);
  auto m3 = std::make_shared<MemRef>("m3", MemorySpace::kL1, ConstIndex(0), 256, 0);
  auto tile = [](MemRefPtr m) {
    return TypePtr(std::make_shared<TileType>(ShapeOf({16, 16}), DataType::kFP16, m));
  };
  EXPECT_TRUE(StructuralEqual(tile(m1), tile(m2)));
  EXPECT_FALSE(StructuralEqual(tile(m1), tile(m3)));
  // Same memref twice vs two equal-looking memrefs.
  auto pair = [&](MemRefPtr a, MemRefPtr b) {
    return TypePtr(std::make_shared<TupleType>(std::vector<TypePtr>{tile(a), tile(b)}));
  };
  EXPECT_TRUE(StructuralEqual(pair(m1, m1), pair(m2, m2)));
  EXPECT_FALSE(StructuralEqual(pair(m1, m1), pair(m1, m2)));
}

// A tile's memory space: its own, or its MemRef's (which the printer then
// leaves out of the type), so a printed and re-parsed tile is equal.
TEST(StructuralEqualTest, TilesCompareByTheSpaceTheyLiveIn) {
  auto ub = std::make_shared<MemRef>("m", MemorySpace::kUB, ConstIndex(0), 512, 0);
  auto tile = [](std::optional<MemRefPtr> m, std::optional<MemorySpace> s) {
    return TypePtr(std::make_shared<TileType>(ShapeOf({16, 16}), DataType::kFP16, m,
                                              std::vector<ExprPtr>{}, Span(), s));
  };
  EXPECT_TRUE(StructuralEqual(tile(ub, MemorySpace::kUB), tile(ub, std::nullopt)));
  EXPECT_EQ(StructuralHash(tile(ub, MemorySpace::kUB)), StructuralHash(tile(ub, std::nullopt)));
  EXPECT_EQ(StructuralDiff(tile(std::nullopt, MemorySpace::kL0A),
                           tile(std::nullopt, MemorySpace::kL1)),
            "<root>: tile memory space Left vs Mat");
  EXPECT_FALSE(StructuralEqual(tile(std::nullopt, MemorySpace::kL0A),
                               tile(std::nullopt, std::nullopt)));
}

TEST(StructuralEqualTest, ConstantsCompareByValueAndDtype) {
  EXPECT_FALSE(StructuralEqual(MakeConstInt(1, DataType::kInt32), ConstIndex(1)));
  EXPECT_EQ(StructuralDiff(MakeConstInt(1, DataType::kInt32), ConstIndex(1)),
            "<root>: ConstInt dtype INT32 vs INDEX");
  EXPECT_TRUE(StructuralEqual(MakeConstFloat(0.5), MakeConstFloat(0.5)));
  EXPECT_FALSE(StructuralEqual(MakeConstFloat(0.5), MakeConstFloat(0.5, DataType::kFP16)));
  EXPECT_TRUE(StructuralEqual(MakeConstFloat(std::nan("")), MakeConstFloat(std::nan(""))));
  EXPECT_FALSE(StructuralEqual(MakeConstBool(true), MakeConstBool(false)));
  EXPECT_FALSE(StructuralEqual(ExprPtr(std::make_shared<ConstString>("sum")),
                               ExprPtr(std::make_shared<ConstString>("max"))));
}

TEST(StructuralEqualTest, StatementShapesMatter) {
  auto seq = [](std::vector<StmtPtr> s) { return StmtPtr(std::make_shared<SeqStmts>(s)); };
  StmtPtr r = std::make_shared<ReturnStmt>(std::vector<ExprPtr>{});
  EXPECT_FALSE(StructuralEqual(seq({r}), r));
  EXPECT_EQ(StructuralDiff(seq({r}), r), "<root>: SeqStmts vs ReturnStmt");
  EXPECT_EQ(StructuralDiff(seq({r}), seq({r, r})), "<root>: stmts: 1 vs 2 elements");
  auto scope = [&](bool manual) {
    return StmtPtr(std::make_shared<RuntimeScopeStmt>("s", manual, r));
  };
  EXPECT_FALSE(StructuralEqual(scope(true), scope(false)));
}

TEST(StructuralEqualTest, NullsAreEqualOnlyToNulls) {
  EXPECT_TRUE(StructuralEqual(ExprPtr(), ExprPtr()));
  EXPECT_FALSE(StructuralEqual(ExprPtr(), ConstIndex(1)));
  EXPECT_EQ(StructuralDiff(ExprPtr(), ConstIndex(1)), "<root>: null vs ConstInt");
}

}  // namespace
}  // namespace pto::ir
