#include "compiler/parser/lexer.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::parser {
namespace {

std::unique_ptr<TokenStream> Lex(std::string text) {
  auto ts = Tokenize(std::make_shared<SourceFile>("t.pto", std::move(text)));
  EXPECT_TRUE(ts.ok()) << ts.status();
  return ts.ok() ? std::move(*ts) : nullptr;
}

// Compact rendering: names and keywords as text, numbers as N/F:value,
// strings quoted, operators as text, structure as NL / IN / DE / END.
std::string Render(const TokenStream& ts) {
  std::string out;
  for (const Token& t : ts.tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::kEnd: out += "END"; break;
      case TokenKind::kNewline: out += "NL"; break;
      case TokenKind::kIndent: out += "IN"; break;
      case TokenKind::kDedent: out += "DE"; break;
      case TokenKind::kName:
      case TokenKind::kKeyword: out += std::string(t.text()); break;
      case TokenKind::kInt: out += "N:" + std::to_string(t.int_value); break;
      case TokenKind::kFloat: out += "F:" + std::to_string(t.float_value); break;
      case TokenKind::kString: out += "'" + std::string(t.text()) + "'"; break;
      case TokenKind::kOp: out += std::string(OpText(t.op())); break;
    }
  }
  return out;
}

// "line:col: message" of a tokenizer error.
std::string LexError(std::string text) {
  auto ts = Tokenize(std::make_shared<SourceFile>("t.pto", std::move(text)));
  if (ts.ok()) return "<no error>";
  EXPECT_TRUE(IsUserError(ts.status()));
  auto loc = GetDiagnosticLocation(ts.status());
  EXPECT_TRUE(loc.has_value()) << ts.status();
  if (!loc) return std::string(ts.status().message());
  return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
         std::string(ts.status().message());
}

TEST(LexerTest, NamesKeywordsAndOperators) {
  auto ts = Lex("x = pl.range(a) if not b else c\n");
  EXPECT_EQ(Render(*ts), "x = pl . range ( a ) if not b else c NL END");
  EXPECT_EQ(ts->tokens[0].kind, TokenKind::kName);
  EXPECT_EQ(ts->tokens[8].kind, TokenKind::kKeyword);
  EXPECT_EQ(ts->tokens[8].keyword(), Keyword::kIf);
  auto ops = Lex("a ** b // c -> d := e ... f <<= g >>= h != i == j <= k >= l **= m //= n\n");
  EXPECT_EQ(Render(*ops),
            "a ** b // c -> d := e ... f <<= g >>= h != i == j <= k >= l **= m //= n NL END");
}

TEST(LexerTest, Numbers) {
  auto ts = Lex("0 42 1_000 0x1F 0o17 0b101 1.5 1e3 .5 2. 1.5e-3 1_0.2_5\n");
  EXPECT_EQ(Render(*ts),
            "N:0 N:42 N:1000 N:31 N:15 N:5 F:1.500000 F:1000.000000 F:0.500000 F:2.000000 "
            "F:0.001500 F:10.250000 NL END");
  auto big = Lex("18446744073709551615 1e999\n");
  EXPECT_EQ(big->tokens[0].int_value, 18446744073709551615ull);
  EXPECT_TRUE(std::isinf(big->tokens[1].float_value));
}

TEST(LexerTest, Strings) {
  auto ts = Lex(R"(a = 'x' "y\n\t\"q\"" r"\d" '''tri
ple''' "\x41\u00e9\101" 'it''s')"
                "\n");
  ASSERT_EQ(ts->tokens[2].kind, TokenKind::kString);
  EXPECT_EQ(ts->tokens[2].text(), "x");
  EXPECT_EQ(ts->tokens[3].text(), "y\n\t\"q\"");
  EXPECT_EQ(ts->tokens[4].text(), "\\d");
  EXPECT_EQ(ts->tokens[5].text(), "tri\nple");
  EXPECT_EQ(ts->tokens[5].line, 1);
  EXPECT_EQ(ts->tokens[5].end_line(), 2);
  EXPECT_EQ(ts->tokens[6].text(), "A\xc3\xa9" "A");
  EXPECT_EQ(ts->tokens[7].text(), "it");  // adjacent literals are separate tokens
  EXPECT_EQ(ts->tokens[8].text(), "s");
}

