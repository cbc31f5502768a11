// Reads Python syntax into syntax trees: expressions (precedence climbing) and
// statements with their nested blocks. Nothing here resolves names or builds
// IR; see parser_impl.h for the layers.
#include <algorithm>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

std::string_view AstOpText(AstOp op) {
  switch (op) {
    case AstOp::kAdd: return "+";
    case AstOp::kSub: return "-";
    case AstOp::kMul: return "*";
    case AstOp::kDiv: return "/";
    case AstOp::kFloorDiv: return "//";
    case AstOp::kMod: return "%";
    case AstOp::kPow: return "**";
    case AstOp::kShl: return "<<";
    case AstOp::kShr: return ">>";
    case AstOp::kBitAnd: return "&";
    case AstOp::kBitOr: return "|";
    case AstOp::kBitXor: return "^";
    case AstOp::kEq: return "==";
    case AstOp::kNe: return "!=";
    case AstOp::kLt: return "<";
    case AstOp::kLe: return "<=";
    case AstOp::kGt: return ">";
    case AstOp::kGe: return ">=";
    case AstOp::kAnd: return "and";
    case AstOp::kOr: return "or";
    case AstOp::kNeg: return "-";
    case AstOp::kPos: return "+";
    case AstOp::kNot: return "not";
    case AstOp::kInvert: return "~";
    case AstOp::kNone: break;
  }
  return "?";
}

// ===========================================================================
// Expression syntax.

namespace {

// Binary operator precedences (higher binds tighter); 0 = not a binary operator.
// `not` is a prefix operator between `and` and the comparisons.
constexpr int kPrecOr = 1, kPrecAnd = 2, kPrecNot = 3, kPrecCompare = 4;

int BinaryPrecedence(const Token& t, AstOp* op) {
  if (t.kind == TokenKind::kKeyword) {
    if (t.Is(Keyword::kOr)) { *op = AstOp::kOr; return kPrecOr; }
    if (t.Is(Keyword::kAnd)) { *op = AstOp::kAnd; return kPrecAnd; }
    return 0;
  }
  if (t.kind != TokenKind::kOp) return 0;
  switch (t.op()) {
    case Op::kEq: *op = AstOp::kEq; return kPrecCompare;
    case Op::kNe: *op = AstOp::kNe; return kPrecCompare;
    case Op::kLt: *op = AstOp::kLt; return kPrecCompare;
    case Op::kLe: *op = AstOp::kLe; return kPrecCompare;
    case Op::kGt: *op = AstOp::kGt; return kPrecCompare;
    case Op::kGe: *op = AstOp::kGe; return kPrecCompare;
    case Op::kPipe: *op = AstOp::kBitOr; return 5;
    case Op::kCaret: *op = AstOp::kBitXor; return 6;
    case Op::kAmp: *op = AstOp::kBitAnd; return 7;
    case Op::kShl: *op = AstOp::kShl; return 8;
    case Op::kShr: *op = AstOp::kShr; return 8;
    case Op::kPlus: *op = AstOp::kAdd; return 9;
    case Op::kMinus: *op = AstOp::kSub; return 9;
    case Op::kStar: *op = AstOp::kMul; return 10;
    case Op::kSlash: *op = AstOp::kDiv; return 10;
    case Op::kDoubleSlash: *op = AstOp::kFloorDiv; return 10;
    case Op::kPercent: *op = AstOp::kMod; return 10;
    default: return 0;
  }
}

}  // namespace

absl::Status Parser::UnsupportedKeyword(const Token& t) const {
  switch (t.keyword()) {
    case Keyword::kLambda: return ErrorAt(t, "unsupported Python construct: lambda (define another function of the program and call it)");
    case Keyword::kYield:
      return ErrorAt(t, "unsupported Python construct: yield (use pl.yield_(...))");
    case Keyword::kAwait: return ErrorAt(t, "unsupported Python construct: await (remove it)");
    default: break;
  }
  return ErrorAt(t, pto::StrCat("expected an expression, found ", DescribeToken(t)));
}

