// The parser works in two layers:
//  * a recursive-descent reader that turns one statement's expressions into a
//    small syntax tree (Ast) held in pools that are rewound after every
//    statement, so parsing allocates almost nothing per token;
//  * lowering of those trees to IR with name resolution, constant folding of
//    module constants, type checks and operator calls through the registry.
// Statements are lowered as they are read; a program class is read twice:
// first every function header (so `self.f(...)` may call a function defined
// later), then every body.
//
// Window buffers: `with pld.comm_domain(..., slots=["buf"])` comes before the
// `buf = pld.tensor.alloc_window_buffer(size)` that defines the allocation,
// and WindowBuffer nodes are immutable. The IR is built bottom-up, so the
// scope statement is only constructed after its body has been read; each
// allocation statement records (base var, size) under its name, and the
// WindowBuffer object is created on first use (a `pld.WindowBuffer("buf")`
// type or the scope's slot list) and then shared by every later use in the
// function. Nothing needs to be rebuilt. A `pld.WindowBuffer("buf")` that comes
// before the allocation in the text is an error.
#include "compiler/parser/parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ops/op_binding.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/lexer.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::parser {
namespace {

using ir::DataType;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

struct SvHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>()(ToAbsl(s));
  }
};
template <typename V>
using SvMap = absl::flat_hash_map<std::string_view, V, SvHash>;

// ---------------------------------------------------------------------------
// Syntax trees of expressions.

enum class AstKind : uint8_t {
  kName,
  kInt,
  kFloat,
  kString,
  kTrue,
  kFalse,
  kNone,
  kEllipsis,
  kAttribute,  // kid 0 . text
  kCall,       // kid 0 = callee, then positional args, then keyword values
  kSubscript,  // kid 0 [ kid 1 ]
  kBinary,     // kid 0 op kid 1 (arithmetic, comparison, and/or)
  kUnary,      // op kid 0
  kTuple,
  kList,
  kDict,  // kids: key0, value0, key1, value1, ...
};

enum class AstOp : uint8_t {
  kNone,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kShl,
  kShr,
  kBitAnd,
  kBitOr,
  kBitXor,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNeg,
  kPos,
  kNot,
  kInvert,
};

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

bool IsCompareOp(AstOp op) { return op >= AstOp::kEq && op <= AstOp::kGe; }

struct Ast {
  AstKind kind = AstKind::kName;
  AstOp op = AstOp::kNone;
  bool negative = false;       // kInt: written with a leading '-'
  bool parenthesized = false;  // kTuple: written in parentheses
  int8_t const_cache = -1;     // IsConstAst result (-1: not computed yet)
  uint16_t height = 1;
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_line = 0;
  int32_t end_col = 0;
  std::string_view text;  // kName: name; kAttribute: attribute; kString: value
  union {
    uint64_t int_value;
    double float_value;
  };
  uint32_t first_kid = 0;
  uint32_t num_kids = 0;
  uint32_t first_kw = 0;  // kCall: keyword names in the keyword pool
  uint32_t num_kws = 0;

  Ast() : int_value(0) {}
};

// Chunked storage for Ast nodes: stable addresses, and rewinding after a
// statement frees nothing, so the next statement reuses the same memory.
class AstPool {
 public:
  Ast* New() {
    if (used_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Ast[]>(kChunk));
    Ast* a = &chunks_[used_ / kChunk][used_ % kChunk];
    ++used_;
    *a = Ast();
    return a;
  }
  size_t size() const { return used_; }
  void Truncate(size_t n) { used_ = n; }

 private:
  static constexpr size_t kChunk = 1024;
  std::vector<std::unique_ptr<Ast[]>> chunks_;
  size_t used_ = 0;
};

struct KwName {
  std::string_view name;
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_col = 0;
};

// ---------------------------------------------------------------------------
// Compile-time constants (module and class constants, attribute values).

struct ConstVal {
  enum Kind : uint8_t { kInt, kFloat, kBool, kStr, kDType, kList };
  Kind kind = kInt;
  bool is_tuple = false;
  int64_t i = 0;
  double f = 0;
  DataType dtype = DataType::kIndex;
  std::string s;
  std::vector<ConstVal> list;

  static ConstVal Int(int64_t v) {
    ConstVal c;
    c.kind = kInt;
    c.i = v;
    return c;
  }
  static ConstVal Float(double v) {
    ConstVal c;
    c.kind = kFloat;
    c.f = v;
    return c;
  }
  static ConstVal Bool(bool v) {
    ConstVal c;
    c.kind = kBool;
    c.i = v ? 1 : 0;
    return c;
  }
  bool IsNumber() const { return kind == kInt || kind == kFloat || kind == kBool; }
  double AsDouble() const { return kind == kFloat ? f : static_cast<double>(i); }
  bool Truthy() const {
    switch (kind) {
      case kInt:
      case kBool: return i != 0;
      case kFloat: return f != 0;
      case kStr: return !s.empty();
      case kList: return !list.empty();
      case kDType: return true;
    }
    return true;
  }
};

std::string_view ConstKindName(const ConstVal& v) {
  switch (v.kind) {
    case ConstVal::kInt: return "int";
    case ConstVal::kFloat: return "float";
    case ConstVal::kBool: return "bool";
    case ConstVal::kStr: return "str";
    case ConstVal::kDType: return "data type";
    case ConstVal::kList: return v.is_tuple ? "tuple" : "list";
  }
  return "value";
}

// Integer enums of pld.* kwargs (spec §2, ABI values).
struct IntEnum {
  std::string_view path;
  int64_t value;
};
constexpr IntEnum kIntEnums[] = {
    {"pld.ReduceOp.Sum", 0},       {"pld.ReduceOp.Max", 1},    {"pld.ReduceOp.Min", 2},
    {"pld.ReduceOp.Prod", 3},      {"pld.NotifyOp.AtomicAdd", 0}, {"pld.NotifyOp.Set", 1},
    {"pld.WaitCmp.Eq", 0},         {"pld.WaitCmp.Ge", 1},      {"pld.AtomicType.None_", 0},
    {"pld.AtomicType.Add", 1},
};

std::string TypeText(const TypePtr& t) { return ir::PrintType(t); }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// ---------------------------------------------------------------------------
// Per-function state shared by the header pass and the body pass.

struct WinAlloc {
  VarPtr base;
  ExprPtr size;
  Span span;
  ir::WindowBufferPtr wb;  // created on first use
};

using MemRefKey = std::tuple<int, int64_t, int64_t, int64_t, const void*>;

struct FuncState {
  std::string_view name;
  Span span;
  std::vector<VarPtr> params;
  std::vector<ir::ParamDirection> dirs;
  std::vector<TypePtr> ret_types;
  // The decorator's arguments; the Function is built once every body is read.
  ir::FunctionType func_type = ir::FunctionType::kOpaque;
  std::optional<ir::Level> level;
  std::optional<ir::Role> role;
  ir::AttrList attrs;
  bool runtime_binding = false;
  StmtPtr body;
  TypePtr call_type;  // result type of a call (before substituting params)
  bool call_type_uses_params = false;
  ir::GlobalVarPtr gv;
  size_t body_pos = 0;
  absl::flat_hash_map<MemRefKey, std::shared_ptr<const ir::MemRef>> memrefs;
  SvMap<WinAlloc> windows;
};

// What a block hands to its owner when its last statement is a pl.yield_.
struct YieldInfo {
  bool present = false;
  bool has_names = false;
  std::vector<std::string_view> names;
  std::vector<Span> name_spans;
  std::vector<ExprPtr> values;
  TypePtr annotation;  // `x: T = pl.yield_(v)`
  Span span;
};

class Parser {
 public:
  Parser(const TokenStream& ts, const ops::OpRegistry& registry, bool allow_internal_ops)
      : ts_(ts),
        toks_(ts.tokens),
        file_(ts.file),
        registry_(registry),
        allow_internal_ops_(allow_internal_ops) {}

  absl::StatusOr<ir::ProgramPtr> Run();

