#include "compiler/parser/lexer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>

#include "absl/strings/str_format.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::parser {
namespace {

constexpr struct {
  std::string_view text;
  Keyword kw;
} kKeywords[] = {
    {"False", Keyword::kFalse},     {"None", Keyword::kNone},       {"True", Keyword::kTrue},
    {"and", Keyword::kAnd},         {"as", Keyword::kAs},           {"assert", Keyword::kAssert},
    {"async", Keyword::kAsync},     {"await", Keyword::kAwait},     {"break", Keyword::kBreak},
    {"class", Keyword::kClass},     {"continue", Keyword::kContinue}, {"def", Keyword::kDef},
    {"del", Keyword::kDel},         {"elif", Keyword::kElif},       {"else", Keyword::kElse},
    {"except", Keyword::kExcept},   {"finally", Keyword::kFinally}, {"for", Keyword::kFor},
    {"from", Keyword::kFrom},       {"global", Keyword::kGlobal},   {"if", Keyword::kIf},
    {"import", Keyword::kImport},   {"in", Keyword::kIn},           {"is", Keyword::kIs},
    {"lambda", Keyword::kLambda},   {"nonlocal", Keyword::kNonlocal}, {"not", Keyword::kNot},
    {"or", Keyword::kOr},           {"pass", Keyword::kPass},       {"raise", Keyword::kRaise},
    {"return", Keyword::kReturn},   {"try", Keyword::kTry},         {"while", Keyword::kWhile},
    {"with", Keyword::kWith},       {"yield", Keyword::kYield},
};

// Character classes for the hot scanning loops.
struct CharTable {
  bool ident[256] = {};
  CharTable() {
    for (int c = 'a'; c <= 'z'; ++c) ident[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) ident[c] = true;
    for (int c = '0'; c <= '9'; ++c) ident[c] = true;
    ident[static_cast<int>('_')] = true;
  }
};
const CharTable kChars;

// Keywords bucketed by first letter: a name is compared with at most the five
// keywords that share its first letter (a linear scan over all 35 was the
// lexer's hottest loop).
struct KeywordIndex {
  uint8_t first[128] = {};  // 1 + index into kKeywords of the bucket start
  uint8_t count[128] = {};
  KeywordIndex() {
    for (size_t i = 0; i < std::size(kKeywords); ++i) {
      auto c = static_cast<unsigned char>(kKeywords[i].text[0]);
      if (count[c]++ == 0) first[c] = static_cast<uint8_t>(i + 1);
    }
  }
};
const KeywordIndex kKeywordIndex;
static_assert(std::is_sorted(std::begin(kKeywords), std::end(kKeywords),
                             [](const auto& a, const auto& b) { return a.text[0] < b.text[0]; }),
              "KeywordIndex needs each first letter's keywords to be contiguous");

bool LookupKeyword(std::string_view name, Keyword* kw) {
  if (name.size() < 2 || name.size() > 8) return false;
  auto c = static_cast<unsigned char>(name[0]);
  if (c >= 128 || kKeywordIndex.count[c] == 0) return false;
  const auto* k = &kKeywords[kKeywordIndex.first[c] - 1];
  for (int n = kKeywordIndex.count[c]; n > 0; --n, ++k) {
    if (k->text == name) {
      *kw = k->kw;
      return true;
    }
  }
  return false;
}

constexpr std::string_view kOpTexts[] = {
    "(",  ")",  "[",  "]",  "{",  "}",   ",",   ":",  ";",  ".",  "...", "->", "=",  ":=",
    "+",  "-",  "*",  "**", "/",  "//",  "%",   "@",  "&",  "|",  "^",   "~",  "<<", ">>",
    "<",  ">",  "<=", ">=", "==", "!=",  "+=",  "-=", "*=", "**=", "/=", "//=", "%=", "@=",
    "&=", "|=", "^=", "<<=", ">>=",
};
static_assert(sizeof(kOpTexts) / sizeof(kOpTexts[0]) == static_cast<size_t>(Op::kShrAssign) + 1);

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsIdentChar(unsigned char c) { return kChars.ident[c]; }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

int DigitValue(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  Lexer(SourceFilePtr file, TokenStream* out)
      : text_(file->text()), file_(std::move(file)), out_(out) {}

  absl::Status Run();

 private:
  // --- positions and errors ---
  int Col(size_t pos) const { return static_cast<int>(pos - line_start_) + 1; }
  absl::Status ErrorAt(size_t pos, std::string msg) const {
    return UserError(Span(file_, line_, Col(pos), line_, Col(pos) + 1), std::move(msg));
  }
  absl::Status ErrorRange(int line, int col, int end_line, int end_col, std::string msg) const {
    return UserError(Span(file_, line, col, end_line, end_col), std::move(msg));
  }
  // Error at an arbitrary offset, computing its line (slow path only).
  absl::Status ErrorAtOffset(size_t pos, std::string msg) const;

  char At(size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }
  bool AtNewline(size_t pos) const {
    return At(pos) == '\n' || (At(pos) == '\r' && At(pos + 1) == '\n');
  }
  // Consumes a newline at pos_ ("\n" or "\r\n") and starts the next line.
  void ConsumeNewline() {
    pos_ += text_[pos_] == '\r' ? 2 : 1;
    ++line_;
    line_start_ = pos_;
  }

  absl::Status ValidateEncoding() const;
  absl::Status HandleIndent(size_t line_begin, size_t first);
  void ScanComment();
  absl::Status ScanName();
  absl::Status ScanNumber();
  absl::Status ScanString(size_t start, bool raw);
  absl::Status ScanOperator();

  // The next token, written in place: the array grows a zeroed block at a time
  // and Run trims it (an out-of-line emplace_back per token was a sixth of
  // lexing, docs/performance.md).
  Token& NewToken() {
    std::vector<Token>& v = out_->tokens;
    if (num_tokens_ == v.size()) v.resize(v.size() + kTokenBlock);
    return v[num_tokens_++];
  }
  Token& LastToken() { return out_->tokens[num_tokens_ - 1]; }

  Token& Emit(TokenKind kind, uint8_t sub, size_t start, int start_line, int start_col) {
    Token& t = NewToken();
    t.kind = kind;
    t.sub = sub;
    t.line = start_line;
    t.col = start_col;
    t.end_col = Col(pos_);
    t.ptr = text_.data() + start;  // numbers and strings set their own value
    line_has_tokens_ = true;
    return t;
  }
  // A zero-width structural token at the current position.
  void EmitMarker(TokenKind kind, size_t at) {
    Token& t = NewToken();
    t.kind = kind;
    t.line = line_;
    t.col = Col(at);
    t.end_col = Col(at);
  }

  std::string_view text_;
  SourceFilePtr file_;
  TokenStream* out_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  static constexpr size_t kTokenBlock = 4096;
  size_t num_tokens_ = 0;             // tokens written (the array may be longer)
  bool line_has_tokens_ = false;      // the logical line produced a token
  bool physical_has_tokens_ = false;  // the physical line produced a token (for comments)
  std::vector<std::string_view> indents_;
  struct Bracket {
    char ch;
    int line;
    int col;
  };
  std::vector<Bracket> brackets_;
};

absl::Status Lexer::ErrorAtOffset(size_t pos, std::string msg) const {
  int line = 1;
  size_t start = 0;
  for (size_t i = 0; i < pos && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  int col = static_cast<int>(pos - start) + 1;
  return UserError(Span(file_, line, col, line, col + 1), std::move(msg));
}

// Rejects what would confuse every later stage: invalid UTF-8, NUL bytes and
// carriage returns that do not end a line.
absl::Status Lexer::ValidateEncoding() const {
  const auto* s = reinterpret_cast<const unsigned char*>(text_.data());
  size_t n = text_.size();
  size_t i = 0;
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  while (i < n) {
    // Eight printable ASCII bytes at a time: no byte has its high bit set and
    // none is below 0x20 (a borrow out of `byte - 0x20`).
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, sizeof(w));
      if (((w | ((w - 0x20 * kOnes) & ~w)) & kHighBits) == 0) {
        i += 8;
        continue;
      }
    }
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x80) {
      ++i;
      continue;
    }
    if (c == 0) return ErrorAtOffset(i, "source contains a NUL byte");
    if (c == '\r' && (i + 1 >= n || s[i + 1] != '\n')) {
      return ErrorAtOffset(i, "carriage return (\\r) that does not end a line");
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return ErrorAtOffset(i, absl::StrFormat("invalid UTF-8 byte 0x%02X", c));
    }
    if (i + len > n) return ErrorAtOffset(i, "truncated UTF-8 sequence at end of file");
    for (int k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) {
        return ErrorAtOffset(i, absl::StrFormat("invalid UTF-8 sequence starting with byte 0x%02X", c));
      }
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return ErrorAtOffset(i, absl::StrFormat("invalid UTF-8 sequence starting with byte 0x%02X", c));
    }
    i += len;
  }
  return absl::OkStatus();
}