// A name or number directly followed by a token that ends an expression
// (`,` `)` `]` `}` `:` `=` or the end of the line), as most call arguments and
// list items are: it is its own syntax tree, built without descending through
// the operator levels (which would find nothing else to do). nullptr otherwise.
Ast* Parser::TryParseLoneAtom() {
  const Token& t = Cur();
  if (t.kind != TokenKind::kName && t.kind != TokenKind::kInt && t.kind != TokenKind::kFloat) {
    return nullptr;
  }
  const Token& next = Peek();
  bool ends = next.kind == TokenKind::kNewline;
  if (next.kind == TokenKind::kOp) {
    switch (next.op()) {
      case Op::kComma:
      case Op::kRParen:
      case Op::kRBracket:
      case Op::kRBrace:
      case Op::kColon:
      case Op::kAssign:
        ends = true;
        break;
      default:
        break;
    }
  }
  if (!ends) return nullptr;
  Ast* a;
  if (t.kind == TokenKind::kName) {
    a = NewAst(AstKind::kName, t);
    a->text = t.text();
  } else if (t.kind == TokenKind::kInt) {
    a = NewAst(AstKind::kInt, t);
    a->int_value = t.int_value;
  } else {
    a = NewAst(AstKind::kFloat, t);
    a->float_value = t.float_value;
  }
  Advance();
  return a;
}

// Nesting is counted where recursion can happen without consuming a bracket
// (unary operators, `not`, `**`) and at brackets, calls and blocks.
absl::StatusOr<Ast*> Parser::ParseTest() {
  if (Ast* a = TryParseLoneAtom()) return a;
  if (AtKw(Keyword::kLambda)) return UnsupportedKeyword(Cur());
  ASSIGN_OR_RETURN(Ast * a, ParseBinary(kPrecOr));
  if (AtKw(Keyword::kIf)) {
    return ErrorAt(Cur(), "unsupported Python construct: conditional expression (x if c else y; write an if statement whose branches end with pl.yield_)");
  }
  if (AtOp(Op::kWalrus)) return ErrorAt(Cur(), "unsupported Python construct: walrus operator (:=)");
  if (AtKw(Keyword::kFor) || AtKw(Keyword::kAsync)) {
    return ErrorAt(Cur(), "unsupported Python construct: comprehension (write a for loop over pl.range(...))");
  }
  return a;
}

// `a, b, c` (a tuple when there is a comma) or a single expression.
absl::StatusOr<Ast*> Parser::ParseTestList() {
  const Token& start = Cur();
  ASSIGN_OR_RETURN(Ast * first, ParseTest());
  if (!AtOp(Op::kComma)) return first;
  size_t base = scratch_.size();
  scratch_.push_back(first);
  while (AtOp(Op::kComma)) {
    Advance();
    if (AtNewline() || AtOp(Op::kAssign) || AtOp(Op::kColon) || AtOp(Op::kRParen) ||
        Cur().kind == TokenKind::kEnd || AtOp(Op::kSemicolon)) {
      break;
    }
    ASSIGN_OR_RETURN(Ast * e, ParseTest());
    scratch_.push_back(e);
  }
  Ast* t = NewAst(AstKind::kTuple, start);
  RETURN_IF_ERROR(Seal(t, base));
  return t;
}

// Precedence climbing over `or`, `and`, `not`, comparisons and the binary
// operators; one recursion per operator instead of one per grammar level.
absl::StatusOr<Ast*> Parser::ParseBinary(int min_prec) {
  Ast* lhs;
  if (AtKw(Keyword::kNot) && min_prec <= kPrecNot) {
    RETURN_IF_ERROR(EnterNesting());
    NestingExit exit{&depth_};
    const Token& start = Cur();
    Advance();
    ASSIGN_OR_RETURN(Ast * operand, ParseBinary(kPrecNot));
    lhs = NewAst(AstKind::kUnary, start);
    lhs->op = AstOp::kNot;
    size_t base = scratch_.size();
    scratch_.push_back(operand);
    RETURN_IF_ERROR(Seal(lhs, base));
  } else {
    ASSIGN_OR_RETURN(lhs, ParseUnary());
  }
  bool compared = false;
  while (true) {
    const Token& t = Cur();
    AstOp op = AstOp::kNone;
    int prec = BinaryPrecedence(t, &op);
    if (prec == 0) {
      if (t.Is(Keyword::kIn) || t.Is(Keyword::kIs) ||
          (t.Is(Keyword::kNot) && Peek().Is(Keyword::kIn))) {
        return ErrorAt(t, pto::StrCat("unsupported Python construct: '",
                                      t.Is(Keyword::kNot) ? "not in" : KeywordText(t.keyword()),
                                      "' comparison"));
      }
      if (t.Is(Op::kAt)) {
        return ErrorAt(t, "unsupported Python construct: matrix multiplication operator '@'");
      }
      return lhs;
    }
    if (prec < min_prec) return lhs;
    if (prec == kPrecCompare && compared) {
      return ErrorAt(t, "unsupported Python construct: chained comparison (write a < b and b < c)");
    }
    compared = prec == kPrecCompare;
    Advance();
    ASSIGN_OR_RETURN(Ast * rhs, ParseBinary(prec + 1));
    ASSIGN_OR_RETURN(lhs, MakeBinary(op, lhs, rhs));
  }
}

