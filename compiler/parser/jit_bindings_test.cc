#include "compiler/parser/jit_bindings.h"

#include "gtest/gtest.h"

namespace pto::parser {
namespace {

TEST(JitBindingsTest, ReadsShapeAndDtype) {
  JitBindings b;
  ASSERT_TRUE(AddJitBinding("a=[128, 64]:fp16", &b).ok());
  ASSERT_TRUE(AddJitBinding("k.c=[8]", &b).ok());
  ASSERT_TRUE(AddJitBinding("d=[2,3]:pl.INT32", &b).ok());
  const TensorBinding* a = FindJitBinding(b, "any", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(a->dtype, ir::DataType::kFP16);
  EXPECT_EQ(JitBindingText(*a), "[128, 64]:FP16");
  EXPECT_EQ(FindJitBinding(b, "k", "c")->dtype, ir::DataType::kFP32);  // FP32 by default
  EXPECT_EQ(FindJitBinding(b, "other", "c"), nullptr);                  // k's only
  EXPECT_EQ(FindJitBinding(b, "f", "d")->dtype, ir::DataType::kInt32);
}

TEST(JitBindingsTest, FunctionBindingWinsOverName) {
  JitBindings b;
  ASSERT_TRUE(AddJitBinding("a=[4]", &b).ok());
  ASSERT_TRUE(AddJitBinding("k.a=[8]", &b).ok());
  EXPECT_EQ(FindJitBinding(b, "k", "a")->shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(FindJitBinding(b, "g", "a")->shape, (std::vector<int64_t>{4}));
}

TEST(JitBindingsTest, RejectsBadSpecs) {
  JitBindings b;
  auto msg = [&](const char* spec) { return std::string(AddJitBinding(spec, &b).message()); };
  EXPECT_EQ(msg("a"), "bad tensor binding 'a': no '=' (want NAME=[d0,d1,...]:DTYPE, e.g. "
                      "a=[128,128]:FP32)");
  EXPECT_NE(msg("a=128:FP32").find("the shape is written in [...]"), std::string::npos);
  EXPECT_NE(msg("a=[]").find("the shape has no dimension"), std::string::npos);
  EXPECT_NE(msg("a=[0, 4]").find("extent '0' is not a positive integer"), std::string::npos);
  EXPECT_NE(msg("a=[x]").find("extent 'x' is not a positive integer"), std::string::npos);
  EXPECT_NE(msg("a=[4]:FP99").find("unknown dtype 'FP99'"), std::string::npos);
  EXPECT_NE(msg("1a=[4]").find("'1a' is not a name"), std::string::npos);
  EXPECT_NE(msg("a.b.c=[4]").find("`param` or `function.param`"), std::string::npos);
  ASSERT_TRUE(AddJitBinding("a=[4]", &b).ok());
  EXPECT_EQ(msg("a=[8]"), "tensor 'a' is bound twice");
}

}  // namespace
}  // namespace pto::parser