absl::Status Lexer::Run() {
  if (text_.size() > (1u << 30)) {
    return UserError(Span(file_, 1, 1, 1, 1), "source file is too large (more than 1 GiB)");
  }
  RETURN_IF_ERROR(ValidateEncoding());
  // Generated programs run at about one token per three bytes.
  out_->tokens.reserve(text_.size() / 2 + 16);
  // Skip a UTF-8 BOM. Columns stay byte offsets from the line start (as
  // SourceFile counts them), so it shifts line 1 by 3.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  indents_.push_back(std::string_view());
  bool at_line_start = true;

  while (true) {
    if (at_line_start) {
      at_line_start = false;
      physical_has_tokens_ = false;
      if (brackets_.empty() && !line_has_tokens_) {
        size_t p = pos_;
        while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) ++p;
        if (p < text_.size() && text_[p] != '#' && !AtNewline(p)) {
          RETURN_IF_ERROR(HandleIndent(pos_, p));
        }
        pos_ = p;
      }
    }
    if (pos_ >= text_.size()) break;
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    switch (c) {
      case ' ':
      case '\t':
      case '\f':
        ++pos_;
        continue;
      case '\r':
      case '\n':
        if (brackets_.empty() && line_has_tokens_) {
          EmitMarker(TokenKind::kNewline, pos_);
          LastToken().end_col = Col(pos_) + 1;
          line_has_tokens_ = false;
        }
        ConsumeNewline();
        at_line_start = true;
        continue;
      case '#':
        ScanComment();
        continue;
      case '\\': {
        size_t next = pos_ + 1;
        if (next >= text_.size()) {
          return ErrorAt(pos_, "unexpected end of file after line continuation character");
        }
        if (!AtNewline(next)) {
          return ErrorAt(pos_, "unexpected character after line continuation character");
        }
        pos_ = next;
        ConsumeNewline();
        physical_has_tokens_ = false;
        // The next physical line continues this logical line: no indentation.
        continue;
      }
      case '"':
      case '\'':
        RETURN_IF_ERROR(ScanString(pos_, /*raw=*/false));
        continue;
      default:
        break;
    }
    if (IsIdentStart(c)) {
      RETURN_IF_ERROR(ScanName());
    } else if (IsDigit(c) || (c == '.' && IsDigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      RETURN_IF_ERROR(ScanNumber());
    } else if (c >= 0x80) {
      // A whole UTF-8 character (validated above) for the message.
      size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (text_[pos_ + k] & 0x3F);
      return ErrorRange(line_, Col(pos_), line_, Col(pos_ + len),
                        absl::StrFormat("invalid character '%s' (U+%04X)",
                                        std::string(text_.substr(pos_, len)), cp));
    } else {
      RETURN_IF_ERROR(ScanOperator());
    }
  }

  // End of file.
  if (!brackets_.empty()) {
    const Bracket& b = brackets_.back();
    return ErrorRange(b.line, b.col, b.line, b.col + 1,
                      pto::StrCat("'", std::string(1, b.ch), "' was never closed"));
  }
  if (line_has_tokens_) {
    EmitMarker(TokenKind::kNewline, pos_);
    line_has_tokens_ = false;
  }
  for (size_t i = 1; i < indents_.size(); ++i) EmitMarker(TokenKind::kDedent, pos_);
  EmitMarker(TokenKind::kEnd, pos_);
  out_->tokens.resize(num_tokens_);
  return absl::OkStatus();
}

