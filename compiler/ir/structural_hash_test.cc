#include "compiler/ir/structural_hash.h"

#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/structural_equal.h"
#include "gtest/gtest.h"

namespace pto::ir {
namespace {

// g(x: Tensor[[64], FP32], k: INDEX):
//   if k < c: t = pl.tensor.mul(x, x); r = yield t  else: r = yield x
//   return r
FunctionPtr MakeFunction(const std::string& fname, const std::string& prefix, int64_t c = 4) {
  FunctionBuilder fb(fname);
  VarPtr x = fb.Param(prefix + "x", TensorOf({64}, DataType::kFP32));
  VarPtr k = fb.Param(prefix + "k", ScalarOf(DataType::kIndex));
  ExprPtr cond = fb.Binary(BinaryOp::kLt, k, ConstIndex(c));
  std::vector<VarPtr> r = fb.If(
      cond,
      [&] {
        VarPtr t = fb.Let(prefix + "t", MakeOpCall("pl.tensor.mul", {x, x}, x->type()));
        return std::vector<ExprPtr>{t};
      },
      [&] { return std::vector<ExprPtr>{x}; }, {prefix + "r"});
  fb.Return({r[0]});
  return *fb.Build();
}

TEST(StructuralHashTest, EqualTreesHashAlike) {
  FunctionPtr a = MakeFunction("f", "");
  FunctionPtr b = MakeFunction("g", "renamed_");
  ASSERT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_EQ(StructuralHash(*ProgramBuilder("P").Add(a).Build()),
            StructuralHash(*ProgramBuilder("Q").Add(b).Build()));
}

TEST(StructuralHashTest, DifferentTreesUsuallyHashApart) {
  FunctionPtr a = MakeFunction("f", "");
  FunctionPtr b = MakeFunction("f", "", 5);
  ASSERT_FALSE(StructuralEqual(a, b));
  EXPECT_NE(StructuralHash(a), StructuralHash(b));
  EXPECT_NE(StructuralHash(TypePtr(TensorOf({64}, DataType::kFP32))),
            StructuralHash(TypePtr(TensorOf({64}, DataType::kFP16))));
  EXPECT_NE(StructuralHash(ConstIndex(1)), StructuralHash(MakeConstInt(1, DataType::kInt32)));
}

TEST(StructuralHashTest, VarsHashByIndexNotAddress) {
  VarPtr x = MakeVar("x", ScalarOf(DataType::kIndex));
  VarPtr y = MakeVar("y", ScalarOf(DataType::kIndex));
  auto add = [](ExprPtr l, ExprPtr r) { return *MakeBinary(BinaryOp::kAdd, l, r); };
  // x + y and y + x are equal up to renaming: first-seen var is 0, second 1.
  ASSERT_TRUE(StructuralEqual(add(x, y), add(y, x)));
  EXPECT_EQ(StructuralHash(add(x, y)), StructuralHash(add(y, x)));
  EXPECT_NE(StructuralHash(add(x, x)), StructuralHash(add(x, y)));
  // Fresh objects, same structure: same value (no pointers involved).
  VarPtr z = MakeVar("z", ScalarOf(DataType::kIndex));
  EXPECT_EQ(StructuralHash(add(z, z)), StructuralHash(add(x, x)));
}

TEST(StructuralHashTest, IgnoresWhatEqualityIgnores) {
  auto file = std::make_shared<SourceFile>("a.pto", "x\n");
  ExprPtr e = MakeGlobalCall("g", {}, UnknownType::Get());
  StmtPtr a =
      std::make_shared<EvalStmt>(e, std::vector<std::string>{"# c"}, Span(file, 1, 1, 1, 2));
  StmtPtr b = std::make_shared<EvalStmt>(e);
  ASSERT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
}

TEST(StructuralHashTest, WindowBufferAndAttrsContribute) {
  VarPtr buf = MakeVar("buf", PtrType::Get());
  auto wb = std::make_shared<WindowBuffer>(buf, ConstIndex(1024));
  EXPECT_NE(StructuralHash(TypePtr(DistTensorOf({256}, DataType::kFP32, wb))),
            StructuralHash(TypePtr(DistTensorOf({256}, DataType::kFP32))));
  auto call = [](AttrList attrs) {
    return ExprPtr(MakeGlobalCall("g", {}, UnknownType::Get(), std::move(attrs)));
  };
  EXPECT_NE(StructuralHash(call({{"a", int64_t{1}}, {"b", int64_t{2}}})),
            StructuralHash(call({{"b", int64_t{2}}, {"a", int64_t{1}}})));
  EXPECT_EQ(StructuralHash(call({{"device", ConstIndex(1)}})),
            StructuralHash(call({{"device", ConstIndex(1)}})));
}

// Equal => same hash, over every pair of a corpus mixing shared and distinct
// vars, window buffers, memrefs and attrs.
TEST(StructuralHashTest, EqualImpliesSameHashOverACorpus) {
  auto idx = [] { return MakeVar("v", ScalarOf(DataType::kIndex)); };
  VarPtr x = idx(), y = idx(), z = idx();
  auto add = [](ExprPtr l, ExprPtr r) { return *MakeBinary(BinaryOp::kAdd, l, r); };
  auto wb = [](VarPtr base) { return std::make_shared<WindowBuffer>(base, ConstIndex(64)); };
  VarPtr p = MakeVar("p", PtrType::Get()), q = MakeVar("q", PtrType::Get());
  auto w1 = wb(p), w2 = wb(p), w3 = wb(q);
  auto dist = [](WindowBufferPtr w) { return MakeVar("d", DistTensorOf({4}, DataType::kFP32, w)); };
  auto mem = std::make_shared<MemRef>("m", MemorySpace::kUB, ConstIndex(0), 64, 1);
  auto tile = MakeVar("t", std::make_shared<TileType>(ShapeOf({4}), DataType::kFP16, mem));
  auto call = [](std::vector<ExprPtr> args, AttrList attrs) {
    return ExprPtr(MakeGlobalCall("g", std::move(args), UnknownType::Get(), std::move(attrs)));
  };
  std::vector<ExprPtr> corpus = {
      add(x, y),
      add(y, x),
      add(x, x),
      add(z, z),
      add(x, ConstIndex(1)),
      add(z, ConstIndex(1)),
      add(ConstIndex(1), x),
      call({dist(w1), dist(w1)}, {}),
      call({dist(w1), dist(w2)}, {}),
      call({dist(w2), dist(w3)}, {}),
      call({dist(w3), dist(w3)}, {}),
      call({tile, tile}, {}),
      call({tile, MakeVar("t2", tile->type())}, {}),
      call({x}, {{"device", ExprPtr(x)}}),
      call({y}, {{"device", ExprPtr(y)}}),
      call({x}, {{"device", ExprPtr(y)}}),
      call({x}, {{"device", std::vector<ExprPtr>{x, z}}}),
      call({z}, {{"device", std::vector<ExprPtr>{z, x}}}),
  };
  int equal_pairs = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    for (size_t j = 0; j < corpus.size(); ++j) {
      if (!StructuralEqual(corpus[i], corpus[j])) continue;
      if (i != j) ++equal_pairs;
      EXPECT_EQ(StructuralHash(corpus[i]), StructuralHash(corpus[j])) << i << " vs " << j;
    }
  }
  EXPECT_GE(equal_pairs, 10);  // the corpus does exercise renamings
}

}  // namespace
}  // namespace pto::ir
