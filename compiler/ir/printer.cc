#include "compiler/ir/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/support/strings.h"

namespace pto::ir {
namespace {

bool IsKeyword(std::string_view s) {
  // Python's reserved words and the names the language reserves, grouped by
  // length: this runs for every printed variable, and comparing with the few
  // words of the same length is much cheaper than hashing.
  static constexpr std::string_view kReserved[][10] = {
      /*2*/ {"as", "if", "in", "is", "or", "pl"},
      /*3*/ {"and", "def", "del", "for", "not", "try", "pld"},
      /*4*/ {"None", "True", "elif", "else", "from", "pass", "with", "self"},
      /*5*/ {"False", "async", "await", "break", "class", "raise", "while", "yield", "tuple",
             "Tuple"},
      /*6*/ {"assert", "except", "global", "import", "lambda", "return"},
      /*7*/ {"finally"},
      /*8*/ {"continue", "nonlocal"},
  };
  if (s.size() < 2 || s.size() > 8) return false;
  for (std::string_view r : kReserved[s.size() - 2]) {
    if (r.empty()) break;
    if (r[0] == s[0] && r == s) return true;
  }
  return false;
}

// A valid, non-reserved identifier derived from a name hint.
std::string SanitizeName(std::string_view hint) {
  std::string s;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_';
    s += ok ? c : '_';
  }
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s = "v" + s;
  if (IsKeyword(s)) s += "_";
  return s;
}

// A hint that prints as itself: a valid identifier that is not reserved.
bool IsPlainName(std::string_view hint) {
  if (hint.empty() || (hint[0] >= '0' && hint[0] <= '9')) return false;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_';
    if (!ok) return false;
  }
  return !IsKeyword(hint);
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

// Fewest digits that read back to the same double; always has '.' or 'e'.
std::string FormatFloat(double v) {
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";
  if (std::isnan(v)) return "float(\"nan\")";
  char buf[64];
  // The shortest round-trip form has the fewest significant digits any
  // round-tripping %g can have, so the search starts there.
  auto [sci_end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  int shortest = 0;
  for (const char* p = buf; ec == std::errc() && p < sci_end && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9') ++shortest;
  }
  for (int prec = std::max(shortest, 1); prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Python operator precedence (higher binds tighter).
enum Prec : int {
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,
  kPrecCompare = 4,
  kPrecBitOr = 5,
  kPrecBitXor = 6,
  kPrecBitAnd = 7,
  kPrecShift = 8,
  kPrecAdd = 9,
  kPrecMul = 10,
  kPrecUnary = 11,
  kPrecPow = 12,
  kPrecAtom = 13,
};

struct BinaryInfo {
  const char* text;  // infix operator, or a function name when prec == kPrecAtom
  int prec;
};

BinaryInfo InfoOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return {"+", kPrecAdd};
    case BinaryOp::kSub: return {"-", kPrecAdd};
    case BinaryOp::kMul: return {"*", kPrecMul};
    case BinaryOp::kFloorDiv: return {"//", kPrecMul};
    case BinaryOp::kFloorMod: return {"%", kPrecMul};
    case BinaryOp::kDiv: return {"/", kPrecMul};
    case BinaryOp::kPow: return {"**", kPrecPow};
    case BinaryOp::kMin: return {"pl.min", kPrecAtom};
    case BinaryOp::kMax: return {"pl.max", kPrecAtom};
    case BinaryOp::kEq: return {"==", kPrecCompare};
    case BinaryOp::kNe: return {"!=", kPrecCompare};
    case BinaryOp::kLt: return {"<", kPrecCompare};
    case BinaryOp::kLe: return {"<=", kPrecCompare};
    case BinaryOp::kGt: return {">", kPrecCompare};
    case BinaryOp::kGe: return {">=", kPrecCompare};
    case BinaryOp::kAnd: return {"and", kPrecAnd};
    case BinaryOp::kOr: return {"or", kPrecOr};
    case BinaryOp::kBitAnd: return {"&", kPrecBitAnd};
    case BinaryOp::kBitOr: return {"|", kPrecBitOr};
    case BinaryOp::kBitXor: return {"^", kPrecBitXor};
    case BinaryOp::kShl: return {"<<", kPrecShift};
    case BinaryOp::kShr: return {">>", kPrecShift};
  }
  return {"?", kPrecAtom};
}

int PrecOf(const ExprPtr& e) {
  if (auto b = As<BinaryExpr>(e)) return InfoOf(b->op()).prec;
  if (auto u = As<UnaryExpr>(e)) {
    if (u->op() == UnaryOp::kNot) return kPrecNot;
    if (u->op() == UnaryOp::kAbs) return kPrecAtom;
    return kPrecUnary;
  }
  // A negative literal prints with a leading '-', like a unary minus.
  if (auto c = As<ConstInt>(e)) {
    if (c->value() < 0 && c->dtype() == DataType::kIndex) return kPrecUnary;
  }
  if (auto c = As<ConstFloat>(e)) {
    if (std::signbit(c->value()) && c->dtype() == DataType::kFP32) return kPrecUnary;
  }
  return kPrecAtom;
}

// Chooses the printed name of every variable of one function so that the text
// re-parses to the same bindings: a value reuses its hint unless an earlier
// value printed under that name is still used while the new one is visible.
// Statement indices are assigned in print order by Walk(), which the printer
// mirrors exactly.
class NameAssigner {
 public:
  const absl::flat_hash_map<const Var*, std::string>& names() const { return names_; }

  void Run(const FunctionPtr& f) {
    // Fast path: when no two values of the function would print under one name,
    // every value simply prints under its hint.
    if (!HasSharedNames(f)) return;
    // Pass 1: record use positions and block ends.
    counter_ = 0;
    collecting_ = true;
    for (const VarPtr& p : f->params()) all_hints_.insert(p->name_hint());
    WalkBlock(f->body(), nullptr);
    // Pass 2: assign names with the same indexing.
    counter_ = 0;
    collecting_ = false;
    scopes_.clear();
    scopes_.emplace_back();
    int end = counter_limit_;
    for (const VarPtr& p : f->params()) Define(p, 0, end);
    WalkBlock(f->body(), nullptr);
  }

 private:
  using Scope = absl::flat_hash_map<std::string, const Var*>;

  // Walks only the definitions; records names for hints that are not plain.
  bool HasSharedNames(const FunctionPtr& f) {
    absl::flat_hash_map<std::string_view, const Var*> owner;
    std::vector<std::string> sanitized;  // storage for keys of non-plain hints
    sanitized.reserve(8);
    bool shared = false;
    auto def = [&](const Var* v) {
      std::string_view key = v->name_hint();
      if (!IsPlainName(key)) {
        if (!names_.contains(v)) names_[v] = SanitizeName(key);
        key = names_[v];
      }
      auto [it, inserted] = owner.emplace(key, v);
      if (!inserted && it->second != v) shared = true;
    };
    for (const VarPtr& p : f->params()) def(p.get());
    DefsIn(f->body(), def);
    if (shared) names_.clear();
    return shared;
  }

  template <typename F>
  static void DefsIn(const StmtPtr& s, F& def) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case NodeKind::kSeqStmts:
        for (const StmtPtr& c : static_cast<const SeqStmts&>(*s).stmts()) DefsIn(c, def);
        return;
      case NodeKind::kAssignStmt:
        def(static_cast<const AssignStmt&>(*s).var().get());
        return;
      case NodeKind::kIfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        DefsIn(i.then_body(), def);
        if (i.else_body()) DefsIn(*i.else_body(), def);
        for (const VarPtr& v : i.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        def(f.loop_var().get());
        for (const IterArgPtr& ia : f.iter_args()) def(ia.get());
        DefsIn(f.body(), def);
        for (const VarPtr& v : f.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kWhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        for (const IterArgPtr& ia : w.iter_args()) def(ia.get());
        DefsIn(w.body(), def);
        for (const VarPtr& v : w.return_vars()) def(v.get());
        return;
      }
      case NodeKind::kCommDomainScopeStmt:
      case NodeKind::kRuntimeScopeStmt:
      case NodeKind::kExecScopeStmt:
        DefsIn(static_cast<const ScopeStmt&>(*s).body(), def);
        return;
      default:
        return;
    }
  }

  void WalkBlock(const StmtPtr& body, const Stmt* /*owner*/) {
    WalkStmt(body);
    if (collecting_) counter_limit_ = std::max(counter_limit_, counter_);
  }

  int Next() { return ++counter_; }

  void UseExpr(const ExprPtr& e, int at) {
    if (e == nullptr) return;
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
      case NodeKind::kMemRef: {
        const Var* v = static_cast<const Var*>(e.get());
        if (collecting_) uses_[v].push_back(at);
        return;
      }
      case NodeKind::kWindowBuffer: {
        auto wb = As<WindowBuffer>(e);
        if (wb->base() != nullptr) UseExpr(wb->base(), at);
        return;
      }
      case NodeKind::kBinaryExpr: {
        auto b = As<BinaryExpr>(e);
        UseExpr(b->lhs(), at);
        UseExpr(b->rhs(), at);
        return;
      }
      case NodeKind::kUnaryExpr:
        UseExpr(As<UnaryExpr>(e)->operand(), at);
        return;
      case NodeKind::kCall: {
        auto c = As<Call>(e);
        for (const ExprPtr& a : c->args()) UseExpr(a, at);
        for (const auto& [k, v] : c->kwargs()) UseAttr(v, at);
        for (const auto& [k, v] : c->attrs()) UseAttr(v, at);
        return;
      }
      case NodeKind::kMakeTuple:
        for (const ExprPtr& x : As<MakeTuple>(e)->elements()) UseExpr(x, at);
        return;
      case NodeKind::kTupleGetItem:
        UseExpr(As<TupleGetItem>(e)->tuple(), at);
        return;
      case NodeKind::kCast:
        UseExpr(As<Cast>(e)->value(), at);
        return;
      default:
        return;
    }
  }