absl::StatusOr<Ast*> Parser::ParseUnary() {
  const Token& t = Cur();
  if (t.kind != TokenKind::kOp ||
      (t.op() != Op::kMinus && t.op() != Op::kPlus && t.op() != Op::kTilde)) {
    return ParsePower();
  }
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  // `-5` is the literal -5 rather than a negation (the printer writes negative
  // constants that way), unless something binds tighter: -2 ** 2 == -(2 ** 2).
  const Token& n = Peek();
  if (t.op() == Op::kMinus && (n.kind == TokenKind::kInt || n.kind == TokenKind::kFloat)) {
    const Token& after = Peek(2);
    if (!after.Is(Op::kDoubleStar) && !after.Is(Op::kLParen) && !after.Is(Op::kLBracket) &&
        !after.Is(Op::kDot)) {
      Ast* lit = NewAst(n.kind == TokenKind::kInt ? AstKind::kInt : AstKind::kFloat, t);
      if (n.kind == TokenKind::kInt) {
        lit->int_value = n.int_value;
        lit->negative = true;
      } else {
        lit->float_value = -n.float_value;
      }
      lit->end_line = n.end_line();
      lit->end_col = n.end_col;
      Advance();
      Advance();
      return lit;
    }
  }
  Advance();
  ASSIGN_OR_RETURN(Ast * operand, ParseUnary());
  Ast* a = NewAst(AstKind::kUnary, t);
  a->op = t.op() == Op::kMinus ? AstOp::kNeg : t.op() == Op::kPlus ? AstOp::kPos : AstOp::kInvert;
  size_t base = scratch_.size();
  scratch_.push_back(operand);
  RETURN_IF_ERROR(Seal(a, base));
  return a;
}

absl::StatusOr<Ast*> Parser::ParsePower() {
  if (AtKw(Keyword::kAwait)) return UnsupportedKeyword(Cur());
  ASSIGN_OR_RETURN(Ast * a, ParsePrimary());
  if (!AtOp(Op::kDoubleStar)) return a;
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  Advance();
  ASSIGN_OR_RETURN(Ast * b, ParseUnary());
  return MakeBinary(AstOp::kPow, a, b);
}

absl::StatusOr<Ast*> Parser::ParsePrimary() {
  ASSIGN_OR_RETURN(Ast * a, ParseAtom());
  while (true) {
    if (AtOp(Op::kLParen)) {
      ASSIGN_OR_RETURN(a, ParseCallTrailer(a));
    } else if (AtOp(Op::kLBracket)) {
      ASSIGN_OR_RETURN(a, ParseSubscriptTrailer(a));
    } else if (AtOp(Op::kDot)) {
      Advance();
      ASSIGN_OR_RETURN(const Token* name, ExpectName("an attribute name after '.'"));
      Ast* attr = NewAst(AstKind::kAttribute, *name);
      attr->line = a->line;
      attr->col = a->col;
      attr->text = name->text();
      size_t base = scratch_.size();
      scratch_.push_back(a);
      RETURN_IF_ERROR(Seal(attr, base));
      a = attr;
    } else {
      return a;
    }
  }
}

absl::StatusOr<Ast*> Parser::ParseCallTrailer(Ast* callee) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  Advance();  // (
  size_t base = scratch_.size();
  size_t kw_base = kw_scratch_.size();
  scratch_.push_back(callee);
  // Positionals must come first, so keyword values land after them in scratch_.
  bool seen_keyword = false;
  absl::flat_hash_set<std::string_view, SvHash> seen;  // used past 16 keywords
  while (!AtOp(Op::kRParen)) {
    const Token& t = Cur();
    if (t.Is(Op::kStar) || t.Is(Op::kDoubleStar)) {
      return ErrorAt(t, "unsupported Python construct: star-arguments (*args / **kwargs)");
    }
    if (t.kind == TokenKind::kName && Peek().Is(Op::kAssign)) {
      // Linear scan for the usual few keywords; a set once there are many.
      bool repeated = false;
      if (kw_scratch_.size() - kw_base < 16) {
        for (size_t i = kw_base; i < kw_scratch_.size(); ++i) {
          repeated = repeated || kw_scratch_[i].name == t.text();
        }
      } else {
        if (seen.empty()) {
          for (size_t i = kw_base; i < kw_scratch_.size(); ++i) seen.insert(kw_scratch_[i].name);
        }
        repeated = !seen.insert(t.text()).second;
      }
      if (repeated) {
        return ErrorAt(t, pto::StrCat("keyword argument repeated: '", t.text(), "'"));
      }
      kw_scratch_.push_back({t.text(), t.line, t.col, t.end_col});
      Advance();
      Advance();
      seen_keyword = true;
      ASSIGN_OR_RETURN(Ast * v, ParseTest());
      scratch_.push_back(v);
    } else {
      if (seen_keyword) {
        return ErrorAt(t, "positional argument follows keyword argument");
      }
      ASSIGN_OR_RETURN(Ast * v, ParseTest());
      scratch_.push_back(v);
    }
    if (AtOp(Op::kComma)) {
      Advance();
      continue;
    }
    if (!AtOp(Op::kRParen)) return Unexpected("',' or ')'");
  }
  Advance();  // )
  Ast* call = NewAst(AstKind::kCall, Cur());
  call->line = callee->line;
  call->col = callee->col;
  call->first_kw = static_cast<uint32_t>(kws_.size());
  call->num_kws = static_cast<uint32_t>(kw_scratch_.size() - kw_base);
  for (size_t i = kw_base; i < kw_scratch_.size(); ++i) kws_.push_back(kw_scratch_[i]);
  kw_scratch_.resize(kw_base);
  RETURN_IF_ERROR(Seal(call, base));
  return call;
}

