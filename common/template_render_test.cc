#include "common/template_render.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(RenderTemplateTest, ReplacesEveryOccurrence) {
  auto r = RenderTemplate("using T = {{dtype_cpp}}; T x; // {{dtype_cpp}}",
                          {{"dtype_cpp", "float"}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "using T = float; T x; // float");
}

TEST(RenderTemplateTest, TextWithoutPlaceholdersIsUnchanged) {
  const std::string text = "a { b } {c} }} x\n";
  auto r = RenderTemplate(text, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, text);
}

TEST(RenderTemplateTest, AdjacentPlaceholdersAndEmptyValue) {
  auto r = RenderTemplate("{{a}}{{b}}|{{a}}", {{"a", "x"}, {"b", ""}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "x|x");
}

TEST(RenderTemplateTest, ValuesAreNotRescanned) {
  auto r = RenderTemplate("{{a}}", {{"a", "{{b}}"}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "{{b}}");
}

TEST(RenderTemplateTest, UnusedVariablesAreAllowed) {
  auto r = RenderTemplate("{{dtype_cpp}}",
                          {{"dtype_cpp", "int8_t"}, {"variant", "int8"}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "int8_t");
}

TEST(RenderTemplateTest, MissingKeyIsAnErrorWithItsLine) {
  auto r = RenderTemplate("line1\nline2 {{dtype_cpp}} {{root_cpp}}\n",
                          {{"dtype_cpp", "float"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("line 2: no value for placeholder '{{root_cpp}}'"));
}

TEST(RenderTemplateTest, UnclosedPlaceholderIsAnError) {
  auto r = RenderTemplate("ok {{dtype_cpp", {{"dtype_cpp", "float"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("line 1: '{{' without a closing '}}'"));
}

TEST(RenderTemplateTest, MalformedKeysAreErrors) {
  for (const char* text : {"{{}}", "{{ dtype_cpp }}", "{{a-b}}", "{{a\n}}"}) {
    auto r = RenderTemplate(text, {{"dtype_cpp", "float"}});
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr("malformed placeholder"))
        << text;
  }
}

TEST(ParseTemplateVarsTest, ParsesPairsAndKeepsEqualsInValues) {
  auto v = ParseTemplateVars({"dtype_cpp=float", "expr=a=b", "empty="});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->at("dtype_cpp"), "float");
  EXPECT_EQ(v->at("expr"), "a=b");
  EXPECT_EQ(v->at("empty"), "");
}

TEST(ParseTemplateVarsTest, RejectsMalformedAndRepeatedPairs) {
  EXPECT_FALSE(ParseTemplateVars({"novalue"}).ok());
  EXPECT_FALSE(ParseTemplateVars({"=x"}).ok());
  auto v = ParseTemplateVars({"a=1", "a=2"});
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("given twice"));
}

}  // namespace
}  // namespace pto