  void UseAttr(const AttrValue& v, int at) {
    if (auto* e = std::get_if<ExprPtr>(&v)) UseExpr(*e, at);
    if (auto* l = std::get_if<std::vector<ExprPtr>>(&v)) {
      for (const ExprPtr& e : *l) UseExpr(e, at);
    }
  }

  void UseType(const TypePtr& t, int at) {
    auto s = As<ShapedType>(t);
    if (s != nullptr) {
      for (const ExprPtr& d : s->shape()) UseExpr(d, at);
      if (auto tt = AsTensorTypeLike(t)) {
        if (tt->tensor_view()) {
          for (const ExprPtr& d : tt->tensor_view()->stride) UseExpr(d, at);
          for (const ExprPtr& d : tt->tensor_view()->valid_shape) UseExpr(d, at);
        }
      }
      if (auto tile = As<TileType>(t)) {
        for (const ExprPtr& d : tile->valid_shape()) UseExpr(d, at);
      }
      if (auto dt = As<DistributedTensorType>(t)) {
        if (dt->window_buffer() && *dt->window_buffer()) UseExpr(*dt->window_buffer(), at);
      }
      if (s->memref() && *s->memref()) UseExpr((*s->memref())->addr(), at);
    }
    if (auto tup = As<TupleType>(t)) {
      for (const TypePtr& x : tup->types()) UseType(x, at);
    }
  }