TEST(LexerTest, IndentationBlocks) {
  auto ts = Lex(
      "if a:\n"
      "    b\n"
      "\n"
      "    # comment at any depth\n"
      "        \n"
      "    if c:\n"
      "        d\n"
      "e\n");
  EXPECT_EQ(Render(*ts), "if a : NL IN b NL if c : NL IN d NL DE DE e NL END");
}

TEST(LexerTest, DedentsAtEndOfFileWithoutNewline) {
  auto ts = Lex("if a:\n  if b:\n    c");
  EXPECT_EQ(Render(*ts), "if a : NL IN if b : NL IN c NL DE DE END");
}

TEST(LexerTest, ImplicitAndExplicitLineJoining) {
  auto ts = Lex(
      "f(a,\n"
      "        b,   # comment inside\n"
      "  c)\n"
      "x = 1 + \\\n"
      "      2\n"
      "y = [\n"
      "]\n");
  EXPECT_EQ(Render(*ts), "f ( a , b , c ) NL x = N:1 + N:2 NL y = [ ] NL END");
}

TEST(LexerTest, TabsAndCrlf) {
  auto ts = Lex("if a:\r\n\tb\r\n\tc\r\nd\r\n");
  EXPECT_EQ(Render(*ts), "if a : NL IN b NL c NL DE d NL END");
  EXPECT_EQ(ts->tokens[5].line, 2);
  EXPECT_EQ(ts->tokens[5].col, 2);  // the tab is one column
}

TEST(LexerTest, TokenPositions) {
  auto ts = Lex("x = foo(1)\n  \ny  =  22\n");
  // x
  EXPECT_EQ(ts->tokens[0].line, 1);
  EXPECT_EQ(ts->tokens[0].col, 1);
  EXPECT_EQ(ts->tokens[0].end_col, 2);
  // foo
  EXPECT_EQ(ts->tokens[2].col, 5);
  EXPECT_EQ(ts->tokens[2].end_col, 8);
  // 22 on line 3
  const Token& n = ts->tokens[9];
  EXPECT_EQ(n.kind, TokenKind::kInt);
  EXPECT_EQ(n.line, 3);
  EXPECT_EQ(n.col, 7);
  EXPECT_EQ(n.end_col, 9);
}

TEST(LexerTest, CommentsAreKept) {
  auto ts = Lex(
      "# first\n"
      "x = 1  # trailing\n"
      "    #  indented, two spaces\n"
      "#\n");
  ASSERT_EQ(ts->comments.size(), 4u);
  EXPECT_EQ(ts->comments[0].line, 1);
  EXPECT_TRUE(ts->comments[0].own_line);
  EXPECT_EQ(ts->comments[0].text, "first");
  EXPECT_FALSE(ts->comments[1].own_line);
  EXPECT_EQ(ts->comments[1].text, "trailing");
  EXPECT_TRUE(ts->comments[2].own_line);
  EXPECT_EQ(ts->comments[2].text, " indented, two spaces");
  EXPECT_EQ(ts->comments[3].text, "");
}

TEST(LexerTest, ByteOrderMarkIsSkipped) {
  auto ts = Lex("\xEF\xBB\xBFx = 1\n");
  EXPECT_EQ(Render(*ts), "x = N:1 NL END");
}

TEST(LexerTest, IndentationErrors) {
  EXPECT_EQ(LexError("if a:\n    b\n  c\n"),
            "3:1: unindent does not match any outer indentation level");
  EXPECT_EQ(LexError("if a:\n    b\n\tc\n"),
            "3:1: inconsistent use of tabs and spaces in indentation");
  std::string deep;
  for (int i = 0; i < 102; ++i) deep += std::string(i, ' ') + "if a:\n";
  EXPECT_EQ(LexError(deep), "102:1: too many levels of indentation (more than 100)");
}