 private:
  // ----- tokens -----
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(size_t k = 1) const {
    return pos_ + k < toks_.size() ? toks_[pos_ + k] : toks_.back();
  }
  const Token& Prev() const { return toks_[pos_ > 0 ? pos_ - 1 : 0]; }
  void Advance() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }
  bool AtOp(Op op) const { return Cur().Is(op); }
  bool AtKw(Keyword kw) const { return Cur().Is(kw); }
  bool AtNewline() const { return Cur().kind == TokenKind::kNewline; }

  Span SpanOf(const Token& t) const { return Span(file_, t.line, t.col, t.end_line(), t.end_col); }
  Span SpanOf(const Ast* a) const { return Span(file_, a->line, a->col, a->end_line, a->end_col); }
  Span SpanFrom(const Token& start) const {
    const Token& end = Prev();
    return Span(file_, start.line, start.col, end.end_line(), end.end_col);
  }
  Span SpanFromTo(const Token& start, const Token& end) const {
    return Span(file_, start.line, start.col, end.end_line(), end.end_col);
  }
  Span KwSpan(const KwName& k) const { return Span(file_, k.line, k.col, k.line, k.end_col); }

  absl::Status ErrorAt(const Token& t, std::string msg) const {
    return UserError(SpanOf(t), std::move(msg));
  }
  absl::Status ErrorAt(const Ast* a, std::string msg) const {
    return UserError(SpanOf(a), std::move(msg));
  }
  absl::Status Unexpected(std::string_view expected) const {
    const Token& t = Cur();
    if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
    return ErrorAt(t, pto::StrCat("expected ", expected, ", found ", DescribeToken(t)));
  }
  absl::Status ExpectOp(Op op) {
    if (!AtOp(op)) return Unexpected(pto::StrCat("'", OpText(op), "'"));
    Advance();
    return absl::OkStatus();
  }
  absl::Status ExpectNewline() {
    if (AtNewline()) {
      Advance();
      return absl::OkStatus();
    }
    return Unexpected("end of line");
  }
  absl::StatusOr<const Token*> ExpectName(std::string_view what) {
    if (Cur().kind != TokenKind::kName) return Unexpected(what);
    const Token* t = &Cur();
    Advance();
    return t;
  }

  // ----- nesting limit -----
  absl::Status EnterNesting() {
    if (++depth_ > kMaxNestingDepth) {
      --depth_;
      return ErrorAt(Cur(), pto::StrCat("too deeply nested (more than ", kMaxNestingDepth,
                                        " levels)"));
    }
    return absl::OkStatus();
  }
  struct NestingExit {
    int* depth;
    ~NestingExit() { --*depth; }
  };

  // ----- Ast pools -----
  struct PoolMark {
    size_t asts, kids, kws;
  };
  PoolMark Mark() const { return {asts_.size(), kids_.size(), kws_.size()}; }
  void Release(const PoolMark& m) {
    asts_.Truncate(m.asts);
    kids_.resize(m.kids);
    kws_.resize(m.kws);
  }
  Ast* NewAst(AstKind kind, const Token& start) {
    Ast* a = asts_.New();
    a->kind = kind;
    a->line = start.line;
    a->col = start.col;
    a->end_line = start.end_line();
    a->end_col = start.end_col;
    return a;
  }
  // Moves scratch_[base..] into the kid pool as the kids of `a`, sets its end
  // to the last consumed token and checks the tree height.
  absl::Status Seal(Ast* a, size_t base) {
    a->first_kid = static_cast<uint32_t>(kids_.size());
    a->num_kids = static_cast<uint32_t>(scratch_.size() - base);
    int h = 0;
    for (size_t i = base; i < scratch_.size(); ++i) h = std::max<int>(h, scratch_[i]->height);
    kids_.insert(kids_.end(), scratch_.begin() + base, scratch_.end());
    scratch_.erase(scratch_.begin() + base, scratch_.end());
    const Token& end = Prev();
    a->end_line = end.end_line();
    a->end_col = end.end_col;
    if (h + 1 > kMaxExpressionHeight) {
      return ErrorAt(a, pto::StrCat("expression is too deeply nested (more than ",
                                    kMaxExpressionHeight, " levels)"));
    }
    a->height = static_cast<uint16_t>(h + 1);
    return absl::OkStatus();
  }
  absl::StatusOr<Ast*> MakeBinary(AstOp op, Ast* lhs, Ast* rhs) {
    Ast* a = asts_.New();
    a->kind = AstKind::kBinary;
    a->op = op;
    a->line = lhs->line;
    a->col = lhs->col;
    size_t base = scratch_.size();
    scratch_.push_back(lhs);
    scratch_.push_back(rhs);
    RETURN_IF_ERROR(Seal(a, base));
    a->end_line = rhs->end_line;
    a->end_col = rhs->end_col;
    return a;
  }
  Ast* Kid(const Ast* a, uint32_t i) const { return kids_[a->first_kid + i]; }
  uint32_t NumPos(const Ast* call) const { return call->num_kids - 1 - call->num_kws; }
  Ast* PosArg(const Ast* call, uint32_t i) const { return Kid(call, 1 + i); }
  Ast* KwValue(const Ast* call, uint32_t i) const { return Kid(call, 1 + NumPos(call) + i); }
  const KwName& KwAt(const Ast* call, uint32_t i) const { return kws_[call->first_kw + i]; }

  // ----- expression syntax -----
  Ast* TryParseLoneAtom();
  absl::StatusOr<Ast*> ParseTest();
  absl::StatusOr<Ast*> ParseTestList();
  absl::StatusOr<Ast*> ParseBinary(int min_prec);
  absl::StatusOr<Ast*> ParseUnary();
  absl::StatusOr<Ast*> ParsePower();
  absl::StatusOr<Ast*> ParsePrimary();
  absl::StatusOr<Ast*> ParseAtom();
  absl::StatusOr<Ast*> ParseCallTrailer(Ast* callee);
  absl::StatusOr<Ast*> ParseSubscriptTrailer(Ast* value);
  absl::StatusOr<Ast*> ParseTargetList(Op closer);
  absl::StatusOr<Ast*> ParseTarget();
  absl::Status UnsupportedKeyword(const Token& t) const;

  // ----- names -----
  const VarPtr* LookupLocal(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }
  const ConstVal* LookupConst(std::string_view name) const {
    if (LookupLocal(name) != nullptr) return nullptr;
    if (in_class_) {
      auto it = class_consts_.find(name);
      if (it != class_consts_.end()) return &it->second;
    }
    auto it = module_consts_.find(name);
    return it == module_consts_.end() ? nullptr : &it->second;
  }
  static bool IsModuleRoot(std::string_view name) {
    return name == "pl" || name == "pld" || name == "builtin" || name == "self";
  }
  bool IsFreeName(std::string_view name) const {
    return LookupLocal(name) == nullptr && LookupConst(name) == nullptr;
  }
  void Define(std::string_view name, VarPtr var) {
    VarPtr& slot = names_[name];
    undo_.push_back({name, std::move(slot)});
    slot = std::move(var);
  }
  void PushScope(const char* kind) { frames_.push_back({undo_.size(), kind}); }
  void PopScope();
  void ResetScopes() {
    names_.clear();
    undo_.clear();
    frames_.clear();
    dead_.clear();
  }
  absl::Status UnknownName(std::string_view name, const Span& span) const;

  // `a.b.c` with a free root name, as text in path_ (false otherwise).
  bool DottedPath(const Ast* a);
  std::optional<DataType> ResolveDType(const Ast* a);

  // ----- constants -----
  bool IsConstAst(const Ast* a);
  bool IsConstAstUncached(const Ast* a);
  bool IsSimpleLiteral(const Ast* a);
  absl::StatusOr<ConstVal> ConstEval(const Ast* a);
  absl::StatusOr<ConstVal> ConstBinary(const Ast* a, const ConstVal& l, const ConstVal& r);
  absl::StatusOr<ExprPtr> ConstToExpr(const ConstVal& v, const Span& span);
  absl::StatusOr<int64_t> ConstInt(const Ast* a, std::string_view what);
  absl::StatusOr<ExprPtr> TypedConst(const ConstVal& v, DataType dtype, const Span& span);
  bool IsLiteral(const Ast* a);

  // ----- expressions -----
  absl::StatusOr<ExprPtr> LowerExpr(const Ast* a);
  absl::StatusOr<ExprPtr> LowerName(const Ast* a);
  absl::StatusOr<ExprPtr> LowerAttribute(const Ast* a);
  absl::StatusOr<ExprPtr> LowerCall(const Ast* a, std::string_view alloc_name = {});
  absl::StatusOr<ExprPtr> LowerOpCall(const Ast* a, std::string_view alloc_name);
  absl::StatusOr<ExprPtr> LowerFunctionCall(const Ast* a, std::string_view fname);
  absl::StatusOr<ExprPtr> LowerSubscript(const Ast* a);
  absl::StatusOr<ExprPtr> LowerBinary(const Ast* a);
  absl::StatusOr<ExprPtr> LowerBinaryOp(AstOp op, const Ast* lhs_ast, const Ast* rhs_ast,
                                        const Span& span);
  absl::StatusOr<ExprPtr> LowerUnary(const Ast* a);
  absl::StatusOr<ExprPtr> LowerScalarOperand(const Ast* a, std::string_view op);
  absl::StatusOr<ExprPtr> LowerOpArg(const Ast* a, std::string_view op);
  absl::StatusOr<ExprPtr> LowerMemRef(const Ast* call);
  // Binds the positional and keyword arguments of a four-field constructor
  // call (pl.MemRef, pl.TensorView) to `field`, in the order of `names`.
  absl::Status BindFourFields(const Ast* call, const std::string_view (&names)[4],
                              uint32_t min_pos, std::string_view what, const Ast* (&field)[4]);
  absl::StatusOr<ir::WindowBufferPtr> LowerWindowBufferRef(const Ast* call);
  absl::StatusOr<ir::AttrValue> ConvertAttr(const Ast* a);
  absl::StatusOr<ir::AttrValue> ConvertCallAttr(std::string_view key, const Ast* a);
  absl::StatusOr<ir::AttrList> ConvertAttrDict(const Ast* a, bool call_attrs);
  absl::Status CheckNoKeywords(const Ast* call, std::string_view what);
  absl::StatusOr<ExprPtr> MakeOpCall(std::string_view name, std::vector<ExprPtr> args,
                                     ir::AttrList kwargs, ir::AttrList attrs, const Span& span);
  absl::Status CheckPosCount(const Ast* call, uint32_t min, uint32_t max, std::string_view what);

  // ----- types -----
  struct ParamType {
    TypePtr type;
    ir::ParamDirection dir = ir::ParamDirection::kIn;
  };
  absl::StatusOr<ParamType> LowerParamType(const Ast* a);
  bool TryParseSimpleType(TypePtr* out);
  bool TryParseSimpleParamType(ParamType* out);
  absl::StatusOr<TypePtr> LowerType(const Ast* a);
  absl::StatusOr<TypePtr> LowerShapedType(const Ast* a, int which);
  absl::StatusOr<std::vector<ExprPtr>> LowerShape(const Ast* a, std::string_view what);
  absl::StatusOr<ExprPtr> LowerDim(const Ast* a);
  absl::StatusOr<DataType> LowerDType(const Ast* a, std::string_view what);
  absl::StatusOr<ir::TensorView> LowerTensorView(const Ast* call);
  absl::Status CheckAnnotation(const TypePtr& ann, const TypePtr& value, const Ast* ann_ast);

  // ----- module, class, functions -----
  absl::Status ParseModule();
  absl::Status SkipImport();
  absl::Status ParseConstantDef(SvMap<ConstVal>* table);
  absl::Status ParseProgramClass(const Ast* decorator, const Token& at_tok);
  absl::Status ParseFunctionHeader(const Ast* decorator);
  absl::Status ParseReturnAnnotation(FuncState* fs);
  absl::Status SkipBlock(const Token& header);
  absl::Status ParseFunctionBody(FuncState* f);
  absl::StatusOr<Ast*> ParseDecorator(const Token** at_tok);
  std::vector<std::string> LeadingComments(int line) const;

  // ----- statements -----
  absl::Status ParseBlock(const Token& header, std::string_view what, std::vector<StmtPtr>* out,
                          YieldInfo* yield);
  absl::Status ParseStatement(std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status ParseSimpleLine(std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status ParseSmallStatement(std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerAssign(const Token& start, const Ast* target, const Ast* ann,
                           const Ast* value, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerYield(const Token& start, const Ast* target, const Ast* ann,
                          const Ast* call, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerExprStatement(const Token& start, const Ast* a, std::vector<StmtPtr>* out,
                                  YieldInfo* yield);
  absl::Status ParseReturn(std::vector<StmtPtr>* out);
  absl::Status ParseIf(std::vector<StmtPtr>* out, YieldInfo* result_names);
  absl::Status ParseFor(std::vector<StmtPtr>* out);
  absl::Status ParseRangeFor(const Token& start, const Ast* target, const Ast* iter,
                             ir::ForKind kind, std::vector<StmtPtr>* out);
  absl::Status ParseWhileFor(const Token& start, const Ast* target, const Ast* iter,
                             std::vector<StmtPtr>* out);
  absl::Status ParseWhile(std::vector<StmtPtr>* out);
  absl::Status ParseWith(std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::StatusOr<std::vector<ExprPtr>> LowerInitValues(const Ast* a);
  absl::StatusOr<std::vector<VarPtr>> MakeResultVars(const YieldInfo& y,
                                                     const std::vector<TypePtr>& types);
  absl::Status CheckLoopYield(const YieldInfo& y, size_t num_iter_args, const Token& start,
                              std::string_view what);
  bool IsPathCall(const Ast* a, std::string_view path);

  const TokenStream& ts_;
  const std::vector<Token>& toks_;
  SourceFilePtr file_;
  const ops::OpRegistry& registry_;
  const bool allow_internal_ops_;
  size_t pos_ = 0;
  int depth_ = 0;

  AstPool asts_;
  std::vector<Ast*> kids_;
  std::vector<KwName> kws_;
  std::vector<Ast*> scratch_;
  std::vector<KwName> kw_scratch_;
  std::deque<std::string> strings_;  // concatenated string literals
  std::string path_;

  SvMap<ConstVal> module_consts_;
  SvMap<ConstVal> class_consts_;
  bool in_class_ = false;

  // Local names with IR scoping: an undo log restores the outer bindings when
  // a loop or branch body ends.
  struct Undo {
    std::string_view name;
    VarPtr prev;
  };
  struct Frame {
    size_t undo_mark;
    const char* kind;
  };
  struct DeadName {
    const char* kind;
    int line;
  };
  SvMap<VarPtr> names_;
  std::vector<Undo> undo_;
  std::vector<Frame> frames_;
  SvMap<DeadName> dead_;

  std::vector<std::unique_ptr<FuncState>> funcs_;
  SvMap<FuncState*> funcs_by_name_;
  FuncState* cur_func_ = nullptr;
  bool expect_cond_ = false;  // the next statement must be pl.cond(...)
  ExprPtr cond_result_;

  std::string program_name_;
  Span program_span_;
  bool have_program_ = false;
};

// ===========================================================================
// Expression syntax.

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

absl::Status Parser::UnsupportedKeyword(const Token& t) const {
  switch (t.keyword()) {
    case Keyword::kLambda: return ErrorAt(t, "unsupported Python construct: lambda");
    case Keyword::kYield:
      return ErrorAt(t, "unsupported Python construct: yield (use pl.yield_(...))");
    case Keyword::kAwait: return ErrorAt(t, "unsupported Python construct: await");
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
    return ErrorAt(Cur(), "unsupported Python construct: conditional expression (x if c else y)");
  }
  if (AtOp(Op::kWalrus)) return ErrorAt(Cur(), "unsupported Python construct: walrus operator (:=)");
  if (AtKw(Keyword::kFor) || AtKw(Keyword::kAsync)) {
    return ErrorAt(Cur(), "unsupported Python construct: comprehension");
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
      return ErrorAt(t, "unsupported Python construct: chained comparison (a < b < c)");
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
    if (AtOp(Op::kColon)) {
      return ErrorAt(Cur(),
                     "unsupported Python construct: slice (use pl.tensor.slice or pl.tensor.view)");
    }
    ASSIGN_OR_RETURN(Ast * e, ParseTest());
    if (AtOp(Op::kColon)) {
      return ErrorAt(Cur(),
                     "unsupported Python construct: slice (use pl.tensor.slice or pl.tensor.view)");
    }
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
    case Op::kLParen: {
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
      if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression");
      ASSIGN_OR_RETURN(Ast * first, ParseTest());
      if (AtOp(Op::kRParen)) {
        Advance();
        return first;  // parentheses only group
      }
      scratch_.push_back(first);
      while (AtOp(Op::kComma)) {
        Advance();
        if (AtOp(Op::kRParen)) break;
        if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression");
        ASSIGN_OR_RETURN(Ast * e, ParseTest());
        scratch_.push_back(e);
      }
      RETURN_IF_ERROR(ExpectOp(Op::kRParen));
      Ast* a = NewAst(AstKind::kTuple, t);
      a->parenthesized = true;
      RETURN_IF_ERROR(Seal(a, base));
      return a;
    }
    case Op::kLBracket: {
      RETURN_IF_ERROR(EnterNesting());
      NestingExit exit{&depth_};
      Advance();
      size_t base = scratch_.size();
      while (!AtOp(Op::kRBracket)) {
        if (AtOp(Op::kStar)) return ErrorAt(Cur(), "unsupported Python construct: star expression");
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
    case Op::kLBrace: {
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
            return ErrorAt(Cur(), "unsupported Python construct: set literal");
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
    case Op::kStar:
      return ErrorAt(t, "unsupported Python construct: star expression");
    default:
      return Unexpected("an expression");
  }
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
// Names.

void Parser::PopScope() {
  Frame f = frames_.back();
  frames_.pop_back();
  while (undo_.size() > f.undo_mark) {
    Undo u = std::move(undo_.back());
    undo_.pop_back();
    auto it = names_.find(u.name);
    if (it == names_.end()) continue;  // cannot happen: Define inserted it
    if (u.prev == nullptr) {
      // Remember where the name lived so a later use can suggest pl.yield_.
      int line = it != names_.end() && it->second != nullptr ? it->second->span().line : 0;
      dead_[u.name] = DeadName{f.kind, line};
      names_.erase(it);
    } else {
      it->second = std::move(u.prev);
    }
  }
}

absl::Status Parser::UnknownName(std::string_view name, const Span& span) const {
  auto it = dead_.find(name);
  if (it != dead_.end()) {
    return UserError(span, pto::StrCat("unknown name '", name, "': it is defined inside the ",
                                       it->second.kind, " at line ", it->second.line,
                                       " and is not visible after it; pass the value out with "
                                       "pl.yield_ (e.g. `", name, " = pl.yield_(...)`)"));
  }
  return UserError(span, pto::StrCat("unknown name '", name, "'"));
}

bool Parser::DottedPath(const Ast* a) {
  // Walk to the root, then build "root.a.b" front to back.
  const Ast* parts[64];
  int n = 0;
  while (a->kind == AstKind::kAttribute) {
    if (n == 64) return false;
    parts[n++] = a;
    a = Kid(a, 0);
  }
  if (a->kind != AstKind::kName) return false;
  // The module names always mean the modules (docs/language.md), even where a
  // value of that name exists; other roots must not name a value.
  if (!IsModuleRoot(a->text) && !IsFreeName(a->text)) return false;
  path_.assign(a->text.data(), a->text.size());
  for (int i = n - 1; i >= 0; --i) {
    path_ += '.';
    path_.append(parts[i]->text.data(), parts[i]->text.size());
  }
  return true;
}

std::optional<DataType> Parser::ResolveDType(const Ast* a) {
  if (a->kind == AstKind::kName) {
    const ConstVal* c = LookupConst(a->text);
    if (c != nullptr && c->kind == ConstVal::kDType) return c->dtype;
    return std::nullopt;
  }
  if (a->kind == AstKind::kAttribute && Kid(a, 0)->kind == AstKind::kName &&
      Kid(a, 0)->text == "pl") {
    return ir::DataTypeFromName(a->text);
  }
  return std::nullopt;
}

// ===========================================================================
// Compile-time constants.

// Cached per node: a statement's name bindings do not change while it is
// lowered, and operator chains would otherwise be rescanned at every level.
bool Parser::IsConstAst(const Ast* a) {
  if (a->const_cache >= 0) return a->const_cache != 0;
  bool result = IsConstAstUncached(a);
  const_cast<Ast*>(a)->const_cache = result ? 1 : 0;
  return result;
}

bool Parser::IsConstAstUncached(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
    case AstKind::kFloat:
    case AstKind::kString:
    case AstKind::kTrue:
    case AstKind::kFalse:
      return true;
    case AstKind::kName:
      return LookupConst(a->text) != nullptr;
    case AstKind::kAttribute: {
      if (ResolveDType(a)) return true;
      if (!DottedPath(a)) return false;
      for (const IntEnum& e : kIntEnums) {
        if (e.path == path_) return true;
      }
      return false;
    }
    case AstKind::kCall: {
      const Ast* f = Kid(a, 0);
      if (f->kind == AstKind::kAttribute && f->text == "get_byte" && a->num_kids == 1) {
        return ResolveDType(Kid(f, 0)).has_value();
      }
      return f->kind == AstKind::kName && f->text == "float" &&
             a->num_kids == 2 && a->num_kws == 0 && Kid(a, 1)->kind == AstKind::kString;
    }
    case AstKind::kUnary:
    case AstKind::kBinary:
    case AstKind::kTuple:
    case AstKind::kList:
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        if (!IsConstAst(Kid(a, i))) return false;
      }
      return true;
    default:
      return false;
  }
}

absl::StatusOr<ConstVal> Parser::ConstEval(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt: {
      uint64_t m = a->int_value;
      if (a->negative) {
        if (m > (uint64_t{1} << 63)) {
          return ErrorAt(a, "integer literal does not fit in 64 bits");
        }
        return ConstVal::Int(m == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                                       : -static_cast<int64_t>(m));
      }
      if (m > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return ErrorAt(a, "integer literal does not fit in 64 bits");
      }
      return ConstVal::Int(static_cast<int64_t>(m));
    }
    case AstKind::kFloat:
      return ConstVal::Float(a->float_value);
    case AstKind::kString: {
      ConstVal v;
      v.kind = ConstVal::kStr;
      v.s = std::string(a->text);
      return v;
    }
    case AstKind::kTrue:
      return ConstVal::Bool(true);
    case AstKind::kFalse:
      return ConstVal::Bool(false);
    case AstKind::kName: {
      if (const ConstVal* c = LookupConst(a->text)) return *c;
      if (LookupLocal(a->text) != nullptr) {
        return ErrorAt(a, pto::StrCat("'", a->text, "' is not a compile-time constant"));
      }
      return UnknownName(a->text, SpanOf(a));
    }
    case AstKind::kAttribute: {
      if (std::optional<DataType> dt = ResolveDType(a)) {
        ConstVal v;
        v.kind = ConstVal::kDType;
        v.dtype = *dt;
        return v;
      }
      if (DottedPath(a)) {
        for (const IntEnum& e : kIntEnums) {
          if (e.path == path_) return ConstVal::Int(e.value);
        }
        return ErrorAt(a, pto::StrCat("'", path_, "' is not a compile-time constant"));
      }
      return ErrorAt(a, "unsupported attribute access in a constant expression");
    }
    case AstKind::kCall: {
      const Ast* f = Kid(a, 0);
      if (f->kind == AstKind::kAttribute && f->text == "get_byte") {
        std::optional<DataType> dt = ResolveDType(Kid(f, 0));
        if (dt && a->num_kids == 1) return ConstVal::Int(ir::DataTypeBytes(*dt));
        if (dt) return ErrorAt(a, "get_byte() takes no arguments");
      }
      if (f->kind == AstKind::kName && f->text == "float" &&
          a->num_kids == 2 && a->num_kws == 0 && Kid(a, 1)->kind == AstKind::kString) {
        std::string s(Kid(a, 1)->text);
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        double inf = std::numeric_limits<double>::infinity();
        if (s == "nan" || s == "+nan") return ConstVal::Float(std::nan(""));
        if (s == "-nan") return ConstVal::Float(-std::nan(""));
        if (s == "inf" || s == "+inf" || s == "infinity" || s == "+infinity") {
          return ConstVal::Float(inf);
        }
        if (s == "-inf" || s == "-infinity") return ConstVal::Float(-inf);
        return ErrorAt(a, "float(...) accepts only \"nan\", \"inf\" and \"-inf\"");
      }
      return ErrorAt(a, "this call is not a compile-time constant");
    }
    case AstKind::kUnary: {
      ASSIGN_OR_RETURN(ConstVal v, ConstEval(Kid(a, 0)));
      if (a->op == AstOp::kNot) return ConstVal::Bool(!v.Truthy());
      if (!v.IsNumber()) {
        return ErrorAt(a, pto::StrCat("bad operand type for unary ", AstOpText(a->op), ": '",
                                      ConstKindName(v), "'"));
      }
      switch (a->op) {
        case AstOp::kPos:
          return v.kind == ConstVal::kBool ? ConstVal::Int(v.i) : v;
        case AstOp::kNeg:
          if (v.kind == ConstVal::kFloat) return ConstVal::Float(-v.f);
          if (v.i == std::numeric_limits<int64_t>::min()) {
            return ErrorAt(a, "integer overflow in constant expression");
          }
          return ConstVal::Int(-v.i);
        case AstOp::kInvert:
          if (v.kind == ConstVal::kFloat) {
            return ErrorAt(a, "bad operand type for unary ~: 'float'");
          }
          return ConstVal::Int(~v.i);
        default:
          break;
      }
      return ErrorAt(a, "unsupported operator in constant expression");
    }
    case AstKind::kBinary: {
      ASSIGN_OR_RETURN(ConstVal l, ConstEval(Kid(a, 0)));
      if (a->op == AstOp::kAnd) {
        if (!l.Truthy()) return l;
        return ConstEval(Kid(a, 1));
      }
      if (a->op == AstOp::kOr) {
        if (l.Truthy()) return l;
        return ConstEval(Kid(a, 1));
      }
      ASSIGN_OR_RETURN(ConstVal r, ConstEval(Kid(a, 1)));
      return ConstBinary(a, l, r);
    }
    case AstKind::kTuple:
    case AstKind::kList: {
      ConstVal v;
      v.kind = ConstVal::kList;
      v.is_tuple = a->kind == AstKind::kTuple;
      v.list.reserve(a->num_kids);
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ConstVal e, ConstEval(Kid(a, i)));
        v.list.push_back(std::move(e));
      }
      return v;
    }
    default:
      return ErrorAt(a, "not a compile-time constant expression");
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// Python semantics for int/float/bool/str operands.
absl::StatusOr<ConstVal> Parser::ConstBinary(const Ast* a, const ConstVal& l, const ConstVal& r) {
  AstOp op = a->op;
  auto type_error = [&]() {
    return ErrorAt(a, pto::StrCat("unsupported operand types for ", AstOpText(op), ": '",
                                  ConstKindName(l), "' and '", ConstKindName(r), "'"));
  };
  auto overflow = [&]() { return ErrorAt(a, "integer overflow in constant expression"); };
  if (IsCompareOp(op)) {
    int cmp = 0;
    if (l.IsNumber() && r.IsNumber()) {
      if (l.kind != ConstVal::kFloat && r.kind != ConstVal::kFloat) {
        cmp = l.i < r.i ? -1 : l.i > r.i ? 1 : 0;
      } else {
        double x = l.AsDouble(), y = r.AsDouble();
        if (std::isnan(x) || std::isnan(y)) return ConstVal::Bool(op == AstOp::kNe);
        cmp = x < y ? -1 : x > y ? 1 : 0;
      }
    } else if (l.kind == ConstVal::kStr && r.kind == ConstVal::kStr) {
      cmp = l.s < r.s ? -1 : l.s > r.s ? 1 : 0;
    } else if (l.kind == ConstVal::kDType && r.kind == ConstVal::kDType &&
               (op == AstOp::kEq || op == AstOp::kNe)) {
      cmp = l.dtype == r.dtype ? 0 : 1;
    } else {
      return type_error();
    }
    switch (op) {
      case AstOp::kEq: return ConstVal::Bool(cmp == 0);
      case AstOp::kNe: return ConstVal::Bool(cmp != 0);
      case AstOp::kLt: return ConstVal::Bool(cmp < 0);
      case AstOp::kLe: return ConstVal::Bool(cmp <= 0);
      case AstOp::kGt: return ConstVal::Bool(cmp > 0);
      default: return ConstVal::Bool(cmp >= 0);
    }
  }
  if (l.kind == ConstVal::kStr && r.kind == ConstVal::kStr && op == AstOp::kAdd) {
    // Repeated doubling (S2 = S1 + S1, ...) must not exhaust memory.
    if (l.s.size() + r.s.size() > (1u << 20)) {
      return ErrorAt(a, "string constant is too long (more than 1 MiB)");
    }
    ConstVal v;
    v.kind = ConstVal::kStr;
    v.s = l.s + r.s;
    return v;
  }
  if (!l.IsNumber() || !r.IsNumber()) return type_error();
  bool ints = l.kind != ConstVal::kFloat && r.kind != ConstVal::kFloat;
  if (ints) {
    int64_t x = l.i, y = r.i, z = 0;
    switch (op) {
      case AstOp::kAdd:
        if (__builtin_add_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kSub:
        if (__builtin_sub_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kMul:
        if (__builtin_mul_overflow(x, y, &z)) return overflow();
        return ConstVal::Int(z);
      case AstOp::kFloorDiv:
      case AstOp::kMod:
        if (y == 0) return ErrorAt(a, "division by zero in constant expression");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) {
          if (op == AstOp::kMod) return ConstVal::Int(0);
          return overflow();
        }
        return ConstVal::Int(op == AstOp::kFloorDiv ? FloorDiv(x, y) : FloorMod(x, y));
      case AstOp::kDiv:
        if (y == 0) return ErrorAt(a, "division by zero in constant expression");
        return ConstVal::Float(static_cast<double>(x) / static_cast<double>(y));
      case AstOp::kPow: {
        if (y < 0) return ConstVal::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
        int64_t result = 1, base = x;
        uint64_t e = static_cast<uint64_t>(y);
        while (e > 0) {
          if (e & 1) {
            if (__builtin_mul_overflow(result, base, &result)) return overflow();
          }
          e >>= 1;
          if (e > 0 && __builtin_mul_overflow(base, base, &base)) return overflow();
        }
        return ConstVal::Int(result);
      }
      case AstOp::kShl:
      case AstOp::kShr:
        if (y < 0) return ErrorAt(a, "negative shift count in constant expression");
        if (op == AstOp::kShr) return ConstVal::Int(y >= 64 ? (x < 0 ? -1 : 0) : (x >> y));
        if (x == 0) return ConstVal::Int(0);
        if (y >= 63 || (x > 0 ? x > (std::numeric_limits<int64_t>::max() >> y)
                              : x < (std::numeric_limits<int64_t>::min() >> y))) {
          return overflow();
        }
        return ConstVal::Int(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
      case AstOp::kBitAnd:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x & y);
        return ConstVal::Int(x & y);
      case AstOp::kBitOr:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x | y);
        return ConstVal::Int(x | y);
      case AstOp::kBitXor:
        if (l.kind == ConstVal::kBool && r.kind == ConstVal::kBool) return ConstVal::Bool(x ^ y);
        return ConstVal::Int(x ^ y);
      default:
        return type_error();
    }
  }
  double x = l.AsDouble(), y = r.AsDouble();
  switch (op) {
    case AstOp::kAdd: return ConstVal::Float(x + y);
    case AstOp::kSub: return ConstVal::Float(x - y);
    case AstOp::kMul: return ConstVal::Float(x * y);
    case AstOp::kDiv:
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      return ConstVal::Float(x / y);
    case AstOp::kFloorDiv:
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      return ConstVal::Float(std::floor(x / y));
    case AstOp::kMod: {
      if (y == 0) return ErrorAt(a, "division by zero in constant expression");
      double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return ConstVal::Float(m);
    }
    case AstOp::kPow: return ConstVal::Float(std::pow(x, y));
    default: return type_error();
  }
}

absl::StatusOr<ExprPtr> Parser::ConstToExpr(const ConstVal& v, const Span& span) {
  switch (v.kind) {
    case ConstVal::kInt: return ExprPtr(std::make_shared<ir::ConstInt>(v.i, DataType::kIndex, span));
    case ConstVal::kFloat:
      return ExprPtr(std::make_shared<ir::ConstFloat>(v.f, DataType::kFP32, span));
    case ConstVal::kBool: return ExprPtr(std::make_shared<ir::ConstBool>(v.i != 0, span));
    case ConstVal::kStr: return ExprPtr(std::make_shared<ir::ConstString>(v.s, span));
    case ConstVal::kDType:
      return UserError(span, pto::StrCat("data type pl.", ir::DataTypeName(v.dtype),
                                         " is not a value here (use pl.const(v, pl.",
                                         ir::DataTypeName(v.dtype), ") for a typed constant)"));
    case ConstVal::kList: {
      std::vector<ExprPtr> elems;
      elems.reserve(v.list.size());
      for (const ConstVal& e : v.list) {
        ASSIGN_OR_RETURN(ExprPtr x, ConstToExpr(e, span));
        elems.push_back(std::move(x));
      }
      return ExprPtr(std::make_shared<ir::MakeTuple>(std::move(elems), span));
    }
  }
  return UserError(span, "unsupported constant");
}

absl::StatusOr<int64_t> Parser::ConstInt(const Ast* a, std::string_view what) {
  if (!IsConstAst(a)) return ErrorAt(a, pto::StrCat(what, " must be a constant integer"));
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
  if (v.kind != ConstVal::kInt) {
    return ErrorAt(a, pto::StrCat(what, " must be a constant integer, got ", ConstKindName(v)));
  }
  return v.i;
}

// A constant with an explicit dtype (pl.const and annotated literals).
absl::StatusOr<ExprPtr> Parser::TypedConst(const ConstVal& v, DataType dtype, const Span& span) {
  switch (v.kind) {
    case ConstVal::kInt:
    case ConstVal::kBool:
      if (v.kind == ConstVal::kBool && dtype == DataType::kBool) {
        return ExprPtr(std::make_shared<ir::ConstBool>(v.i != 0, span));
      }
      if (ir::IsFloat(dtype)) {
        return ExprPtr(std::make_shared<ir::ConstFloat>(static_cast<double>(v.i), dtype, span));
      }
      return ExprPtr(std::make_shared<ir::ConstInt>(v.i, dtype, span));
    case ConstVal::kFloat:
      if (ir::IsFloat(dtype)) return ExprPtr(std::make_shared<ir::ConstFloat>(v.f, dtype, span));
      return UserError(span, pto::StrCat("a float constant cannot have the non-float type pl.",
                                         ir::DataTypeName(dtype)));
    default:
      return UserError(span, pto::StrCat("a ", ConstKindName(v),
                                         " constant cannot have the scalar type pl.",
                                         ir::DataTypeName(dtype)));
  }
}

// Operands whose dtype yields to the other operand's in scalar arithmetic:
// compile-time constant expressions. The printer writes constants as literals,
// so this holds for the printed text exactly when it held for the source.
bool Parser::IsLiteral(const Ast* a) { return IsConstAst(a); }

// A literal that an annotation can give a dtype (`x: pl.Scalar[pl.INT32] = 3`):
// a number, True/False, a constant's name, `pl.FP32.get_byte()`,
// `float("nan")`, optionally with a sign. Arithmetic stays arithmetic.
bool Parser::IsSimpleLiteral(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
    case AstKind::kFloat:
    case AstKind::kTrue:
    case AstKind::kFalse:
      return true;
    case AstKind::kName: {
      const ConstVal* c = LookupConst(a->text);
      return c != nullptr && c->IsNumber();
    }
    case AstKind::kCall:
      return IsConstAst(a);
    case AstKind::kUnary: {
      // One sign on an unsigned literal: `-(-5)` stays a negation (the printer
      // writes a negated negative constant that way).
      const Ast* x = Kid(a, 0);
      if (a->op != AstOp::kNeg && a->op != AstOp::kPos) return false;
      if (x->kind == AstKind::kInt) return !x->negative;
      if (x->kind == AstKind::kFloat) return !std::signbit(x->float_value);
      return (x->kind == AstKind::kName || x->kind == AstKind::kCall) && IsSimpleLiteral(x);
    }
    default:
      return false;
  }
}

// ===========================================================================
// Expressions.

absl::StatusOr<ExprPtr> Parser::LowerExpr(const Ast* a) {
  switch (a->kind) {
    case AstKind::kInt:
      if (!a->negative && a->int_value <= static_cast<uint64_t>(INT64_MAX)) {
        return ExprPtr(std::make_shared<ir::ConstInt>(static_cast<int64_t>(a->int_value),
                                                      DataType::kIndex, SpanOf(a)));
      }
      [[fallthrough]];
    case AstKind::kString: {
      ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
      return ConstToExpr(v, SpanOf(a));
    }
    case AstKind::kFloat:
      return ExprPtr(std::make_shared<ir::ConstFloat>(a->float_value, DataType::kFP32, SpanOf(a)));
    case AstKind::kTrue:
    case AstKind::kFalse:
      return ExprPtr(std::make_shared<ir::ConstBool>(a->kind == AstKind::kTrue, SpanOf(a)));
    case AstKind::kNone:
      return ErrorAt(a, "None is not a value here");
    case AstKind::kEllipsis:
      return ErrorAt(a, "'...' is not a value here");
    case AstKind::kName:
      return LowerName(a);
    case AstKind::kAttribute:
      return LowerAttribute(a);
    case AstKind::kCall:
      return LowerCall(a);
    case AstKind::kSubscript:
      return LowerSubscript(a);
    case AstKind::kBinary:
      return LowerBinary(a);
    case AstKind::kUnary:
      return LowerUnary(a);
    case AstKind::kTuple:
    case AstKind::kList: {
      std::vector<ExprPtr> elems;
      elems.reserve(a->num_kids);
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
        elems.push_back(std::move(e));
      }
      return ExprPtr(std::make_shared<ir::MakeTuple>(std::move(elems), SpanOf(a)));
    }
    case AstKind::kDict:
      return ErrorAt(a, "a dict is only allowed as the value of attrs=...");
  }
  return ErrorAt(a, "unsupported expression");
}

absl::StatusOr<ExprPtr> Parser::LowerName(const Ast* a) {
  if (const VarPtr* v = LookupLocal(a->text)) return ExprPtr(*v);
  if (const ConstVal* c = LookupConst(a->text)) return ConstToExpr(*c, SpanOf(a));
  std::string_view n = a->text;
  if (n == "pl" || n == "pld" || n == "builtin") {
    return ErrorAt(a, pto::StrCat("'", n, "' is a module, not a value"));
  }
  if (n == "self") return ErrorAt(a, "'self' is not a value (call functions as self.f(...))");
  if (n == "tuple" || n == "Tuple") {
    return ErrorAt(a, pto::StrCat("'", n, "' is only allowed in type annotations"));
  }
  return UnknownName(n, SpanOf(a));
}

absl::StatusOr<ExprPtr> Parser::LowerAttribute(const Ast* a) {
  if (std::optional<DataType> dt = ResolveDType(a)) {
    return ErrorAt(a, pto::StrCat("data type pl.", ir::DataTypeName(*dt),
                                  " is not a value here (use pl.const(v, pl.",
                                  ir::DataTypeName(*dt), ") for a typed constant)"));
  }
  const Ast* root = a;
  while (root->kind == AstKind::kAttribute) root = Kid(root, 0);
  if (!DottedPath(a)) {
    if (root->kind == AstKind::kName && LookupLocal(root->text) == nullptr &&
        LookupConst(root->text) == nullptr) {
      return UnknownName(root->text, SpanOf(root));
    }
    return ErrorAt(a, pto::StrCat("unsupported attribute access '.", a->text,
                                  "' (values have no attributes here)"));
  }
  std::string path = path_;
  if (StartsWith(path, "self.")) {
    std::string_view fname = std::string_view(path).substr(5);
    auto it = funcs_by_name_.find(fname);
    if (fname.find('.') == std::string_view::npos && it != funcs_by_name_.end()) {
      return ExprPtr(it->second->gv);
    }
    return ErrorAt(a, pto::StrCat("unknown function '", path, "'"));
  }
  for (const IntEnum& e : kIntEnums) {
    if (e.path == path) return ExprPtr(std::make_shared<ir::ConstInt>(e.value, DataType::kIndex, SpanOf(a)));
  }
  if (const ops::OpDef* def = registry_.Find(path)) return ExprPtr(def->op);
  if (root->text != "pl" && root->text != "pld" && root->text != "builtin") {
    return UnknownName(root->text, SpanOf(root));
  }
  return ErrorAt(a, pto::StrCat("'", path, "' is not a value here"));
}

absl::Status Parser::CheckNoKeywords(const Ast* call, std::string_view what) {
  if (call->num_kws > 0) {
    const KwName& k = KwAt(call, 0);
    return UserError(KwSpan(k), pto::StrCat(what, " takes no keyword argument '", k.name, "'"));
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckPosCount(const Ast* call, uint32_t min, uint32_t max,
                                   std::string_view what) {
  uint32_t n = NumPos(call);
  if (n < min || n > max) {
    std::string expected = min == max ? pto::StrCat(min) : pto::StrCat(min, " to ", max);
    return ErrorAt(call, pto::StrCat(what, " takes ", expected, " positional argument",
                                     max == 1 ? "" : "s", ", got ", n));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExprPtr> Parser::LowerScalarOperand(const Ast* a, std::string_view op) {
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  if (!ir::Is<ir::ScalarType>(e->type())) {
    return ErrorAt(a, pto::StrCat(op, " needs scalar operands, got ", TypeText(e->type()),
                                  " (use tensor operators such as pl.tensor.add for tensors)"));
  }
  return e;
}

// The dtype of a scalar operation: a literal operand takes the other side's
// dtype; otherwise floats win over integers and wider over narrower.
DataType PromoteDType(DataType l, DataType r, bool l_lit, bool r_lit) {
  if (l == r) return l;
  if (l_lit != r_lit) {
    DataType lit = l_lit ? l : r;
    DataType other = l_lit ? r : l;
    if (ir::IsFloat(lit) && !ir::IsFloat(other)) return lit;
    return other;
  }
  bool lf = ir::IsFloat(l), rf = ir::IsFloat(r);
  if (lf != rf) return lf ? l : r;
  int lb = ir::DataTypeBits(l), rb = ir::DataTypeBits(r);
  if (lb != rb) return lb > rb ? l : r;
  if (l == DataType::kIndex || r == DataType::kIndex) return DataType::kIndex;
  return l;
}

ir::BinaryOp ToBinaryOp(AstOp op) {
  switch (op) {
    case AstOp::kAdd: return ir::BinaryOp::kAdd;
    case AstOp::kSub: return ir::BinaryOp::kSub;
    case AstOp::kMul: return ir::BinaryOp::kMul;
    case AstOp::kDiv: return ir::BinaryOp::kDiv;
    case AstOp::kFloorDiv: return ir::BinaryOp::kFloorDiv;
    case AstOp::kMod: return ir::BinaryOp::kFloorMod;
    case AstOp::kPow: return ir::BinaryOp::kPow;
    case AstOp::kShl: return ir::BinaryOp::kShl;
    case AstOp::kShr: return ir::BinaryOp::kShr;
    case AstOp::kBitAnd: return ir::BinaryOp::kBitAnd;
    case AstOp::kBitOr: return ir::BinaryOp::kBitOr;
    case AstOp::kBitXor: return ir::BinaryOp::kBitXor;
    case AstOp::kEq: return ir::BinaryOp::kEq;
    case AstOp::kNe: return ir::BinaryOp::kNe;
    case AstOp::kLt: return ir::BinaryOp::kLt;
    case AstOp::kLe: return ir::BinaryOp::kLe;
    case AstOp::kGt: return ir::BinaryOp::kGt;
    case AstOp::kGe: return ir::BinaryOp::kGe;
    case AstOp::kAnd: return ir::BinaryOp::kAnd;
    default: return ir::BinaryOp::kOr;
  }
}

absl::StatusOr<ExprPtr> Parser::LowerBinary(const Ast* a) {
  return LowerBinaryOp(a->op, Kid(a, 0), Kid(a, 1), SpanOf(a));
}

// `op` is an AstOp, or kNone with pl.min/pl.max encoded by the caller below.
absl::StatusOr<ExprPtr> Parser::LowerBinaryOp(AstOp op, const Ast* lhs_ast, const Ast* rhs_ast,
                                              const Span& span) {
  std::string op_name = pto::StrCat("operator '", AstOpText(op), "'");
  ASSIGN_OR_RETURN(ExprPtr l, LowerScalarOperand(lhs_ast, op_name));
  ASSIGN_OR_RETURN(ExprPtr r, LowerScalarOperand(rhs_ast, op_name));
  DataType dt;
  if (IsCompareOp(op) || op == AstOp::kAnd || op == AstOp::kOr) {
    dt = DataType::kBool;
  } else {
    dt = PromoteDType(static_cast<const ir::ScalarType&>(*l->type()).dtype(),
                      static_cast<const ir::ScalarType&>(*r->type()).dtype(), IsLiteral(lhs_ast),
                      IsLiteral(rhs_ast));
  }
  return ExprPtr(std::make_shared<ir::BinaryExpr>(ToBinaryOp(op), std::move(l), std::move(r),
                                                  ir::ScalarType::Get(dt), span));
}

absl::StatusOr<ExprPtr> Parser::LowerUnary(const Ast* a) {
  ASSIGN_OR_RETURN(ExprPtr e,
                   LowerScalarOperand(Kid(a, 0), pto::StrCat("unary '", AstOpText(a->op), "'")));
  switch (a->op) {
    case AstOp::kPos:
      return e;
    case AstOp::kNot:
      return ExprPtr(std::make_shared<ir::UnaryExpr>(ir::UnaryOp::kNot, std::move(e),
                                                     ir::ScalarType::Get(DataType::kBool),
                                                     SpanOf(a)));
    case AstOp::kInvert: {
      TypePtr t = e->type();
      return ExprPtr(
          std::make_shared<ir::UnaryExpr>(ir::UnaryOp::kBitNot, std::move(e), t, SpanOf(a)));
    }
    default: {
      // `-(4)` and `-SIZE` are the literal -4 / -64: the printer writes a negated
      // literal of the default dtype exactly as it writes a negative literal.
      if (auto c = ir::As<ir::ConstInt>(e);
          c != nullptr && c->dtype() == DataType::kIndex && c->value() >= 0) {
        return ExprPtr(std::make_shared<ir::ConstInt>(-c->value(), DataType::kIndex, SpanOf(a)));
      }
      if (auto c = ir::As<ir::ConstFloat>(e);
          c != nullptr && c->dtype() == DataType::kFP32 && !std::signbit(c->value())) {
        return ExprPtr(std::make_shared<ir::ConstFloat>(-c->value(), DataType::kFP32, SpanOf(a)));
      }
      TypePtr t = e->type();
      return ExprPtr(
          std::make_shared<ir::UnaryExpr>(ir::UnaryOp::kNeg, std::move(e), t, SpanOf(a)));
    }
  }
}

absl::StatusOr<ExprPtr> Parser::LowerCall(const Ast* a, std::string_view alloc_name) {
  const Ast* f = Kid(a, 0);
  Span span = SpanOf(a);
  if (IsConstAst(a)) {  // pl.FP32.get_byte(), float("nan")
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    return ConstToExpr(v, span);
  }
  if (f->kind == AstKind::kName) {
    if (f->text == "range") {
      return ErrorAt(f, "range(...) can only be the iterable of a for loop");
    }
    if (f->text == "float") {
      return ErrorAt(a, "float(...) accepts only \"nan\", \"inf\" and \"-inf\"");
    }
    if (!IsFreeName(f->text)) return ErrorAt(f, pto::StrCat("'", f->text, "' is not callable"));
    return UnknownName(f->text, SpanOf(f));
  }
  if (f->kind != AstKind::kAttribute || !DottedPath(f)) {
    if (f->kind == AstKind::kAttribute && f->text == "get_byte") {
      return ErrorAt(f, "get_byte() needs a data type such as pl.FP32");
    }
    const Ast* root = f;
    while (root->kind == AstKind::kAttribute) root = Kid(root, 0);
    if (root->kind == AstKind::kName && IsFreeName(root->text)) {
      return UnknownName(root->text, SpanOf(root));
    }
    return ErrorAt(f, "unsupported call: only operators (pl.*, pld.*, builtin.*), "
                      "self.<function>(...) and the pl.const/pl.cast/pl.min/pl.max/pl.abs "
                      "helpers can be called");
  }
  // A copy: lowering the arguments reuses path_. Compared as a string_view,
  // which checks lengths before bytes.
  const std::string path_copy = path_;
  std::string_view path = path_copy;
  if (StartsWith(path, "self.")) {
    std::string_view fname = path.substr(5);
    if (fname.find('.') != std::string_view::npos) {
      return ErrorAt(f, pto::StrCat("unknown function '", path, "'"));
    }
    return LowerFunctionCall(a, fname);
  }
  if (path == "pl.const") {
    RETURN_IF_ERROR(CheckPosCount(a, 1, 2, "pl.const"));
    const Ast* value = PosArg(a, 0);
    const Ast* dtype = NumPos(a) == 2 ? PosArg(a, 1) : nullptr;
    for (uint32_t i = 0; i < a->num_kws; ++i) {
      if (KwAt(a, i).name == "dtype" && dtype == nullptr) {
        dtype = KwValue(a, i);
      } else {
        return UserError(KwSpan(KwAt(a, i)),
                         pto::StrCat("unexpected keyword argument '", KwAt(a, i).name,
                                     "' for pl.const"));
      }
    }
    if (dtype == nullptr) return ErrorAt(a, "pl.const(value, dtype) needs a data type");
    if (!IsConstAst(value)) return ErrorAt(value, "pl.const needs a constant value");
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(value));
    ASSIGN_OR_RETURN(DataType dt, LowerDType(dtype, "pl.const"));
    return TypedConst(v, dt, span);
  }
  if (path == "pl.min" || path == "pl.max") {
    RETURN_IF_ERROR(CheckPosCount(a, 2, 2, path));
    RETURN_IF_ERROR(CheckNoKeywords(a, path));
    ASSIGN_OR_RETURN(ExprPtr l, LowerScalarOperand(PosArg(a, 0), path));
    ASSIGN_OR_RETURN(ExprPtr r, LowerScalarOperand(PosArg(a, 1), path));
    DataType dt = PromoteDType(static_cast<const ir::ScalarType&>(*l->type()).dtype(),
                               static_cast<const ir::ScalarType&>(*r->type()).dtype(),
                               IsLiteral(PosArg(a, 0)), IsLiteral(PosArg(a, 1)));
    return ExprPtr(std::make_shared<ir::BinaryExpr>(
        path == "pl.min" ? ir::BinaryOp::kMin : ir::BinaryOp::kMax, std::move(l), std::move(r),
        ir::ScalarType::Get(dt), span));
  }
  if (path == "pl.yield_") {
    return ErrorAt(a, "pl.yield_(...) must be a statement: the last statement of a loop or if "
                      "body");
  }
  if (path == "pl.cond") {
    return ErrorAt(a, "pl.cond(...) must be the first statement of a pl.while_ loop body");
  }
  if (path == "pl.range" || path == "pl.parallel" || path == "pl.unroll" ||
      path == "pl.pipeline" || path == "pl.while_") {
    return ErrorAt(a, pto::StrCat(path, "(...) can only be the iterable of a for loop"));
  }
  if (path == "pl.TensorView" || path == "pl.TileView") {
    return ErrorAt(a, pto::StrCat(path, "(...) is only allowed inside a type annotation"));
  }
  if (path == "pld.comm_domain" || path == "pl.runtime_scope") {
    return ErrorAt(a, pto::StrCat(path, "(...) is only allowed as a with-statement context"));
  }
  if (path == "pl.MemRef") return LowerMemRef(a);
  if (path == "pld.WindowBuffer") {
    ASSIGN_OR_RETURN(ir::WindowBufferPtr wb, LowerWindowBufferRef(a));
    return ExprPtr(wb);
  }
  return LowerOpCall(a, alloc_name);
}

// The registry locates some operand errors at the operand's own span, which for
// a Var is its definition; keep every error of a call inside the call.
absl::StatusOr<ExprPtr> Parser::MakeOpCall(std::string_view name, std::vector<ExprPtr> args,
                                           ir::AttrList kwargs, ir::AttrList attrs,
                                           const Span& span) {
  absl::StatusOr<ir::CallPtr> call = registry_.MakeCall(name, std::move(args), std::move(kwargs),
                                                        std::move(attrs), span);
  if (call.ok()) return ExprPtr(*std::move(call));
  const absl::Status& st = call.status();
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(st);
  bool inside = loc.has_value() && loc->path == file_->path() &&
                (loc->line > span.line || (loc->line == span.line && loc->col >= span.col)) &&
                (loc->line < span.end_line || (loc->line == span.end_line && loc->col < span.end_col));
  if (inside) return st;
  std::string msg(st.message());
  return IsUserError(st) ? UserError(span, std::move(msg)) : InternalError(span, std::move(msg));
}

absl::StatusOr<ExprPtr> Parser::LowerOpArg(const Ast* a, std::string_view op) {
  if (a->kind == AstKind::kList || a->kind == AstKind::kTuple) {
    std::vector<ExprPtr> elems;
    elems.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerOpArg(Kid(a, i), op));
      elems.push_back(std::move(e));
    }
    return ExprPtr(std::make_shared<ir::MakeTuple>(std::move(elems), SpanOf(a)));
  }
  if (std::optional<DataType> dt = ResolveDType(a)) {
    return ErrorAt(a, pto::StrCat("data type pl.", ir::DataTypeName(*dt),
                                  " cannot be a positional argument of ", op,
                                  "; pass it as a keyword (e.g. dtype=pl.",
                                  ir::DataTypeName(*dt), ")"));
  }
  return LowerExpr(a);
}

absl::StatusOr<ExprPtr> Parser::LowerOpCall(const Ast* a, std::string_view alloc_name) {
  std::string path = path_;
  const Ast* f = Kid(a, 0);
  const ops::OpDef* def = registry_.Find(path);
  if (def == nullptr && ops::FindUnifiedOp(path) == nullptr) {
    const Ast* root = f;
    while (root->kind == AstKind::kAttribute) root = Kid(root, 0);
    if (root->text != "pl" && root->text != "pld" && root->text != "builtin") {
      return UnknownName(root->text, SpanOf(root));
    }
    return ErrorAt(f, pto::StrCat("unknown operator '", path, "'"));
  }
  if (def != nullptr && def->internal_only && !allow_internal_ops_) {
    return ErrorAt(f, pto::StrCat("'", path,
                                  "' is an internal operator created by the compiler and cannot "
                                  "be written in a program; call the public pld.tensor.* "
                                  "collective instead"));
  }
  // The written arguments, lowered on demand by compiler/ops' binder (PyPTO's
  // signatures, unified operators); `attrs=` is the call's attribute dict.
  class Args : public ops::CallArgs {
   public:
    Args(Parser* p, const Ast* call, std::string_view op) : p_(p), call_(call), op_(op) {
      for (uint32_t i = 0; i < call->num_kws; ++i) {
        if (p->KwAt(call, i).name == "attrs") {
          attrs_ = p->KwValue(call, i);
        } else {
          kws_.push_back(i);
        }
      }
    }
    size_t NumPositional() const override { return p_->NumPos(call_); }
    size_t NumKeywords() const override { return kws_.size(); }
    std::string_view KeywordName(size_t i) const override {
      return p_->KwAt(call_, kws_[i]).name;
    }
    Span SpanOf(ops::ArgRef r) const override {
      return r.keyword ? p_->SpanOf(p_->KwValue(call_, kws_[r.index])) : p_->SpanOf(Arg(r));
    }
    bool IsNone(ops::ArgRef r) const override { return Arg(r)->kind == AstKind::kNone; }
    std::optional<std::string> DottedName(ops::ArgRef r) const override {
      if (Arg(r)->kind != AstKind::kAttribute || !p_->DottedPath(Arg(r))) return std::nullopt;
      return p_->path_;
    }
    absl::StatusOr<ExprPtr> LowerOperand(ops::ArgRef r) override {
      return p_->LowerOpArg(Arg(r), op_);
    }
    absl::StatusOr<ir::AttrValue> LowerAttr(ops::ArgRef r) override {
      return p_->ConvertAttr(Arg(r));
    }
    const Ast* attrs() const { return attrs_; }

   private:
    const Ast* Arg(ops::ArgRef r) const {
      return r.keyword ? p_->KwValue(call_, kws_[r.index]) : p_->PosArg(call_, r.index);
    }
    Parser* p_;
    const Ast* call_;
    std::string_view op_;
    std::vector<uint32_t> kws_;
    const Ast* attrs_ = nullptr;
  };
  Args args(this, a, path);
  ir::AttrList attrs;
  if (args.attrs() != nullptr) {
    ASSIGN_OR_RETURN(attrs, ConvertAttrDict(args.attrs(), /*call_attrs=*/true));
  }
  ASSIGN_OR_RETURN(ops::BoundCall bound, ops::BindCall(registry_, path, args, SpanOf(a)));
  if (bound.value != nullptr) return bound.value;
  ir::AttrList& kwargs = bound.kwargs;
  if (std::string_view(bound.op->name) == "pld.tensor.alloc_window_buffer") {
    const ir::AttrValue* given = ir::FindAttr(kwargs, "name");
    if (!alloc_name.empty()) {
      if (given == nullptr) {
        kwargs.emplace_back("name", std::string(alloc_name));
      } else if (!std::holds_alternative<std::string>(*given) ||
                 std::get<std::string>(*given) != alloc_name) {
        return ErrorAt(a, pto::StrCat("the name of a window allocation comes from the "
                                      "assignment's left-hand side ('",
                                      alloc_name, "'); remove name="));
      }
    } else if (given == nullptr) {
      return ErrorAt(a, pto::StrCat(path, "(...) must be assigned to a name, e.g. "
                                          "`buf = pld.tensor.alloc_window_buffer(size)`"));
    }
  }
  return MakeOpCall(bound.op->name, std::move(bound.args), std::move(kwargs), std::move(attrs),
                    SpanOf(a));
}

absl::StatusOr<ExprPtr> Parser::LowerFunctionCall(const Ast* a, std::string_view fname) {
  auto it = funcs_by_name_.find(fname);
  if (it == funcs_by_name_.end()) {
    return ErrorAt(Kid(a, 0), pto::StrCat("unknown function 'self.", fname, "'"));
  }
  const FuncState* callee = it->second;
  std::vector<ExprPtr> args;
  args.reserve(NumPos(a));
  for (uint32_t i = 0; i < NumPos(a); ++i) {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(PosArg(a, i)));
    args.push_back(std::move(e));
  }
  ir::AttrList attrs;
  attrs.reserve(a->num_kws);
  for (uint32_t i = 0; i < a->num_kws; ++i) {
    const KwName& k = KwAt(a, i);
    ASSIGN_OR_RETURN(ir::AttrValue v, ConvertCallAttr(k.name, KwValue(a, i)));
    attrs.emplace_back(std::string(k.name), std::move(v));
  }
  TypePtr type = callee->call_type;
  if (callee->call_type_uses_params) {
    // A result shape may name the callee's scalar params: use the arguments.
    ir::VarSubstMap map;
    for (size_t i = 0; i < args.size() && i < callee->params.size(); ++i) {
      map.emplace(callee->params[i].get(), args[i]);
    }
    type = ir::Substitute(type, map);
  }
  return ExprPtr(std::make_shared<ir::Call>(callee->gv, std::move(args), ir::AttrList{},
                                            std::move(attrs), std::move(type), SpanOf(a)));
}

absl::StatusOr<ExprPtr> Parser::LowerSubscript(const Ast* a) {
  const Ast* base = Kid(a, 0);
  const Ast* idx = Kid(a, 1);
  if ((base->kind == AstKind::kName && (base->text == "tuple" || base->text == "Tuple") &&
       LookupLocal(base->text) == nullptr) ||
      (base->kind == AstKind::kAttribute && DottedPath(base) &&
       (StartsWith(path_, "pl.") || StartsWith(path_, "pld.")) && registry_.Find(path_) == nullptr)) {
    return ErrorAt(a, "a type is not a value; type expressions are only allowed in annotations");
  }
  ASSIGN_OR_RETURN(ExprPtr b, LowerExpr(base));
  if (auto tt = ir::As<ir::TupleType>(b->type())) {
    ASSIGN_OR_RETURN(int64_t k, ConstInt(idx, "a tuple index"));
    int64_t n = static_cast<int64_t>(tt->types().size());
    if (k < 0) k += n;
    if (k < 0 || k >= n) {
      return ErrorAt(idx, pto::StrCat("tuple index out of range: the tuple has ", n, " element",
                                      n == 1 ? "" : "s"));
    }
    TypePtr et = tt->types()[static_cast<size_t>(k)];
    return ExprPtr(std::make_shared<ir::TupleGetItem>(std::move(b), static_cast<int>(k),
                                                      std::move(et), SpanOf(a)));
  }
  if (ir::Is<ir::ShapedType>(b->type())) {
    std::vector<ExprPtr> indices;
    if (idx->kind == AstKind::kTuple) {
      for (uint32_t i = 0; i < idx->num_kids; ++i) {
        ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(idx, i)));
        indices.push_back(std::move(e));
      }
    } else {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(idx));
      indices.push_back(std::move(e));
    }
    std::vector<ExprPtr> args;
    args.push_back(std::move(b));
    args.push_back(std::make_shared<ir::MakeTuple>(std::move(indices), SpanOf(idx)));
    return MakeOpCall("pl.tensor.index", std::move(args), {}, {}, SpanOf(a));
  }
  return ErrorAt(base, pto::StrCat("cannot subscript a value of type ", TypeText(b->type())));
}

absl::Status Parser::BindFourFields(const Ast* call, const std::string_view (&names)[4],
                                    uint32_t min_pos, std::string_view what,
                                    const Ast* (&field)[4]) {
  if (NumPos(call) > 4) RETURN_IF_ERROR(CheckPosCount(call, min_pos, 4, what));
  for (uint32_t i = 0; i < NumPos(call); ++i) field[i] = PosArg(call, i);
  for (uint32_t i = 0; i < call->num_kws; ++i) {
    const KwName& k = KwAt(call, i);
    int j = 0;
    while (j < 4 && names[j] != k.name) ++j;
    if (j == 4 || field[j] != nullptr) {
      return UserError(KwSpan(k), pto::StrCat("unexpected keyword argument '", k.name,
                                              "' for ", what));
    }
    field[j] = KwValue(call, i);
  }
  return absl::OkStatus();
}

absl::StatusOr<ExprPtr> Parser::LowerMemRef(const Ast* call) {
  static constexpr std::string_view kFields[] = {"memory_space", "addr", "size", "id"};
  const Ast* field[4] = {nullptr, nullptr, nullptr, nullptr};
  RETURN_IF_ERROR(BindFourFields(call, kFields, 4, "pl.MemRef", field));
  for (int j = 0; j < 4; ++j) {
    if (field[j] == nullptr) {
      return ErrorAt(call, "pl.MemRef(memory_space, addr, size, id) needs all four fields");
    }
  }
  if (!DottedPath(field[0]) || !StartsWith(path_, "pl.MemorySpace.")) {
    return ErrorAt(field[0], "expected a memory space such as pl.MemorySpace.DDR");
  }
  std::optional<ir::MemorySpace> space =
      ir::MemorySpaceFromName(std::string_view(path_).substr(15));
  if (!space) return ErrorAt(field[0], pto::StrCat("unknown memory space '", path_, "'"));
  ASSIGN_OR_RETURN(ExprPtr addr, LowerExpr(field[1]));
  ASSIGN_OR_RETURN(int64_t size, ConstInt(field[2], "the MemRef size"));
  ASSIGN_OR_RETURN(int64_t id, ConstInt(field[3], "the MemRef id"));
  // One object per distinct buffer in a function: MemRef identity matters.
  std::optional<int64_t> addr_const = ir::GetConstInt(addr);
  MemRefKey key{static_cast<int>(*space), id, size,
                addr_const.value_or(std::numeric_limits<int64_t>::min()),
                addr_const ? nullptr : addr.get()};
  if (cur_func_ != nullptr) {
    auto it = cur_func_->memrefs.find(key);
    if (it != cur_func_->memrefs.end()) return ExprPtr(it->second);
  }
  auto m = std::make_shared<const ir::MemRef>("memref", *space, std::move(addr), size, id,
                                              SpanOf(call));
  if (cur_func_ != nullptr) cur_func_->memrefs.emplace(key, m);
  return ExprPtr(std::move(m));
}

absl::StatusOr<ir::WindowBufferPtr> Parser::LowerWindowBufferRef(const Ast* call) {
  RETURN_IF_ERROR(CheckPosCount(call, 1, 1, "pld.WindowBuffer"));
  RETURN_IF_ERROR(CheckNoKeywords(call, "pld.WindowBuffer"));
  const Ast* arg = PosArg(call, 0);
  if (!IsConstAst(arg)) return ErrorAt(arg, "pld.WindowBuffer(...) needs a buffer name string");
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(arg));
  if (v.kind != ConstVal::kStr) {
    return ErrorAt(arg, "pld.WindowBuffer(...) needs a buffer name string");
  }
  WinAlloc* w = nullptr;
  if (cur_func_ != nullptr) {
    auto it = cur_func_->windows.find(v.s);
    if (it != cur_func_->windows.end()) w = &it->second;
  }
  if (w == nullptr) {
    return ErrorAt(call, pto::StrCat("pld.WindowBuffer(\"", v.s,
                                     "\") does not name a window allocation made earlier in "
                                     "this function (expected `",
                                     v.s, " = pld.tensor.alloc_window_buffer(size)` before it)"));
  }
  if (w->wb == nullptr) {
    w->wb = std::make_shared<const ir::WindowBuffer>(w->base, w->size, false, false, w->span);
  }
  return w->wb;
}

