// Tokenizer for the PTO program language (docs/language.md): Python's lexical
// structure restricted to what the language uses. Indentation becomes
// INDENT/DEDENT tokens, newlines inside brackets and after a trailing `\` are
// joined, and comments are kept on the side so the parser can attach them to
// the statement below.
#ifndef PTO_COMPILER_PARSER_LEXER_H_
#define PTO_COMPILER_PARSER_LEXER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/support/source.h"

namespace pto::parser {

enum class TokenKind : uint8_t {
  kEnd,      // end of file (always the last token)
  kNewline,  // end of a logical line
  kIndent,
  kDedent,
  kName,
  kKeyword,
  kInt,
  kFloat,
  kString,
  kOp,
};

// Python's reserved words.
enum class Keyword : uint8_t {
  kFalse,
  kNone,
  kTrue,
  kAnd,
  kAs,
  kAssert,
  kAsync,
  kAwait,
  kBreak,
  kClass,
  kContinue,
  kDef,
  kDel,
  kElif,
  kElse,
  kExcept,
  kFinally,
  kFor,
  kFrom,
  kGlobal,
  kIf,
  kImport,
  kIn,
  kIs,
  kLambda,
  kNonlocal,
  kNot,
  kOr,
  kPass,
  kRaise,
  kReturn,
  kTry,
  kWhile,
  kWith,
  kYield,
};

enum class Op : uint8_t {
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kColon,
  kSemicolon,
  kDot,
  kEllipsis,
  kArrow,   // ->
  kAssign,  // =
  kWalrus,  // :=
  kPlus,
  kMinus,
  kStar,
  kDoubleStar,
  kSlash,
  kDoubleSlash,
  kPercent,
  kAt,
  kAmp,
  kPipe,
  kCaret,
  kTilde,
  kShl,
  kShr,
  kLt,
  kGt,
  kLe,
  kGe,
  kEq,
  kNe,
  // Augmented assignments (`x += 1` means `x = x + 1`).
  kPlusAssign,
  kMinusAssign,
  kStarAssign,
  kDoubleStarAssign,
  kSlashAssign,
  kDoubleSlashAssign,
  kPercentAssign,
  kAtAssign,
  kAmpAssign,
  kPipeAssign,
  kCaretAssign,
  kShlAssign,
  kShrAssign,
};

std::string_view OpText(Op op);
std::string_view KeywordText(Keyword kw);

// A string literal's value and last line (it may span lines); strings are
// rare, so tokens point here instead of carrying the fields.
struct StringLiteral {
  std::string_view value;  // decoded; in the source or in the stream's storage
  int32_t end_line = 0;
};

// 24 bytes: a 10 MB program has a few million tokens, and the array's pages
// are a noticeable part of tokenizing.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  uint8_t sub = 0;  // Keyword or Op, by kind
  // 1-based; [col, end_col) on the lines; byte columns (a tab is one column).
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_col = 0;
  union {
    const char* ptr;               // names, keywords, operators: the source text
    const StringLiteral* literal;  // kString
    uint64_t int_value;            // kInt (fits in uint64; range-checked by the parser)
    double float_value;            // kFloat
  };

  Token() : int_value(0) {}
  // Names, keywords and operators: the source text (one line, so its length is
  // end_col - col). Strings: the decoded value. Others: empty.
  std::string_view text() const {
    switch (kind) {
      case TokenKind::kName:
      case TokenKind::kKeyword:
      case TokenKind::kOp:
        return std::string_view(ptr, static_cast<size_t>(end_col - col));
      case TokenKind::kString:
        return literal->value;
      default:
        return std::string_view();
    }
  }
  int32_t end_line() const { return kind == TokenKind::kString ? literal->end_line : line; }
  Keyword keyword() const { return static_cast<Keyword>(sub); }
  Op op() const { return static_cast<Op>(sub); }
  bool Is(Op o) const { return kind == TokenKind::kOp && sub == static_cast<uint8_t>(o); }
  bool Is(Keyword k) const {
    return kind == TokenKind::kKeyword && sub == static_cast<uint8_t>(k);
  }
};
static_assert(sizeof(Token) == 24);

struct Comment {
  int32_t line = 0;
  int32_t col = 0;
  bool own_line = false;   // nothing but whitespace before it on its line
  std::string_view text;   // after '#' and one optional space, without line end
};

struct TokenStream {
  SourceFilePtr file;
  std::vector<Token> tokens;
  std::vector<Comment> comments;  // in source order
  // Decoded strings that differ from their source text, and the string
  // tokens' literals; deques so pointers into them stay valid as they grow.
  std::deque<std::string> string_storage;
  std::deque<StringLiteral> string_literals;

  Span SpanOf(const Token& t) const {
    return Span(file, t.line, t.col, t.end_line(), t.end_col);
  }
};

// Limits that keep every consumer of the token stream non-recursive enough.
inline constexpr int kMaxIndentDepth = 100;
inline constexpr int kMaxBracketDepth = 200;

// Tokenizes the whole file. Bad input (invalid UTF-8, NUL bytes, stray
// characters, unterminated strings or brackets, inconsistent dedent) is a
// located user error.
absl::StatusOr<std::unique_ptr<TokenStream>> Tokenize(SourceFilePtr file);

// Human description of a token for messages, e.g. "name 'x'", "'('",
// "end of line", "indent".
std::string DescribeToken(const Token& t);

}  // namespace pto::parser

#endif  // PTO_COMPILER_PARSER_LEXER_H_