  // Defines `v` at index `at`, visible until `end` (the end of its block).
  void Define(const VarPtr& v, int at, int end) {
    if (collecting_) {
      all_hints_.insert(v->name_hint());
      return;
    }
    if (names_.contains(v.get())) {
      scopes_.back()[names_[v.get()]] = v.get();
      return;
    }
    std::string name = SanitizeName(v->name_hint());
    bool must_rename = false;
    if (const Var* u = Lookup(name); u != nullptr && u != v.get()) {
      must_rename = UsedIn(u, at, end);
    }
    // Window allocations are referred to by name: keep them distinct.
    if (Is<PtrType>(v->type()) && used_names_.contains(name)) must_rename = true;
    if (must_rename) name = FreshName(name);
    names_[v.get()] = name;
    used_names_.insert(name);
    scopes_.back()[name] = v.get();
  }

  const Var* Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }

  bool UsedIn(const Var* u, int after, int until) const {
    auto it = uses_.find(u);
    if (it == uses_.end()) return false;
    const std::vector<int>& pos = it->second;  // ascending: recorded in order
    auto lb = std::upper_bound(pos.begin(), pos.end(), after);
    return lb != pos.end() && *lb <= until;
  }

  std::string FreshName(const std::string& base) {
    for (int i = 1;; ++i) {
      std::string candidate = pto::StrCat(base, "_", i);
      if (!all_hints_.contains(candidate) && !used_names_.contains(candidate)) return candidate;
    }
  }

  int BlockEnd(const StmtPtr& body) const {
    auto it = block_end_.find(body.get());
    return it == block_end_.end() ? counter_limit_ : it->second;
  }

  // The end of the innermost enclosing block (for definitions in it).
  int CurrentEnd() const { return block_stack_.empty() ? counter_limit_ : block_stack_.back(); }

  void WalkStmt(const StmtPtr& s) {
    if (s == nullptr) return;
    if (auto seq = As<SeqStmts>(s)) {
      for (const StmtPtr& c : seq->stmts()) WalkStmt(c);
      return;
    }
    int at = Next();
    switch (s->kind()) {
      case NodeKind::kAssignStmt: {
        auto a = As<AssignStmt>(s);
        UseExpr(a->value(), at);
        UseType(a->var()->type(), at);
        Define(a->var(), at, CurrentEnd());
        return;
      }
      case NodeKind::kEvalStmt:
        UseExpr(As<EvalStmt>(s)->expr(), at);
        return;
      case NodeKind::kReturnStmt:
        for (const ExprPtr& e : As<ReturnStmt>(s)->value()) UseExpr(e, at);
        return;
      case NodeKind::kYieldStmt: {
        for (const ExprPtr& e : As<YieldStmt>(s)->value()) UseExpr(e, at);
        if (!yield_targets_.empty() && yield_targets_.back() != nullptr) {
          // Results become visible after the owning statement, in the outer block.
          int outer_end = block_stack_.size() >= 2 ? block_stack_[block_stack_.size() - 2]
                                                   : counter_limit_;
          for (const VarPtr& rv : *yield_targets_.back()) {
            if (collecting_) {
              Define(rv, at, outer_end);
            } else if (!names_.contains(rv.get())) {
              pending_results_.push_back({rv, at, outer_end});
            }
          }
        }
        return;
      }
      case NodeKind::kIfStmt: {
        auto i = As<IfStmt>(s);
        UseExpr(i->condition(), at);
        yield_targets_.push_back(&i->return_vars());
        EnterBlock(i->then_body());
        if (i->else_body()) EnterBlock(*i->else_body());
        yield_targets_.pop_back();
        FlushResults();
        return;
      }
      case NodeKind::kForStmt: {
        auto f = As<ForStmt>(s);
        UseExpr(f->start(), at);
        UseExpr(f->stop(), at);
        UseExpr(f->step(), at);
        for (const IterArgPtr& ia : f->iter_args()) UseExpr(ia->init_value(), at);
        for (const auto& [k, v] : f->attrs()) UseAttr(v, at);
        yield_targets_.push_back(&f->return_vars());
        EnterBlock(f->body(), [&](int end) {
          Define(f->loop_var(), at, end);
          for (const IterArgPtr& ia : f->iter_args()) Define(ia, at, end);
        });
        yield_targets_.pop_back();
        FlushResults();
        return;
      }
      case NodeKind::kWhileStmt: {
        auto w = As<WhileStmt>(s);
        for (const IterArgPtr& ia : w->iter_args()) UseExpr(ia->init_value(), at);
        yield_targets_.push_back(&w->return_vars());
        if (w->iter_args().empty()) {
          UseExpr(w->condition(), at);
          EnterBlock(w->body());
        } else {
          EnterBlock(w->body(), [&](int end) {
            for (const IterArgPtr& ia : w->iter_args()) Define(ia, at, end);
            // `pl.cond(...)` is the first line of the body.
            UseExpr(w->condition(), Next());
          });
        }
        yield_targets_.pop_back();
        FlushResults();
        return;
      }
      case NodeKind::kCommDomainScopeStmt:
      case NodeKind::kRuntimeScopeStmt:
      case NodeKind::kExecScopeStmt: {
        auto sc = std::static_pointer_cast<const ScopeStmt>(s);
        for (const auto& [k, v] : sc->attrs()) UseAttr(v, at);
        if (auto es = As<ExecScopeStmt>(s); es != nullptr && es->core_num() != nullptr) {
          UseExpr(es->core_num(), at);
        }
        if (auto cd = As<CommDomainScopeStmt>(s)) {
          for (const WindowBufferPtr& wb : cd->slots()) {
            if (wb != nullptr) UseExpr(wb, at);
          }
        }
        // `with` blocks do not open a scope.
        WalkStmt(sc->body());
        return;
      }
      default:
        return;
    }
  }

  template <typename F>
  void EnterBlock(const StmtPtr& body, F&& on_enter) {
    int end = collecting_ ? 0 : BlockEnd(body);
    block_stack_.push_back(end);
    if (!collecting_) scopes_.emplace_back();
    on_enter(end);
    WalkStmt(body);
    if (collecting_) {
      block_end_[body.get()] = counter_;
      counter_limit_ = std::max(counter_limit_, counter_);
    } else {
      scopes_.pop_back();
    }
    block_stack_.pop_back();
  }
  void EnterBlock(const StmtPtr& body) {
    EnterBlock(body, [](int) {});
  }

  // Results of an if/for/while are named once the statement is done, in the
  // enclosing scope.
  void FlushResults() {
    if (collecting_) return;
    std::vector<PendingResult> pending;
    pending.swap(pending_results_);
    for (const PendingResult& p : pending) {
      if (!names_.contains(p.var.get())) Define(p.var, p.at, p.end);
    }
  }

  struct PendingResult {
    VarPtr var;
    int at;
    int end;
  };

  bool collecting_ = true;
  int counter_ = 0;
  int counter_limit_ = 0;
  absl::flat_hash_map<const Var*, std::vector<int>> uses_;
  absl::flat_hash_map<const Stmt*, int> block_end_;
  absl::flat_hash_set<std::string> all_hints_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<const Var*, std::string> names_;
  std::vector<Scope> scopes_;
  std::vector<int> block_stack_;
  std::vector<const std::vector<VarPtr>*> yield_targets_;
  std::vector<PendingResult> pending_results_;
};