absl::StatusOr<ir::AttrValue> Parser::ConvertAttr(const Ast* a) {
  if (IsConstAst(a)) {
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    switch (v.kind) {
      case ConstVal::kInt: return ir::AttrValue(v.i);
      case ConstVal::kFloat: return ir::AttrValue(v.f);
      case ConstVal::kBool: return ir::AttrValue(v.i != 0);
      case ConstVal::kStr: return ir::AttrValue(std::move(v.s));
      case ConstVal::kDType: return ir::AttrValue(v.dtype);
      case ConstVal::kList: {
        bool ints = true;
        for (const ConstVal& e : v.list) ints = ints && e.kind == ConstVal::kInt;
        if (ints) {
          std::vector<int64_t> out;
          out.reserve(v.list.size());
          for (const ConstVal& e : v.list) out.push_back(e.i);
          return ir::AttrValue(std::move(out));
        }
        std::vector<ExprPtr> out;
        for (const ConstVal& e : v.list) {
          ASSIGN_OR_RETURN(ExprPtr x, ConstToExpr(e, SpanOf(a)));
          out.push_back(std::move(x));
        }
        return ir::AttrValue(std::move(out));
      }
    }
  }
  if (a->kind == AstKind::kList || a->kind == AstKind::kTuple) {
    bool dirs = a->num_kids > 0;
    for (uint32_t i = 0; i < a->num_kids && dirs; ++i) {
      dirs = Kid(a, i)->kind == AstKind::kAttribute && DottedPath(Kid(a, i)) &&
             StartsWith(path_, "pl.ArgDirection.");
    }
    if (dirs) return ConvertCallAttr("arg_directions", a);
    std::vector<ExprPtr> out;
    out.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
      out.push_back(std::move(e));
    }
    return ir::AttrValue(std::move(out));
  }
  if (a->kind == AstKind::kDict) {
    return ErrorAt(a, "a dict is not a supported attribute value");
  }
  if (a->kind == AstKind::kNone) return ErrorAt(a, "None is not a supported attribute value");
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  return ir::AttrValue(std::move(e));
}