absl::Status Lexer::HandleIndent(size_t line_begin, size_t first) {
  std::string_view indent = text_.substr(line_begin, first - line_begin);
  std::string_view top = indents_.back();
  if (indent == top) return absl::OkStatus();
  int col = Col(first);
  if (indent.size() > top.size() && indent.substr(0, top.size()) == top) {
    if (static_cast<int>(indents_.size()) > kMaxIndentDepth) {
      return ErrorRange(line_, 1, line_, col,
                        pto::StrCat("too many levels of indentation (more than ",
                                    kMaxIndentDepth, ")"));
    }
    indents_.push_back(indent);
    EmitMarker(TokenKind::kIndent, first);
    return absl::OkStatus();
  }
  if (indent.size() < top.size() && top.substr(0, indent.size()) == indent) {
    while (indents_.back().size() > indent.size()) {
      indents_.pop_back();
      EmitMarker(TokenKind::kDedent, first);
    }
    if (indents_.back() != indent) {
      return ErrorRange(line_, 1, line_, col,
                        "unindent does not match any outer indentation level");
    }
    return absl::OkStatus();
  }
  return ErrorRange(line_, 1, line_, col, "inconsistent use of tabs and spaces in indentation");
}

void Lexer::ScanComment() {
  size_t start = pos_;
  size_t end = pos_;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  Comment& c = out_->comments.emplace_back();
  c.line = line_;
  c.col = Col(start);
  c.own_line = !physical_has_tokens_ && !line_has_tokens_;
  size_t text_begin = start + 1;
  if (text_begin < end && text_[text_begin] == ' ') ++text_begin;
  c.text = text_.substr(text_begin, end - text_begin);
  pos_ = end;
}

