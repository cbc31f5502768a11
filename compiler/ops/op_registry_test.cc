#include "compiler/ops/op_registry.h"

#include <memory>

#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::ops {
namespace {

using ir::DataType;

ir::ExprPtr Shape(std::vector<int64_t> dims) {
  std::vector<ir::ExprPtr> e;
  for (int64_t d : dims) e.push_back(std::make_shared<ir::ConstInt>(d));
  return std::make_shared<ir::MakeTuple>(std::move(e));
}

// First in this binary, before anything builds the registry: an Op node
// built by name (ir::MakeOpCall) resolves a collective's id, which the
// registry hands out from the def, all the same (ir::SetOpIdAllocator).
TEST(OpRegistryTest, CollectiveOpBuiltByNameBeforeTheRegistryHasItsId) {
  ir::Op op("pld.tensor.barrier");
  ASSERT_NE(op.id(), ir::OpId::kUnknown);
  EXPECT_EQ(OpRegistry::Global().Find(op.id()), OpRegistry::Global().Find("pld.tensor.barrier"));
  EXPECT_EQ(ir::Op("pld.tensor.no_such_op").id(), ir::OpId::kUnknown);
}

TEST(OpRegistryTest, AliasesResolveToCanonicalOp) {
  const OpRegistry& r = OpRegistry::Global();
  ASSERT_NE(r.Find("pld.window"), nullptr);
  EXPECT_EQ(r.Find("pld.window"), r.Find("pld.tensor.window"));
  EXPECT_EQ(r.Find("pld.alloc_window_buffer")->name, "pld.tensor.alloc_window_buffer");
  EXPECT_EQ(r.Find("no.such.op"), nullptr);
}

TEST(OpRegistryTest, WindowProducesUnboundDistributedTensor) {
  const OpRegistry& r = OpRegistry::Global();
  auto ptr = std::make_shared<ir::Var>("buf", ir::PtrType::Get());
  auto call = r.MakeCall("pld.window", {ptr, Shape({4, 64})}, {{"dtype", DataType::kFP32}}, {},
                         Span());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ((*call)->op()->name(), "pld.tensor.window");
  auto t = ir::As<ir::DistributedTensorType>((*call)->type());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype(), DataType::kFP32);
  EXPECT_EQ(t->shape().size(), 2u);
  EXPECT_FALSE(t->window_buffer().has_value());
}

TEST(OpRegistryTest, WindowRejectsNonPtrBuffer) {
  auto file = std::make_shared<SourceFile>("p.pto", "w = pld.window(x, [4], dtype=pl.FP32)\n");
  auto x = std::make_shared<ir::Var>("x", ir::ScalarType::Get(DataType::kInt64),
                                     Span(file, 1, 16, 1, 17));
  auto call = OpRegistry::Global().MakeCall("pld.window", {x, Shape({4})},
                                            {{"dtype", DataType::kFP32}}, {},
                                            Span(file, 1, 5, 1, 39));
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "pld.tensor.window buf must have type Ptr (output of pld.tensor.alloc_window_buffer)");
  EXPECT_EQ(GetDiagnosticLocation(call.status())->col, 16);
}

TEST(OpRegistryTest, AllocWindowBufferNeedsName) {
  auto size = std::make_shared<ir::ConstInt>(1024);
  auto call = OpRegistry::Global().MakeCall("pld.alloc_window_buffer", {size}, {}, {}, Span());
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(), "Missing kwarg 'name' for pld.tensor.alloc_window_buffer");
  auto ok = OpRegistry::Global().MakeCall("pld.alloc_window_buffer", {size},
                                          {{"name", std::string("buf")}}, {}, Span());
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ir::Is<ir::PtrType>((*ok)->type()));
}

