// Private interface of the front end (compiler/parser), shared by its files
// the way mlir/lib/AsmParser shares Parser.h between Parser.cpp, TypeParser.cpp
// and AttributeParser.cpp:
//   syntax.cc     reads Python syntax (expressions and statements) into syntax
//                 trees (Ast) held in pools;
//   constants.cc  name resolution and compile-time constant evaluation;
//   types.cc      type annotations;
//   exprs.cc      expressions;
//   calls.cc      calls: helpers, `self.f(...)` and operator calls (LowerOpCall);
//   subscripts.cc tensor and tile subscripts, read and written;
//   stmts.cc      simple statements, blocks and if;
//   loops.cc      for / while loops, break and continue;
//   scopes.cc     with-scopes;
//   module.cc     module, @pl.program class and function headers, and the
//                 public entry points of parser.h.
// A function body is read one top-level statement at a time: the statement's
// whole syntax tree (with nested blocks) is read, then lowered to IR with name
// resolution, constant folding, type checks and operator calls through the
// registry, and then the pools are rewound, so parsing allocates almost
// nothing per token. A program class is read twice: first every function
// header (so `self.f(...)` may call a function defined later), then every body.
//
// Window buffers: `with pld.comm_domain(..., slots=["buf"])` comes before the
// `buf = pld.tensor.alloc_window_buffer(size)` that defines the allocation,
// and WindowBuffer nodes are immutable. The IR is built bottom-up, so the
// scope statement is only constructed after its body has been lowered; each
// allocation statement records (base var, size) under its name, and the
// WindowBuffer object is created on first use (a `pld.WindowBuffer("buf")`
// type or the scope's slot list) and then shared by every later use in the
// function. Nothing needs to be rebuilt. A `pld.WindowBuffer("buf")` that comes
// before the allocation in the text is an error.
#ifndef PTO_COMPILER_PARSER_PARSER_IMPL_H_
#define PTO_COMPILER_PARSER_PARSER_IMPL_H_

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/function.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/enum_spellings.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/lexer.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::parser::internal {

using ir::DataType;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

// Names are short identifiers looked up on every use: eight bytes at a time
// and a 64-bit finaliser (absl::Hash's general string hash was 3% of parsing,
// docs/performance.md). Every bit is mixed, as flat_hash_map needs.
struct SvHash {
  size_t operator()(std::string_view s) const {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    }
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return static_cast<size_t>(h);
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
  kSlice,  // lower:upper:step in a subscript; kids 0-2, a kNone node where left out
  // Statements (never kids of expressions). A compound statement's span is its
  // header: from the keyword to the end of its condition, iterable or item.
  kBlock,       // kids: the statements
  kExprStmt,    // kid 0
  kAssign,      // kid 0 = kid 1 (augmented assignments become kid 0 = kid 0 op rhs)
  kAnnAssign,   // kid 0 : kid 1 = kid 2
  kReturn,      // no kid, or kid 0 (a kTuple for several values)
  kPass,
  kBreak,
  kContinue,
  kIf,     // if kid 0: kid 1 (block) [else: kid 2 (block, or a kIf for elif)]
  kFor,    // for kid 0 in kid 1: kid 2 (block)
  kWhile,  // while kid 0: kid 1 (block)
  kWith,   // with kid 0: kid 1 (block) [as kid 2 (a kName)]
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

std::string_view AstOpText(AstOp op);

inline bool IsCompareOp(AstOp op) { return op >= AstOp::kEq && op <= AstOp::kGe; }

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
    if (next_ == end_) Position();
    ++used_;
    Ast* a = next_++;
    *a = Ast();
    return a;
  }
  size_t size() const { return used_; }
  void Truncate(size_t n) {
    used_ = n;
    next_ = end_ = nullptr;  // the next New finds its chunk
  }

 private:
  static constexpr size_t kChunk = 1024;
  // Points next_/end_ into the chunk of node number used_, adding it if new.
  void Position() {
    size_t c = used_ / kChunk;
    if (c == chunks_.size()) chunks_.push_back(std::make_unique<Ast[]>(kChunk));
    next_ = chunks_[c].get() + used_ % kChunk;
    end_ = chunks_[c].get() + kChunk;
  }
  std::vector<std::unique_ptr<Ast[]>> chunks_;
  size_t used_ = 0;
  Ast* next_ = nullptr;
  Ast* end_ = nullptr;
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
  enum Kind : uint8_t { kInt, kFloat, kBool, kStr, kDType, kList, kDynDim };
  Kind kind = kInt;
  bool is_tuple = false;
  int64_t i = 0;
  double f = 0;
  DataType dtype = DataType::kIndex;
  std::string s;
  std::vector<ConstVal> list;
  ExprPtr dyn;  // kDynDim: the module's one ir::DynDim of this name

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
      case kDType:
      case kDynDim: return true;
    }
    return true;
  }
};