// Appends text straight into one output buffer: printing is on the hot path of
// pto-opt and of every round-trip test, so no temporaries per node.
class Printer {
 public:
  explicit Printer(const absl::flat_hash_map<const Var*, std::string>* names = nullptr)
      : names_(names) {}

  std::string Take() { return std::move(out_); }

  void PrintProgram(const ProgramPtr& p) {
    out_ += "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n";
    std::string cls = SanitizeName(p->name().empty() ? "Program" : p->name());
    if (cls != p->name()) {
      out_ += "@pl.program(name=";
      Quote(p->name());
      out_ += ")\n";
    } else {
      out_ += "@pl.program\n";
    }
    StrAppend(&out_, "class ", cls, ":\n");
    if (p->functions().empty()) {
      out_ += "    pass\n";
      return;
    }
    const size_t decl_pos = out_.find("@pl.program");
    bool first = true;
    for (const auto& [gv, f] : p->functions()) {
      if (!first) out_ += "\n";
      first = false;
      PrintFunctionIn(f, 1);
    }
    // The dynamic dimensions the program uses, declared before the class.
    if (!dyn_dims_.empty()) {
      std::string decls;
      for (const std::string& d : dyn_dims_) StrAppend(&decls, d, " = pl.dynamic(\"", d, "\")\n");
      decls += "\n\n";
      out_.insert(decl_pos, decls);
    }
  }

  void PrintFunctionIn(const FunctionPtr& f, int indent) {
    NameAssigner assigner;
    assigner.Run(f);
    const auto* saved = names_;
    names_ = &assigner.names();
    indent_ = indent;
    Indent();
    Decorator(*f);
    out_ += '\n';
    Indent();
    out_ += "def ";
    out_ += SanitizeName(f->name());
    out_ += "(self";
    for (size_t i = 0; i < f->params().size(); ++i) {
      const VarPtr& p = f->params()[i];
      ParamDirection d =
          i < f->param_directions().size() ? f->param_directions()[i] : ParamDirection::kIn;
      out_ += ", ";
      Name(p);
      out_ += ": ";
      if (d == ParamDirection::kOut) out_ += "pl.Out[";
      if (d == ParamDirection::kInOut) out_ += "pl.InOut[";
      Type(p->type());
      if (d != ParamDirection::kIn) out_ += ']';
    }
    out_ += ')';
    if (f->return_types().size() == 1) {
      out_ += " -> ";
      Type(f->return_types()[0]);
    } else if (f->return_types().size() > 1) {
      out_ += " -> ";
      TupleType(f->return_types());
    }
    out_ += ":\n";
    ++indent_;
    Body(f->body());
    --indent_;
    names_ = saved;
  }

  void Body(const StmtPtr& body) {
    if (body == nullptr) {
      Line("pass");
      return;
    }
    if (auto seq = As<SeqStmts>(body); seq != nullptr && seq->stmts().empty()) {
      Line("pass");
      return;
    }
    Stmt(body);
  }