absl::StatusOr<Ast*> Parser::ParseSubscriptTrailer(Ast* value) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  const Token& open = Cur();
  const Token& first_item = Peek();
  Advance();  // [
  if (AtOp(Op::kRBracket)) return Unexpected("an index");
  size_t base = scratch_.size();
  scratch_.push_back(value);
  size_t items_base = scratch_.size();
  bool comma = false;
  while (true) {
    ASSIGN_OR_RETURN(Ast * e, ParseSubscriptItem());
    scratch_.push_back(e);
    if (AtOp(Op::kComma)) {
      comma = true;
      Advance();
      if (AtOp(Op::kRBracket)) break;
      continue;
    }
    break;
  }
  RETURN_IF_ERROR(ExpectOp(Op::kRBracket));
  if (comma) {
    Ast* t = NewAst(AstKind::kTuple, first_item);
    RETURN_IF_ERROR(Seal(t, items_base));
    scratch_.push_back(t);
  }
  Ast* sub = NewAst(AstKind::kSubscript, open);
  sub->line = value->line;
  sub->col = value->col;
  RETURN_IF_ERROR(Seal(sub, base));
  return sub;
}

// One item of a subscript: an expression, or a slice `lower:upper:step` with
// any part left out (a left-out part is a None node, as x[None:4] means x[:4]).
absl::StatusOr<Ast*> Parser::ParseSubscriptItem() {
  const Token& start = Cur();
  size_t base = scratch_.size();
  Ast* lower = nullptr;
  if (!AtOp(Op::kColon)) {
    ASSIGN_OR_RETURN(lower, ParseTest());
    if (!AtOp(Op::kColon)) return lower;
  }
  auto part_ends = [this] {
    return AtOp(Op::kComma) || AtOp(Op::kRBracket) || AtOp(Op::kColon);
  };
  auto none_at = [this](const Token& t) { return NewAst(AstKind::kNone, t); };
  scratch_.push_back(lower != nullptr ? lower : none_at(start));
  Advance();  // :
  if (part_ends()) {
    scratch_.push_back(none_at(Prev()));
  } else {
    ASSIGN_OR_RETURN(Ast * upper, ParseTest());
    scratch_.push_back(upper);
  }
  if (AtOp(Op::kColon)) {
    Advance();
    if (part_ends()) {
      scratch_.push_back(none_at(Prev()));
    } else {
      ASSIGN_OR_RETURN(Ast * step, ParseTest());
      scratch_.push_back(step);
    }
  } else {
    scratch_.push_back(none_at(Prev()));
  }
  Ast* slice = NewAst(AstKind::kSlice, start);
  RETURN_IF_ERROR(Seal(slice, base));
  return slice;
}