TEST(LexerTest, StringErrors) {
  EXPECT_EQ(LexError("x = 'abc\n"), "1:5: unterminated string literal");
  EXPECT_EQ(LexError("x = '''abc\n\n"), "1:5: unterminated triple-quoted string literal");
  EXPECT_EQ(LexError("x = 'ab\\"), "1:5: unterminated string literal");
  EXPECT_EQ(LexError("x = b'ab'\n"), "1:5: unsupported Python construct: bytes literal");
  EXPECT_EQ(LexError("x = f'{a}'\n"), "1:5: unsupported Python construct: f-string");
  EXPECT_EQ(LexError("x = '\\x4'\n"), "1:6: truncated \\x escape");
  EXPECT_EQ(LexError("x = '\\ud800'\n"), "1:6: escape sequence is not a valid Unicode character");
}

TEST(LexerTest, BracketErrors) {
  EXPECT_EQ(LexError("x = f(a,\n  b\n"), "1:6: '(' was never closed");
  EXPECT_EQ(LexError("x = a)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(LexError("x = (a]\n"),
            "1:7: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  EXPECT_EQ(LexError("x = " + std::string(201, '(')),
            "1:205: too many nested parentheses (more than 200)");
}

TEST(LexerTest, NumberErrors) {
  EXPECT_EQ(LexError("x = 012\n"),
            "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix "
            "for octal integers");
  EXPECT_EQ(LexError("x = 99999999999999999999\n"), "1:5: integer literal is too large");
  EXPECT_EQ(LexError("x = 1abc\n"), "1:5: invalid decimal literal");
  EXPECT_EQ(LexError("x = 1__0\n"), "1:5: invalid decimal literal");
  EXPECT_EQ(LexError("x = 0x\n"), "1:5: invalid hexadecimal literal");
  EXPECT_EQ(LexError("x = 3j\n"), "1:5: unsupported Python construct: complex literal");
}

TEST(LexerTest, BadCharactersAndEncoding) {
  EXPECT_EQ(LexError("x = 1\ny = $\n"), "2:5: invalid character '$'");
  EXPECT_EQ(LexError("x = a ! b\n"), "1:7: invalid character '!'");
  EXPECT_EQ(LexError("x = 1\nab\x01\n"), "2:3: invalid control character 0x01");
  EXPECT_EQ(LexError(std::string("x = 1\ny = \0 2\n", 13)), "2:5: source contains a NUL byte");
  EXPECT_EQ(LexError("x = 1\n# \xff\xfe\n"), "2:3: invalid UTF-8 byte 0xFF");
  EXPECT_EQ(LexError("x = '\xc3'\n"), "1:6: invalid UTF-8 sequence starting with byte 0xC3");
  EXPECT_EQ(LexError("x = 1\ry = 2\n"), "1:6: carriage return (\\r) that does not end a line");
  EXPECT_EQ(LexError("x = \xc3\xa9\n"), "1:5: invalid character '\xc3\xa9' (U+00E9)");
  EXPECT_EQ(LexError("x = 1 \\ y\n"), "1:7: unexpected character after line continuation character");
  EXPECT_EQ(LexError("x = 1 \\"), "1:7: unexpected end of file after line continuation character");
}

TEST(LexerTest, BinaryGarbageNeverCrashes) {
  std::string garbage;
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 1103515245u + 12345u;
    garbage += static_cast<char>(state >> 16);
  }
  auto ts = Tokenize(std::make_shared<SourceFile>("g.pto", garbage));
  ASSERT_FALSE(ts.ok());
  EXPECT_TRUE(IsUserError(ts.status()));
  EXPECT_TRUE(GetDiagnosticLocation(ts.status()).has_value());
}

}  // namespace
}  // namespace pto::parser
