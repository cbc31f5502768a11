#include "compiler/ir/printer.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/print_names.h"
#include "compiler/ir/print_text.h"
#include "compiler/support/strings.h"

namespace pto::ir {
namespace {

using print_internal::BinaryInfo;
using print_internal::FormatFloat;
using print_internal::InfoOf;
using print_internal::IsPlainName;
using print_internal::kPrecAtom;
using print_internal::kPrecCompare;
using print_internal::kPrecNot;
using print_internal::kPrecUnary;
using print_internal::PrecOf;
using print_internal::QuoteString;
using print_internal::SanitizeName;

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
    const print_internal::PrintedNames names = print_internal::AssignPrintedNames(f);
    const auto* saved = names_;
    names_ = &names;
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
    if (f->return_types().size() == 1 && !Is<ir::TupleType>(f->return_types()[0])) {
      out_ += " -> ";
      Type(f->return_types()[0]);
    } else if (!f->return_types().empty()) {
      // `-> tuple[A, B]` declares two results, so one tuple-typed result is
      // `-> tuple[tuple[A, B]]`.
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
      case NodeKind::kYieldStmt:
        return Yield(static_cast<const YieldStmt&>(*s));
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
      case NodeKind::kForStmt:
        return For(static_cast<const ForStmt&>(*s));
      case NodeKind::kWhileStmt:
        return While(static_cast<const WhileStmt&>(*s));
      case NodeKind::kCommDomainScopeStmt:
        return CommDomainScope(static_cast<const CommDomainScopeStmt&>(*s));
      case NodeKind::kRuntimeScopeStmt:
        return RuntimeScope(static_cast<const RuntimeScopeStmt&>(*s));
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

  void Yield(const YieldStmt& y) {
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
  }

  void For(const ForStmt& f) {
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
  }

  void While(const WhileStmt& w) {
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
  }

  void CommDomainScope(const CommDomainScopeStmt& c) {
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
  }

  void RuntimeScope(const RuntimeScopeStmt& r) {
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
        // PyPTO's form; a MemRef of the same space already names it.
        if (tt.memory_space() &&
            !(tt.memref() && *tt.memref() && (*tt.memref())->memory_space() == *tt.memory_space())) {
          StrAppend(&out_, ", pl.MemorySpace.", MemorySpacePyptoName(*tt.memory_space()));
        }
        out_ += ']';
        return;
      }
      case NodeKind::kTupleType:
        TupleType(static_cast<const ir::TupleType&>(*t).types());
        return;
      case NodeKind::kArrayType: {
        const auto& at = static_cast<const ArrayType&>(*t);
        out_ += "pl.Array[";
        Expr(at.extent());
        StrAppend(&out_, ", pl.", DataTypeName(at.dtype()), "]");
        return;
      }
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
    bool submit = is_function && GetAttr<bool>(c.attrs(), kAttrSubmit).value_or(false);
    bool first = true;
    if (submit) {
      out_ += "pl.submit(";
      first = false;
    }
    if (is_function) out_ += "self.";
    out_ += c.op()->name();
    if (!submit) out_ += '(';
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
        if (submit && k == kAttrSubmit) continue;
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
      case ScopeKind::kSplitAiv:
        // The lane variable is the body's first statement (parser/scopes.cc).
        out_ += "with pl.split_aiv(2";
        sep = ", ";
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
    // The scope's task id is written as its `as` target, the other attrs as a dict.
    AttrList attrs;
    ExprPtr tid;
    for (const auto& kv : x.attrs()) {
      const auto* e = std::get_if<ExprPtr>(&kv.second);
      const auto* mode = std::get_if<int64_t>(&kv.second);
      if (kv.first == kAttrTaskIdVar && e != nullptr && Is<Var>(*e)) {
        tid = *e;
      } else if (x.GetScopeKind() == ScopeKind::kSplitAiv && kv.first == "mode" && mode) {
        static constexpr const char* kModes[] = {"NONE", "UP_DOWN", "LEFT_RIGHT"};
        StrAppend(&out_, ", mode=pl.SplitMode.",
                  *mode >= 0 && *mode < 3 ? kModes[*mode] : "NONE");
      } else {
        attrs.push_back(kv);
      }
    }
    if (!attrs.empty()) {
      out_ += sep;
      out_ += "attrs=";
      AttrDict(attrs);
    }
    out_ += ")";
    if (tid != nullptr) {
      out_ += " as ";
      Expr(tid);
    }
    out_ += ":\n";
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