absl::StatusOr<ir::AttrValue> Parser::ConvertCallAttr(std::string_view key, const Ast* a) {
  if (ir::IsExprValuedAttrKey(key)) {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
    return ir::AttrValue(std::move(e));
  }
  bool is_list = a->kind == AstKind::kList || a->kind == AstKind::kTuple;
  if (key == ir::kAttrArgDirections) {
    if (!is_list) {
      return ErrorAt(a, "arg_directions must be a list such as [pl.ArgDirection.Input, ...]");
    }
    std::vector<ir::ArgDirection> dirs;
    dirs.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      const Ast* e = Kid(a, i);
      std::optional<ir::ArgDirection> d;
      if (e->kind == AstKind::kAttribute && DottedPath(e) &&
          StartsWith(path_, "pl.ArgDirection.")) {
        d = ir::ArgDirectionFromName(std::string_view(path_).substr(16));
      }
      if (!d) {
        return ErrorAt(e, "expected an argument direction such as pl.ArgDirection.Input");
      }
      dirs.push_back(*d);
    }
    return ir::AttrValue(std::move(dirs));
  }
  if (ir::IsVarListAttrKey(key)) {
    if (!is_list) return ErrorAt(a, pto::StrCat(key, " must be a list of values"));
    std::vector<ExprPtr> out;
    out.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
      out.push_back(std::move(e));
    }
    return ir::AttrValue(std::move(out));
  }
  return ConvertAttr(a);
}

