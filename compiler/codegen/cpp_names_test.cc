#include "compiler/codegen/cpp_names.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace pto::codegen {
namespace {

TEST(CppNamesTest, KeywordsGetATrailingUnderscore) {
  EXPECT_EQ(CppIdentifier("double"), "double_");
  EXPECT_EQ(CppIdentifier("new"), "new_");
  EXPECT_EQ(CppIdentifier("and"), "and_");
  EXPECT_EQ(CppIdentifier("co_await"), "co_await_");
  EXPECT_EQ(CppIdentifier("doubled"), "doubled");
}

TEST(CppNamesTest, OtherCharactersAndLeadingDigits) {
  EXPECT_EQ(CppIdentifier("a.b-c"), "a_b_c");
  EXPECT_EQ(CppIdentifier("1x"), "v1x");
  EXPECT_EQ(CppIdentifier(""), "v");
}

TEST(CppNamesTest, FreshNamesAreUniqueAndTaken) {
  std::set<std::string> taken = {"x"};
  EXPECT_EQ(FreshCppName("x", &taken), "x_1");
  EXPECT_EQ(FreshCppName("x", &taken), "x_2");
  EXPECT_EQ(FreshCppName("int", &taken), "int_");
  EXPECT_EQ(FreshCppName("int", &taken), "int__1");
  EXPECT_EQ(taken.count("int_"), 1u);
}

}  // namespace
}  // namespace pto::codegen