absl::StatusOr<Ast*> Parser::ParseAtom() {
  const Token& t = Cur();
  switch (t.kind) {
    case TokenKind::kName: {
      Ast* a = NewAst(AstKind::kName, t);
      a->text = t.text();
      Advance();
      return a;
    }
    case TokenKind::kInt: {
      Ast* a = NewAst(AstKind::kInt, t);
      a->int_value = t.int_value;
      Advance();
      return a;
    }
    case TokenKind::kFloat: {
      Ast* a = NewAst(AstKind::kFloat, t);
      a->float_value = t.float_value;
      Advance();
      return a;
    }
    case TokenKind::kString: {
      Ast* a = NewAst(AstKind::kString, t);
      a->text = t.text();
      Advance();
      if (Cur().kind == TokenKind::kString) {
        // Adjacent literals concatenate.
        std::string& s = strings_.emplace_back(t.text());
        while (Cur().kind == TokenKind::kString) {
          s.append(Cur().text().data(), Cur().text().size());
          Advance();
        }
        a->text = s;
        a->end_line = Prev().end_line();
        a->end_col = Prev().end_col;
      }
      return a;
    }
    case TokenKind::kKeyword:
      switch (t.keyword()) {
        case Keyword::kTrue:
        case Keyword::kFalse:
        case Keyword::kNone: {
          Ast* a = NewAst(t.keyword() == Keyword::kTrue    ? AstKind::kTrue
                          : t.keyword() == Keyword::kFalse ? AstKind::kFalse
                                                           : AstKind::kNone,
                          t);
          Advance();
          return a;
        }
        default:
          return UnsupportedKeyword(t);
      }
    case TokenKind::kOp:
      break;
    default:
      return Unexpected("an expression");
  }
  switch (t.op()) {
    case Op::kEllipsis: {
      Ast* a = NewAst(AstKind::kEllipsis, t);
      Advance();
      return a;
    }
    case Op::kLParen:
      return ParseParenthesized(t);
    case Op::kLBracket: {
      RETURN_IF_ERROR(EnterNesting());
      NestingExit exit{&depth_};
      Advance();
      size_t base = scratch_.size();
      while (!AtOp(Op::kRBracket)) {
        if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression (write the elements out)");
        ASSIGN_OR_RETURN(Ast * e, ParseTest());
        scratch_.push_back(e);
        if (AtOp(Op::kComma)) {
          Advance();
          continue;
        }
        if (!AtOp(Op::kRBracket)) return Unexpected("',' or ']'");
      }
      Advance();
      Ast* a = NewAst(AstKind::kList, t);
      RETURN_IF_ERROR(Seal(a, base));
      return a;
    }
    case Op::kLBrace:
      return ParseDict(t);
    case Op::kStar:
      return ErrorAt(t, "unsupported Python construct: star expression (write the elements out)");
    default:
      return Unexpected("an expression");
  }
}

// `(`: a parenthesized expression or a tuple (`()`, `(a,)`, `(a, b)`).
absl::StatusOr<Ast*> Parser::ParseParenthesized(const Token& t) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  Advance();
  size_t base = scratch_.size();
  if (AtOp(Op::kRParen)) {
    Advance();
    Ast* a = NewAst(AstKind::kTuple, t);
    a->parenthesized = true;
    RETURN_IF_ERROR(Seal(a, base));
    return a;
  }
  if (AtKw(Keyword::kYield)) return UnsupportedKeyword(Cur());
  if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression (write the elements out)");
  ASSIGN_OR_RETURN(Ast * first, ParseTest());
  if (AtOp(Op::kRParen)) {
    Advance();
    return first;  // parentheses only group
  }
  scratch_.push_back(first);
  while (AtOp(Op::kComma)) {
    Advance();
    if (AtOp(Op::kRParen)) break;
    if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression (write the elements out)");
    ASSIGN_OR_RETURN(Ast * e, ParseTest());
    scratch_.push_back(e);
  }
  RETURN_IF_ERROR(ExpectOp(Op::kRParen));
  Ast* a = NewAst(AstKind::kTuple, t);
  a->parenthesized = true;
  RETURN_IF_ERROR(Seal(a, base));
  return a;
}

// `{`: a dict literal (set literals and `**` unpacking are errors).
absl::StatusOr<Ast*> Parser::ParseDict(const Token& t) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  Advance();
  size_t base = scratch_.size();
  while (!AtOp(Op::kRBrace)) {
    if (AtOp(Op::kDoubleStar)) {
      return ErrorAt(Cur(), "unsupported Python construct: dict unpacking (**)");
    }
    ASSIGN_OR_RETURN(Ast * k, ParseTest());
    if (!AtOp(Op::kColon)) {
      if (AtOp(Op::kComma) || AtOp(Op::kRBrace)) {
        return ErrorAt(Cur(), "unsupported Python construct: set literal (use a list [a, b])");
      }
      return Unexpected("':'");
    }
    Advance();
    ASSIGN_OR_RETURN(Ast * v, ParseTest());
    scratch_.push_back(k);
    scratch_.push_back(v);
    if (AtOp(Op::kComma)) {
      Advance();
      continue;
    }
    if (!AtOp(Op::kRBrace)) return Unexpected("',' or '}'");
  }
  Advance();
  Ast* a = NewAst(AstKind::kDict, t);
  RETURN_IF_ERROR(Seal(a, base));
  return a;
}