absl::StatusOr<ir::AttrList> Parser::ConvertAttrDict(const Ast* a, bool call_attrs) {
  if (a->kind != AstKind::kDict) {
    return ErrorAt(a, "attrs must be a dict such as {\"key\": value}");
  }
  ir::AttrList out;
  out.reserve(a->num_kids / 2);
  absl::flat_hash_set<std::string_view, SvHash> keys;
  for (uint32_t i = 0; i + 1 < a->num_kids; i += 2) {
    const Ast* k = Kid(a, i);
    if (k->kind != AstKind::kString) return ErrorAt(k, "attribute keys must be strings");
    if (!keys.insert(k->text).second) {
      return ErrorAt(k, pto::StrCat("duplicate attribute key '", k->text, "'"));
    }
    std::string key(k->text);
    ir::AttrValue v;
    if (call_attrs) {
      ASSIGN_OR_RETURN(v, ConvertCallAttr(key, Kid(a, i + 1)));
    } else {
      ASSIGN_OR_RETURN(v, ConvertAttr(Kid(a, i + 1)));
    }
    out.emplace_back(std::move(key), std::move(v));
  }
  return out;
}

// ===========================================================================
// Types.

absl::StatusOr<DataType> Parser::LowerDType(const Ast* a, std::string_view what) {
  if (std::optional<DataType> dt = ResolveDType(a)) return *dt;
  if (a->kind == AstKind::kAttribute && DottedPath(a) && StartsWith(path_, "pl.")) {
    return ErrorAt(a, pto::StrCat("unknown data type '", path_, "'"));
  }
  return ErrorAt(a, pto::StrCat("expected a data type such as pl.FP32 for ", what));
}

absl::StatusOr<ExprPtr> Parser::LowerDim(const Ast* a) {
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  auto st = ir::As<ir::ScalarType>(e->type());
  if (st == nullptr || !ir::IsIntegral(st->dtype())) {
    return ErrorAt(a, pto::StrCat("a shape dimension must be an integer scalar, got ",
                                  TypeText(e->type())));
  }
  return e;
}

absl::StatusOr<std::vector<ExprPtr>> Parser::LowerShape(const Ast* a, std::string_view what) {
  std::vector<ExprPtr> dims;
  if (a->kind == AstKind::kList || a->kind == AstKind::kTuple) {
    dims.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr d, LowerDim(Kid(a, i)));
      dims.push_back(std::move(d));
    }
    return dims;
  }
  if (IsConstAst(a)) {
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    if (v.kind == ConstVal::kList) {
      for (const ConstVal& e : v.list) {
        if (e.kind != ConstVal::kInt) {
          return ErrorAt(a, pto::StrCat(what, " must be a list of integer dimensions"));
        }
        dims.push_back(std::make_shared<ir::ConstInt>(e.i, DataType::kIndex, SpanOf(a)));
      }
      return dims;
    }
  }
  return ErrorAt(a, pto::StrCat(what, " must be a list of dimensions such as [64, 128]"));
}

absl::StatusOr<ir::TensorView> Parser::LowerTensorView(const Ast* call) {
  static constexpr std::string_view kFields[] = {"stride", "layout", "valid_shape", "pad"};
  const Ast* field[4] = {nullptr, nullptr, nullptr, nullptr};
  RETURN_IF_ERROR(BindFourFields(call, kFields, 0, "pl.TensorView", field));
  ir::TensorView view;
  if (field[0] != nullptr) {
    ASSIGN_OR_RETURN(view.stride, LowerShape(field[0], "stride"));
  }
  if (field[1] != nullptr) {
    std::optional<ir::TensorLayout> layout;
    if (DottedPath(field[1]) && StartsWith(path_, "pl.TensorLayout.")) {
      layout = ir::TensorLayoutFromName(std::string_view(path_).substr(16));
    }
    if (!layout) return ErrorAt(field[1], "expected a layout such as pl.TensorLayout.ND");
    view.layout = *layout;
  }
  if (field[2] != nullptr) {
    ASSIGN_OR_RETURN(view.valid_shape, LowerShape(field[2], "valid_shape"));
  }
  if (field[3] != nullptr) {
    std::optional<ir::PadValue> pad;
    if (DottedPath(field[3]) && StartsWith(path_, "pl.PadValue.")) {
      pad = ir::PadValueFromName(std::string_view(path_).substr(12));
    }
    if (!pad) return ErrorAt(field[3], "expected a pad value such as pl.PadValue.zero");
    view.pad = *pad;
  }
  return view;
}

// which: 0 tensor, 1 distributed tensor, 2 tile.
absl::StatusOr<TypePtr> Parser::LowerShapedType(const Ast* a, int which) {
  static constexpr std::string_view kNames[] = {"pl.Tensor", "pld.DistributedTensor", "pl.Tile"};
  std::string_view name = kNames[which];
  const Ast* idx = Kid(a, 1);
  if (idx->kind != AstKind::kTuple || idx->num_kids < 2) {
    return ErrorAt(a, pto::StrCat(name, " needs a shape and a data type, e.g. ", name,
                                  "[[64, 128], pl.FP32]"));
  }
  ASSIGN_OR_RETURN(std::vector<ExprPtr> shape, LowerShape(Kid(idx, 0), "the shape"));
  ASSIGN_OR_RETURN(DataType dtype, LowerDType(Kid(idx, 1), name));
  std::optional<ir::TensorView> view;
  std::vector<ExprPtr> tile_valid;
  bool have_tile_view = false;
  std::optional<ir::MemRefPtr> memref;
  std::optional<ir::WindowBufferPtr> wb;
  for (uint32_t i = 2; i < idx->num_kids; ++i) {
    const Ast* e = Kid(idx, i);
    std::string what;
    if (e->kind == AstKind::kCall && DottedPath(Kid(e, 0))) what = path_;
    if (what == "pl.TensorView" && which != 2) {
      if (view) return ErrorAt(e, "duplicate pl.TensorView in a type");
      ASSIGN_OR_RETURN(view, LowerTensorView(e));
    } else if (what == "pl.TileView" && which == 2) {
      if (have_tile_view) return ErrorAt(e, "duplicate pl.TileView in a type");
      have_tile_view = true;
      RETURN_IF_ERROR(CheckPosCount(e, 0, 1, "pl.TileView"));
      const Ast* vs = NumPos(e) == 1 ? PosArg(e, 0) : nullptr;
      for (uint32_t k = 0; k < e->num_kws; ++k) {
        if (KwAt(e, k).name != "valid_shape" || vs != nullptr) {
          return UserError(KwSpan(KwAt(e, k)),
                           pto::StrCat("unsupported pl.TileView field '", KwAt(e, k).name, "'"));
        }
        vs = KwValue(e, k);
      }
      if (vs != nullptr) {
        ASSIGN_OR_RETURN(tile_valid, LowerShape(vs, "valid_shape"));
      }
    } else if (what == "pl.MemRef") {
      if (memref) return ErrorAt(e, "duplicate pl.MemRef in a type");
      ASSIGN_OR_RETURN(ExprPtr m, LowerMemRef(e));
      memref = std::static_pointer_cast<const ir::MemRef>(m);
    } else if (what == "pld.WindowBuffer" && which == 1) {
      if (wb) return ErrorAt(e, "duplicate pld.WindowBuffer in a type");
      ASSIGN_OR_RETURN(wb, LowerWindowBufferRef(e));
    } else {
      std::string_view expected = which == 0   ? "pl.TensorView(...) or pl.MemRef(...)"
                                  : which == 1 ? "pl.TensorView(...), pl.MemRef(...) or "
                                                 "pld.WindowBuffer(\"name\")"
                                               : "pl.TileView(...) or pl.MemRef(...)";
      return ErrorAt(e, pto::StrCat("unexpected item in a ", name, " type; expected ", expected));
    }
  }
  Span span = SpanOf(a);
  switch (which) {
    case 0:
      return TypePtr(std::make_shared<ir::TensorType>(std::move(shape), dtype, std::move(memref),
                                                      std::move(view), span));
    case 1:
      return TypePtr(std::make_shared<ir::DistributedTensorType>(
          std::move(shape), dtype, std::move(memref), std::move(view), std::move(wb), span));
    default:
      return TypePtr(std::make_shared<ir::TileType>(std::move(shape), dtype, std::move(memref),
                                                    std::move(tile_valid), span));
  }
}

absl::StatusOr<TypePtr> Parser::LowerType(const Ast* a) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  switch (a->kind) {
    case AstKind::kSubscript: {
      const Ast* base = Kid(a, 0);
      const Ast* idx = Kid(a, 1);
      std::string path_copy;
      if (base->kind == AstKind::kName && (base->text == "tuple" || base->text == "Tuple")) {
        path_copy = "tuple";
      } else if (base->kind == AstKind::kAttribute && DottedPath(base)) {
        path_copy = path_;
      } else if (base->kind == AstKind::kName) {
        return ErrorAt(base, pto::StrCat("unknown type '", base->text, "'"));
      } else {
        return ErrorAt(a, "expected a type");
      }
      std::string_view path = path_copy;
      if (path == "pl.Scalar") {
        ASSIGN_OR_RETURN(DataType dt, LowerDType(idx, "pl.Scalar"));
        return TypePtr(ir::ScalarType::Get(dt));
      }
      if (path == "pl.Tensor") return LowerShapedType(a, 0);
      if (path == "pld.DistributedTensor") return LowerShapedType(a, 1);
      if (path == "pl.Tile") return LowerShapedType(a, 2);
      if (path == "tuple" || path == "pl.Tuple") {
        std::vector<TypePtr> types;
        if (idx->kind == AstKind::kTuple) {
          types.reserve(idx->num_kids);
          for (uint32_t i = 0; i < idx->num_kids; ++i) {
            ASSIGN_OR_RETURN(TypePtr t, LowerType(Kid(idx, i)));
            types.push_back(std::move(t));
          }
        } else {
          ASSIGN_OR_RETURN(TypePtr t, LowerType(idx));
          types.push_back(std::move(t));
        }
        return TypePtr(std::make_shared<ir::TupleType>(std::move(types), SpanOf(a)));
      }
      if (path == "pl.Out" || path == "pl.InOut") {
        return ErrorAt(a, pto::StrCat(path, "[...] is only allowed on function parameters"));
      }
      return ErrorAt(base, pto::StrCat("unknown type '", path, "'"));
    }
    case AstKind::kAttribute: {
      if (std::optional<DataType> dt = ResolveDType(a)) {
        return ErrorAt(a, pto::StrCat("expected a type, got the data type pl.",
                                      ir::DataTypeName(*dt), " (did you mean pl.Scalar[pl.",
                                      ir::DataTypeName(*dt), "]?)"));
      }
      if (!DottedPath(a)) return ErrorAt(a, "expected a type");
      std::string_view path = path_;
      if (path == "pl.Ptr") return TypePtr(ir::PtrType::Get());
      if (path == "pl.MemRefType") return TypePtr(ir::MemRefType::Get());
      if (path == "pld.WindowBufferType") return TypePtr(ir::WindowBufferType::Get());
      if (path == "pld.CommCtx") return TypePtr(ir::CommCtxType::Get());
      if (path == "pl.Unknown") return TypePtr(ir::UnknownType::Get());
      if (path == "pl.Scalar" || path == "pl.Tensor" || path == "pld.DistributedTensor" ||
          path == "pl.Tile" || path == "pl.Tuple") {
        return ErrorAt(a, pto::StrCat(path_, " needs type arguments in [...]"));
      }
      return ErrorAt(a, pto::StrCat("unknown type '", path_, "'"));
    }
    case AstKind::kName:
      if (a->text == "tuple" || a->text == "Tuple") {
        return ErrorAt(a, "tuple needs element types: tuple[T1, T2]");
      }
      return ErrorAt(a, pto::StrCat("unknown type '", a->text, "'"));
    case AstKind::kNone:
      return ErrorAt(a, "None is not a type here");
    default:
      return ErrorAt(a, "expected a type");
  }
}

absl::StatusOr<Parser::ParamType> Parser::LowerParamType(const Ast* a) {
  ParamType out;
  if (a->kind == AstKind::kSubscript && Kid(a, 0)->kind == AstKind::kAttribute &&
      DottedPath(Kid(a, 0)) &&
      (std::string_view(path_) == "pl.Out" || std::string_view(path_) == "pl.InOut")) {
    out.dir = std::string_view(path_) == "pl.Out" ? ir::ParamDirection::kOut
                                                   : ir::ParamDirection::kInOut;
    const Ast* inner = Kid(a, 1);
    if (inner->kind == AstKind::kTuple) {
      return ErrorAt(inner, pto::StrCat(path_, "[...] takes exactly one type"));
    }
    ASSIGN_OR_RETURN(out.type, LowerType(inner));
    return out;
  }
  ASSIGN_OR_RETURN(out.type, LowerType(a));
  return out;
}

// Fast path for the annotations that nearly every function header has:
// `pl.Tensor[[d0, d1, ...], pl.DT]` (each dimension an integer literal or a
// name) and `pl.Scalar[pl.DT]`. It builds exactly what ParseTest + LowerType
// build, without the generic syntax tree and dotted-path strings. On anything
// else, including anything that would be an error, it consumes nothing and
// returns false: the general path then handles and reports it.
bool Parser::TryParseSimpleType(TypePtr* out) {
  const size_t start = pos_;
  const Token& first = Cur();
  PoolMark mark = Mark();
  auto accept_op = [this](Op op) {
    if (!AtOp(op)) return false;
    Advance();
    return true;
  };
  auto accept_pl_dot = [this, &accept_op] {
    if (Cur().kind != TokenKind::kName || Cur().text() != "pl") return false;
    Advance();
    return accept_op(Op::kDot) && Cur().kind == TokenKind::kName;
  };
  // `pl.FP32` resolves without a scope lookup, as in ResolveDType.
  auto accept_dtype = [&](DataType* dt) {
    if (!accept_pl_dot()) return false;
    std::optional<DataType> d = ir::DataTypeFromName(Cur().text());
    if (!d) return false;
    Advance();
    *dt = *d;
    return true;
  };
  auto lower = [&]() -> TypePtr {
    if (!accept_pl_dot()) return nullptr;
    std::string_view kind = Cur().text();
    if (kind != "Tensor" && kind != "Scalar") return nullptr;
    Advance();
    if (!accept_op(Op::kLBracket)) return nullptr;
    DataType dtype;
    if (kind == "Scalar") {
      if (!accept_dtype(&dtype) || !accept_op(Op::kRBracket)) return nullptr;
      return ir::ScalarType::Get(dtype);
    }
    if (!accept_op(Op::kLBracket)) return nullptr;
    std::vector<ExprPtr> shape;
    while (true) {
      const Token& d = Cur();
      if (d.kind != TokenKind::kName && d.kind != TokenKind::kInt) return nullptr;
      // The same one-token tree and LowerDim as the general path.
      Ast* dim = NewAst(d.kind == TokenKind::kName ? AstKind::kName : AstKind::kInt, d);
      if (d.kind == TokenKind::kName) {
        dim->text = d.text();
      } else {
        dim->int_value = d.int_value;
      }
      absl::StatusOr<ExprPtr> e = LowerDim(dim);
      if (!e.ok()) return nullptr;
      shape.push_back(*std::move(e));
      Advance();
      if (accept_op(Op::kComma)) continue;
      if (accept_op(Op::kRBracket)) break;
      return nullptr;
    }
    if (!accept_op(Op::kComma) || !accept_dtype(&dtype) || !accept_op(Op::kRBracket)) {
      return nullptr;
    }
    return std::make_shared<ir::TensorType>(std::move(shape), dtype, std::nullopt, std::nullopt,
                                            SpanFromTo(first, Prev()));
  };
  TypePtr t = lower();
  Release(mark);
  if (t == nullptr) {
    pos_ = start;
    return false;
  }
  *out = std::move(t);
  return true;
}

// A parameter annotation for TryParseSimpleType, optionally in pl.Out[...] or
// pl.InOut[...], followed by ',' or ')'.
bool Parser::TryParseSimpleParamType(ParamType* out) {
  const size_t start = pos_;
  ir::ParamDirection dir = ir::ParamDirection::kIn;
  bool wrapped = false;
  if (Cur().kind == TokenKind::kName && Cur().text() == "pl" && Peek(1).Is(Op::kDot) &&
      Peek(2).kind == TokenKind::kName && Peek(3).Is(Op::kLBracket)) {
    std::string_view w = Peek(2).text();
    if (w == "Out" || w == "InOut") {
      dir = w == "Out" ? ir::ParamDirection::kOut : ir::ParamDirection::kInOut;
      wrapped = true;
      for (int i = 0; i < 4; ++i) Advance();
    }
  }
  TypePtr type;
  if (!TryParseSimpleType(&type) || (wrapped && !AtOp(Op::kRBracket))) {
    pos_ = start;
    return false;
  }
  if (wrapped) Advance();
  if (!AtOp(Op::kComma) && !AtOp(Op::kRParen)) {
    pos_ = start;
    return false;
  }
  out->type = std::move(type);
  out->dir = dir;
  return true;
}

absl::Status Parser::CheckAnnotation(const TypePtr& ann, const TypePtr& value,
                                     const Ast* ann_ast) {
  if (ir::TypesAgree(ann, value)) return absl::OkStatus();
  return ErrorAt(ann_ast, pto::StrCat("type annotation ", TypeText(ann),
                                      " does not match the value's type ", TypeText(value)));
}

// ===========================================================================
// Module, class and function headers.

bool ExprNamesAVar(const ExprPtr& e, int depth) {
  if (e == nullptr || depth > kMaxExpressionHeight) return e != nullptr;
  switch (e->kind()) {
    case ir::NodeKind::kVar:
    case ir::NodeKind::kIterArg:
    case ir::NodeKind::kMemRef:
    case ir::NodeKind::kWindowBuffer:
      return true;
    case ir::NodeKind::kBinaryExpr: {
      const auto& b = static_cast<const ir::BinaryExpr&>(*e);
      return ExprNamesAVar(b.lhs(), depth + 1) || ExprNamesAVar(b.rhs(), depth + 1);
    }
    case ir::NodeKind::kUnaryExpr:
      return ExprNamesAVar(static_cast<const ir::UnaryExpr&>(*e).operand(), depth + 1);
    case ir::NodeKind::kCast:
      return ExprNamesAVar(static_cast<const ir::Cast&>(*e).value(), depth + 1);
    case ir::NodeKind::kMakeTuple:
      for (const ExprPtr& x : static_cast<const ir::MakeTuple&>(*e).elements()) {
        if (ExprNamesAVar(x, depth + 1)) return true;
      }
      return false;
    case ir::NodeKind::kTupleGetItem:
      return ExprNamesAVar(static_cast<const ir::TupleGetItem&>(*e).tuple(), depth + 1);
    case ir::NodeKind::kCall:
      for (const ExprPtr& x : static_cast<const ir::Call&>(*e).args()) {
        if (ExprNamesAVar(x, depth + 1)) return true;
      }
      return false;
    default:
      return false;
  }
}