  void Stmt(const StmtPtr& s) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case NodeKind::kSeqStmts:
        for (const StmtPtr& c : static_cast<const SeqStmts&>(*s).stmts()) Stmt(c);
        return;
      case NodeKind::kAssignStmt: {
        const auto& a = static_cast<const AssignStmt&>(*s);
        Indent();
        Name(a.var());
        out_ += ": ";
        Type(a.var()->type());
        out_ += " = ";
        Expr(a.value());
        out_ += '\n';
        return;
      }
      case NodeKind::kEvalStmt: {
        const auto& e = static_cast<const EvalStmt&>(*s);
        Comments(e.leading_comments());
        Indent();
        Expr(e.expr());
        out_ += '\n';
        return;
      }
      case NodeKind::kReturnStmt: {
        const auto& r = static_cast<const ReturnStmt&>(*s);
        Comments(r.leading_comments());
        Indent();
        out_ += "return";
        if (!r.value().empty()) {
          out_ += ' ';
          ExprList(r.value());
        }
        out_ += '\n';
        return;
      }
      case NodeKind::kYieldStmt: {
        const auto& y = static_cast<const YieldStmt&>(*s);
        Indent();
        const std::vector<VarPtr>* targets =
            yield_targets_.empty() ? nullptr : yield_targets_.back();
        if (targets != nullptr && !targets->empty()) {
          for (size_t i = 0; i < targets->size(); ++i) {
            if (i > 0) out_ += ", ";
            Name((*targets)[i]);
          }
          out_ += " = ";
        }
        out_ += "pl.yield_(";
        ExprList(y.value());
        out_ += ")\n";
        return;
      }
      case NodeKind::kIfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        Indent();
        out_ += "if ";
        Expr(i.condition());
        out_ += ":\n";
        yield_targets_.push_back(&i.return_vars());
        Indented(i.then_body());
        if (i.else_body()) {
          Line("else:");
          Indented(*i.else_body());
        }
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        Indent();
        out_ += "for ";
        Name(f.loop_var());
        if (!f.iter_args().empty()) {
          out_ += ", (";
          IterArgNames(f.iter_args());
          out_ += ')';
        }
        out_ += " in pl.";
        out_ += ForKindName(f.for_kind());
        out_ += '(';
        bool default_start = IsIndexConst(f.start(), 0);
        bool default_step = IsIndexConst(f.step(), 1);
        if (!default_start || !default_step) {
          Expr(f.start());
          out_ += ", ";
        }
        Expr(f.stop());
        if (!default_step) {
          out_ += ", ";
          Expr(f.step());
        }
        if (!f.iter_args().empty()) {
          out_ += ", init_values=";
          IterArgInits(f.iter_args());
        }
        // The pipeline depth is written as PyPTO spells it, stage=N.
        const AttrValue* stages = f.for_kind() == ForKind::kPipeline
                                      ? FindAttr(f.attrs(), kAttrPipelineStages)
                                      : nullptr;
        if (stages != nullptr && !std::holds_alternative<int64_t>(*stages)) stages = nullptr;
        if (stages == nullptr) {
          if (!f.attrs().empty()) {
            out_ += ", attrs=";
            AttrDict(f.attrs());
          }
        } else {
          StrAppend(&out_, ", stage=", std::get<int64_t>(*stages));
          AttrList rest;
          for (const auto& kv : f.attrs()) {
            if (kv.first != kAttrPipelineStages) rest.push_back(kv);
          }
          if (!rest.empty()) {
            out_ += ", attrs=";
            AttrDict(rest);
          }
        }
        out_ += "):\n";
        yield_targets_.push_back(&f.return_vars());
        Indented(f.body());
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kWhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        yield_targets_.push_back(&w.return_vars());
        Indent();
        if (w.iter_args().empty()) {
          out_ += "while ";
          Expr(w.condition());
          out_ += ":\n";
          Indented(w.body());
        } else {
          out_ += "for (";
          IterArgNames(w.iter_args());
          out_ += ") in pl.while_(init_values=";
          IterArgInits(w.iter_args());
          out_ += "):\n";
          ++indent_;
          Indent();
          out_ += "pl.cond(";
          Expr(w.condition());
          out_ += ")\n";
          Body(w.body());
          --indent_;
        }
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kCommDomainScopeStmt: {
        const auto& c = static_cast<const CommDomainScopeStmt&>(*s);
        Indent();
        out_ += "with pld.comm_domain(";
        Quote(c.name_hint());
        out_ += ", devices=[";
        for (size_t i = 0; i < c.devices().size(); ++i) {
          if (i > 0) out_ += ", ";
          StrAppend(&out_, c.devices()[i]);
        }
        out_ += "], slots=[";
        for (size_t i = 0; i < c.slots().size(); ++i) {
          if (i > 0) out_ += ", ";
          Quote(WindowBufferName(c.slots()[i]));
        }
        out_ += ']';
        if (!c.attrs().empty()) {
          out_ += ", attrs=";
          AttrDict(c.attrs());
        }
        out_ += "):\n";
        Indented(c.body());
        return;
      }
      case NodeKind::kRuntimeScopeStmt: {
        const auto& r = static_cast<const RuntimeScopeStmt&>(*s);
        Indent();
        out_ += "with pl.runtime_scope(";
        if (!r.name_hint().empty()) {
          Quote(r.name_hint());
          out_ += ", ";
        }
        out_ += r.manual() ? "manual=True" : "manual=False";
        if (!r.attrs().empty()) {
          out_ += ", attrs=";
          AttrDict(r.attrs());
        }
        out_ += "):\n";
        Indented(r.body());
        return;
      }
      case NodeKind::kExecScopeStmt:
        return ExecScope(static_cast<const ExecScopeStmt&>(*s));
      case NodeKind::kBreakStmt:
        Line("break");
        return;
      case NodeKind::kContinueStmt:
        Line("continue");
        return;
      default:
        Line("pass  # <unprintable statement>");
    }
  }

  void Expr(const ExprPtr& e, bool op_arg = false) {
    if (e == nullptr) {
      out_ += "None";
      return;
    }
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
        Name(std::static_pointer_cast<const Var>(e));
        return;
      case NodeKind::kMemRef:
        MemRefText(static_cast<const MemRef&>(*e));
        return;
      case NodeKind::kWindowBuffer:
        out_ += "pld.WindowBuffer(";
        Quote(WindowBufferName(std::static_pointer_cast<const WindowBuffer>(e)));
        out_ += ')';
        return;
      case NodeKind::kGlobalVar:
        out_ += "self.";
        out_ += static_cast<const GlobalVar&>(*e).name();
        return;
      case NodeKind::kOp:
        out_ += static_cast<const Op&>(*e).name();
        return;
      case NodeKind::kConstInt: {
        const auto& c = static_cast<const ConstInt&>(*e);
        if (c.dtype() == DataType::kIndex) {
          StrAppend(&out_, c.value());
        } else {
          StrAppend(&out_, "pl.const(", c.value(), ", pl.", DataTypeName(c.dtype()), ")");
        }
        return;
      }
      case NodeKind::kConstFloat: {
        const auto& c = static_cast<const ConstFloat&>(*e);
        if (c.dtype() == DataType::kFP32) {
          out_ += FormatFloat(c.value());
        } else {
          StrAppend(&out_, "pl.const(", FormatFloat(c.value()), ", pl.", DataTypeName(c.dtype()),
                    ")");
        }
        return;
      }
      case NodeKind::kConstBool:
        out_ += static_cast<const ConstBool&>(*e).value() ? "True" : "False";
        return;
      case NodeKind::kConstString:
        Quote(static_cast<const ConstString&>(*e).value());
        return;
      case NodeKind::kDynDim: {
        const std::string& name = static_cast<const DynDim&>(*e).name();
        if (dyn_seen_.insert(name).second) dyn_dims_.push_back(name);
        out_ += name;
        return;
      }
      case NodeKind::kBinaryExpr: {
        const auto& b = static_cast<const BinaryExpr&>(*e);
        BinaryInfo info = InfoOf(b.op());
        if (info.prec == kPrecAtom) {
          out_ += info.text;
          out_ += '(';
          Expr(b.lhs());
          out_ += ", ";
          Expr(b.rhs());
          out_ += ')';
          return;
        }
        int lp = PrecOf(b.lhs());
        int rp = PrecOf(b.rhs());
        // Left-associative except **; comparisons do not chain.
        bool lparen = lp < info.prec || (lp == info.prec && (b.op() == BinaryOp::kPow ||
                                                             info.prec == kPrecCompare));
        bool rparen = rp < info.prec || (rp == info.prec && b.op() != BinaryOp::kPow);
        if (b.op() == BinaryOp::kPow && rp == kPrecUnary) rparen = false;
        Operand(b.lhs(), lparen);
        out_ += ' ';
        out_ += info.text;
        out_ += ' ';
        Operand(b.rhs(), rparen);
        return;
      }
      case NodeKind::kUnaryExpr: {
        const auto& u = static_cast<const UnaryExpr&>(*e);
        if (u.op() == UnaryOp::kAbs) {
          out_ += "pl.abs(";
          Expr(u.operand());
          out_ += ')';
          return;
        }
        int need = u.op() == UnaryOp::kNot ? kPrecNot : kPrecUnary;
        int have = PrecOf(u.operand());
        // Parenthesise a negative literal too, or `-(-5)` would read back as 5.
        bool paren = have < need || (u.op() == UnaryOp::kNeg && have == kPrecUnary);
        out_ += u.op() == UnaryOp::kNeg ? "-" : u.op() == UnaryOp::kNot ? "not " : "~";
        Operand(u.operand(), paren);
        return;
      }
      case NodeKind::kCall:
        CallText(static_cast<const Call&>(*e));
        return;
      case NodeKind::kMakeTuple: {
        const auto& t = static_cast<const MakeTuple&>(*e);
        if (op_arg) {
          out_ += '[';
          ExprList(t.elements());
          out_ += ']';
        } else {
          TupleText(t.elements());
        }
        return;
      }
      case NodeKind::kTupleGetItem: {
        const auto& g = static_cast<const TupleGetItem&>(*e);
        Operand(g.tuple(), PrecOf(g.tuple()) < kPrecAtom);
        StrAppend(&out_, "[", g.index(), "]");
        return;
      }
      case NodeKind::kCast: {
        const auto& c = static_cast<const Cast&>(*e);
        out_ += "pl.cast(";
        Expr(c.value());
        StrAppend(&out_, ", pl.", DataTypeName(c.dtype()), ")");
        return;
      }
      default:
        out_ += "None";
    }
  }

  void Type(const TypePtr& t) {
    if (t == nullptr) {
      out_ += "pl.Unknown";
      return;
    }
    switch (t->kind()) {
      case NodeKind::kScalarType:
        StrAppend(&out_, "pl.Scalar[pl.", DataTypeName(static_cast<const ScalarType&>(*t).dtype()),
                  "]");
        return;
      case NodeKind::kTensorType:
      case NodeKind::kDistributedTensorType: {
        const auto& tt = static_cast<const TensorType&>(*t);
        bool dist = t->kind() == NodeKind::kDistributedTensorType;
        out_ += dist ? "pld.DistributedTensor[" : "pl.Tensor[";
        Shape(tt.shape());
        StrAppend(&out_, ", pl.", DataTypeName(tt.dtype()));
        if (tt.tensor_view()) {
          out_ += ", ";
          TensorViewText(*tt.tensor_view());
        }
        if (tt.memref() && *tt.memref()) {
          out_ += ", ";
          MemRefText(**tt.memref());
        }
        if (dist) {
          const auto& wb = static_cast<const DistributedTensorType&>(*t).window_buffer();
          if (wb && *wb) {
            out_ += ", pld.WindowBuffer(";
            Quote(WindowBufferName(*wb));
            out_ += ')';
          }
        }
        out_ += ']';
        return;
      }
      case NodeKind::kTileType: {
        const auto& tt = static_cast<const TileType&>(*t);
        out_ += "pl.Tile[";
        Shape(tt.shape());
        StrAppend(&out_, ", pl.", DataTypeName(tt.dtype()));
        if (!tt.valid_shape().empty()) {
          out_ += ", pl.TileView(valid_shape=";
          Shape(tt.valid_shape());
          out_ += ')';
        }
        if (tt.memref() && *tt.memref()) {
          out_ += ", ";
          MemRefText(**tt.memref());
        }
        out_ += ']';
        return;
      }
      case NodeKind::kTupleType:
        TupleType(static_cast<const ir::TupleType&>(*t).types());
        return;
      case NodeKind::kPtrType: out_ += "pl.Ptr"; return;
      case NodeKind::kMemRefType: out_ += "pl.MemRefType"; return;
      case NodeKind::kWindowBufferType: out_ += "pld.WindowBufferType"; return;
      case NodeKind::kCommCtxType: out_ += "pld.CommCtx"; return;
      default: out_ += "pl.Unknown"; return;
    }
  }

 private:
  static bool IsIndexConst(const ExprPtr& e, int64_t v) {
    auto c = As<ConstInt>(e);
    return c != nullptr && c->value() == v && c->dtype() == DataType::kIndex;
  }

  void Operand(const ExprPtr& e, bool paren) {
    if (paren) out_ += '(';
    Expr(e);
    if (paren) out_ += ')';
  }

  // Most variables print under their hint; the assigner lists the others.
  void Name(const VarPtr& v) {
    if (names_ != nullptr && !names_->empty()) {
      auto it = names_->find(v.get());
      if (it != names_->end()) {
        out_ += it->second;
        return;
      }
    }
    const std::string& hint = v->name_hint();
    if (IsPlainName(hint)) {
      out_ += hint;
    } else {
      out_ += SanitizeName(hint);
    }
  }

  std::string WindowBufferName(const WindowBufferPtr& wb) {
    if (wb == nullptr) return "";
    std::string saved;
    saved.swap(out_);
    if (wb->base() != nullptr) {
      Name(wb->base());
    } else {
      out_ = SanitizeName(wb->name_hint());
    }
    saved.swap(out_);
    return saved;
  }

  void Decorator(const Function& f) {
    out_ += "@pl.function";
    bool any = false;
    auto sep = [&] {
      out_ += any ? ", " : "(";
      any = true;
    };
    if (f.func_type() != FunctionType::kOpaque) {
      sep();
      StrAppend(&out_, "type=pl.FunctionType.", FunctionTypeName(f.func_type()));
    }
    if (f.level() && f.level() != Function::DerivedLevel(f.func_type())) {
      sep();
      StrAppend(&out_, "level=pl.Level.", LevelName(*f.level()));
    }
    if (f.role() && f.role() != Function::DerivedRole(f.func_type())) {
      sep();
      StrAppend(&out_, "role=pl.Role.", RoleName(*f.role()));
    }
    if (!f.attrs().empty()) {
      sep();
      out_ += "attrs=";
      AttrDict(f.attrs());
    }
    if (f.requires_runtime_binding()) {
      sep();
      out_ += "runtime_binding=True";
    }
    if (any) out_ += ')';
  }

  void CallText(const Call& c) {
    bool is_function = c.op()->kind() == NodeKind::kGlobalVar;
    if (is_function) out_ += "self.";
    out_ += c.op()->name();
    out_ += '(';
    bool first = true;
    auto sep = [&] {
      if (!first) out_ += ", ";
      first = false;
    };
    for (const ExprPtr& a : c.args()) {
      sep();
      Expr(a, /*op_arg=*/!is_function);
    }
    bool alloc = !is_function && c.op()->name() == "pld.tensor.alloc_window_buffer";
    for (const auto& [k, v] : c.kwargs()) {
      if (alloc && k == "name") continue;  // re-derived from the assignment
      sep();
      out_ += k;
      out_ += '=';
      AttrText(v);
    }
    if (is_function) {
      for (const auto& [k, v] : c.attrs()) {
        sep();
        out_ += k;
        out_ += '=';
        AttrText(v);
      }
    } else if (!c.attrs().empty()) {
      sep();
      out_ += "attrs=";
      AttrDict(c.attrs());
    }
    out_ += ')';
  }

  void AttrText(const AttrValue& v) {
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>) {
            out_ += x ? "True" : "False";
          } else if constexpr (std::is_same_v<T, int64_t>) {
            StrAppend(&out_, x);
          } else if constexpr (std::is_same_v<T, double>) {
            out_ += FormatFloat(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            Quote(x);
          } else if constexpr (std::is_same_v<T, DataType>) {
            StrAppend(&out_, "pl.", DataTypeName(x));
          } else if constexpr (std::is_same_v<T, ExprPtr>) {
            Expr(x);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            out_ += '[';
            for (size_t i = 0; i < x.size(); ++i) {
              if (i > 0) out_ += ", ";
              StrAppend(&out_, x[i]);
            }
            out_ += ']';
          } else if constexpr (std::is_same_v<T, std::vector<ArgDirection>>) {
            out_ += '[';
            for (size_t i = 0; i < x.size(); ++i) {
              if (i > 0) out_ += ", ";
              StrAppend(&out_, "pl.ArgDirection.", ArgDirectionName(x[i]));
            }
            out_ += ']';
          } else {
            out_ += '[';
            ExprList(x);
            out_ += ']';
          }
        },
        v);
  }

  // `with pl.at(...)`, `with pl.cluster(...)` or `with pl.spmd(...)`, as PyPTO
  // writes them; the parser reads them back (compiler/parser/loops.cc).
  void ExecScope(const ExecScopeStmt& x) {
    Indent();
    const char* sep = "";
    switch (x.GetScopeKind()) {
      case ScopeKind::kCluster:
        out_ += "with pl.cluster(";
        break;
      case ScopeKind::kSpmd:
        out_ += "with pl.spmd(";
        Expr(x.core_num());
        sep = ", ";
        if (x.sync_start()) {
          out_ += ", sync_start=True";
        }
        break;
      default:
        out_ += "with pl.at(level=pl.Level.";
        out_ += LevelName(x.level().value_or(Level::kCoreGroup));
        if (x.role()) StrAppend(&out_, ", role=pl.Role.", RoleName(*x.role()));
        sep = ", ";
        break;
    }
    if (!x.name_hint().empty()) {
      out_ += sep;
      out_ += "name_hint=";
      Quote(x.name_hint());
      sep = ", ";
    }
    if (!x.attrs().empty()) {
      out_ += sep;
      out_ += "attrs=";
      AttrDict(x.attrs());
    }
    out_ += "):\n";
    Indented(x.body());
  }

  void AttrDict(const AttrList& attrs) {
    out_ += '{';
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (i > 0) out_ += ", ";
      Quote(attrs[i].first);
      out_ += ": ";
      AttrText(attrs[i].second);
    }
    out_ += '}';
  }

  void ExprList(const std::vector<ExprPtr>& es) {
    for (size_t i = 0; i < es.size(); ++i) {
      if (i > 0) out_ += ", ";
      Expr(es[i]);
    }
  }

  void TupleText(const std::vector<ExprPtr>& es) {
    out_ += '(';
    ExprList(es);
    if (es.size() == 1) out_ += ',';
    out_ += ')';
  }

  void IterArgNames(const std::vector<IterArgPtr>& ias) {
    for (size_t i = 0; i < ias.size(); ++i) {
      if (i > 0) out_ += ", ";
      Name(ias[i]);
    }
    if (ias.size() == 1) out_ += ',';
  }

  void IterArgInits(const std::vector<IterArgPtr>& ias) {
    out_ += '(';
    for (size_t i = 0; i < ias.size(); ++i) {
      if (i > 0) out_ += ", ";
      Expr(ias[i]->init_value());
    }
    if (ias.size() == 1) out_ += ',';
    out_ += ')';
  }

  void Shape(const std::vector<ExprPtr>& dims) {
    out_ += '[';
    ExprList(dims);
    out_ += ']';
  }

  void TupleType(const std::vector<TypePtr>& types) {
    if (types.empty()) {
      out_ += "tuple[()]";
      return;
    }
    out_ += "tuple[";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i > 0) out_ += ", ";
      Type(types[i]);
    }
    out_ += ']';
  }

  void TensorViewText(const TensorView& v) {
    out_ += "pl.TensorView(";
    bool any = false;
    auto sep = [&] {
      if (any) out_ += ", ";
      any = true;
    };
    if (!v.stride.empty()) {
      sep();
      out_ += "stride=";
      Shape(v.stride);
    }
    if (v.layout != TensorLayout::kND) {
      sep();
      StrAppend(&out_, "layout=pl.TensorLayout.", TensorLayoutName(v.layout));
    }
    if (!v.valid_shape.empty()) {
      sep();
      out_ += "valid_shape=";
      Shape(v.valid_shape);
    }
    if (v.pad != PadValue::kNull) {
      sep();
      StrAppend(&out_, "pad=pl.PadValue.", PadValueName(v.pad));
    }
    out_ += ')';
  }

  void MemRefText(const MemRef& m) {
    StrAppend(&out_, "pl.MemRef(pl.MemorySpace.", MemorySpaceName(m.memory_space()), ", ");
    Expr(m.addr());
    StrAppend(&out_, ", ", m.size(), ", ", m.id(), ")");
  }

  void Quote(std::string_view s) { out_ += QuoteString(s); }

  void Comments(const std::vector<std::string>& comments) {
    for (const std::string& c : comments) {
      Indent();
      out_ += "# ";
      out_ += c;
      out_ += '\n';
    }
  }

  void Indented(const StmtPtr& body) {
    ++indent_;
    Body(body);
    --indent_;
  }

  void Indent() { out_.append(static_cast<size_t>(indent_) * 4, ' '); }

  void Line(std::string_view text) {
    Indent();
    out_.append(text.data(), text.size());
    out_ += '\n';
  }

  std::string out_;
  // Dynamic dimensions printed so far, in order of first use.
  std::vector<std::string> dyn_dims_;
  absl::flat_hash_set<std::string> dyn_seen_;
  int indent_ = 0;
  const absl::flat_hash_map<const Var*, std::string>* names_;
  std::vector<const std::vector<VarPtr>*> yield_targets_;
};

}  // namespace

std::string PrintProgram(const ProgramPtr& program) {
  Printer p;
  p.PrintProgram(program);
  return p.Take();
}

std::string PrintFunction(const FunctionPtr& function) {
  Printer p;
  p.PrintFunctionIn(function, 1);
  return p.Take();
}

std::string PrintType(const TypePtr& type) {
  Printer p;
  p.Type(type);
  return p.Take();
}

std::string PrintExpr(const ExprPtr& expr) {
  Printer p;
  p.Expr(expr);
  return p.Take();
}

std::string PrintStmt(const StmtPtr& stmt) {
  Printer p;
  p.Stmt(stmt);
  return p.Take();
}

}  // namespace pto::ir