// Loop targets: NAME | '(' targets ')' | '[' targets ']', comma separated.
absl::StatusOr<Ast*> Parser::ParseTarget() {
  const Token& t = Cur();
  if (t.kind == TokenKind::kName) {
    Ast* a = NewAst(AstKind::kName, t);
    a->text = t.text();
    Advance();
    return a;
  }
  if (t.Is(Op::kLParen) || t.Is(Op::kLBracket)) {
    RETURN_IF_ERROR(EnterNesting());
    NestingExit exit{&depth_};
    Advance();
    ASSIGN_OR_RETURN(Ast * inner, ParseTargetList(t.Is(Op::kLParen) ? Op::kRParen : Op::kRBracket));
    RETURN_IF_ERROR(ExpectOp(t.Is(Op::kLParen) ? Op::kRParen : Op::kRBracket));
    if (inner->kind == AstKind::kTuple) inner->parenthesized = true;
    return inner;
  }
  return Unexpected("a loop variable name");
}

absl::StatusOr<Ast*> Parser::ParseTargetList(Op closer) {
  const Token& start = Cur();
  size_t base = scratch_.size();
  bool comma = false;
  while (true) {
    ASSIGN_OR_RETURN(Ast * t, ParseTarget());
    scratch_.push_back(t);
    if (!AtOp(Op::kComma)) break;
    comma = true;
    Advance();
    if (AtKw(Keyword::kIn) || AtOp(closer)) break;
  }
  if (!comma) {
    Ast* only = scratch_.back();
    scratch_.pop_back();
    return only;
  }
  Ast* a = NewAst(AstKind::kTuple, start);
  RETURN_IF_ERROR(Seal(a, base));
  return a;
}


// ===========================================================================
// Statement syntax. Only what the syntax alone decides is an error here;
// everything that depends on names or types is decided by the lowering.

void Parser::SealStmt(Ast* a, size_t base, const Token& end) {
  a->first_kid = static_cast<uint32_t>(kids_.size());
  a->num_kids = static_cast<uint32_t>(scratch_.size() - base);
  kids_.insert(kids_.end(), scratch_.begin() + base, scratch_.end());
  scratch_.erase(scratch_.begin() + base, scratch_.end());
  a->end_line = end.end_line();
  a->end_col = end.end_col;
}

absl::StatusOr<Ast*> Parser::ReadBlock(const Token& header, std::string_view what) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  const Token& first = Cur();
  size_t base = scratch_.size();
  if (!AtNewline()) {
    RETURN_IF_ERROR(ReadSimpleLine());
  } else {
    Advance();
    if (Cur().kind != TokenKind::kIndent) {
      return ErrorAt(Cur(), pto::StrCat("expected an indented block after '", what,
                                        "' statement on line ", header.line));
    }
    Advance();
    while (Cur().kind != TokenKind::kDedent && Cur().kind != TokenKind::kEnd) {
      RETURN_IF_ERROR(ReadLine());
    }
    if (Cur().kind == TokenKind::kDedent) Advance();
  }
  Ast* block = NewStmt(AstKind::kBlock, first);
  SealStmt(block, base, Prev());
  return block;
}

absl::Status Parser::ReadLine() {
  const Token& t = Cur();
  if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
  if (t.Is(Op::kAt)) {
    return ErrorAt(t, "unsupported Python construct: decorator inside a function (define the function at module or class level)");
  }
  if (t.kind != TokenKind::kKeyword) return ReadSimpleLine();
  Ast* s = nullptr;
  switch (t.keyword()) {
    case Keyword::kIf: {
      ASSIGN_OR_RETURN(s, ReadIf());
      break;
    }
    case Keyword::kFor: {
      ASSIGN_OR_RETURN(s, ReadFor());
      break;
    }
    case Keyword::kWhile: {
      ASSIGN_OR_RETURN(s, ReadWhile());
      break;
    }
    case Keyword::kWith: {
      ASSIGN_OR_RETURN(s, ReadWith());
      break;
    }
    case Keyword::kDef:
      return ErrorAt(t, "unsupported Python construct: nested function definition (define it as another function of the program and call it)");
    case Keyword::kClass:
      return ErrorAt(t, "unsupported Python construct: nested class (define it at module level)");
    case Keyword::kElif:
    case Keyword::kElse:
      return ErrorAt(t, pto::StrCat("'", KeywordText(t.keyword()), "' without a matching 'if'"));
    case Keyword::kTry:
    case Keyword::kExcept:
    case Keyword::kFinally:
      return ErrorAt(t, "unsupported Python construct: try statement (remove it; the compiler reports errors)");
    case Keyword::kAsync:
      return ErrorAt(t, "unsupported Python construct: async (remove it)");
    default:
      return ReadSimpleLine();
  }
  scratch_.push_back(s);
  return absl::OkStatus();
}