bool TypeNamesAVar(const TypePtr& t, int depth) {
  if (t == nullptr || depth > kMaxNestingDepth) return false;
  auto any = [depth](const std::vector<ExprPtr>& v) {
    for (const ExprPtr& e : v) {
      if (ExprNamesAVar(e, depth + 1)) return true;
    }
    return false;
  };
  if (auto s = ir::As<ir::ShapedType>(t)) {
    if (any(s->shape()) || s->memref().has_value()) return true;
    if (auto tt = ir::AsTensorTypeLike(t); tt != nullptr && tt->tensor_view()) {
      if (any(tt->tensor_view()->stride) || any(tt->tensor_view()->valid_shape)) return true;
    }
    if (auto tile = ir::As<ir::TileType>(t); tile != nullptr && any(tile->valid_shape())) {
      return true;
    }
    return false;
  }
  if (auto tup = ir::As<ir::TupleType>(t)) {
    for (const TypePtr& x : tup->types()) {
      if (TypeNamesAVar(x, depth + 1)) return true;
    }
  }
  return false;
}

absl::StatusOr<ir::ProgramPtr> Parser::Run() {
  RETURN_IF_ERROR(ParseModule());
  if (!have_program_) {
    return UserError(Span(file_, 1, 1, 1, 1), "no @pl.program class in this file");
  }
  std::vector<ir::FunctionPtr> functions;
  functions.reserve(funcs_.size());
  // Every body has been read, so the header data can move into the Functions.
  for (const auto& f : funcs_) {
    ASSIGN_OR_RETURN(ir::FunctionPtr fn,
                     ir::Function::Create(std::string(f->name), std::move(f->params),
                                          std::move(f->dirs), std::move(f->ret_types),
                                          std::move(f->body), f->func_type, f->level, f->role,
                                          std::move(f->attrs), f->runtime_binding, f->span));
    functions.push_back(std::move(fn));
  }
  return ir::Program::Create(std::move(functions), program_name_, program_span_);
}

absl::Status Parser::SkipImport() {
  while (!AtNewline() && Cur().kind != TokenKind::kEnd) Advance();
  if (AtNewline()) Advance();
  return absl::OkStatus();
}

absl::StatusOr<Ast*> Parser::ParseDecorator(const Token** at_tok) {
  if (at_tok != nullptr) *at_tok = &Cur();
  Advance();  // @
  ASSIGN_OR_RETURN(Ast * a, ParseTest());
  RETURN_IF_ERROR(ExpectNewline());
  if (AtOp(Op::kAt)) return ErrorAt(Cur(), "unsupported Python construct: multiple decorators");
  return a;
}

absl::Status Parser::ParseConstantDef(SvMap<ConstVal>* table) {
  const Token& name = Cur();
  Advance();  // name
  Advance();  // =
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * value, ParseTestList());
  if (AtOp(Op::kAssign)) return ErrorAt(Cur(), "unsupported Python construct: chained assignment");
  RETURN_IF_ERROR(ExpectNewline());
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(value));
  (*table)[name.text()] = std::move(v);
  Release(mark);
  return absl::OkStatus();
}