absl::Status Lexer::ScanName() {
  size_t start = pos_;
  int col = Col(start);
  while (pos_ < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  if (pos_ < text_.size() && static_cast<unsigned char>(text_[pos_]) >= 0x80) {
    return ErrorAt(pos_, "non-ASCII characters in names are not supported");
  }
  std::string_view name = text_.substr(start, pos_ - start);
  // String prefixes: r, u, b, f and their two-letter combinations.
  char q = At(pos_);
  if ((q == '"' || q == '\'') && name.size() <= 2) {
    bool raw = false, bytes = false, fmt = false, uni = false, ok = true;
    for (char ch : name) {
      switch (ch) {
        case 'r': case 'R': ok = ok && !raw; raw = true; break;
        case 'b': case 'B': ok = ok && !bytes; bytes = true; break;
        case 'f': case 'F': ok = ok && !fmt; fmt = true; break;
        case 'u': case 'U': ok = ok && !uni; uni = true; break;
        default: ok = false;
      }
    }
    if (ok && !(uni && name.size() > 1) && !(bytes && fmt)) {
      if (bytes) {
        return ErrorRange(line_, col, line_, Col(pos_) + 1,
                          "unsupported Python construct: bytes literal");
      }
      if (fmt) {
        return ErrorRange(line_, col, line_, Col(pos_) + 1,
                          "unsupported Python construct: f-string");
      }
      return ScanString(start, raw);
    }
  }
  physical_has_tokens_ = true;
  Keyword kw;
  if (LookupKeyword(name, &kw)) {
    Emit(TokenKind::kKeyword, static_cast<uint8_t>(kw), start, line_, col);
  } else {
    Emit(TokenKind::kName, 0, start, line_, col);
  }
  return absl::OkStatus();
}

absl::Status Lexer::ScanNumber() {
  size_t start = pos_;
  int col = Col(start);
  auto bad = [&](std::string_view what) {
    size_t end = pos_;
    while (end < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[end]))) ++end;
    return ErrorRange(line_, col, line_, Col(std::max(end, pos_ + 1)),
                      pto::StrCat("invalid ", what, " literal"));
  };
  char c0 = text_[pos_];
  char c1 = At(pos_ + 1);
  if (c0 == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'o' || c1 == 'O' || c1 == 'b' || c1 == 'B')) {
    int base = (c1 == 'x' || c1 == 'X') ? 16 : (c1 == 'o' || c1 == 'O') ? 8 : 2;
    std::string_view what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    pos_ += 2;
    uint64_t value = 0;
    int digits = 0;
    bool overflow = false;
    while (pos_ < text_.size()) {
      unsigned char ch = static_cast<unsigned char>(text_[pos_]);
      if (ch == '_') {
        if (DigitValue(static_cast<unsigned char>(At(pos_ + 1))) >= base) return bad(what);
        ++pos_;
        continue;
      }
      int d = DigitValue(ch);
      if (d >= base) break;
      if (value > (std::numeric_limits<uint64_t>::max() - d) / base) overflow = true;
      value = value * base + d;
      ++digits;
      ++pos_;
    }
    if (digits == 0 || (pos_ < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[pos_])))) {
      return bad(what);
    }
    if (overflow) {
      return ErrorRange(line_, col, line_, Col(pos_), "integer literal is too large");
    }
    physical_has_tokens_ = true;
    Emit(TokenKind::kInt, 0, start, line_, col).int_value = value;
    return absl::OkStatus();
  }

  // Decimal integer or float. Digits are copied without underscores.
  char buf[128];
  size_t n = 0;
  bool too_long = false;
  auto put = [&](char ch) {
    if (n + 1 < sizeof(buf)) {
      buf[n++] = ch;
    } else {
      too_long = true;
    }
  };
  auto digits = [&]() -> bool {  // false on a misplaced underscore
    while (pos_ < text_.size()) {
      char ch = text_[pos_];
      if (IsDigit(static_cast<unsigned char>(ch))) {
        put(ch);
        ++pos_;
      } else if (ch == '_' && pos_ > start && IsDigit(static_cast<unsigned char>(text_[pos_ - 1])) &&
                 IsDigit(static_cast<unsigned char>(At(pos_ + 1)))) {
        ++pos_;
      } else {
        break;
      }
    }
    return !(At(pos_) == '_');
  };
  if (!digits()) return bad("decimal");
  size_t int_digits = n;
  bool is_float = false;
  if (At(pos_) == '.') {
    is_float = true;
    put('.');
    ++pos_;
    if (IsDigit(static_cast<unsigned char>(At(pos_))) && !digits()) return bad("decimal");
  }
  if (At(pos_) == 'e' || At(pos_) == 'E') {
    size_t p = pos_ + 1;
    if (At(p) == '+' || At(p) == '-') ++p;
    if (IsDigit(static_cast<unsigned char>(At(p)))) {
      is_float = true;
      put('e');
      if (At(pos_ + 1) == '-') put('-');
      pos_ = p;
      if (!digits()) return bad("decimal");
    }
  }
  if (At(pos_) == 'j' || At(pos_) == 'J') {
    return ErrorRange(line_, col, line_, Col(pos_ + 1),
                      "unsupported Python construct: complex literal");
  }
  if (pos_ < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[pos_]))) {
    return bad("decimal");
  }
  physical_has_tokens_ = true;
  if (!is_float) {
    if (int_digits > 1 && buf[0] == '0') {
      for (size_t i = 0; i < int_digits; ++i) {
        if (buf[i] != '0') {
          return ErrorRange(line_, col, line_, Col(pos_),
                            "leading zeros in decimal integer literals are not permitted; use an "
                            "0o prefix for octal integers");
        }
      }
    }
    uint64_t value = 0;
    for (size_t i = 0; i < int_digits; ++i) {
      uint64_t d = static_cast<uint64_t>(buf[i] - '0');
      if (too_long || value > (std::numeric_limits<uint64_t>::max() - d) / 10) {
        return ErrorRange(line_, col, line_, Col(pos_), "integer literal is too large");
      }
      value = value * 10 + d;
    }
    Emit(TokenKind::kInt, 0, start, line_, col).int_value = value;
    return absl::OkStatus();
  }
  if (too_long) return ErrorRange(line_, col, line_, Col(pos_), "float literal is too long");
  buf[n] = '\0';
  double value = 0;
  auto [ptr, ec] = std::from_chars(buf, buf + n, value);
  if (ec == std::errc::result_out_of_range) {
    // Overflow reads as infinity and underflow as (sub)normal or zero, as in Python.
    value = std::strtod(buf, nullptr);
  } else if (ec != std::errc() || ptr != buf + n) {
    return bad("decimal");
  }
  Emit(TokenKind::kFloat, 0, start, line_, col).float_value = value;
  return absl::OkStatus();
}