std::string_view ConstKindName(const ConstVal& v);

// A declared allocation, PyPTO's `X = pl.MemRef(slots=N)` (types.cc).
struct MemRefDecl {
  std::string name;  // the allocation's name: the explicit one, else the variable's
  int64_t slots = 1;
};

inline std::string TypeText(const TypePtr& t) { return ir::PrintType(t); }

inline bool StartsWith(std::string_view s, std::string_view prefix) {
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
  // No `-> T`: the results are those of the first `return` with values, as in
  // PyPTO's _derive_return_types_from_body. A call needs them, so a caller
  // lowers such a callee's body first (LowerBodyFirst).
  bool derive_results = false;
  bool body_done = false;    // the body has been lowered
  bool body_active = false;  // the body is being lowered
  Span first_return;         // derive_results: the return that fixed them
  bool bare_return = false;  // derive_results: a `return` without values came first
  absl::flat_hash_map<MemRefKey, std::shared_ptr<const ir::MemRef>> memrefs;
  SvMap<WinAlloc> windows;
  // Bare `pl.Tensor` parameters of a @pl.jit function without a binding: the
  // first call types them (params[index] is nullptr until then).
  struct PendingParam {
    size_t index;
    std::string name;
    Span span;
    absl::Status error;  // reported when nothing calls the function
  };
  std::vector<PendingParam> pending_params;
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
  void set_jit_bindings(const JitBindings* b) { jit_bindings_ = b; }
  void set_warnings(std::vector<absl::Status>* w) { warnings_ = w; }
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
    // Element by element: the ranges are a few kids, and vector::insert's
    // out-of-line range insert cost more than the copy.
    for (size_t i = base; i < scratch_.size(); ++i) kids_.push_back(scratch_[i]);
    scratch_.resize(base);
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
  absl::StatusOr<Ast*> ParseParenthesized(const Token& t);
  absl::StatusOr<Ast*> ParseDict(const Token& t);
  absl::StatusOr<Ast*> ParseAtom();
  absl::StatusOr<Ast*> ParseCallTrailer(Ast* callee);
  absl::StatusOr<Ast*> ParseSubscriptTrailer(Ast* value);
  absl::StatusOr<Ast*> ParseSubscriptItem();
  absl::StatusOr<Ast*> ParseTargetList(Op closer);
  absl::StatusOr<Ast*> ParseTarget();
  absl::Status UnsupportedKeyword(const Token& t) const;

  // ----- names -----
  const VarPtr* LookupLocal(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second.var;
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
  // `assigned`: bound by an assignment, so the name outlives its block
  // (PopScope).
  void Define(std::string_view name, VarPtr var, bool assigned = false) {
    // Often empty (no block has ended yet, no stale name): skip the hash then.
    if (!stale_.empty()) stale_.erase(name);
    if (!dead_.empty()) dead_.erase(name);
    Binding& slot = names_[name];
    undo_.push_back({name, std::move(slot)});
    slot = Binding{std::move(var), static_cast<uint32_t>(frames_.size()), assigned};
  }
  // The Var an assignment `name = <value of type>` targets: the Var the name
  // is bound to when that was bound in an enclosing block (a non-SSA
  // reassignment, converted by ConvertToSSA; docs/language.md), else a new Var
  // that the caller Defines.
  VarPtr AssignTarget(std::string_view name, const TypePtr& type, const Span& span,
                      bool* reassigned);
  void PushScope(const char* kind) { frames_.push_back({undo_.size(), kind}); }
  // A name first bound by an assignment inside a block stays bound after it,
  // as in Python (ConvertToSSA carries it out: docs/passes/ConvertToSSA.md).
  struct Escaped {
    std::string_view name;
    VarPtr var;
  };
  // Ends the innermost block. Without `escaped`, its names end with it;
  // with it, the names first bound there by an assignment are returned for
  // the caller to bind after the block (BindEscaped).
  void PopScope(std::vector<Escaped>* escaped = nullptr);
  void BindEscaped(const std::vector<Escaped>& escaped) {
    for (const Escaped& e : escaped) Define(e.name, e.var, /*assigned=*/true);
  }
  void ResetScopes() {
    names_.clear();
    undo_.clear();
    frames_.clear();
    dead_.clear();
    stale_.clear();
    pending_.clear();
  }
  absl::Status UnknownName(std::string_view name, const Span& span) const;
  absl::Status StaleName(std::string_view name, const Span& span) const;

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
  absl::StatusOr<ExprPtr> LowerFunctionCall(const Ast* a, std::string_view fname,
                                            uint32_t first_arg = 0);
  absl::StatusOr<ExprPtr> LowerSubmit(const Ast* a);
  // `deps=[...]` of pl.submit / pl.system.task_dummy: task-id Vars (None
  // entries dropped), checked by ops::CheckTaskDeps.
  absl::StatusOr<std::vector<ExprPtr>> LowerTaskDeps(const Ast* list, std::string_view what);
  absl::StatusOr<ExprPtr> LowerSubscript(const Ast* a);
  // The full-rank window of a subscript (subscripts.cc).
  struct Window {
    std::vector<ExprPtr> offsets, extents;
    std::vector<bool> dropped;  // an index, not a slice, on this dimension
    size_t num_indices = 0;
    size_t num_slices = 0;  // slices other than a whole `:`
  };
  absl::StatusOr<Window> LowerWindow(const Ast* idx, const std::vector<ExprPtr>& dims);
  absl::StatusOr<ExprPtr> LowerTensorSubscript(const Ast* a, ExprPtr base, const Ast* idx);
  absl::Status LowerSubscriptAssign(const Ast* stmt, const Ast* target, const Ast* value,
                                    std::vector<StmtPtr>* out);
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
  std::optional<ir::ArgDirection> ArgDirectionOf(const Ast* e);
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
  absl::Status CheckOptimizations(const Ast* v, std::string_view what);
  absl::StatusOr<ExprPtr> LowerSetValidShape(const Ast* a, std::string_view path);
  absl::StatusOr<ExprPtr> LowerScatterUpdate(const Ast* a, std::string_view path);
  absl::Status CheckBindDynamic(const Ast* call);
  absl::Status BareTensorError(const Ast* ann, std::string_view function, std::string_view param);
  // Types `callee`'s parameters bound at the call from `args` (lowered
  // arguments of the call `a`).
  absl::Status BindParamsAtCall(FuncState* callee, const Ast* a, uint32_t first_arg,
                                const std::vector<ExprPtr>& args);
  // A @pl.jit parameter written `pl.Tensor` / `pl.Out[pl.Tensor]` /
  // `pl.InOut[pl.Tensor]`: typed from its binding (jit_bindings.h), else a
  // located error. Returns false in *bare when `a` is another annotation.
  absl::StatusOr<ParamType> LowerBareTensorParam(const Ast* a, std::string_view function,
                                                 std::string_view param, bool* bare);
  bool TryParseSimpleType(TypePtr* out);
  bool TryParseSimpleParamType(ParamType* out);
  absl::StatusOr<TypePtr> LowerType(const Ast* a);
  absl::StatusOr<TypePtr> LowerShapedType(const Ast* a, int which);
  // PyPTO's declared allocations (pl.MemRef(), pl.MemRef("n", slots=N), a
  // declared name, `decl[k]`) in a type.
  bool IsMemRefDeclCall(const Ast* a);
  absl::StatusOr<MemRefDecl> MemRefDeclOf(const Ast* call, std::string_view var);
  absl::Status DefineMemRefDecl(const Token& name, const Ast* call);
  absl::StatusOr<bool> DeclaredMemRefItem(const Ast* e);
  absl::StatusOr<std::vector<ExprPtr>> LowerShape(const Ast* a, std::string_view what);
  absl::StatusOr<ExprPtr> LowerDim(const Ast* a);
  absl::StatusOr<DataType> LowerDType(const Ast* a, std::string_view what);
  absl::StatusOr<ir::TensorView> LowerTensorView(const Ast* call);
  absl::Status CheckAnnotation(const TypePtr& ann, const TypePtr& value, const Ast* ann_ast);
  // `v` retyped to `ann` when it is the printed form of a load flattened by
  // FlattenTileNdTo2D (13), else `v`.
  static ExprPtr AsFlattenedLoad(const TypePtr& ann, const ExprPtr& v);
  static ExprPtr AsAnnotatedUnknown(const TypePtr& ann, const ExprPtr& v);

  // ----- module, class, functions -----
  absl::Status ParseModule();
  absl::Status SkipImport();
  absl::Status ParseConstantDef(SvMap<ConstVal>* table);
  absl::Status DefineDynDim(const Token& name, const Ast* call, SvMap<ConstVal>* table);
  absl::StatusOr<std::string> DynDimName(const Ast* call);
  absl::StatusOr<ExprPtr> InlineDynDim(const Ast* call);
  absl::Status ParseProgramClass(const Ast* decorator, const Token& at_tok);
  // What a function's decorator says.
  struct FuncDecor {
    ir::FunctionType func_type = ir::FunctionType::kOpaque;
    std::optional<ir::Level> level;
    std::optional<ir::Role> role;
    ir::AttrList attrs;
    bool runtime_binding = false;
    bool method = true;  // @pl.function in a class (first param self)
  };
  absl::Status ParseFunctionDecorator(const Ast* decorator, FuncDecor* d);
  absl::Status ParseJitDecorator(const Ast* decorator, std::string_view path, FuncDecor* d);
  absl::Status ParseFunctionHeader(FuncDecor decor);
  absl::Status ParseFunctionBodies();
  absl::Status ParseReturnAnnotation(FuncState* fs);
  absl::Status SkipBlock(const Token& header);
  absl::Status ParseFunctionBody(FuncState* f);
  absl::Status LowerBodyFirst(FuncState* callee, const Ast* call);
  void SetCallType(FuncState* fs);
  absl::StatusOr<Ast*> ParseDecorator(const Token** at_tok);
  std::vector<std::string> LeadingComments(int line) const;

  // ----- statement syntax (syntax.cc) -----
  // Each pushes the statements it reads onto scratch_.
  absl::Status ReadLine();
  absl::Status ReadSimpleLine();
  absl::Status ReadSmallStatement();
  absl::StatusOr<Ast*> ReadBlock(const Token& header, std::string_view what);
  absl::StatusOr<Ast*> ReadIf();
  absl::StatusOr<Ast*> ReadFor();
  absl::StatusOr<Ast*> ReadWhile();
  absl::StatusOr<Ast*> ReadWith();
  Ast* NewStmt(AstKind kind, const Token& start) { return NewAst(kind, start); }
  // Like Seal for a statement: no height limit, and the span ends at `end`.
  void SealStmt(Ast* a, size_t base, const Token& end);

  // ----- statements (stmts.cc, loops.cc, scopes.cc) -----
  // One statement of a block: checks that nothing follows a pl.yield_ and that
  // a pl.while_ body starts with pl.cond(...).
  absl::Status LowerBlockStmt(const Ast* s, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerBlock(const Ast* block, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerStmt(const Ast* s, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerCond(const Ast* s);
  absl::Status LowerAssign(const Ast* stmt, const Ast* target, const Ast* ann, const Ast* value,
                           std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerYield(const Ast* stmt, const Ast* target, const Ast* ann, const Ast* call,
                          std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerExprStatement(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* yield);
  absl::Status LowerReturn(const Ast* stmt, std::vector<StmtPtr>* out);
  absl::Status DeriveResults(const std::vector<ExprPtr>& values, const Span& span);
  absl::Status LowerIf(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* result_names);
  absl::Status LowerFor(const Ast* stmt, std::vector<StmtPtr>* out);
  absl::Status LowerRangeFor(const Ast* stmt, ir::ForKind kind, std::vector<StmtPtr>* out);
  absl::Status LowerLoopKeywords(const Ast* iter, ir::ForKind kind, std::string_view what,
                                 const Ast** init_ast, ir::AttrList* attrs);
  absl::Status LowerWhileFor(const Ast* stmt, std::vector<StmtPtr>* out);
  void DefineIterArgs(const std::vector<const Ast*>& carried, const std::vector<ExprPtr>& inits,
                      std::vector<ir::IterArgPtr>* iter_args, std::vector<TypePtr>* types);
  absl::Status LowerWhile(const Ast* stmt, std::vector<StmtPtr>* out);
  absl::Status LowerWith(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* yield);
  // `with pl.at / pl.spmd / pl.cluster(...)`; with spmd_loop_var, the for
  // form `for i in pl.spmd(...)` (stmt is the kFor).
  absl::Status LowerExecScope(const Ast* stmt, std::string_view what, std::vector<StmtPtr>* out,
                              YieldInfo* yield, const Ast* spmd_loop_var = nullptr);
  absl::Status LowerScopeAlias(const Ast* stmt, std::string_view what, std::vector<StmtPtr>* out,
                               YieldInfo* yield);
  // `for aiv_id in pl.split_aiv(2, mode=...)` (loop_var set, stmt the kFor)
  // and its printed form `with pl.split_aiv(2, mode=...)`.
  absl::Status LowerSplitAiv(const Ast* stmt, std::vector<StmtPtr>* out, YieldInfo* yield,
                             const Ast* loop_var);
  absl::StatusOr<std::vector<ExprPtr>> LowerInitValues(const Ast* a);
  absl::StatusOr<std::vector<VarPtr>> MakeResultVars(const YieldInfo& y,
                                                     const std::vector<TypePtr>& types);
  absl::Status CheckLoopYield(const YieldInfo& y, size_t num_iter_args, const Ast* stmt,
                              std::string_view what);
  bool IsPathCall(const Ast* a, std::string_view path);

  const TokenStream& ts_;
  const std::vector<Token>& toks_;
  SourceFilePtr file_;
  const ops::OpRegistry& registry_;
  const bool allow_internal_ops_;
  const JitBindings* jit_bindings_ = nullptr;
  std::vector<absl::Status>* warnings_ = nullptr;
  size_t pos_ = 0;
  int depth_ = 0;

  AstPool asts_;
  std::vector<Ast*> kids_;
  std::deque<KwName> kws_;  // a deque: KwAt references survive a callee's body (LowerBodyFirst)
  std::vector<Ast*> scratch_;
  std::vector<KwName> kw_scratch_;
  std::deque<std::string> strings_;  // concatenated string literals
  std::string path_;

  SvMap<ConstVal> module_consts_;
  absl::flat_hash_map<std::string, ExprPtr> inline_dyn_dims_;  // pl.dynamic("N") in a shape
  SvMap<ConstVal> class_consts_;
  bool in_class_ = false;
  // `X = pl.MemRef(slots=N)` at module or class level: PyPTO's declared
  // allocations, by variable (types.cc).
  SvMap<MemRefDecl> memref_decls_;
  absl::flat_hash_set<std::string> warned_memref_decls_;

  // Local names with IR scoping: an undo log restores the outer bindings when
  // a loop or branch body ends.
  struct Binding {
    VarPtr var;
    uint32_t frame = 0;     // frames_.size() when bound
    bool assigned = false;  // by an assignment (it outlives its block)
  };
  struct Undo {
    std::string_view name;
    Binding prev;
  };
  struct Frame {
    size_t undo_mark;
    const char* kind;
  };
  struct DeadName {
    const char* kind;
    int line;
  };
  SvMap<Binding> names_;
  std::vector<Undo> undo_;
  std::vector<Frame> frames_;
  SvMap<DeadName> dead_;
  // Names bound to a new Var inside a block that ended although the name had
  // a value before it (a loop-carried iter arg, or a value of another type):
  // the outer value they see again is not the one Python would give them
  // (see PopScope).
  SvMap<DeadName> stale_;
  // While an else branch is lowered: the names its then branch bound by an
  // assignment (innermost if last). Assigning one there targets the same Var,
  // so the name has one Var after the if.
  std::vector<std::vector<Escaped>> pending_;

  std::vector<std::unique_ptr<FuncState>> funcs_;
  SvMap<FuncState*> funcs_by_name_;
  FuncState* cur_func_ = nullptr;
  bool expect_cond_ = false;  // the next statement must be pl.cond(...)
  int loop_depth_ = 0;        // loops around the statement being lowered (break/continue)
  ExprPtr cond_result_;

  std::string program_name_;
  Span program_span_;
  bool have_program_ = false;
  bool jit_form_ = false;  // module-level @pl.jit functions instead of a class
  // Module-level @pl.function kernels of a class-form program, called by name.
  absl::flat_hash_set<std::string_view> module_funcs_;
  // The mode of the pl.split_aiv region being lowered (regions do not nest):
  // pl.aiv_shard / pl.aic_gather inherit it as their split attr.
  std::optional<int64_t> split_aiv_mode_;
  int jit_entry_rank_ = 0;
};

// The dtype of a scalar operation (exprs.cc).
DataType PromoteDType(DataType l, DataType r, bool l_lit, bool r_lit);

}  // namespace pto::parser::internal

#endif  // PTO_COMPILER_PARSER_PARSER_IMPL_H_