absl::Status Parser::ParseModule() {
  while (Cur().kind != TokenKind::kEnd) {
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kNewline:
        Advance();
        continue;
      case TokenKind::kIndent:
        return ErrorAt(t, "unexpected indent");
      case TokenKind::kDedent:
        Advance();
        continue;
      case TokenKind::kKeyword:
        switch (t.keyword()) {
          case Keyword::kImport:
          case Keyword::kFrom:
            RETURN_IF_ERROR(SkipImport());
            continue;
          case Keyword::kClass:
            return ErrorAt(Peek().kind == TokenKind::kName ? Peek() : t,
                           pto::StrCat("class '", Peek().text(),
                                       "' needs the @pl.program decorator"));
          case Keyword::kDef:
            return ErrorAt(t, "functions must be methods of the @pl.program class");
          case Keyword::kPass:
            Advance();
            RETURN_IF_ERROR(ExpectNewline());
            continue;
          default:
            return ErrorAt(t, pto::StrCat("unsupported statement at module level ('",
                                          KeywordText(t.keyword()),
                                          "'): only imports, constants and the @pl.program "
                                          "class are allowed"));
        }
      case TokenKind::kString: {
        PoolMark mark = Mark();
        ASSIGN_OR_RETURN(Ast * a, ParseTestList());
        if (a->kind != AstKind::kString) {
          return ErrorAt(a, "unsupported statement at module level: only imports, constants "
                            "and the @pl.program class are allowed");
        }
        RETURN_IF_ERROR(ExpectNewline());
        Release(mark);
        continue;
      }
      case TokenKind::kName:
        if (Peek().Is(Op::kAssign)) {
          RETURN_IF_ERROR(ParseConstantDef(&module_consts_));
          continue;
        }
        if (Peek().Is(Op::kColon)) {
          return ErrorAt(t, "unsupported Python construct: annotated module constant (write "
                            "NAME = value)");
        }
        break;
      case TokenKind::kOp:
        if (t.Is(Op::kAt)) {
          PoolMark mark = Mark();
          const Token* at_tok = nullptr;
          ASSIGN_OR_RETURN(Ast * dec, ParseDecorator(&at_tok));
          const Ast* f = dec->kind == AstKind::kCall ? Kid(dec, 0) : dec;
          std::string name = DottedPath(f) ? path_ : std::string();
          if (name == "pl.program") {
            RETURN_IF_ERROR(ParseProgramClass(dec, *at_tok));
          } else if (name == "pl.function") {
            return ErrorAt(dec, "functions must be methods of the @pl.program class");
          } else {
            return ErrorAt(dec, "unsupported decorator: only @pl.program (on the class) and "
                                "@pl.function (on its methods) are supported");
          }
          Release(mark);
          continue;
        }
        break;
      default:
        break;
    }
    return ErrorAt(t, "unsupported statement at module level: only imports, constants NAME = "
                      "value and the @pl.program class are allowed");
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseProgramClass(const Ast* decorator, const Token& at_tok) {
  if (have_program_) {
    return ErrorAt(at_tok, "only one @pl.program class is allowed per file");
  }
  std::string name_override;
  bool has_override = false;
  if (decorator->kind == AstKind::kCall) {
    if (NumPos(decorator) > 0) {
      return ErrorAt(PosArg(decorator, 0), "@pl.program takes only the keyword argument name=");
    }
    for (uint32_t i = 0; i < decorator->num_kws; ++i) {
      const KwName& k = KwAt(decorator, i);
      if (k.name != "name") {
        return UserError(KwSpan(k), pto::StrCat("unknown @pl.program argument '", k.name, "'"));
      }
      const Ast* v = KwValue(decorator, i);
      if (v->kind != AstKind::kString && !IsConstAst(v)) {
        return ErrorAt(v, "@pl.program(name=...) needs a string");
      }
      ASSIGN_OR_RETURN(ConstVal s, ConstEval(v));
      if (s.kind != ConstVal::kStr) return ErrorAt(v, "@pl.program(name=...) needs a string");
      name_override = std::move(s.s);
      has_override = true;
    }
  }
  if (!AtKw(Keyword::kClass)) return Unexpected("'class' after @pl.program");
  const Token& class_tok = Cur();
  Advance();
  ASSIGN_OR_RETURN(const Token* name, ExpectName("a class name"));
  if (AtOp(Op::kLParen)) {
    Advance();
    if (!AtOp(Op::kRParen)) {
      return ErrorAt(Cur(), "unsupported Python construct: class inheritance");
    }
    Advance();
  }
  have_program_ = true;
  program_name_ = has_override ? name_override : std::string(name->text());
  program_span_ = SpanFromTo(class_tok, *name);
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  if (!AtNewline()) return Unexpected("a new line after the class header");
  Advance();
  if (Cur().kind != TokenKind::kIndent) {
    return ErrorAt(Cur(), pto::StrCat("expected an indented block after 'class' statement on "
                                      "line ",
                                      class_tok.line));
  }
  Advance();
  in_class_ = true;
  class_consts_.clear();
  // Pass 1: constants and function headers, in order.
  while (Cur().kind != TokenKind::kDedent && Cur().kind != TokenKind::kEnd) {
    const Token& t = Cur();
    if (t.kind == TokenKind::kString) {  // docstrings
      PoolMark mark = Mark();
      ASSIGN_OR_RETURN(Ast * a, ParseTestList());
      if (a->kind != AstKind::kString) {
        return ErrorAt(a, "unsupported statement in a @pl.program class body");
      }
      RETURN_IF_ERROR(ExpectNewline());
      Release(mark);
      continue;
    }
    if (t.Is(Op::kAt)) {
      PoolMark mark = Mark();
      ASSIGN_OR_RETURN(Ast * dec, ParseDecorator(nullptr));
      const Ast* f = dec->kind == AstKind::kCall ? Kid(dec, 0) : dec;
      std::string dname = DottedPath(f) ? path_ : std::string();
      if (dname != "pl.function") {
        return ErrorAt(dec, "unsupported decorator: methods of a @pl.program class need "
                            "@pl.function");
      }
      RETURN_IF_ERROR(ParseFunctionHeader(dec));
      Release(mark);
      continue;
    }
    if (t.Is(Keyword::kDef)) {
      return ErrorAt(Peek(), pto::StrCat("method '", Peek().text(),
                                         "' needs the @pl.function decorator"));
    }
    if (t.kind == TokenKind::kName && Peek().Is(Op::kAssign)) {
      RETURN_IF_ERROR(ParseConstantDef(&class_consts_));
      continue;
    }
    if (t.Is(Keyword::kPass) || t.Is(Op::kEllipsis)) {
      Advance();
      RETURN_IF_ERROR(ExpectNewline());
      continue;
    }
    if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
    return ErrorAt(t, "unsupported statement in a @pl.program class body: only @pl.function "
                      "methods, constants NAME = value and docstrings are allowed");
  }
  size_t class_end = pos_;
  // Pass 2: bodies.
  for (auto& f : funcs_) RETURN_IF_ERROR(ParseFunctionBody(f.get()));
  pos_ = class_end;
  if (Cur().kind == TokenKind::kDedent) Advance();
  in_class_ = false;
  return absl::OkStatus();
}

// `-> T` of a function header through the general expression path.
absl::Status Parser::ParseReturnAnnotation(FuncState* fs) {
  ASSIGN_OR_RETURN(Ast * ret, ParseTest());
  if (ret->kind == AstKind::kNone) {
    // no results
  } else if (ret->kind == AstKind::kSubscript &&
             ((Kid(ret, 0)->kind == AstKind::kName &&
               (Kid(ret, 0)->text == "tuple" || Kid(ret, 0)->text == "Tuple")) ||
              (Kid(ret, 0)->kind == AstKind::kAttribute && DottedPath(Kid(ret, 0)) &&
               path_ == "pl.Tuple"))) {
    ASSIGN_OR_RETURN(TypePtr t, LowerType(ret));
    fs->ret_types = static_cast<const ir::TupleType&>(*t).types();
  } else {
    ASSIGN_OR_RETURN(TypePtr t, LowerType(ret));
    fs->ret_types.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFunctionHeader(const Ast* decorator) {
  ir::FunctionType func_type = ir::FunctionType::kOpaque;
  std::optional<ir::Level> level;
  std::optional<ir::Role> role;
  ir::AttrList attrs;
  bool runtime_binding = false;
  if (decorator->kind == AstKind::kCall) {
    if (NumPos(decorator) > 0) {
      return ErrorAt(PosArg(decorator, 0), "@pl.function takes only keyword arguments");
    }
    for (uint32_t i = 0; i < decorator->num_kws; ++i) {
      const KwName& k = KwAt(decorator, i);
      const Ast* v = KwValue(decorator, i);
      auto enum_member = [&](std::string_view prefix) -> std::optional<std::string_view> {
        if (v->kind == AstKind::kAttribute && DottedPath(v) && StartsWith(path_, prefix)) {
          return std::string_view(path_).substr(prefix.size());
        }
        return std::nullopt;
      };
      if (k.name == "type") {
        std::optional<std::string_view> m = enum_member("pl.FunctionType.");
        std::optional<ir::FunctionType> ft = m ? ir::FunctionTypeFromName(*m) : std::nullopt;
        if (!ft) return ErrorAt(v, "expected a function type such as pl.FunctionType.InCore");
        func_type = *ft;
      } else if (k.name == "level") {
        std::optional<std::string_view> m = enum_member("pl.Level.");
        level = m ? ir::LevelFromName(*m) : std::nullopt;
        if (!level) return ErrorAt(v, "expected a level such as pl.Level.HOST");
      } else if (k.name == "role") {
        std::optional<std::string_view> m = enum_member("pl.Role.");
        role = m ? ir::RoleFromName(*m) : std::nullopt;
        if (!role) return ErrorAt(v, "expected a role such as pl.Role.Orchestrator");
      } else if (k.name == "attrs") {
        ASSIGN_OR_RETURN(attrs, ConvertAttrDict(v, /*call_attrs=*/false));
      } else if (k.name == "runtime_binding") {
        if (!IsConstAst(v)) return ErrorAt(v, "runtime_binding must be True or False");
        ASSIGN_OR_RETURN(ConstVal b, ConstEval(v));
        if (b.kind != ConstVal::kBool) return ErrorAt(v, "runtime_binding must be True or False");
        runtime_binding = b.i != 0;
      } else {
        return UserError(KwSpan(k), pto::StrCat("unknown @pl.function argument '", k.name, "'"));
      }
    }
  }
  if (!AtKw(Keyword::kDef)) return Unexpected("'def' after @pl.function");
  const Token& def_tok = Cur();
  Advance();
  ASSIGN_OR_RETURN(const Token* name, ExpectName("a function name"));
  if (funcs_by_name_.contains(name->text())) {
    return ErrorAt(*name, pto::StrCat("function '", name->text(),
                                      "' is defined more than once (GlobalVar names must be "
                                      "unique)"));
  }
  auto fs = std::make_unique<FuncState>();
  fs->params.reserve(4);  // saves regrowing for the usual few parameters
  fs->dirs.reserve(4);
  fs->name = name->text();
  fs->span = SpanFromTo(def_tok, *name);
  cur_func_ = fs.get();
  ResetScopes();
  RETURN_IF_ERROR(ExpectOp(Op::kLParen));
  if (!(Cur().kind == TokenKind::kName && Cur().text() == "self")) {
    return ErrorAt(Cur(), pto::StrCat("the first parameter of @pl.function method '", name->text(),
                                      "' must be 'self'"));
  }
  Advance();
  if (AtOp(Op::kColon)) return ErrorAt(Cur(), "'self' takes no type annotation");
  while (AtOp(Op::kComma)) {
    Advance();
    if (AtOp(Op::kRParen)) break;
    const Token& p = Cur();
    if (p.Is(Op::kStar) || p.Is(Op::kDoubleStar)) {
      return ErrorAt(p, "unsupported Python construct: star-arguments (*args / **kwargs)");
    }
    if (p.Is(Op::kSlash)) {
      return ErrorAt(p, "unsupported Python construct: positional-only parameter marker '/'");
    }
    ASSIGN_OR_RETURN(const Token* pname, ExpectName("a parameter name"));
    if (LookupLocal(pname->text()) != nullptr || pname->text() == "self") {
      return ErrorAt(*pname, pto::StrCat("duplicate parameter '", pname->text(), "'"));
    }
    if (!AtOp(Op::kColon)) {
      return ErrorAt(*pname, pto::StrCat("parameter '", pname->text(), "' of function '",
                                         name->text(), "' needs a type annotation"));
    }
    Advance();
    ParamType pt;
    if (!TryParseSimpleParamType(&pt)) {
      ASSIGN_OR_RETURN(Ast * ann, ParseTest());
      if (AtOp(Op::kAssign)) {
        return ErrorAt(Cur(), "unsupported Python construct: default parameter value");
      }
      ASSIGN_OR_RETURN(pt, LowerParamType(ann));
    }
    auto var = std::make_shared<const ir::Var>(std::string(pname->text()), pt.type,
                                               SpanOf(*pname));
    Define(pname->text(), var);
    fs->params.push_back(std::move(var));
    fs->dirs.push_back(pt.dir);
  }
  RETURN_IF_ERROR(ExpectOp(Op::kRParen));
  if (AtOp(Op::kArrow)) {
    Advance();
    const size_t ret_pos = pos_;
    TypePtr simple;
    if (TryParseSimpleType(&simple) && AtOp(Op::kColon)) {
      fs->ret_types.push_back(std::move(simple));
    } else {
      pos_ = ret_pos;
      RETURN_IF_ERROR(ParseReturnAnnotation(fs.get()));
    }
  }
  if (!AtOp(Op::kColon)) return Unexpected("':' after the function header");
  fs->body_pos = pos_;
  RETURN_IF_ERROR(SkipBlock(def_tok));
  // Checks level and role against the function type now, so that a header's
  // error comes before any body's; Run() builds the Function itself.
  RETURN_IF_ERROR(ir::Function::Create(std::string(fs->name), {}, {}, {}, nullptr, func_type,
                                       level, role, {}, runtime_binding, fs->span)
                      .status());
  fs->func_type = func_type;
  fs->level = level;
  fs->role = role;
  fs->attrs = std::move(attrs);
  fs->runtime_binding = runtime_binding;
  fs->gv = std::make_shared<const ir::GlobalVar>(std::string(fs->name), fs->span);
  if (fs->ret_types.empty()) {
    fs->call_type = ir::UnknownType::Get();
  } else if (fs->ret_types.size() == 1) {
    fs->call_type = fs->ret_types[0];
  } else {
    fs->call_type = std::make_shared<ir::TupleType>(fs->ret_types);
  }
  // In a header, the only values a result type can name are the params.
  fs->call_type_uses_params = TypeNamesAVar(fs->call_type, 0);
  funcs_by_name_[fs->name] = fs.get();
  funcs_.push_back(std::move(fs));
  cur_func_ = nullptr;
  return absl::OkStatus();
}

// Skips `: <block>` without parsing it (the header pass).
absl::Status Parser::SkipBlock(const Token& header) {
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  if (!AtNewline()) {
    while (!AtNewline() && Cur().kind != TokenKind::kEnd) Advance();
    return ExpectNewline();
  }
  Advance();
  if (Cur().kind != TokenKind::kIndent) {
    return ErrorAt(Cur(), pto::StrCat("expected an indented block after 'def' statement on line ",
                                      header.line));
  }
  int depth = 0;
  while (true) {
    TokenKind k = Cur().kind;
    if (k == TokenKind::kIndent) ++depth;
    if (k == TokenKind::kDedent) --depth;
    if (k == TokenKind::kEnd) return ErrorAt(Cur(), "unexpected end of file");
    Advance();
    if (depth == 0) return absl::OkStatus();
  }
}

absl::Status Parser::ParseFunctionBody(FuncState* f) {
  cur_func_ = f;
  ResetScopes();
  for (const VarPtr& p : f->params) Define(p->name_hint(), p);
  pos_ = f->body_pos;
  const Token& def_tok = toks_[f->body_pos];  // the ':' (only used for messages)
  std::vector<StmtPtr> stmts;
  YieldInfo yield;
  RETURN_IF_ERROR(ParseBlock(def_tok, "def", &stmts, &yield));
  if (yield.present) {
    return UserError(yield.span, "pl.yield_ outside of a loop or if body");
  }
  f->body = std::make_shared<ir::SeqStmts>(std::move(stmts), f->span);
  cur_func_ = nullptr;
  return absl::OkStatus();
}

std::vector<std::string> Parser::LeadingComments(int line) const {
  const std::vector<Comment>& cs = ts_.comments;
  auto it = std::lower_bound(cs.begin(), cs.end(), line,
                             [](const Comment& c, int l) { return c.line < l; });
  std::vector<std::string> out;
  int expect = line - 1;
  while (it != cs.begin()) {
    --it;
    if (it->line != expect || !it->own_line) break;
    out.emplace_back(it->text);
    --expect;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// ===========================================================================
// Statements.

bool Parser::IsPathCall(const Ast* a, std::string_view path) {
  if (a->kind != AstKind::kCall) return false;
  const Ast* f = Kid(a, 0);
  if (f->kind != AstKind::kAttribute) return false;
  // Cheap reject on the last component before building the dotted path.
  std::string_view last = path.substr(path.rfind('.') + 1);
  if (f->text != last) return false;
  return DottedPath(f) && path_ == path;
}

absl::Status Parser::ParseBlock(const Token& header, std::string_view what,
                                std::vector<StmtPtr>* out, YieldInfo* yield) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  if (!AtNewline()) return ParseSimpleLine(out, yield);
  Advance();
  if (Cur().kind != TokenKind::kIndent) {
    return ErrorAt(Cur(), pto::StrCat("expected an indented block after '", what,
                                      "' statement on line ", header.line));
  }
  Advance();
  while (Cur().kind != TokenKind::kDedent && Cur().kind != TokenKind::kEnd) {
    if (yield->present) {
      return UserError(yield->span,
                       "pl.yield_ must be the last statement of a loop or if body");
    }
    RETURN_IF_ERROR(ParseStatement(out, yield));
  }
  if (Cur().kind == TokenKind::kDedent) Advance();
  return absl::OkStatus();
}

absl::Status Parser::ParseStatement(std::vector<StmtPtr>* out, YieldInfo* yield) {
  const Token& t = Cur();
  if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
  if (t.Is(Op::kAt)) {
    return ErrorAt(t, "unsupported Python construct: decorator inside a function");
  }
  if (t.kind != TokenKind::kKeyword) return ParseSimpleLine(out, yield);
  bool compound = t.Is(Keyword::kIf) || t.Is(Keyword::kFor) || t.Is(Keyword::kWhile) ||
                  t.Is(Keyword::kWith);
  if (compound && expect_cond_) {
    return ErrorAt(t, "the body of a pl.while_ loop must start with pl.cond(...)");
  }
  switch (t.keyword()) {
    case Keyword::kIf:
      return ParseIf(out, nullptr);
    case Keyword::kFor:
      return ParseFor(out);
    case Keyword::kWhile:
      return ParseWhile(out);
    case Keyword::kWith:
      return ParseWith(out, yield);
    case Keyword::kDef:
      return ErrorAt(t, "unsupported Python construct: nested function definition");
    case Keyword::kClass:
      return ErrorAt(t, "unsupported Python construct: nested class");
    case Keyword::kElif:
    case Keyword::kElse:
      return ErrorAt(t, pto::StrCat("'", KeywordText(t.keyword()), "' without a matching 'if'"));
    case Keyword::kTry:
    case Keyword::kExcept:
    case Keyword::kFinally:
      return ErrorAt(t, "unsupported Python construct: try statement");
    case Keyword::kAsync:
      return ErrorAt(t, "unsupported Python construct: async");
    default:
      return ParseSimpleLine(out, yield);
  }
}

absl::Status Parser::ParseSimpleLine(std::vector<StmtPtr>* out, YieldInfo* yield) {
  while (true) {
    if (yield->present) {
      return UserError(yield->span, "pl.yield_ must be the last statement of a loop or if body");
    }
    RETURN_IF_ERROR(ParseSmallStatement(out, yield));
    if (!AtOp(Op::kSemicolon)) break;
    Advance();
    if (AtNewline()) break;
  }
  return ExpectNewline();
}

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

absl::Status Parser::ParseSmallStatement(std::vector<StmtPtr>* out, YieldInfo* yield) {
  const Token& t = Cur();
  PoolMark mark = Mark();
  if (expect_cond_) {
    expect_cond_ = false;
    if (t.kind == TokenKind::kOp || t.kind == TokenKind::kName) {
      ASSIGN_OR_RETURN(Ast * a, ParseTestList());
      if (IsPathCall(a, "pl.cond")) {
        RETURN_IF_ERROR(CheckPosCount(a, 1, 1, "pl.cond"));
        RETURN_IF_ERROR(CheckNoKeywords(a, "pl.cond"));
        ASSIGN_OR_RETURN(cond_result_, LowerScalarOperand(PosArg(a, 0), "pl.cond"));
        Release(mark);
        return absl::OkStatus();
      }
    }
    return ErrorAt(t, "the body of a pl.while_ loop must start with pl.cond(...)");
  }
  if (t.kind == TokenKind::kKeyword) {
    switch (t.keyword()) {
      case Keyword::kPass:
        Advance();
        return absl::OkStatus();
      case Keyword::kReturn:
        RETURN_IF_ERROR(ParseReturn(out));
        Release(mark);
        return absl::OkStatus();
      case Keyword::kBreak:
        return ErrorAt(t, "unsupported Python construct: break statement");
      case Keyword::kContinue:
        return ErrorAt(t, "unsupported Python construct: continue statement");
      case Keyword::kDel:
        return ErrorAt(t, "unsupported Python construct: del statement");
      case Keyword::kGlobal:
        return ErrorAt(t, "unsupported Python construct: global statement");
      case Keyword::kNonlocal:
        return ErrorAt(t, "unsupported Python construct: nonlocal statement");
      case Keyword::kAssert:
        return ErrorAt(t, "unsupported Python construct: assert statement");
      case Keyword::kRaise:
        return ErrorAt(t, "unsupported Python construct: raise statement");
      case Keyword::kImport:
      case Keyword::kFrom:
        return ErrorAt(t, "unsupported Python construct: import inside a function");
      default:
        break;
    }
  }
  ASSIGN_OR_RETURN(Ast * target, ParseTestList());
  if (AtOp(Op::kAssign)) {
    Advance();
    if (AtKw(Keyword::kYield)) return UnsupportedKeyword(Cur());
    ASSIGN_OR_RETURN(Ast * value, ParseTestList());
    if (AtOp(Op::kAssign)) {
      return ErrorAt(Cur(), "unsupported Python construct: chained assignment");
    }
    RETURN_IF_ERROR(LowerAssign(t, target, nullptr, value, out, yield));
  } else if (AtOp(Op::kColon)) {
    Advance();
    ASSIGN_OR_RETURN(Ast * ann, ParseTest());
    if (!AtOp(Op::kAssign)) {
      return ErrorAt(Cur(), "a variable annotation needs a value (`x: T = value`)");
    }
    Advance();
    ASSIGN_OR_RETURN(Ast * value, ParseTestList());
    RETURN_IF_ERROR(LowerAssign(t, target, ann, value, out, yield));
  } else if (Cur().kind == TokenKind::kOp && AugmentedOp(Cur().op()) != AstOp::kNone) {
    AstOp op = AugmentedOp(Cur().op());
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, "augmented assignment needs a plain name on the left");
    }
    Advance();
    ASSIGN_OR_RETURN(Ast * rhs, ParseTestList());
    ASSIGN_OR_RETURN(Ast * value, MakeBinary(op, target, rhs));
    RETURN_IF_ERROR(LowerAssign(t, target, nullptr, value, out, yield));
  } else if (AtOp(Op::kAtAssign)) {
    return ErrorAt(Cur(), "unsupported Python construct: matrix multiplication operator '@'");
  } else {
    RETURN_IF_ERROR(LowerExprStatement(t, target, out, yield));
  }
  Release(mark);
  return absl::OkStatus();
}

absl::Status Parser::LowerAssign(const Token& start, const Ast* target, const Ast* ann,
                                 const Ast* value, std::vector<StmtPtr>* out, YieldInfo* yield) {
  if (IsPathCall(value, "pl.yield_")) return LowerYield(start, target, ann, value, out, yield);
  if (target->kind == AstKind::kName) {
    std::string_view name = target->text;
    ExprPtr v;
    TypePtr var_type;
    if (ann != nullptr) {
      ASSIGN_OR_RETURN(TypePtr ann_type, LowerType(ann));
      auto st = ir::As<ir::ScalarType>(ann_type);
      if (st != nullptr && IsSimpleLiteral(value)) {
        // The annotation gives a literal its dtype.
        ASSIGN_OR_RETURN(ConstVal c, ConstEval(value));
        ASSIGN_OR_RETURN(v, TypedConst(c, st->dtype(), SpanOf(value)));
      } else {
        if (value->kind == AstKind::kCall) {
          ASSIGN_OR_RETURN(v, LowerCall(value, name));
        } else {
          ASSIGN_OR_RETURN(v, LowerExpr(value));
        }
        RETURN_IF_ERROR(CheckAnnotation(ann_type, v->type(), ann));
      }
      var_type = std::move(ann_type);
    } else {
      if (value->kind == AstKind::kCall) {
        ASSIGN_OR_RETURN(v, LowerCall(value, name));
      } else {
        ASSIGN_OR_RETURN(v, LowerExpr(value));
      }
      var_type = v->type();
    }
    auto var = std::make_shared<const ir::Var>(std::string(name), std::move(var_type),
                                               SpanOf(target));
    if (auto call = ir::As<ir::Call>(v);
        call != nullptr &&
        std::string_view(call->op()->name()) == "pld.tensor.alloc_window_buffer" &&
        !ir::Is<ir::GlobalVar>(call->op()) && !call->args().empty() && cur_func_ != nullptr) {
      WinAlloc& w = cur_func_->windows[name];
      if (w.base != nullptr) {
        // The name is the runtime buffer's name: one allocation per name.
        return UserError(SpanFrom(start),
                         pto::StrCat("window buffer '", name, "' is allocated twice in function '",
                                     cur_func_->name, "' (first at line ", w.span.line,
                                     "); each allocation needs its own name"));
      }
      w.base = var;
      w.size = call->args()[0];
      w.span = SpanFrom(start);
      w.wb = nullptr;
    }
    out->push_back(std::make_shared<ir::AssignStmt>(var, std::move(v), SpanFrom(start)));
    Define(name, std::move(var));
    return absl::OkStatus();
  }
  if (target->kind == AstKind::kTuple) {
    if (ann != nullptr) return ErrorAt(ann, "a tuple unpacking cannot have an annotation");
    for (uint32_t i = 0; i < target->num_kids; ++i) {
      const Ast* e = Kid(target, i);
      if (e->kind == AstKind::kTuple) {
        return ErrorAt(e, "unsupported Python construct: nested tuple unpacking");
      }
      if (e->kind != AstKind::kName) {
        return ErrorAt(e, "unsupported assignment target: only names can be assigned");
      }
    }
    ASSIGN_OR_RETURN(ExprPtr v, LowerExpr(value));
    auto tt = ir::As<ir::TupleType>(v->type());
    if (tt == nullptr) {
      return ErrorAt(value, pto::StrCat("cannot unpack a value of type ", TypeText(v->type()),
                                        " into ", target->num_kids, " names"));
    }
    if (tt->types().size() != target->num_kids) {
      return ErrorAt(value, pto::StrCat("cannot unpack a tuple of ", tt->types().size(),
                                        " values into ", target->num_kids, " names"));
    }
    Span span = SpanFrom(start);
    auto tmp = std::make_shared<const ir::Var>("_tuple_tmp", v->type(), span);
    out->push_back(std::make_shared<ir::AssignStmt>(tmp, std::move(v), span));
    std::vector<std::pair<std::string_view, VarPtr>> defs;
    for (uint32_t i = 0; i < target->num_kids; ++i) {
      const Ast* e = Kid(target, i);
      TypePtr et = tt->types()[i];
      auto var = std::make_shared<const ir::Var>(std::string(e->text), et, SpanOf(e));
      auto get = std::make_shared<ir::TupleGetItem>(tmp, static_cast<int>(i), et, SpanOf(e));
      out->push_back(std::make_shared<ir::AssignStmt>(var, std::move(get), span));
      defs.emplace_back(e->text, std::move(var));
    }
    for (auto& [n, var] : defs) Define(n, std::move(var));
    return absl::OkStatus();
  }
  if (target->kind == AstKind::kSubscript) {
    return ErrorAt(target, "unsupported assignment target: a subscript (tensors are values; use "
                           "pl.tensor.write or pl.tensor.assemble)");
  }
  if (target->kind == AstKind::kAttribute) {
    return ErrorAt(target, "unsupported assignment target: an attribute");
  }
  return ErrorAt(target, "unsupported assignment target: only names can be assigned");
}

absl::Status Parser::LowerYield(const Token& start, const Ast* target, const Ast* ann,
                                const Ast* call, std::vector<StmtPtr>* out, YieldInfo* yield) {
  RETURN_IF_ERROR(CheckNoKeywords(call, "pl.yield_"));
  YieldInfo y;
  y.present = true;
  y.values.reserve(NumPos(call));
  for (uint32_t i = 0; i < NumPos(call); ++i) {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(PosArg(call, i)));
    y.values.push_back(std::move(e));
  }
  if (target != nullptr) {
    y.has_names = true;
    if (target->kind == AstKind::kName) {
      y.names.push_back(target->text);
      y.name_spans.push_back(SpanOf(target));
    } else if (target->kind == AstKind::kTuple) {
      if (ann != nullptr) return ErrorAt(ann, "a tuple unpacking cannot have an annotation");
      for (uint32_t i = 0; i < target->num_kids; ++i) {
        const Ast* e = Kid(target, i);
        if (e->kind != AstKind::kName) {
          return ErrorAt(e, "the results of pl.yield_ must be plain names");
        }
        y.names.push_back(e->text);
        y.name_spans.push_back(SpanOf(e));
      }
    } else {
      return ErrorAt(target, "the results of pl.yield_ must be plain names");
    }
    if (y.names.size() != y.values.size()) {
      return ErrorAt(call, pto::StrCat("pl.yield_ gives ", y.values.size(), " value",
                                       y.values.size() == 1 ? "" : "s", " but ", y.names.size(),
                                       " name", y.names.size() == 1 ? " is" : "s are",
                                       " assigned"));
    }
    if (ann != nullptr) {
      ASSIGN_OR_RETURN(y.annotation, LowerType(ann));
      RETURN_IF_ERROR(CheckAnnotation(y.annotation, y.values[0]->type(), ann));
    }
  }
  y.span = SpanFrom(start);
  out->push_back(std::make_shared<ir::YieldStmt>(y.values, y.span));
  *yield = std::move(y);
  return absl::OkStatus();
}

absl::Status Parser::LowerExprStatement(const Token& start, const Ast* a,
                                        std::vector<StmtPtr>* out, YieldInfo* yield) {
  // `...` and bare strings (docstrings anywhere) are no-ops, as in Python.
  if (a->kind == AstKind::kEllipsis || a->kind == AstKind::kString) return absl::OkStatus();
  if (IsPathCall(a, "pl.yield_")) return LowerYield(start, nullptr, nullptr, a, out, yield);
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  out->push_back(std::make_shared<ir::EvalStmt>(std::move(e), LeadingComments(start.line),
                                                SpanFrom(start)));
  return absl::OkStatus();
}

absl::Status Parser::ParseReturn(std::vector<StmtPtr>* out) {
  const Token& start = Cur();
  Advance();
  std::vector<ExprPtr> values;
  if (!AtNewline() && !AtOp(Op::kSemicolon) && Cur().kind != TokenKind::kEnd) {
    ASSIGN_OR_RETURN(Ast * a, ParseTestList());
    if (a->kind == AstKind::kTuple) {
      for (uint32_t i = 0; i < a->num_kids; ++i) {
        ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
        values.push_back(std::move(e));
      }
    } else {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
      values.push_back(std::move(e));
    }
  }
  Span span = SpanFrom(start);
  size_t declared = cur_func_ != nullptr ? cur_func_->ret_types.size() : values.size();
  if (values.size() != declared) {
    return UserError(span, pto::StrCat("function '", cur_func_->name, "' declares ", declared,
                                       " result", declared == 1 ? "" : "s",
                                       " but this return gives ", values.size(), " value",
                                       values.size() == 1 ? "" : "s"));
  }
  out->push_back(std::make_shared<ir::ReturnStmt>(std::move(values), LeadingComments(start.line),
                                                  span));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<VarPtr>> Parser::MakeResultVars(const YieldInfo& y,
                                                           const std::vector<TypePtr>& types) {
  std::vector<VarPtr> vars;
  vars.reserve(y.names.size());
  for (size_t i = 0; i < y.names.size(); ++i) {
    TypePtr t = (i == 0 && y.annotation != nullptr) ? y.annotation : types[i];
    vars.push_back(std::make_shared<const ir::Var>(std::string(y.names[i]), std::move(t),
                                                   y.name_spans[i]));
  }
  return vars;
}

std::string JoinNames(const std::vector<std::string_view>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += ", ";
    s.append(names[i].data(), names[i].size());
  }
  return s;
}

// `out_result` (for elif) receives the names of the statement's results.
absl::Status Parser::ParseIf(std::vector<StmtPtr>* out, YieldInfo* out_result) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  const Token& start = Cur();
  Advance();  // if / elif
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * cond_ast, ParseTest());
  ASSIGN_OR_RETURN(ExprPtr cond, LowerScalarOperand(cond_ast, "an if condition"));
  Release(mark);
  Span header = SpanFrom(start);

  std::vector<StmtPtr> then_stmts;
  YieldInfo ty;
  PushScope("if branch");
  RETURN_IF_ERROR(ParseBlock(start, start.Is(Keyword::kIf) ? "if" : "elif", &then_stmts, &ty));
  PopScope();

  bool has_else = false;
  std::vector<StmtPtr> else_stmts;
  YieldInfo ey;
  if (AtKw(Keyword::kElif)) {
    has_else = true;
    PushScope("else branch");
    YieldInfo inner;
    RETURN_IF_ERROR(ParseIf(&else_stmts, &inner));
    if (inner.present) {
      // The nested if's results are this else branch's results.
      auto nested = ir::As<ir::IfStmt>(else_stmts.back());
      ey.present = true;
      ey.has_names = true;
      ey.names = inner.names;
      ey.name_spans = inner.name_spans;
      ey.span = inner.span;
      for (const VarPtr& v : nested->return_vars()) ey.values.push_back(v);
      else_stmts.push_back(std::make_shared<ir::YieldStmt>(ey.values, ey.span));
    }
    PopScope();
  } else if (AtKw(Keyword::kElse)) {
    has_else = true;
    const Token& else_tok = Cur();
    Advance();
    PushScope("else branch");
    RETURN_IF_ERROR(ParseBlock(else_tok, "else", &else_stmts, &ey));
    PopScope();
  }

  std::vector<VarPtr> return_vars;
  if (ty.has_names || ey.has_names) {
    const YieldInfo& named = ty.has_names ? ty : ey;
    if (!has_else) {
      return UserError(ty.span, "an if whose body yields values needs an else branch that "
                                "yields the same names");
    }
    if (!ty.has_names || !ey.has_names) {
      const YieldInfo& other = ty.has_names ? ey : ty;
      return UserError(other.present ? other.span : named.span,
                       pto::StrCat("both branches of an if must end with `",
                                   JoinNames(named.names), " = pl.yield_(...)`"));
    }
    if (ty.names != ey.names) {
      return UserError(ey.span, pto::StrCat("both branches of an if must yield the same names (",
                                            JoinNames(ty.names), " vs ", JoinNames(ey.names),
                                            ")"));
    }
    std::vector<TypePtr> types;
    for (const ExprPtr& v : ty.values) types.push_back(v->type());
    if (ty.annotation == nullptr && ey.annotation != nullptr) ty.annotation = ey.annotation;
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(ty, types));
    if (out_result != nullptr) {
      out_result->present = true;
      out_result->has_names = true;
      out_result->names = ty.names;
      out_result->name_spans = ty.name_spans;
      out_result->span = ty.span;
    }
  } else if (ty.present && ey.present && ty.values.size() != ey.values.size()) {
    return UserError(ey.span, "both branches of an if must yield the same number of values");
  }
  std::optional<StmtPtr> else_body;
  if (has_else) else_body = std::make_shared<ir::SeqStmts>(std::move(else_stmts), header);
  out->push_back(std::make_shared<ir::IfStmt>(
      std::move(cond), std::make_shared<ir::SeqStmts>(std::move(then_stmts), header),
      std::move(else_body), return_vars, header));
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ExprPtr>> Parser::LowerInitValues(const Ast* a) {
  std::vector<ExprPtr> inits;
  if (a->kind == AstKind::kTuple || a->kind == AstKind::kList) {
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(Kid(a, i)));
      inits.push_back(std::move(e));
    }
  } else {
    ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
    inits.push_back(std::move(e));
  }
  return inits;
}