absl::Status Parser::ReadSimpleLine() {
  while (true) {
    RETURN_IF_ERROR(ReadSmallStatement());
    if (!AtOp(Op::kSemicolon)) break;
    Advance();
    if (AtNewline()) break;
  }
  return ExpectNewline();
}

namespace {

AstOp AugmentedOp(Op op) {
  switch (op) {
    case Op::kPlusAssign: return AstOp::kAdd;
    case Op::kMinusAssign: return AstOp::kSub;
    case Op::kStarAssign: return AstOp::kMul;
    case Op::kDoubleStarAssign: return AstOp::kPow;
    case Op::kSlashAssign: return AstOp::kDiv;
    case Op::kDoubleSlashAssign: return AstOp::kFloorDiv;
    case Op::kPercentAssign: return AstOp::kMod;
    case Op::kAmpAssign: return AstOp::kBitAnd;
    case Op::kPipeAssign: return AstOp::kBitOr;
    case Op::kCaretAssign: return AstOp::kBitXor;
    case Op::kShlAssign: return AstOp::kShl;
    case Op::kShrAssign: return AstOp::kShr;
    default: return AstOp::kNone;
  }
}

}  // namespace

absl::Status Parser::ReadSmallStatement() {
  const Token& t = Cur();
  size_t base = scratch_.size();
  AstKind kind = AstKind::kExprStmt;
  if (t.kind == TokenKind::kKeyword) {
    switch (t.keyword()) {
      case Keyword::kPass:
      case Keyword::kBreak:
      case Keyword::kContinue:
        kind = t.Is(Keyword::kPass)    ? AstKind::kPass
               : t.Is(Keyword::kBreak) ? AstKind::kBreak
                                       : AstKind::kContinue;
        Advance();
        {
          Ast* s = NewStmt(kind, t);
          SealStmt(s, base, t);
          scratch_.push_back(s);
        }
        return absl::OkStatus();
      case Keyword::kReturn: {
        Advance();
        if (!AtNewline() && !AtOp(Op::kSemicolon) && Cur().kind != TokenKind::kEnd) {
          ASSIGN_OR_RETURN(Ast * value, ParseTestList());
          scratch_.push_back(value);
        }
        Ast* s = NewStmt(AstKind::kReturn, t);
        SealStmt(s, base, Prev());
        scratch_.push_back(s);
        return absl::OkStatus();
      }
      case Keyword::kDel:
        return ErrorAt(t, "unsupported Python construct: del statement (remove it)");
      case Keyword::kGlobal:
        return ErrorAt(t, "unsupported Python construct: global statement (use a module constant NAME = value)");
      case Keyword::kNonlocal:
        return ErrorAt(t, "unsupported Python construct: nonlocal statement (remove it)");
      case Keyword::kAssert:
        return ErrorAt(t, "unsupported Python construct: assert statement (remove it; the compiler checks types and shapes)");
      case Keyword::kRaise:
        return ErrorAt(t, "unsupported Python construct: raise statement (remove it)");
      case Keyword::kImport:
      case Keyword::kFrom:
        return ErrorAt(t, "unsupported Python construct: import inside a function (move it to the top of the file)");
      default:
        break;
    }
  }
  ASSIGN_OR_RETURN(Ast * target, ParseTestList());
  scratch_.push_back(target);
  if (AtOp(Op::kAssign)) {
    Advance();
    if (AtKw(Keyword::kYield)) return UnsupportedKeyword(Cur());
    ASSIGN_OR_RETURN(Ast * value, ParseTestList());
    if (AtOp(Op::kAssign)) {
      return ErrorAt(Cur(), "unsupported Python construct: chained assignment (assign one name per statement)");
    }
    scratch_.push_back(value);
    kind = AstKind::kAssign;
  } else if (AtOp(Op::kColon)) {
    Advance();
    ASSIGN_OR_RETURN(Ast * ann, ParseTest());
    if (!AtOp(Op::kAssign)) {
      return ErrorAt(Cur(), "a variable annotation needs a value (`x: T = value`)");
    }
    Advance();
    scratch_.push_back(ann);
    ASSIGN_OR_RETURN(Ast * value, ParseTestList());
    scratch_.push_back(value);
    kind = AstKind::kAnnAssign;
  } else if (Cur().kind == TokenKind::kOp && AugmentedOp(Cur().op()) != AstOp::kNone) {
    AstOp op = AugmentedOp(Cur().op());
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, "augmented assignment needs a plain name on the left");
    }
    Advance();
    ASSIGN_OR_RETURN(Ast * rhs, ParseTestList());
    ASSIGN_OR_RETURN(Ast * value, MakeBinary(op, target, rhs));
    scratch_.push_back(value);
    kind = AstKind::kAssign;
  } else if (AtOp(Op::kAtAssign)) {
    return ErrorAt(Cur(), "unsupported Python construct: matrix multiplication operator '@'");
  }
  Ast* s = NewStmt(kind, t);
  SealStmt(s, base, Prev());
  scratch_.push_back(s);
  return absl::OkStatus();
}