absl::Status Lexer::ScanString(size_t start, bool raw) {
  int start_line = line_;
  int start_col = Col(start);
  while (text_[pos_] != '"' && text_[pos_] != '\'') ++pos_;  // skip the prefix
  char q = text_[pos_];
  bool triple = At(pos_ + 1) == q && At(pos_ + 2) == q;
  pos_ += triple ? 3 : 1;
  size_t body = pos_;
  std::string* built = nullptr;  // materialized once an escape or CRLF is seen
  auto materialize = [&](size_t upto) {
    if (built == nullptr) {
      built = &out_->string_storage.emplace_back(text_.substr(body, upto - body));
    }
  };
  auto unterminated = [&]() {
    return ErrorRange(start_line, start_col, start_line, start_col + 1,
                      triple ? "unterminated triple-quoted string literal"
                             : "unterminated string literal");
  };
  while (true) {
    if (pos_ >= text_.size()) return unterminated();
    char c = text_[pos_];
    if (c == q) {
      if (!triple) break;
      if (At(pos_ + 1) == q && At(pos_ + 2) == q) break;
      if (built) *built += c;
      ++pos_;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (!triple) return unterminated();
      if (c == '\r') materialize(pos_);
      if (built) *built += '\n';
      ConsumeNewline();
      continue;
    }
    if (c != '\\') {
      if (built) *built += c;
      ++pos_;
      continue;
    }
    // Backslash.
    if (pos_ + 1 >= text_.size()) return unterminated();
    char e = text_[pos_ + 1];
    if (raw) {
      // Raw strings keep the backslash; it only stops the quote from ending the string.
      if (e == '\n' || e == '\r') {
        if (e == '\r') materialize(pos_);
        if (built) *built += "\\\n";
        ++pos_;
        ConsumeNewline();
        continue;
      }
      if (built) {
        *built += c;
        *built += e;
      }
      pos_ += 2;
      continue;
    }
    materialize(pos_);
    size_t esc = pos_;
    pos_ += 2;
    switch (e) {
      case '\n':
      case '\r':
        pos_ = esc + 1;
        ConsumeNewline();  // line continuation inside the string
        break;
      case '\\': *built += '\\'; break;
      case '\'': *built += '\''; break;
      case '"': *built += '"'; break;
      case 'a': *built += '\a'; break;
      case 'b': *built += '\b'; break;
      case 'f': *built += '\f'; break;
      case 'n': *built += '\n'; break;
      case 'r': *built += '\r'; break;
      case 't': *built += '\t'; break;
      case 'v': *built += '\v'; break;
      case 'x':
      case 'u':
      case 'U': {
        int len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 0; k < len; ++k) {
          int d = DigitValue(static_cast<unsigned char>(At(pos_ + k)));
          if (d >= 16) {
            return ErrorRange(line_, Col(esc), line_, Col(pos_ + k),
                              pto::StrCat("truncated \\", std::string(1, e), " escape"));
          }
          cp = cp * 16 + static_cast<uint32_t>(d);
        }
        pos_ += len;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          return ErrorRange(line_, Col(esc), line_, Col(pos_),
                            "escape sequence is not a valid Unicode character");
        }
        AppendUtf8(built, cp);
        break;
      }
      case 'N':
        return ErrorRange(line_, Col(esc), line_, Col(pos_),
                          "unsupported Python construct: \\N{...} escape");
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && At(pos_) >= '0' && At(pos_) <= '7'; ++k) {
            cp = cp * 8 + static_cast<uint32_t>(At(pos_) - '0');
            ++pos_;
          }
          AppendUtf8(built, cp);
        } else {
          // Unknown escapes keep the backslash, as in Python.
          *built += '\\';
          pos_ = esc + 1;
        }
    }
  }
  size_t body_end = pos_;
  pos_ += triple ? 3 : 1;
  physical_has_tokens_ = true;
  Token& t = Emit(TokenKind::kString, 0, start, start_line, start_col);
  std::string_view value =
      built != nullptr ? std::string_view(*built) : text_.substr(body, body_end - body);
  t.literal = &out_->string_literals.emplace_back(StringLiteral{value, line_});
  return absl::OkStatus();
}