absl::Status Parser::CheckLoopYield(const YieldInfo& y, size_t num_iter_args, const Token& start,
                                    std::string_view what) {
  if (num_iter_args > 0 && !y.present) {
    return ErrorAt(start, pto::StrCat("the body of a ", what,
                                      " with init_values must end with pl.yield_(...) of its ",
                                      num_iter_args, " loop-carried value",
                                      num_iter_args == 1 ? "" : "s"));
  }
  if (y.present && y.values.size() != num_iter_args) {
    return UserError(y.span, pto::StrCat("pl.yield_ gives ", y.values.size(), " value",
                                         y.values.size() == 1 ? "" : "s", " but the ", what,
                                         " carries ", num_iter_args));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFor(std::vector<StmtPtr>* out) {
  const Token& start = Cur();
  Advance();  // for
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * target, ParseTargetList(Op::kColon));
  if (!AtKw(Keyword::kIn)) return Unexpected("'in'");
  Advance();
  ASSIGN_OR_RETURN(Ast * iter, ParseTest());
  std::string kind;
  if (iter->kind == AstKind::kCall) {
    const Ast* f = Kid(iter, 0);
    if (f->kind == AstKind::kName && f->text == "range") {
      kind = "pl.range";
    } else if (f->kind == AstKind::kAttribute && DottedPath(f)) {
      kind = path_;
    }
  }
  if (kind == "pl.while_") {
    RETURN_IF_ERROR(ParseWhileFor(start, target, iter, out));
  } else {
    std::optional<ir::ForKind> fk;
    if (StartsWith(kind, "pl.")) fk = ir::ForKindFromName(std::string_view(kind).substr(3));
    if (!fk) {
      return ErrorAt(iter, "a for loop must iterate over pl.range(...), pl.parallel(...), "
                           "pl.unroll(...), pl.pipeline(...) or pl.while_(...)");
    }
    RETURN_IF_ERROR(ParseRangeFor(start, target, iter, *fk, out));
  }
  if (AtKw(Keyword::kElse)) return ErrorAt(Cur(), "unsupported Python construct: for-else");
  Release(mark);
  return absl::OkStatus();
}

absl::Status Parser::ParseRangeFor(const Token& start, const Ast* target, const Ast* iter,
                                   ir::ForKind kind, std::vector<StmtPtr>* out) {
  std::string what = pto::StrCat("pl.", ir::ForKindName(kind));
  RETURN_IF_ERROR(CheckPosCount(iter, 1, 3, what));
  const Ast* init_ast = nullptr;
  const Ast* attrs_ast = nullptr;
  for (uint32_t i = 0; i < iter->num_kws; ++i) {
    const KwName& k = KwAt(iter, i);
    if (k.name == "init_values") {
      init_ast = KwValue(iter, i);
    } else if (k.name == "attrs") {
      attrs_ast = KwValue(iter, i);
    } else {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name, "' for ",
                                              what));
    }
  }
  ExprPtr bounds[3];
  for (uint32_t i = 0; i < NumPos(iter); ++i) {
    ASSIGN_OR_RETURN(bounds[i], LowerScalarOperand(PosArg(iter, i), pto::StrCat(what, " bound")));
  }
  Span iter_span = SpanOf(iter);
  ExprPtr start_e, stop_e, step_e;
  if (NumPos(iter) == 1) {
    start_e = std::make_shared<ir::ConstInt>(0, DataType::kIndex, iter_span);
    stop_e = bounds[0];
  } else {
    start_e = bounds[0];
    stop_e = bounds[1];
  }
  step_e = NumPos(iter) == 3 ? bounds[2]
                             : std::make_shared<ir::ConstInt>(1, DataType::kIndex, iter_span);
  std::vector<ExprPtr> inits;
  if (init_ast != nullptr) {
    ASSIGN_OR_RETURN(inits, LowerInitValues(init_ast));
  }
  ir::AttrList attrs;
  if (attrs_ast != nullptr) {
    ASSIGN_OR_RETURN(attrs, ConvertAttrDict(attrs_ast, /*call_attrs=*/false));
  }
  // Targets: `i` or `i, (a, b)` (also `i, a, b`).
  const Ast* loop_name = nullptr;
  std::vector<const Ast*> carried;
  if (init_ast == nullptr) {
    if (target->kind != AstKind::kName) {
      return ErrorAt(target, pto::StrCat("a ", what, " loop without init_values has a single "
                                         "loop variable"));
    }
    loop_name = target;
  } else {
    if (target->kind != AstKind::kTuple || target->num_kids < 2 ||
        Kid(target, 0)->kind != AstKind::kName) {
      return ErrorAt(target, "a loop with init_values is written `for i, (a, b) in ...`");
    }
    loop_name = Kid(target, 0);
    if (target->num_kids == 2 && Kid(target, 1)->kind == AstKind::kTuple) {
      const Ast* inner = Kid(target, 1);
      for (uint32_t i = 0; i < inner->num_kids; ++i) carried.push_back(Kid(inner, i));
    } else {
      for (uint32_t i = 1; i < target->num_kids; ++i) carried.push_back(Kid(target, i));
    }
    for (const Ast* c : carried) {
      if (c->kind != AstKind::kName) return ErrorAt(c, "loop-carried names must be plain names");
    }
    if (carried.size() != inits.size()) {
      return ErrorAt(target, pto::StrCat("the loop names ", carried.size(),
                                         " loop-carried value", carried.size() == 1 ? "" : "s",
                                         " but init_values has ", inits.size()));
    }
  }
  Span header = SpanFrom(start);
  PushScope("for loop body");
  auto loop_var = std::make_shared<const ir::Var>(
      std::string(loop_name->text), ir::ScalarType::Get(DataType::kIndex), SpanOf(loop_name));
  Define(loop_name->text, loop_var);
  std::vector<ir::IterArgPtr> iter_args;
  std::vector<TypePtr> types;
  for (size_t i = 0; i < carried.size(); ++i) {
    auto ia = std::make_shared<const ir::IterArg>(std::string(carried[i]->text),
                                                  inits[i]->type(), inits[i], SpanOf(carried[i]));
    types.push_back(inits[i]->type());
    Define(carried[i]->text, ia);
    iter_args.push_back(std::move(ia));
  }
  std::vector<StmtPtr> body;
  YieldInfo y;
  RETURN_IF_ERROR(ParseBlock(start, "for", &body, &y));
  PopScope();
  RETURN_IF_ERROR(CheckLoopYield(y, iter_args.size(), start, "loop"));
  for (size_t i = 0; i < y.values.size() && i < types.size(); ++i) {
    if (!ir::TypesAgree(types[i], y.values[i]->type())) {
      return UserError(y.span, pto::StrCat("pl.yield_ value ", i, " has type ",
                                           TypeText(y.values[i]->type()),
                                           " but the loop-carried value has type ",
                                           TypeText(types[i])));
    }
  }
  std::vector<VarPtr> return_vars;
  if (y.has_names) {
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(y, types));
  }
  out->push_back(std::make_shared<ir::ForStmt>(
      std::move(loop_var), std::move(start_e), std::move(stop_e), std::move(step_e),
      std::move(iter_args), std::make_shared<ir::SeqStmts>(std::move(body), header), return_vars,
      kind, std::move(attrs), header));
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

absl::Status Parser::ParseWhileFor(const Token& start, const Ast* target, const Ast* iter,
                                   std::vector<StmtPtr>* out) {
  RETURN_IF_ERROR(CheckPosCount(iter, 0, 0, "pl.while_"));
  const Ast* init_ast = nullptr;
  for (uint32_t i = 0; i < iter->num_kws; ++i) {
    const KwName& k = KwAt(iter, i);
    if (k.name != "init_values") {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name,
                                              "' for pl.while_"));
    }
    init_ast = KwValue(iter, i);
  }
  if (init_ast == nullptr) {
    return ErrorAt(iter, "pl.while_ needs init_values=(...); write a plain `while cond:` for a "
                         "loop without loop-carried values");
  }
  ASSIGN_OR_RETURN(std::vector<ExprPtr> inits, LowerInitValues(init_ast));
  std::vector<const Ast*> carried;
  if (target->kind == AstKind::kTuple) {
    for (uint32_t i = 0; i < target->num_kids; ++i) carried.push_back(Kid(target, i));
  } else {
    carried.push_back(target);
  }
  for (const Ast* c : carried) {
    if (c->kind != AstKind::kName) return ErrorAt(c, "loop-carried names must be plain names");
  }
  if (carried.size() != inits.size()) {
    return ErrorAt(target, pto::StrCat("the loop names ", carried.size(), " loop-carried value",
                                       carried.size() == 1 ? "" : "s", " but init_values has ",
                                       inits.size()));
  }
  Span header = SpanFrom(start);
  PushScope("while loop body");
  std::vector<ir::IterArgPtr> iter_args;
  std::vector<TypePtr> types;
  for (size_t i = 0; i < carried.size(); ++i) {
    auto ia = std::make_shared<const ir::IterArg>(std::string(carried[i]->text),
                                                  inits[i]->type(), inits[i], SpanOf(carried[i]));
    types.push_back(inits[i]->type());
    Define(carried[i]->text, ia);
    iter_args.push_back(std::move(ia));
  }
  std::vector<StmtPtr> body;
  YieldInfo y;
  expect_cond_ = true;
  cond_result_ = nullptr;
  RETURN_IF_ERROR(ParseBlock(start, "for", &body, &y));
  if (expect_cond_) {
    expect_cond_ = false;
    return ErrorAt(start, "the body of a pl.while_ loop must start with pl.cond(...)");
  }
  ExprPtr cond = std::move(cond_result_);
  PopScope();
  RETURN_IF_ERROR(CheckLoopYield(y, iter_args.size(), start, "while loop"));
  std::vector<VarPtr> return_vars;
  if (y.has_names) {
    ASSIGN_OR_RETURN(return_vars, MakeResultVars(y, types));
  }
  out->push_back(std::make_shared<ir::WhileStmt>(
      std::move(cond), std::move(iter_args),
      std::make_shared<ir::SeqStmts>(std::move(body), header), return_vars, header));
  for (const VarPtr& v : return_vars) Define(v->name_hint(), v);
  return absl::OkStatus();
}

absl::Status Parser::ParseWhile(std::vector<StmtPtr>* out) {
  const Token& start = Cur();
  Advance();
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * cond_ast, ParseTest());
  ASSIGN_OR_RETURN(ExprPtr cond, LowerScalarOperand(cond_ast, "a while condition"));
  Release(mark);
  Span header = SpanFrom(start);
  PushScope("while loop body");
  std::vector<StmtPtr> body;
  YieldInfo y;
  RETURN_IF_ERROR(ParseBlock(start, "while", &body, &y));
  PopScope();
  if (y.present && !y.values.empty()) {
    return UserError(y.span, "a plain while loop has no loop-carried values; write `for (x,) in "
                             "pl.while_(init_values=(...))` to carry values");
  }
  if (AtKw(Keyword::kElse)) return ErrorAt(Cur(), "unsupported Python construct: while-else");
  out->push_back(std::make_shared<ir::WhileStmt>(
      std::move(cond), std::vector<ir::IterArgPtr>{},
      std::make_shared<ir::SeqStmts>(std::move(body), header), std::vector<VarPtr>{}, header));
  return absl::OkStatus();
}

absl::Status Parser::ParseWith(std::vector<StmtPtr>* out, YieldInfo* yield) {
  const Token& start = Cur();
  Advance();
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * item, ParseTest());
  if (AtKw(Keyword::kAs)) return ErrorAt(Cur(), "unsupported Python construct: with ... as");
  if (AtOp(Op::kComma)) {
    return ErrorAt(Cur(), "unsupported Python construct: several with-statement items");
  }
  std::string what;
  if (item->kind == AstKind::kCall && Kid(item, 0)->kind == AstKind::kAttribute &&
      DottedPath(Kid(item, 0))) {
    what = path_;
  }
  if (what != "pld.comm_domain" && what != "pl.runtime_scope") {
    return ErrorAt(item, "unsupported with-statement context: only pld.comm_domain(...) and "
                         "pl.runtime_scope(...) are supported");
  }
  std::string name;
  if (NumPos(item) > 1) RETURN_IF_ERROR(CheckPosCount(item, 0, 1, what));
  if (NumPos(item) == 1) {
    const Ast* n = PosArg(item, 0);
    if (!IsConstAst(n)) return ErrorAt(n, pto::StrCat(what, " takes a name string first"));
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(n));
    if (v.kind != ConstVal::kStr) return ErrorAt(n, pto::StrCat(what, " takes a name string first"));
    name = std::move(v.s);
  }
  std::vector<int64_t> devices;
  std::vector<std::pair<std::string, Span>> slot_names;
  bool manual = false;
  ir::AttrList attrs;
  bool comm = what == "pld.comm_domain";
  for (uint32_t i = 0; i < item->num_kws; ++i) {
    const KwName& k = KwAt(item, i);
    const Ast* v = KwValue(item, i);
    if (k.name == "attrs") {
      ASSIGN_OR_RETURN(attrs, ConvertAttrDict(v, /*call_attrs=*/false));
    } else if (comm && (k.name == "devices" || k.name == "slots")) {
      if (v->kind != AstKind::kList && v->kind != AstKind::kTuple) {
        return ErrorAt(v, pto::StrCat(k.name, " must be a list"));
      }
      for (uint32_t j = 0; j < v->num_kids; ++j) {
        const Ast* e = Kid(v, j);
        if (!IsConstAst(e)) return ErrorAt(e, pto::StrCat(k.name, " must hold constants"));
        ASSIGN_OR_RETURN(ConstVal c, ConstEval(e));
        if (k.name == "devices") {
          if (c.kind != ConstVal::kInt) return ErrorAt(e, "devices must be integers");
          devices.push_back(c.i);
        } else {
          if (c.kind != ConstVal::kStr) return ErrorAt(e, "slots must be buffer name strings");
          slot_names.emplace_back(std::move(c.s), SpanOf(e));
        }
      }
    } else if (!comm && k.name == "manual") {
      if (!IsConstAst(v)) return ErrorAt(v, "manual must be True or False");
      ASSIGN_OR_RETURN(ConstVal c, ConstEval(v));
      if (c.kind != ConstVal::kBool) return ErrorAt(v, "manual must be True or False");
      manual = c.i != 0;
    } else {
      return UserError(KwSpan(k), pto::StrCat("unknown keyword argument '", k.name, "' for ",
                                              what));
    }
  }
  Release(mark);
  Span header = SpanFrom(start);
  // `with` bodies do not open a scope: their definitions stay visible.
  std::vector<StmtPtr> body;
  RETURN_IF_ERROR(ParseBlock(start, "with", &body, yield));
  auto body_stmt = std::make_shared<ir::SeqStmts>(std::move(body), header);
  if (!comm) {
    out->push_back(std::make_shared<ir::RuntimeScopeStmt>(std::move(name), manual,
                                                          std::move(body_stmt), std::move(attrs),
                                                          header));
    return absl::OkStatus();
  }
  std::vector<ir::WindowBufferPtr> slots;
  slots.reserve(slot_names.size());
  for (const auto& [slot, span] : slot_names) {
    WinAlloc* w = nullptr;
    if (cur_func_ != nullptr) {
      auto it = cur_func_->windows.find(slot);
      if (it != cur_func_->windows.end()) w = &it->second;
    }
    if (w == nullptr) {
      return UserError(span, pto::StrCat("comm_domain slot '", slot,
                                         "' names no window allocation in this function "
                                         "(expected `",
                                         slot, " = pld.tensor.alloc_window_buffer(size)`)"));
    }
    if (w->wb == nullptr) {
      w->wb = std::make_shared<const ir::WindowBuffer>(w->base, w->size, false, false, w->span);
    }
    slots.push_back(w->wb);
  }
  out->push_back(std::make_shared<ir::CommDomainScopeStmt>(
      std::move(name), std::move(devices), std::move(slots), std::move(body_stmt),
      std::move(attrs), header));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> ParseProgram(std::shared_ptr<const SourceFile> file,
                                            const ParseOptions& options) {
  if (file == nullptr) return absl::InvalidArgumentError("ParseProgram: null source file");
  ASSIGN_OR_RETURN(std::unique_ptr<TokenStream> tokens, Tokenize(file));
  const ops::OpRegistry& registry =
      options.registry != nullptr ? *options.registry : ops::OpRegistry::Global();
  Parser parser(*tokens, registry, options.allow_internal_ops);
  return parser.Run();
}

absl::StatusOr<ir::ProgramPtr> ParseProgramText(std::string path, std::string text,
                                                const ParseOptions& options) {
  return ParseProgram(std::make_shared<const SourceFile>(std::move(path), std::move(text)),
                      options);
}

}  // namespace pto::parser