TEST(OpRegistryTest, CollectiveReturnsTargetTypeAndRejectsAliasedInput) {
  auto dt = std::make_shared<ir::DistributedTensorType>(
      std::vector<ir::ExprPtr>{std::make_shared<ir::ConstInt>(8),
                               std::make_shared<ir::ConstInt>(64)},
      DataType::kFP32);
  auto sig_t = std::make_shared<ir::DistributedTensorType>(
      std::vector<ir::ExprPtr>{std::make_shared<ir::ConstInt>(2),
                               std::make_shared<ir::ConstInt>(1)},
      DataType::kInt32);
  auto inp = std::make_shared<ir::Var>("inp", dt);
  auto data = std::make_shared<ir::Var>("data", dt);
  auto sig = std::make_shared<ir::Var>("sig", sig_t);
  auto counts = std::make_shared<ir::Var>("counts", sig_t);
  auto recv = std::make_shared<ir::Var>("recv", sig_t);
  const OpRegistry& r = OpRegistry::Global();
  auto call = r.MakeCall("pld.tensor.all_to_all_v", {inp, data, sig, counts, recv}, {}, {}, Span());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ((*call)->type(), dt);
  auto aliased = r.MakeCall("pld.tensor.all_to_all_v", {data, data, sig, counts, recv}, {}, {},
                            Span());
  ASSERT_FALSE(aliased.ok());
  EXPECT_EQ(aliased.status().message(),
            "pld.tensor.all_to_all_v input and target must not be the same expression");
}

TEST(OpRegistryTest, BuiltinsAreInternalWithTemplateDir) {
  const OpDef* d = OpRegistry::Global().Find("builtin.tensor.all_to_all_v");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->internal_only);
  EXPECT_EQ(d->template_dir, ":pypto.runtime.builtins.collectives.all_to_all_v");
  EXPECT_EQ(d->EffectOf(1), ArgEffect::kWrite);
  EXPECT_EQ(d->EffectOf(2), ArgEffect::kReadWrite);
}

TEST(OpRegistryTest, ReshapeOfAWindowStaysAWindowOfTheSameBuffer) {
  auto buf = std::make_shared<ir::Var>("buf", ir::PtrType::Get());
  auto wb = std::make_shared<ir::WindowBuffer>(buf, std::make_shared<ir::ConstInt>(256));
  auto win = std::make_shared<ir::Var>(
      "win", std::make_shared<ir::DistributedTensorType>(
                 std::vector<ir::ExprPtr>{std::make_shared<ir::ConstInt>(8),
                                          std::make_shared<ir::ConstInt>(8)},
                 DataType::kFP32, std::nullopt, std::nullopt, wb));
  auto call = OpRegistry::Global().MakeCall("pl.tensor.reshape", {win, Shape({1, 64})}, {}, {},
                                            Span());
  ASSERT_TRUE(call.ok()) << call.status();
  auto t = ir::As<ir::DistributedTensorType>((*call)->type());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->window_buffer(), std::optional<ir::WindowBufferPtr>(wb));
  EXPECT_EQ(t->shape().size(), 2u);
  // A plain tensor reshapes to a plain tensor.
  auto plain = std::make_shared<ir::Var>(
      "t", std::make_shared<ir::TensorType>(
               std::vector<ir::ExprPtr>{std::make_shared<ir::ConstInt>(64)}, DataType::kFP32));
  auto p = OpRegistry::Global().MakeCall("pl.tensor.reshape", {plain, Shape({8, 8})}, {}, {},
                                         Span());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(ir::Is<ir::TensorType>((*p)->type()));
}

TEST(OpRegistryTest, UnknownOperatorIsLocatedUserError) {
  auto file = std::make_shared<SourceFile>("p.pto", "pl.tensor.frobnicate(x)\n");
  auto call = OpRegistry::Global().MakeCall("pl.tensor.frobnicate", {}, {}, {},
                                            Span(file, 1, 1, 1, 24));
  ASSERT_FALSE(call.ok());
  EXPECT_TRUE(IsUserError(call.status()));
  EXPECT_EQ(call.status().message(), "unknown operator 'pl.tensor.frobnicate'");
}

}  // namespace
}  // namespace pto::ops
