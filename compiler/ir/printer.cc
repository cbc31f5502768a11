#include "compiler/ir/printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/support/strings.h"

namespace pto::ir {
namespace {

bool IsKeyword(std::string_view s) {
  static const absl::flat_hash_set<std::string> kReserved = {
      "False", "None",   "True",     "and",   "as",     "assert", "async", "await",
      "break", "class",  "continue", "def",   "del",    "elif",   "else",  "except",
      "finally", "for",  "from",     "global", "if",    "import", "in",    "is",
      "lambda", "nonlocal", "not",   "or",    "pass",   "raise",  "return", "try",
      "while", "with",   "yield",    "pl",    "pld",    "self",   "tuple", "Tuple"};
  return kReserved.contains(ToAbsl(s));
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
  for (int prec = 1; prec <= 17; ++prec) {
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
        if (collecting_) {
          uses_[v].push_back(at);
          all_hints_.insert(v->name_hint());
        }
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
      case NodeKind::kRuntimeScopeStmt: {
        auto sc = std::static_pointer_cast<const ScopeStmt>(s);
        for (const auto& [k, v] : sc->attrs()) UseAttr(v, at);
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

class Printer {
 public:
  explicit Printer(const absl::flat_hash_map<const Var*, std::string>* names = nullptr)
      : names_(names) {}

  std::string Take() { return std::move(out_); }

  void PrintProgram(const ProgramPtr& p) {
    out_ += "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n";
    std::string cls = SanitizeName(p->name().empty() ? "Program" : p->name());
    if (cls != p->name()) {
      StrAppend(&out_, "@pl.program(name=", QuoteString(p->name()), ")\n");
    } else {
      out_ += "@pl.program\n";
    }
    StrAppend(&out_, "class ", cls, ":\n");
    if (p->functions().empty()) {
      out_ += "    pass\n";
      return;
    }
    bool first = true;
    for (const auto& [gv, f] : p->functions()) {
      if (!first) out_ += "\n";
      first = false;
      PrintFunctionIn(f, 1);
    }
  }

  void PrintFunctionIn(const FunctionPtr& f, int indent) {
    NameAssigner assigner;
    assigner.Run(f);
    const auto* saved = names_;
    names_ = &assigner.names();
    indent_ = indent;
    Line(Decorator(*f));
    std::string header = StrCat("def ", SanitizeName(f->name()), "(self");
    for (size_t i = 0; i < f->params().size(); ++i) {
      const VarPtr& p = f->params()[i];
      std::string t = Type(p->type());
      ParamDirection d =
          i < f->param_directions().size() ? f->param_directions()[i] : ParamDirection::kIn;
      if (d == ParamDirection::kOut) t = StrCat("pl.Out[", t, "]");
      if (d == ParamDirection::kInOut) t = StrCat("pl.InOut[", t, "]");
      StrAppend(&header, ", ", Name(p), ": ", t);
    }
    header += ")";
    if (f->return_types().size() == 1) {
      StrAppend(&header, " -> ", Type(f->return_types()[0]));
    } else if (f->return_types().size() > 1) {
      StrAppend(&header, " -> ", TupleTypeText(f->return_types()));
    }
    header += ":";
    Line(header);
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
        for (const StmtPtr& c : As<SeqStmts>(s)->stmts()) Stmt(c);
        return;
      case NodeKind::kAssignStmt: {
        auto a = As<AssignStmt>(s);
        Line(StrCat(Name(a->var()), ": ", Type(a->var()->type()), " = ", Expr(a->value())));
        return;
      }
      case NodeKind::kEvalStmt: {
        auto e = As<EvalStmt>(s);
        Comments(e->leading_comments());
        Line(Expr(e->expr()));
        return;
      }
      case NodeKind::kReturnStmt: {
        auto r = As<ReturnStmt>(s);
        Comments(r->leading_comments());
        Line(r->value().empty() ? "return" : StrCat("return ", ExprList(r->value())));
        return;
      }
      case NodeKind::kYieldStmt: {
        auto y = As<YieldStmt>(s);
        std::string call = StrCat("pl.yield_(", ExprList(y->value()), ")");
        const std::vector<VarPtr>* targets =
            yield_targets_.empty() ? nullptr : yield_targets_.back();
        if (targets != nullptr && !targets->empty()) {
          std::string lhs;
          for (size_t i = 0; i < targets->size(); ++i) {
            if (i > 0) lhs += ", ";
            lhs += Name((*targets)[i]);
          }
          Line(StrCat(lhs, " = ", call));
        } else {
          Line(call);
        }
        return;
      }
      case NodeKind::kIfStmt: {
        auto i = As<IfStmt>(s);
        Line(StrCat("if ", Expr(i->condition()), ":"));
        yield_targets_.push_back(&i->return_vars());
        Indented(i->then_body());
        if (i->else_body()) {
          Line("else:");
          Indented(*i->else_body());
        }
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kForStmt: {
        auto f = As<ForStmt>(s);
        std::string range = StrCat("pl.", ForKindName(f->for_kind()), "(");
        bool default_start = IsIndexConst(f->start(), 0);
        bool default_step = IsIndexConst(f->step(), 1);
        if (default_start && default_step) {
          range += Expr(f->stop());
        } else if (default_step) {
          StrAppend(&range, Expr(f->start()), ", ", Expr(f->stop()));
        } else {
          StrAppend(&range, Expr(f->start()), ", ", Expr(f->stop()), ", ", Expr(f->step()));
        }
        std::string target = Name(f->loop_var());
        if (!f->iter_args().empty()) {
          std::vector<ExprPtr> inits;
          std::string names;
          for (const IterArgPtr& ia : f->iter_args()) {
            inits.push_back(ia->init_value());
            if (!names.empty()) names += ", ";
            names += Name(ia);
          }
          if (f->iter_args().size() == 1) names += ",";
          StrAppend(&target, ", (", names, ")");
          StrAppend(&range, ", init_values=", TupleText(inits));
        }
        if (!f->attrs().empty()) StrAppend(&range, ", attrs=", AttrDict(f->attrs()));
        range += ")";
        Line(StrCat("for ", target, " in ", range, ":"));
        yield_targets_.push_back(&f->return_vars());
        Indented(f->body());
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kWhileStmt: {
        auto w = As<WhileStmt>(s);
        yield_targets_.push_back(&w->return_vars());
        if (w->iter_args().empty()) {
          Line(StrCat("while ", Expr(w->condition()), ":"));
          Indented(w->body());
        } else {
          std::vector<ExprPtr> inits;
          std::string names;
          for (const IterArgPtr& ia : w->iter_args()) {
            inits.push_back(ia->init_value());
            if (!names.empty()) names += ", ";
            names += Name(ia);
          }
          if (w->iter_args().size() == 1) names += ",";
          Line(StrCat("for (", names, ") in pl.while_(init_values=", TupleText(inits), "):"));
          ++indent_;
          Line(StrCat("pl.cond(", Expr(w->condition()), ")"));
          Body(w->body());
          --indent_;
        }
        yield_targets_.pop_back();
        return;
      }
      case NodeKind::kCommDomainScopeStmt: {
        auto c = As<CommDomainScopeStmt>(s);
        std::string devices;
        for (size_t i = 0; i < c->devices().size(); ++i) {
          if (i > 0) devices += ", ";
          devices += std::to_string(c->devices()[i]);
        }
        std::string slots;
        for (size_t i = 0; i < c->slots().size(); ++i) {
          if (i > 0) slots += ", ";
          slots += QuoteString(WindowBufferName(c->slots()[i]));
        }
        std::string head = StrCat("with pld.comm_domain(", QuoteString(c->name_hint()),
                                  ", devices=[", devices, "], slots=[", slots, "]");
        if (!c->attrs().empty()) StrAppend(&head, ", attrs=", AttrDict(c->attrs()));
        Line(StrCat(head, "):"));
        Indented(c->body());
        return;
      }
      case NodeKind::kRuntimeScopeStmt: {
        auto r = As<RuntimeScopeStmt>(s);
        std::string head = "with pl.runtime_scope(";
        if (!r->name_hint().empty()) StrAppend(&head, QuoteString(r->name_hint()), ", ");
        StrAppend(&head, "manual=", r->manual() ? "True" : "False");
        if (!r->attrs().empty()) StrAppend(&head, ", attrs=", AttrDict(r->attrs()));
        Line(StrCat(head, "):"));
        Indented(r->body());
        return;
      }
      default:
        Line("pass  # <unprintable statement>");
    }
  }

  std::string Expr(const ExprPtr& e, bool op_arg = false) {
    if (e == nullptr) return "None";
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
        return Name(std::static_pointer_cast<const Var>(e));
      case NodeKind::kMemRef:
        return MemRefText(*As<MemRef>(e));
      case NodeKind::kWindowBuffer:
        return StrCat("pld.WindowBuffer(", QuoteString(WindowBufferName(As<WindowBuffer>(e))), ")");
      case NodeKind::kGlobalVar:
        return StrCat("self.", As<GlobalVar>(e)->name());
      case NodeKind::kOp:
        return As<Op>(e)->name();
      case NodeKind::kConstInt: {
        auto c = As<ConstInt>(e);
        if (c->dtype() == DataType::kIndex) return std::to_string(c->value());
        return StrCat("pl.const(", c->value(), ", pl.", DataTypeName(c->dtype()), ")");
      }
      case NodeKind::kConstFloat: {
        auto c = As<ConstFloat>(e);
        if (c->dtype() == DataType::kFP32) return FormatFloat(c->value());
        return StrCat("pl.const(", FormatFloat(c->value()), ", pl.", DataTypeName(c->dtype()),
                      ")");
      }
      case NodeKind::kConstBool:
        return As<ConstBool>(e)->value() ? "True" : "False";
      case NodeKind::kConstString:
        return QuoteString(As<ConstString>(e)->value());
      case NodeKind::kBinaryExpr: {
        auto b = As<BinaryExpr>(e);
        BinaryInfo info = InfoOf(b->op());
        if (info.prec == kPrecAtom) {
          return StrCat(info.text, "(", Expr(b->lhs()), ", ", Expr(b->rhs()), ")");
        }
        int lp = PrecOf(b->lhs());
        int rp = PrecOf(b->rhs());
        // Left-associative except **; comparisons do not chain.
        bool lparen = lp < info.prec || (lp == info.prec && (b->op() == BinaryOp::kPow ||
                                                             info.prec == kPrecCompare));
        bool rparen = rp < info.prec || (rp == info.prec && b->op() != BinaryOp::kPow);
        if (b->op() == BinaryOp::kPow && rp == kPrecUnary) rparen = false;
        std::string l = Expr(b->lhs());
        std::string r = Expr(b->rhs());
        if (lparen) l = StrCat("(", l, ")");
        if (rparen) r = StrCat("(", r, ")");
        return StrCat(l, " ", info.text, " ", r);
      }
      case NodeKind::kUnaryExpr: {
        auto u = As<UnaryExpr>(e);
        if (u->op() == UnaryOp::kAbs) return StrCat("pl.abs(", Expr(u->operand()), ")");
        std::string operand = Expr(u->operand());
        int need = u->op() == UnaryOp::kNot ? kPrecNot : kPrecUnary;
        int have = PrecOf(u->operand());
        // Parenthesise a negative literal too, or `-(-5)` would read back as 5.
        bool paren = have < need || (u->op() == UnaryOp::kNeg && have == kPrecUnary);
        if (paren) operand = StrCat("(", operand, ")");
        switch (u->op()) {
          case UnaryOp::kNeg: return StrCat("-", operand);
          case UnaryOp::kNot: return StrCat("not ", operand);
          case UnaryOp::kBitNot: return StrCat("~", operand);
          default: return operand;
        }
      }
      case NodeKind::kCall:
        return CallText(As<Call>(e));
      case NodeKind::kMakeTuple: {
        auto t = As<MakeTuple>(e);
        if (op_arg) return StrCat("[", ExprList(t->elements()), "]");
        return TupleText(t->elements());
      }
      case NodeKind::kTupleGetItem: {
        auto g = As<TupleGetItem>(e);
        std::string t = Expr(g->tuple());
        if (PrecOf(g->tuple()) < kPrecAtom) t = StrCat("(", t, ")");
        return StrCat(t, "[", g->index(), "]");
      }
      case NodeKind::kCast: {
        auto c = As<Cast>(e);
        return StrCat("pl.cast(", Expr(c->value()), ", pl.", DataTypeName(c->dtype()), ")");
      }
      default:
        return "None";
    }
  }

  std::string Type(const TypePtr& t) {
    if (t == nullptr) return "pl.Unknown";
    switch (t->kind()) {
      case NodeKind::kUnknownType: return "pl.Unknown";
      case NodeKind::kScalarType:
        return StrCat("pl.Scalar[pl.", DataTypeName(As<ScalarType>(t)->dtype()), "]");
      case NodeKind::kTensorType:
      case NodeKind::kDistributedTensorType: {
        auto tt = AsTensorTypeLike(t);
        bool dist = t->kind() == NodeKind::kDistributedTensorType;
        std::string s = StrCat(dist ? "pld.DistributedTensor[" : "pl.Tensor[",
                               ShapeText(tt->shape()), ", pl.", DataTypeName(tt->dtype()));
        if (tt->tensor_view()) StrAppend(&s, ", ", TensorViewText(*tt->tensor_view()));
        if (tt->memref() && *tt->memref()) StrAppend(&s, ", ", MemRefText(**tt->memref()));
        if (dist) {
          const auto& wb = As<DistributedTensorType>(t)->window_buffer();
          if (wb && *wb) {
            StrAppend(&s, ", pld.WindowBuffer(", QuoteString(WindowBufferName(*wb)), ")");
          }
        }
        return s + "]";
      }
      case NodeKind::kTileType: {
        auto tt = As<TileType>(t);
        std::string s = StrCat("pl.Tile[", ShapeText(tt->shape()), ", pl.",
                               DataTypeName(tt->dtype()));
        if (!tt->valid_shape().empty()) {
          StrAppend(&s, ", pl.TileView(valid_shape=", ShapeText(tt->valid_shape()), ")");
        }
        if (tt->memref() && *tt->memref()) StrAppend(&s, ", ", MemRefText(**tt->memref()));
        return s + "]";
      }
      case NodeKind::kTupleType:
        return TupleTypeText(As<TupleType>(t)->types());
      case NodeKind::kPtrType: return "pl.Ptr";
      case NodeKind::kMemRefType: return "pl.MemRefType";
      case NodeKind::kWindowBufferType: return "pld.WindowBufferType";
      case NodeKind::kCommCtxType: return "pld.CommCtx";
      default: return "pl.Unknown";
    }
  }

 private:
  static bool IsIndexConst(const ExprPtr& e, int64_t v) {
    auto c = As<ConstInt>(e);
    return c != nullptr && c->value() == v && c->dtype() == DataType::kIndex;
  }

  std::string Name(const VarPtr& v) {
    if (names_ != nullptr) {
      auto it = names_->find(v.get());
      if (it != names_->end()) return it->second;
    }
    return SanitizeName(v->name_hint());
  }

  std::string WindowBufferName(const WindowBufferPtr& wb) {
    if (wb == nullptr) return "";
    if (wb->base() != nullptr) return Name(wb->base());
    return SanitizeName(wb->name_hint());
  }

  std::string Decorator(const Function& f) {
    std::vector<std::string> args;
    if (f.func_type() != FunctionType::kOpaque) {
      args.push_back(StrCat("type=pl.FunctionType.", FunctionTypeName(f.func_type())));
    }
    if (f.level() && f.level() != Function::DerivedLevel(f.func_type())) {
      args.push_back(StrCat("level=pl.Level.", LevelName(*f.level())));
    }
    if (f.role() && f.role() != Function::DerivedRole(f.func_type())) {
      args.push_back(StrCat("role=pl.Role.", RoleName(*f.role())));
    }
    if (!f.attrs().empty()) args.push_back(StrCat("attrs=", AttrDict(f.attrs())));
    if (f.requires_runtime_binding()) args.push_back("runtime_binding=True");
    if (args.empty()) return "@pl.function";
    std::string s = "@pl.function(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) s += ", ";
      s += args[i];
    }
    return s + ")";
  }

  std::string CallText(const CallPtr& c) {
    bool is_function = Is<GlobalVar>(c->op());
    std::string s = is_function ? StrCat("self.", c->op()->name(), "(") : c->op()->name() + "(";
    bool first = true;
    auto sep = [&] {
      if (!first) s += ", ";
      first = false;
    };
    for (const ExprPtr& a : c->args()) {
      sep();
      s += Expr(a, /*op_arg=*/!is_function);
    }
    bool alloc = c->op()->name() == "pld.tensor.alloc_window_buffer";
    for (const auto& [k, v] : c->kwargs()) {
      if (alloc && k == "name") continue;  // re-derived from the assignment
      sep();
      StrAppend(&s, k, "=", AttrText(v));
    }
    if (is_function) {
      for (const auto& [k, v] : c->attrs()) {
        sep();
        StrAppend(&s, k, "=", AttrText(v));
      }
    } else if (!c->attrs().empty()) {
      sep();
      StrAppend(&s, "attrs=", AttrDict(c->attrs()));
    }
    return s + ")";
  }

  std::string AttrText(const AttrValue& v) {
    return std::visit(
        [this](const auto& x) -> std::string {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>) {
            return x ? "True" : "False";
          } else if constexpr (std::is_same_v<T, int64_t>) {
            return std::to_string(x);
          } else if constexpr (std::is_same_v<T, double>) {
            return FormatFloat(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            return QuoteString(x);
          } else if constexpr (std::is_same_v<T, DataType>) {
            return StrCat("pl.", DataTypeName(x));
          } else if constexpr (std::is_same_v<T, ExprPtr>) {
            return Expr(x);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            std::string s = "[";
            for (size_t i = 0; i < x.size(); ++i) {
              if (i > 0) s += ", ";
              s += std::to_string(x[i]);
            }
            return s + "]";
          } else if constexpr (std::is_same_v<T, std::vector<ArgDirection>>) {
            std::string s = "[";
            for (size_t i = 0; i < x.size(); ++i) {
              if (i > 0) s += ", ";
              StrAppend(&s, "pl.ArgDirection.", ArgDirectionName(x[i]));
            }
            return s + "]";
          } else {
            return StrCat("[", ExprList(x), "]");
          }
        },
        v);
  }

  std::string AttrDict(const AttrList& attrs) {
    std::string s = "{";
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (i > 0) s += ", ";
      StrAppend(&s, QuoteString(attrs[i].first), ": ", AttrText(attrs[i].second));
    }
    return s + "}";
  }

  std::string ExprList(const std::vector<ExprPtr>& es) {
    std::string s;
    for (size_t i = 0; i < es.size(); ++i) {
      if (i > 0) s += ", ";
      s += Expr(es[i]);
    }
    return s;
  }

  std::string TupleText(const std::vector<ExprPtr>& es) {
    if (es.size() == 1) return StrCat("(", Expr(es[0]), ",)");
    return StrCat("(", ExprList(es), ")");
  }

  std::string ShapeText(const std::vector<ExprPtr>& dims) {
    return StrCat("[", ExprList(dims), "]");
  }

  std::string TupleTypeText(const std::vector<TypePtr>& types) {
    if (types.empty()) return "tuple[()]";
    std::string s = "tuple[";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i > 0) s += ", ";
      s += Type(types[i]);
    }
    return s + "]";
  }

