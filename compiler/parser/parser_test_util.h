// Helpers shared by the parser's tests.
#ifndef PTO_COMPILER_PARSER_PARSER_TEST_UTIL_H_
#define PTO_COMPILER_PARSER_PARSER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::parser::test_util {

inline constexpr char kHeader[] =
    "import pypto.language as pl\n"
    "import pypto.language.distributed as pld\n"
    "\n";

inline ir::ProgramPtr Parse(const std::string& text) {
  auto file = std::make_shared<SourceFile>("test.pto", text);
  auto p = ParseProgram(file);
  EXPECT_TRUE(p.ok()) << FormatDiagnostic(p.status(), file.get());
  return p.ok() ? *p : nullptr;
}

// "line:col: message" of a parse error.
inline std::string ParseError(const std::string& text) {
  auto p = ParseProgramText("test.pto", text);
  if (p.ok()) return "<no error>";
  EXPECT_TRUE(IsUserError(p.status())) << p.status();
  auto loc = GetDiagnosticLocation(p.status());
  EXPECT_TRUE(loc.has_value()) << p.status();
  if (!loc) return std::string(p.status().message());
  return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
         std::string(p.status().message());
}

// One function `f` with the given body lines (8-space indented) and signature.
inline std::string InFunction(const std::string& body,
                              const std::string& sig = "self, n: pl.Scalar[pl.INDEX]",
                              const std::string& ret = "") {
  return std::string(kHeader) + "@pl.program\nclass P:\n    @pl.function\n    def f(" + sig + ")" +
         ret + ":\n" + body;
}

// print -> parse -> print is a fixed point, parse -> print -> parse is
// structurally equal, and the program verifies.
inline void ExpectRoundTrip(const ir::ProgramPtr& p) {
  ASSERT_NE(p, nullptr);
  absl::Status verified = ir::VerifyProgram(p);
  EXPECT_TRUE(verified.ok()) << verified;
  std::string printed = ir::PrintProgram(p);
  auto file = std::make_shared<SourceFile>("printed.pto", printed);
  auto again = ParseProgram(file);
  ASSERT_TRUE(again.ok()) << FormatDiagnostic(again.status(), file.get()) << printed;
  EXPECT_TRUE(ir::StructuralEqual(p, *again))
      << ir::StructuralDiff(p, *again).value_or("") << "\n"
      << printed;
  EXPECT_EQ(ir::PrintProgram(*again), printed);
}

inline std::vector<ir::StmtPtr> BodyOf(const ir::FunctionPtr& f) {
  auto seq = ir::As<ir::SeqStmts>(f->body());
  return seq ? seq->stmts() : std::vector<ir::StmtPtr>{f->body()};
}

inline std::vector<ir::StmtPtr> StmtsOf(const ir::StmtPtr& s) {
  auto seq = ir::As<ir::SeqStmts>(s);
  return seq ? seq->stmts() : std::vector<ir::StmtPtr>{s};
}

}  // namespace pto::parser::test_util

#endif  // PTO_COMPILER_PARSER_PARSER_TEST_UTIL_H_