absl::Status Lexer::ScanOperator() {
  size_t start = pos_;
  int col = Col(start);
  char c = text_[pos_];
  char c1 = At(pos_ + 1);
  char c2 = At(pos_ + 2);
  Op op;
  size_t len = 1;
  switch (c) {
    case '(': op = Op::kLParen; break;
    case ')': op = Op::kRParen; break;
    case '[': op = Op::kLBracket; break;
    case ']': op = Op::kRBracket; break;
    case '{': op = Op::kLBrace; break;
    case '}': op = Op::kRBrace; break;
    case ',': op = Op::kComma; break;
    case ';': op = Op::kSemicolon; break;
    case '~': op = Op::kTilde; break;
    case ':':
      if (c1 == '=') { op = Op::kWalrus; len = 2; } else { op = Op::kColon; }
      break;
    case '.':
      if (c1 == '.' && c2 == '.') { op = Op::kEllipsis; len = 3; } else { op = Op::kDot; }
      break;
    case '=':
      if (c1 == '=') { op = Op::kEq; len = 2; } else { op = Op::kAssign; }
      break;
    case '!':
      if (c1 != '=') return ErrorAt(pos_, "invalid character '!'");
      op = Op::kNe;
      len = 2;
      break;
    case '+':
      if (c1 == '=') { op = Op::kPlusAssign; len = 2; } else { op = Op::kPlus; }
      break;
    case '-':
      if (c1 == '=') { op = Op::kMinusAssign; len = 2; }
      else if (c1 == '>') { op = Op::kArrow; len = 2; }
      else { op = Op::kMinus; }
      break;
    case '*':
      if (c1 == '*') {
        if (c2 == '=') { op = Op::kDoubleStarAssign; len = 3; } else { op = Op::kDoubleStar; len = 2; }
      } else if (c1 == '=') { op = Op::kStarAssign; len = 2; }
      else { op = Op::kStar; }
      break;
    case '/':
      if (c1 == '/') {
        if (c2 == '=') { op = Op::kDoubleSlashAssign; len = 3; } else { op = Op::kDoubleSlash; len = 2; }
      } else if (c1 == '=') { op = Op::kSlashAssign; len = 2; }
      else { op = Op::kSlash; }
      break;
    case '%':
      if (c1 == '=') { op = Op::kPercentAssign; len = 2; } else { op = Op::kPercent; }
      break;
    case '@':
      if (c1 == '=') { op = Op::kAtAssign; len = 2; } else { op = Op::kAt; }
      break;
    case '&':
      if (c1 == '=') { op = Op::kAmpAssign; len = 2; } else { op = Op::kAmp; }
      break;
    case '|':
      if (c1 == '=') { op = Op::kPipeAssign; len = 2; } else { op = Op::kPipe; }
      break;
    case '^':
      if (c1 == '=') { op = Op::kCaretAssign; len = 2; } else { op = Op::kCaret; }
      break;
    case '<':
      if (c1 == '<') {
        if (c2 == '=') { op = Op::kShlAssign; len = 3; } else { op = Op::kShl; len = 2; }
      } else if (c1 == '=') { op = Op::kLe; len = 2; }
      else { op = Op::kLt; }
      break;
    case '>':
      if (c1 == '>') {
        if (c2 == '=') { op = Op::kShrAssign; len = 3; } else { op = Op::kShr; len = 2; }
      } else if (c1 == '=') { op = Op::kGe; len = 2; }
      else { op = Op::kGt; }
      break;
    default: {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7F) {
        return ErrorAt(pos_, absl::StrFormat("invalid control character 0x%02X", u));
      }
      return ErrorAt(pos_, pto::StrCat("invalid character '", std::string(1, c), "'"));
    }
  }
  // Brackets: implicit line joining and matching.
  if (op == Op::kLParen || op == Op::kLBracket || op == Op::kLBrace) {
    if (static_cast<int>(brackets_.size()) >= kMaxBracketDepth) {
      return ErrorAt(pos_, pto::StrCat("too many nested parentheses (more than ",
                                       kMaxBracketDepth, ")"));
    }
    brackets_.push_back({c, line_, col});
  } else if (op == Op::kRParen || op == Op::kRBracket || op == Op::kRBrace) {
    char open = op == Op::kRParen ? '(' : op == Op::kRBracket ? '[' : '{';
    if (brackets_.empty()) {
      return ErrorAt(pos_, pto::StrCat("unmatched '", std::string(1, c), "'"));
    }
    if (brackets_.back().ch != open) {
      return ErrorAt(pos_, pto::StrCat("closing parenthesis '", std::string(1, c),
                                       "' does not match opening parenthesis '",
                                       std::string(1, brackets_.back().ch), "' on line ",
                                       brackets_.back().line));
    }
    brackets_.pop_back();
  }
  pos_ += len;
  physical_has_tokens_ = true;
  Emit(TokenKind::kOp, static_cast<uint8_t>(op), start, line_, col);
  return absl::OkStatus();
}

}  // namespace

std::string_view OpText(Op op) { return kOpTexts[static_cast<size_t>(op)]; }

std::string_view KeywordText(Keyword kw) {
  for (const auto& k : kKeywords) {
    if (k.kw == kw) return k.text;
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<TokenStream>> Tokenize(SourceFilePtr file) {
  auto stream = std::make_unique<TokenStream>();
  stream->file = file;
  Lexer lexer(std::move(file), stream.get());
  RETURN_IF_ERROR(lexer.Run());
  return stream;
}

std::string DescribeToken(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEnd: return "end of file";
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kIndent: return "indent";
    case TokenKind::kDedent: return "dedent";
    case TokenKind::kName: return pto::StrCat("name '", t.text(), "'");
    case TokenKind::kKeyword: return pto::StrCat("keyword '", KeywordText(t.keyword()), "'");
    case TokenKind::kInt:
    case TokenKind::kFloat: return "number";
    case TokenKind::kString: return "string";
    case TokenKind::kOp: return pto::StrCat("'", OpText(t.op()), "'");
  }
  return "token";
}

}  // namespace pto::parser
