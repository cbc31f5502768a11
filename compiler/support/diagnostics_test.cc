#include "compiler/support/diagnostics.h"

#include <memory>

#include "compiler/support/status_macros.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(DiagnosticsTest, FormatsLocationLineAndCaret) {
  auto file = std::make_shared<SourceFile>("prog.pto", "x = 1\ny = foo(x)\n");
  absl::Status s = UserError(Span(file, 2, 5, 2, 8), "unknown name 'foo'");
  EXPECT_TRUE(IsUserError(s));
  EXPECT_EQ(FormatDiagnostic(s, file.get()),
            "prog.pto:2:5: error: unknown name 'foo'\ny = foo(x)\n    ^~~\n");
}

TEST(DiagnosticsTest, InternalErrorsAreDistinct) {
  auto file = std::make_shared<SourceFile>("a.pto", "z\n");
  absl::Status s = InternalError(Span(file, 1, 1, 1, 2), "broken invariant");
  EXPECT_FALSE(IsUserError(s));
  EXPECT_EQ(FormatDiagnostic(s, file.get()), "a.pto:1:1: internal error: broken invariant\nz\n^\n");
}

TEST(DiagnosticsTest, GarbageBytesInTheQuotedLineAreMasked) {
  auto file = std::make_shared<SourceFile>("bin.pto", std::string("a\x01\xff\xc3\xa9z\n"));
  absl::Status s = UserError(Span(file, 1, 2, 1, 3), "bad byte");
  // Control and invalid bytes become '?'; valid UTF-8 (e-acute) stays.
  EXPECT_EQ(FormatDiagnostic(s, file.get()), "bin.pto:1:2: error: bad byte\na??\xc3\xa9z\n ^\n");
}

TEST(DiagnosticsTest, UnknownSpanHasNoLocation) {
  absl::Status s = UserError(Span(), "no place");
  EXPECT_FALSE(GetDiagnosticLocation(s).has_value());
  EXPECT_EQ(FormatDiagnostic(s, nullptr), "error: no place\n");
}

TEST(DiagnosticsTest, PathWithColonsSurvives) {
  auto file = std::make_shared<SourceFile>("C:/odd:name.pto", "abc\n");
  auto loc = GetDiagnosticLocation(UserError(Span(file, 1, 2, 1, 3), "m"));
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->path, "C:/odd:name.pto");
  EXPECT_EQ(loc->col, 2);
}

absl::StatusOr<int> Half(int v) {
  if (v % 2 != 0) return absl::InvalidArgumentError("odd");
  return v / 2;
}

absl::StatusOr<int> Quarter(int v) {
  ASSIGN_OR_RETURN(int h, Half(v));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusMacrosTest, PropagateErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_FALSE(Quarter(6).ok());
}

}  // namespace
}  // namespace pto