absl::StatusOr<Ast*> Parser::ReadIf() {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  const Token& start = Cur();
  Advance();  // if / elif
  size_t base = scratch_.size();
  ASSIGN_OR_RETURN(Ast * cond, ParseTest());
  scratch_.push_back(cond);
  const Token& header_end = Prev();
  ASSIGN_OR_RETURN(Ast * then_block, ReadBlock(start, start.Is(Keyword::kIf) ? "if" : "elif"));
  scratch_.push_back(then_block);
  if (AtKw(Keyword::kElif)) {
    ASSIGN_OR_RETURN(Ast * elif, ReadIf());
    scratch_.push_back(elif);
  } else if (AtKw(Keyword::kElse)) {
    const Token& else_tok = Cur();
    Advance();
    ASSIGN_OR_RETURN(Ast * else_block, ReadBlock(else_tok, "else"));
    scratch_.push_back(else_block);
  }
  Ast* s = NewStmt(AstKind::kIf, start);
  SealStmt(s, base, header_end);
  return s;
}

absl::StatusOr<Ast*> Parser::ReadFor() {
  const Token& start = Cur();
  Advance();  // for
  size_t base = scratch_.size();
  ASSIGN_OR_RETURN(Ast * target, ParseTargetList(Op::kColon));
  if (!AtKw(Keyword::kIn)) return Unexpected("'in'");
  Advance();
  scratch_.push_back(target);
  ASSIGN_OR_RETURN(Ast * iter, ParseTest());
  scratch_.push_back(iter);
  const Token& header_end = Prev();
  ASSIGN_OR_RETURN(Ast * body, ReadBlock(start, "for"));
  scratch_.push_back(body);
  if (AtKw(Keyword::kElse)) return ErrorAt(Cur(), "unsupported Python construct: for-else (move the else body after the loop)");
  Ast* s = NewStmt(AstKind::kFor, start);
  SealStmt(s, base, header_end);
  return s;
}

absl::StatusOr<Ast*> Parser::ReadWhile() {
  const Token& start = Cur();
  Advance();  // while
  size_t base = scratch_.size();
  ASSIGN_OR_RETURN(Ast * cond, ParseTest());
  scratch_.push_back(cond);
  const Token& header_end = Prev();
  ASSIGN_OR_RETURN(Ast * body, ReadBlock(start, "while"));
  scratch_.push_back(body);
  if (AtKw(Keyword::kElse)) return ErrorAt(Cur(), "unsupported Python construct: while-else (move the else body after the loop)");
  Ast* s = NewStmt(AstKind::kWhile, start);
  SealStmt(s, base, header_end);
  return s;
}

absl::StatusOr<Ast*> Parser::ReadWith() {
  const Token& start = Cur();
  Advance();  // with
  size_t base = scratch_.size();
  ASSIGN_OR_RETURN(Ast * item, ParseTest());
  // `with pl.at(...) as tid:` names the scope's task id (kid 2).
  Ast* target = nullptr;
  if (AtKw(Keyword::kAs)) {
    Advance();
    ASSIGN_OR_RETURN(target, ParseTest());
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, "`as` target on `with pl.at(...)` must be a plain variable name");
    }
  }
  if (AtOp(Op::kComma)) {
    return ErrorAt(Cur(), "unsupported Python construct: several with-statement items (nest one with inside the other)");
  }
  scratch_.push_back(item);
  const Token& header_end = Prev();
  ASSIGN_OR_RETURN(Ast * body, ReadBlock(start, "with"));
  scratch_.push_back(body);
  if (target != nullptr) scratch_.push_back(target);
  Ast* s = NewStmt(AstKind::kWith, start);
  SealStmt(s, base, header_end);
  return s;
}

}  // namespace pto::parser::internal