  std::string TensorViewText(const TensorView& v) {
    std::vector<std::string> parts;
    if (!v.stride.empty()) parts.push_back(StrCat("stride=", ShapeText(v.stride)));
    if (v.layout != TensorLayout::kND) {
      parts.push_back(StrCat("layout=pl.TensorLayout.", TensorLayoutName(v.layout)));
    }
    if (!v.valid_shape.empty()) parts.push_back(StrCat("valid_shape=", ShapeText(v.valid_shape)));
    if (v.pad != PadValue::kNull) parts.push_back(StrCat("pad=pl.PadValue.", PadValueName(v.pad)));
    std::string s = "pl.TensorView(";
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) s += ", ";
      s += parts[i];
    }
    return s + ")";
  }

  std::string MemRefText(const MemRef& m) {
    return StrCat("pl.MemRef(pl.MemorySpace.", MemorySpaceName(m.memory_space()), ", ",
                  Expr(m.addr()), ", ", m.size(), ", ", m.id(), ")");
  }

  void Comments(const std::vector<std::string>& comments) {
    for (const std::string& c : comments) Line(StrCat("# ", c));
  }

  void Indented(const StmtPtr& body) {
    ++indent_;
    Body(body);
    --indent_;
  }

  void Line(std::string_view text) {
    out_.append(static_cast<size_t>(indent_) * 4, ' ');
    out_.append(text.data(), text.size());
    out_ += '\n';
  }

  std::string out_;
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

std::string PrintType(const TypePtr& type) { return Printer().Type(type); }

std::string PrintExpr(const ExprPtr& expr) { return Printer().Expr(expr); }

std::string PrintStmt(const StmtPtr& stmt) {
  Printer p;
  p.Stmt(stmt);
  return p.Take();
}

}  // namespace pto::ir
