#include "compiler/ir/structural_equal.h"

#include <cstring>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/support/strings.h"

namespace pto::ir {
namespace {

std::string_view KindName(NodeKind k) {
  // clang-format off
  switch (k) {
    case NodeKind::kUnknownType: return "UnknownType";
    case NodeKind::kScalarType: return "ScalarType";
    case NodeKind::kTensorType: return "TensorType";
    case NodeKind::kDistributedTensorType: return "DistributedTensorType";
    case NodeKind::kTileType: return "TileType";
    case NodeKind::kTupleType: return "TupleType";
    case NodeKind::kArrayType: return "ArrayType";
    case NodeKind::kPtrType: return "PtrType";
    case NodeKind::kMemRefType: return "MemRefType";
    case NodeKind::kWindowBufferType: return "WindowBufferType";
    case NodeKind::kCommCtxType: return "CommCtxType";
    case NodeKind::kVar: return "Var";
    case NodeKind::kIterArg: return "IterArg";
    case NodeKind::kMemRef: return "MemRef";
    case NodeKind::kWindowBuffer: return "WindowBuffer";
    case NodeKind::kOp: return "Op";
    case NodeKind::kGlobalVar: return "GlobalVar";
    case NodeKind::kConstInt: return "ConstInt";
    case NodeKind::kConstFloat: return "ConstFloat";
    case NodeKind::kConstBool: return "ConstBool";
    case NodeKind::kConstString: return "ConstString";
    case NodeKind::kDynDim: return "DynDim";
    case NodeKind::kBinaryExpr: return "BinaryExpr";
    case NodeKind::kUnaryExpr: return "UnaryExpr";
    case NodeKind::kCall: return "Call";
    case NodeKind::kMakeTuple: return "MakeTuple";
    case NodeKind::kTupleGetItem: return "TupleGetItem";
    case NodeKind::kCast: return "Cast";
    case NodeKind::kAssignStmt: return "AssignStmt";
    case NodeKind::kEvalStmt: return "EvalStmt";
    case NodeKind::kReturnStmt: return "ReturnStmt";
    case NodeKind::kSeqStmts: return "SeqStmts";
    case NodeKind::kIfStmt: return "IfStmt";
    case NodeKind::kForStmt: return "ForStmt";
    case NodeKind::kWhileStmt: return "WhileStmt";
    case NodeKind::kYieldStmt: return "YieldStmt";
    case NodeKind::kCommDomainScopeStmt: return "CommDomainScopeStmt";
    case NodeKind::kRuntimeScopeStmt: return "RuntimeScopeStmt";
    case NodeKind::kExecScopeStmt: return "ExecScopeStmt";
    case NodeKind::kBreakStmt: return "BreakStmt";
    case NodeKind::kContinueStmt: return "ContinueStmt";
    case NodeKind::kFunction: return "Function";
    case NodeKind::kProgram: return "Program";
  }
  // clang-format on
  return "?";
}

bool SameDouble(double a, double b) {
  // Bitwise, so that equality is reflexive for NaN and agrees with the hash.
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

template <typename T>
std::string OptName(const std::optional<T>& v, std::string_view (*name)(T)) {
  return v.has_value() ? std::string(name(*v)) : std::string("none");
}

class Comparer {
 public:
  bool Program(const ProgramPtr& a, const ProgramPtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    const auto& fa = a->functions();
    const auto& fb = b->functions();
    if (fa.size() != fb.size()) {
      return Fail(a.get(), b.get(),
                  StrCat("program has ", fa.size(), " vs ", fb.size(), " functions"));
    }
    for (size_t i = 0; i < fa.size(); ++i) {
      Path p(this, "functions", i);
      ResetVars();
      if (!Function(fa[i].second, fb[i].second)) return false;
    }
    return true;
  }

  bool Function(const FunctionPtr& a, const FunctionPtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    func_a_ = a.get();
    func_b_ = b.get();
    if (!VarDefs("params", a->params(), b->params(), a.get(), b.get())) return false;
    if (a->param_directions() != b->param_directions()) {
      return Fail(a.get(), b.get(), "param directions differ");
    }
    if (!Types("return_types", a->return_types(), b->return_types(), a.get(), b.get())) {
      return false;
    }
    if (a->func_type() != b->func_type()) {
      return Fail(a.get(), b.get(),
                  StrCat("func_type ", FunctionTypeName(a->func_type()), " vs ",
                         FunctionTypeName(b->func_type())));
    }
    if (a->level() != b->level()) {
      return Fail(
          a.get(), b.get(),
          StrCat("level ", OptName(a->level(), LevelName), " vs ", OptName(b->level(), LevelName)));
    }
    if (a->role() != b->role()) {
      return Fail(
          a.get(), b.get(),
          StrCat("role ", OptName(a->role(), RoleName), " vs ", OptName(b->role(), RoleName)));
    }
    if (a->requires_runtime_binding() != b->requires_runtime_binding()) {
      return Fail(a.get(), b.get(), "requires_runtime_binding differs");
    }
    if (!Attrs("attrs", a->attrs(), b->attrs(), a.get(), b.get())) return false;
    Path p(this, "body");
    return Stmt(a->body(), b->body());
  }

  bool Stmt(const StmtPtr& a, const StmtPtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    if (a->kind() != b->kind()) return KindMismatch(a.get(), b.get());
    switch (a->kind()) {
      case NodeKind::kAssignStmt: {
        const auto& x = static_cast<const AssignStmt&>(*a);
        const auto& y = static_cast<const AssignStmt&>(*b);
        {
          Path p(this, "value");
          if (!Expr(x.value(), y.value())) return false;
        }
        Path p(this, "var");
        return VarDef(x.var(), y.var());
      }
      case NodeKind::kEvalStmt: {
        Path p(this, "expr");
        return Expr(static_cast<const EvalStmt&>(*a).expr(),
                    static_cast<const EvalStmt&>(*b).expr());
      }
      case NodeKind::kReturnStmt:
        return Exprs("value", static_cast<const ReturnStmt&>(*a).value(),
                     static_cast<const ReturnStmt&>(*b).value(), a.get(), b.get());
      case NodeKind::kYieldStmt:
        return Exprs("value", static_cast<const YieldStmt&>(*a).value(),
                     static_cast<const YieldStmt&>(*b).value(), a.get(), b.get());
      case NodeKind::kSeqStmts: {
        const auto& x = static_cast<const SeqStmts&>(*a).stmts();
        const auto& y = static_cast<const SeqStmts&>(*b).stmts();
        if (x.size() != y.size()) return SizeMismatch("stmts", x.size(), y.size(), a, b);
        for (size_t i = 0; i < x.size(); ++i) {
          Path p(this, "stmts", i);
          if (!Stmt(x[i], y[i])) return false;
        }
        return true;
      }
      case NodeKind::kIfStmt:
        return IfEq(static_cast<const IfStmt&>(*a), static_cast<const IfStmt&>(*b), a, b);
      case NodeKind::kForStmt:
        return ForEq(static_cast<const ForStmt&>(*a), static_cast<const ForStmt&>(*b), a, b);
      case NodeKind::kWhileStmt: {
        const auto& x = static_cast<const WhileStmt&>(*a);
        const auto& y = static_cast<const WhileStmt&>(*b);
        if (!IterArgs(x.iter_args(), y.iter_args(), a.get(), b.get())) return false;
        {
          Path p(this, "condition");
          if (!Expr(x.condition(), y.condition())) return false;
        }
        {
          Path p(this, "body");
          if (!Stmt(x.body(), y.body())) return false;
        }
        return VarDefs("return_vars", x.return_vars(), y.return_vars(), a.get(), b.get());
      }
      case NodeKind::kCommDomainScopeStmt:
        return CommDomainEq(static_cast<const CommDomainScopeStmt&>(*a), static_cast<const CommDomainScopeStmt&>(*b), a, b);
      case NodeKind::kRuntimeScopeStmt:
        return RuntimeScopeEq(static_cast<const RuntimeScopeStmt&>(*a), static_cast<const RuntimeScopeStmt&>(*b), a, b);
      case NodeKind::kExecScopeStmt:
        return ExecScopeEq(static_cast<const ExecScopeStmt&>(*a), static_cast<const ExecScopeStmt&>(*b), a, b);
      default:
        return true;
    }
  }

  bool IfEq(const IfStmt& x, const IfStmt& y, const StmtPtr& a, const StmtPtr& b) {
    {
      Path p(this, "condition");
      if (!Expr(x.condition(), y.condition())) return false;
    }
    {
      Path p(this, "then");
      if (!Stmt(x.then_body(), y.then_body())) return false;
    }
    if (x.else_body().has_value() != y.else_body().has_value()) {
      return Fail(a.get(), b.get(),
                  x.else_body().has_value() ? "else branch vs none" : "no else branch vs one");
    }
    if (x.else_body().has_value()) {
      Path p(this, "else");
      if (!Stmt(*x.else_body(), *y.else_body())) return false;
    }
    return VarDefs("return_vars", x.return_vars(), y.return_vars(), a.get(), b.get());
  }

  bool ForEq(const ForStmt& x, const ForStmt& y, const StmtPtr& a, const StmtPtr& b) {
    if (x.for_kind() != y.for_kind()) {
      return Fail(
          a.get(), b.get(),
          StrCat("loop kind ", ForKindName(x.for_kind()), " vs ", ForKindName(y.for_kind())));
    }
    {
      Path p(this, "start");
      if (!Expr(x.start(), y.start())) return false;
    }
    {
      Path p(this, "stop");
      if (!Expr(x.stop(), y.stop())) return false;
    }
    {
      Path p(this, "step");
      if (!Expr(x.step(), y.step())) return false;
    }
    if (!Attrs("attrs", x.attrs(), y.attrs(), a.get(), b.get())) return false;
    {
      Path p(this, "loop_var");
      if (!VarDef(x.loop_var(), y.loop_var())) return false;
    }
    if (!IterArgs(x.iter_args(), y.iter_args(), a.get(), b.get())) return false;
    {
      Path p(this, "body");
      if (!Stmt(x.body(), y.body())) return false;
    }
    return VarDefs("return_vars", x.return_vars(), y.return_vars(), a.get(), b.get());
  }

  bool CommDomainEq(const CommDomainScopeStmt& x, const CommDomainScopeStmt& y, const StmtPtr& a, const StmtPtr& b) {
    if (x.name_hint() != y.name_hint()) {
      return Fail(a.get(), b.get(),
                  StrCat("scope name '", x.name_hint(), "' vs '", y.name_hint(), "'"));
    }
    if (x.devices() != y.devices()) return Fail(a.get(), b.get(), "devices differ");
    if (x.slots().size() != y.slots().size()) {
      return SizeMismatch("slots", x.slots().size(), y.slots().size(), a, b);
    }
    for (size_t i = 0; i < x.slots().size(); ++i) {
      Path p(this, "slots", i);
      if (!Expr(x.slots()[i], y.slots()[i])) return false;
    }
    if (!Attrs("attrs", x.attrs(), y.attrs(), a.get(), b.get())) return false;
    Path p(this, "body");
    return Stmt(x.body(), y.body());
  }

  bool RuntimeScopeEq(const RuntimeScopeStmt& x, const RuntimeScopeStmt& y, const StmtPtr& a, const StmtPtr& b) {
    if (x.name_hint() != y.name_hint()) {
      return Fail(a.get(), b.get(),
                  StrCat("scope name '", x.name_hint(), "' vs '", y.name_hint(), "'"));
    }
    if (x.manual() != y.manual()) return Fail(a.get(), b.get(), "manual flag differs");
    if (!Attrs("attrs", x.attrs(), y.attrs(), a.get(), b.get())) return false;
    Path p(this, "body");
    return Stmt(x.body(), y.body());
  }

  bool ExecScopeEq(const ExecScopeStmt& x, const ExecScopeStmt& y, const StmtPtr& a, const StmtPtr& b) {
    if (x.GetScopeKind() != y.GetScopeKind()) return Fail(a.get(), b.get(), "scope kinds differ");
    if (x.name_hint() != y.name_hint()) {
      return Fail(a.get(), b.get(),
                  StrCat("scope name '", x.name_hint(), "' vs '", y.name_hint(), "'"));
    }
    if (x.level() != y.level()) return Fail(a.get(), b.get(), "levels differ");
    if (x.role() != y.role()) return Fail(a.get(), b.get(), "roles differ");
    if (x.sync_start() != y.sync_start()) return Fail(a.get(), b.get(), "sync_start differs");
    {
      Path p(this, "core_num");
      if ((x.core_num() == nullptr) != (y.core_num() == nullptr)) {
        return Fail(a.get(), b.get(), "core_num present in one scope only");
      }
      if (x.core_num() != nullptr && !Expr(x.core_num(), y.core_num())) return false;
    }
    if (!Attrs("attrs", x.attrs(), y.attrs(), a.get(), b.get())) return false;
    Path p(this, "body");
    return Stmt(x.body(), y.body());
  }

  bool Expr(const ExprPtr& a, const ExprPtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    if (a->kind() != b->kind()) return KindMismatch(a.get(), b.get());
    switch (a->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
      case NodeKind::kMemRef:
      case NodeKind::kWindowBuffer:
        return VarUse(std::static_pointer_cast<const Var>(a),
                      std::static_pointer_cast<const Var>(b));
      case NodeKind::kOp:
      case NodeKind::kGlobalVar: {
        const auto& x = static_cast<const Op&>(*a).name();
        const auto& y = static_cast<const Op&>(*b).name();
        if (x != y) {
          return Fail(a.get(), b.get(), StrCat(KindName(a->kind()), " '", x, "' vs '", y, "'"));
        }
        return true;
      }
      case NodeKind::kConstInt: {
        const auto& x = static_cast<const ConstInt&>(*a);
        const auto& y = static_cast<const ConstInt&>(*b);
        if (x.value() != y.value()) {
          return Fail(a.get(), b.get(), StrCat("ConstInt value ", x.value(), " vs ", y.value()));
        }
        if (x.dtype() != y.dtype()) {
          return Fail(
              a.get(), b.get(),
              StrCat("ConstInt dtype ", DataTypeName(x.dtype()), " vs ", DataTypeName(y.dtype())));
        }
        return true;
      }
      case NodeKind::kConstFloat: {
        const auto& x = static_cast<const ConstFloat&>(*a);
        const auto& y = static_cast<const ConstFloat&>(*b);
        if (!SameDouble(x.value(), y.value())) {
          return Fail(a.get(), b.get(), StrCat("ConstFloat value ", x.value(), " vs ", y.value()));
        }
        if (x.dtype() != y.dtype()) {
          return Fail(a.get(), b.get(),
                      StrCat("ConstFloat dtype ", DataTypeName(x.dtype()), " vs ",
                             DataTypeName(y.dtype())));
        }
        return true;
      }
      case NodeKind::kConstBool: {
        bool x = static_cast<const ConstBool&>(*a).value();
        bool y = static_cast<const ConstBool&>(*b).value();
        if (x != y) {
          return Fail(a.get(), b.get(),
                      StrCat("ConstBool ", x ? "True" : "False", " vs ", y ? "True" : "False"));
        }
        return true;
      }
      case NodeKind::kConstString: {
        const auto& x = static_cast<const ConstString&>(*a).value();
        const auto& y = static_cast<const ConstString&>(*b).value();
        if (x != y) return Fail(a.get(), b.get(), StrCat("string \"", x, "\" vs \"", y, "\""));
        return true;
      }
      case NodeKind::kDynDim: {
        const auto& x = static_cast<const DynDim&>(*a).name();
        const auto& y = static_cast<const DynDim&>(*b).name();
        if (x != y) return Fail(a.get(), b.get(), StrCat("dynamic dimension ", x, " vs ", y));
        return true;
      }
      case NodeKind::kBinaryExpr: {
        const auto& x = static_cast<const BinaryExpr&>(*a);
        const auto& y = static_cast<const BinaryExpr&>(*b);
        if (x.op() != y.op()) {
          return Fail(
              a.get(), b.get(),
              StrCat("binary op ", static_cast<int>(x.op()), " vs ", static_cast<int>(y.op())));
        }
        {
          Path p(this, "lhs");
          if (!Expr(x.lhs(), y.lhs())) return false;
        }
        {
          Path p(this, "rhs");
          if (!Expr(x.rhs(), y.rhs())) return false;
        }
        Path p(this, "type");
        return Type(x.type(), y.type());
      }
      case NodeKind::kUnaryExpr: {
        const auto& x = static_cast<const UnaryExpr&>(*a);
        const auto& y = static_cast<const UnaryExpr&>(*b);
        if (x.op() != y.op()) {
          return Fail(
              a.get(), b.get(),
              StrCat("unary op ", static_cast<int>(x.op()), " vs ", static_cast<int>(y.op())));
        }
        {
          Path p(this, "operand");
          if (!Expr(x.operand(), y.operand())) return false;
        }
        Path p(this, "type");
        return Type(x.type(), y.type());
      }
      case NodeKind::kCall: {
        const auto& x = static_cast<const Call&>(*a);
        const auto& y = static_cast<const Call&>(*b);
        {
          Path p(this, "op");
          if (!Expr(x.op(), y.op())) return false;
        }
        if (!Exprs("args", x.args(), y.args(), a.get(), b.get())) return false;
        if (!Attrs("kwargs", x.kwargs(), y.kwargs(), a.get(), b.get())) return false;
        if (!Attrs("attrs", x.attrs(), y.attrs(), a.get(), b.get())) return false;
        Path p(this, "type");
        return Type(x.type(), y.type());
      }
      case NodeKind::kMakeTuple:
        // The type is derived from the elements.
        return Exprs("elements", static_cast<const MakeTuple&>(*a).elements(),
                     static_cast<const MakeTuple&>(*b).elements(), a.get(), b.get());
      case NodeKind::kTupleGetItem: {
        const auto& x = static_cast<const TupleGetItem&>(*a);
        const auto& y = static_cast<const TupleGetItem&>(*b);
        if (x.index() != y.index()) {
          return Fail(a.get(), b.get(), StrCat("tuple index ", x.index(), " vs ", y.index()));
        }
        {
          Path p(this, "tuple");
          if (!Expr(x.tuple(), y.tuple())) return false;
        }
        Path p(this, "type");
        return Type(x.type(), y.type());
      }
      case NodeKind::kCast: {
        const auto& x = static_cast<const Cast&>(*a);
        const auto& y = static_cast<const Cast&>(*b);
        if (x.dtype() != y.dtype()) {
          return Fail(a.get(), b.get(),
                      StrCat("cast to ", DataTypeName(x.dtype()), " vs ", DataTypeName(y.dtype())));
        }
        Path p(this, "value");
        return Expr(x.value(), y.value());
      }
      default:
        return true;
    }
  }

  bool Type(const TypePtr& a, const TypePtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    if (a->kind() != b->kind()) return KindMismatch(a.get(), b.get());
    switch (a->kind()) {
      case NodeKind::kScalarType: {
        DataType x = static_cast<const ScalarType&>(*a).dtype();
        DataType y = static_cast<const ScalarType&>(*b).dtype();
        if (x != y) {
          return Fail(a.get(), b.get(),
                      StrCat("scalar dtype ", DataTypeName(x), " vs ", DataTypeName(y)));
        }
        return true;
      }
      case NodeKind::kTensorType:
        return TensorFields(static_cast<const TensorType&>(*a), static_cast<const TensorType&>(*b));
      case NodeKind::kDistributedTensorType: {
        const auto& x = static_cast<const DistributedTensorType&>(*a);
        const auto& y = static_cast<const DistributedTensorType&>(*b);
        if (!TensorFields(x, y)) return false;
        Path p(this, "window_buffer");
        return OptionalExpr(x.window_buffer(), y.window_buffer(), a.get(), b.get());
      }
      case NodeKind::kTileType: {
        const auto& x = static_cast<const TileType&>(*a);
        const auto& y = static_cast<const TileType&>(*b);
        if (!ShapedFields(x, y)) return false;
        // The space a tile lives in (its MemRef's names it once it has one, and
        // the printer then leaves the type's own out).
        if (x.Space() != y.Space()) {
          auto name = [](const TileType& t) {
            return t.Space() ? std::string(MemorySpacePyptoName(*t.Space()))
                             : std::string("unset");
          };
          return Fail(a.get(), b.get(), StrCat("tile memory space ", name(x), " vs ", name(y)));
        }
        return Exprs("valid_shape", x.valid_shape(), y.valid_shape(), a.get(), b.get());
      }
      case NodeKind::kArrayType: {
        const auto& x = static_cast<const ArrayType&>(*a);
        const auto& y = static_cast<const ArrayType&>(*b);
        if (x.dtype() != y.dtype()) {
          return Fail(a.get(), b.get(),
                      StrCat("array dtype ", DataTypeName(x.dtype()), " vs ", DataTypeName(y.dtype())));
        }
        Path p(this, "extent");
        return Expr(x.extent(), y.extent());
      }
      case NodeKind::kTupleType:
        return Types("types", static_cast<const TupleType&>(*a).types(),
                     static_cast<const TupleType&>(*b).types(), a.get(), b.get());
      default:
        return true;  // Singletons: the kind is everything.
    }
  }

  std::optional<std::string> TakeDiff() { return std::move(diff_); }

 private:
  // RAII path element for diff messages.
  class Path {
   public:
    Path(Comparer* c, const char* field, size_t index = kNoIndex, const std::string* key = nullptr)
        : c_(c) {
      c_->path_.push_back({field, index, key});
    }
    ~Path() { c_->path_.pop_back(); }
    Path(const Path&) = delete;
    Path& operator=(const Path&) = delete;

   private:
    Comparer* c_;
  };
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  struct PathEntry {
    const char* field;
    size_t index;
    const std::string* key;
  };

  void ResetVars() {
    lhs_to_rhs_.clear();
    rhs_to_lhs_.clear();
  }

  std::string PathString() const {
    std::string out;
    for (const PathEntry& e : path_) {
      if (!out.empty()) out += '.';
      out += e.field;
      if (e.index != kNoIndex) StrAppend(&out, "[", e.index, "]");
      if (e.key != nullptr) StrAppend(&out, "['", *e.key, "']");
    }
    return out.empty() ? "<root>" : out;
  }

  bool Fail(const Node* a, const Node* b, std::string what) {
    if (diff_.has_value()) return false;
    std::string msg = StrCat(PathString(), ": ", what);
    if (func_a_ != nullptr && func_b_ != nullptr) {
      StrAppend(&msg, " (in function '", func_a_->name(), "' vs '", func_b_->name(), "')");
    }
    bool ka = a != nullptr && a->span().known();
    bool kb = b != nullptr && b->span().known();
    if (ka || kb) {
      StrAppend(&msg, " [", ka ? a->span().ToString() : "<unknown>", " vs ",
                kb ? b->span().ToString() : "<unknown>", "]");
    }
    diff_ = std::move(msg);
    return false;
  }

  bool NullCheck(const Node* a, const Node* b) {
    if (a == nullptr && b == nullptr) return true;
    return Fail(a, b,
                StrCat(a == nullptr ? "null" : KindName(a->kind()), " vs ",
                       b == nullptr ? "null" : KindName(b->kind())));
  }

  bool KindMismatch(const Node* a, const Node* b) {
    return Fail(a, b, StrCat(KindName(a->kind()), " vs ", KindName(b->kind())));
  }

  template <typename P>
  bool SizeMismatch(const char* field, size_t x, size_t y, const P& a, const P& b) {
    return Fail(a.get(), b.get(), StrCat(field, ": ", x, " vs ", y, " elements"));
  }

  bool Exprs(const char* field, const std::vector<ExprPtr>& x, const std::vector<ExprPtr>& y,
             const Node* a, const Node* b) {
    if (x.size() != y.size()) {
      return Fail(a, b, StrCat(field, ": ", x.size(), " vs ", y.size(), " elements"));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      Path p(this, field, i);
      if (!Expr(x[i], y[i])) return false;
    }
    return true;
  }

  bool Types(const char* field, const std::vector<TypePtr>& x, const std::vector<TypePtr>& y,
             const Node* a, const Node* b) {
    if (x.size() != y.size()) {
      return Fail(a, b, StrCat(field, ": ", x.size(), " vs ", y.size(), " elements"));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      Path p(this, field, i);
      if (!Type(x[i], y[i])) return false;
    }
    return true;
  }

  template <typename P>
  bool OptionalExpr(const std::optional<P>& x, const std::optional<P>& y, const Node* a,
                    const Node* b) {
    if (x.has_value() != y.has_value()) {
      return Fail(a, b, x.has_value() ? "present vs absent" : "absent vs present");
    }
    return !x.has_value() || Expr(*x, *y);
  }

  bool ShapedFields(const ShapedType& x, const ShapedType& y) {
    if (x.dtype() != y.dtype()) {
      return Fail(&x, &y,
                  StrCat("dtype ", DataTypeName(x.dtype()), " vs ", DataTypeName(y.dtype())));
    }
    if (!Exprs("shape", x.shape(), y.shape(), &x, &y)) return false;
    Path p(this, "memref");
    return OptionalExpr(x.memref(), y.memref(), &x, &y);
  }

  bool TensorFields(const TensorType& x, const TensorType& y) {
    if (!ShapedFields(x, y)) return false;
    const auto& vx = x.tensor_view();
    const auto& vy = y.tensor_view();
    if (vx.has_value() != vy.has_value()) {
      return Fail(&x, &y, vx.has_value() ? "tensor view vs none" : "no tensor view vs one");
    }
    if (!vx.has_value()) return true;
    Path p(this, "tensor_view");
    if (vx->layout != vy->layout) {
      return Fail(
          &x, &y,
          StrCat("layout ", TensorLayoutName(vx->layout), " vs ", TensorLayoutName(vy->layout)));
    }
    if (vx->pad != vy->pad) {
      return Fail(&x, &y, StrCat("pad ", PadValueName(vx->pad), " vs ", PadValueName(vy->pad)));
    }
    if (!Exprs("stride", vx->stride, vy->stride, &x, &y)) return false;
    return Exprs("valid_shape", vx->valid_shape, vy->valid_shape, &x, &y);
  }

  bool Attrs(const char* field, const AttrList& x, const AttrList& y, const Node* a,
             const Node* b) {
    if (x.size() != y.size()) {
      return Fail(a, b, StrCat(field, ": ", x.size(), " vs ", y.size(), " entries"));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      const auto& [kx, vx] = x[i];
      const auto& [ky, vy] = y[i];
      if (kx != ky) {
        Path p(this, field, i);
        return Fail(a, b, StrCat("key '", kx, "' vs '", ky, "'"));
      }
      Path p(this, field, kNoIndex, &kx);
      if (vx.index() != vy.index()) return Fail(a, b, "values of different kinds");
      if (const auto* ex = std::get_if<ExprPtr>(&vx)) {
        if (!Expr(*ex, std::get<ExprPtr>(vy))) return false;
      } else if (const auto* esx = std::get_if<std::vector<ExprPtr>>(&vx)) {
        if (!Exprs("elements", *esx, std::get<std::vector<ExprPtr>>(vy), a, b)) return false;
      } else if (const auto* dx = std::get_if<double>(&vx)) {
        if (!SameDouble(*dx, std::get<double>(vy))) {
          return Fail(a, b, StrCat("value ", *dx, " vs ", std::get<double>(vy)));
        }
      } else if (vx != vy) {
        return Fail(a, b, "values differ");
      }
    }
    return true;
  }

  // Kind and fields of a var pair, compared at its definition or first sight.
  bool VarFields(const VarPtr& a, const VarPtr& b) {
    if (a->kind() != b->kind()) return KindMismatch(a.get(), b.get());
    switch (a->kind()) {
      case NodeKind::kMemRef: {
        const auto& x = static_cast<const MemRef&>(*a);
        const auto& y = static_cast<const MemRef&>(*b);
        if (x.memory_space() != y.memory_space() || x.size() != y.size() || x.id() != y.id()) {
          return Fail(a.get(), b.get(),
                      StrCat("MemRef (", MemorySpaceName(x.memory_space()), ", size ", x.size(),
                             ", id ", x.id(), ") vs (", MemorySpaceName(y.memory_space()),
                             ", size ", y.size(), ", id ", y.id(), ")"));
        }
        Path p(this, "addr");
        return Expr(x.addr(), y.addr());
      }
      case NodeKind::kWindowBuffer: {
        const auto& x = static_cast<const WindowBuffer&>(*a);
        const auto& y = static_cast<const WindowBuffer&>(*b);
        if (x.load_from_host() != y.load_from_host() || x.store_to_host() != y.store_to_host()) {
          return Fail(a.get(), b.get(), "WindowBuffer host staging flags differ");
        }
        {
          Path p(this, "base");
          if (!Expr(x.base(), y.base())) return false;
        }
        Path p(this, "size");
        return Expr(x.size(), y.size());
      }
      case NodeKind::kIterArg: {
        {
          Path p(this, "type");
          if (!Type(a->type(), b->type())) return false;
        }
        Path p(this, "init_value");
        return Expr(static_cast<const IterArg&>(*a).init_value(),
                    static_cast<const IterArg&>(*b).init_value());
      }
      default: {
        Path p(this, "type");
        return Type(a->type(), b->type());
      }
    }
  }

  // Binds a to b, or checks an existing binding of either side.
  bool Bind(const VarPtr& a, const VarPtr& b) {
    auto ia = lhs_to_rhs_.find(a.get());
    auto ib = rhs_to_lhs_.find(b.get());
    if (ia == lhs_to_rhs_.end() && ib == rhs_to_lhs_.end()) {
      lhs_to_rhs_.emplace(a.get(), b.get());
      rhs_to_lhs_.emplace(b.get(), a.get());
      return true;
    }
    if (ia != lhs_to_rhs_.end() && ia->second == b.get()) return true;
    if (ia != lhs_to_rhs_.end()) {
      return Fail(a.get(), b.get(),
                  StrCat("'", a->name_hint(), "' corresponds to '", ia->second->name_hint(),
                         "' earlier but to '", b->name_hint(), "' here"));
    }
    return Fail(a.get(), b.get(),
                StrCat("'", b->name_hint(), "' corresponds to '", ib->second->name_hint(),
                       "' earlier but to '", a->name_hint(), "' here"));
  }

  bool VarDef(const VarPtr& a, const VarPtr& b) {
    if (a == nullptr || b == nullptr) return NullCheck(a.get(), b.get());
    return VarFields(a, b) && Bind(a, b);
  }

  bool VarUse(const VarPtr& a, const VarPtr& b) {
    if (lhs_to_rhs_.contains(a.get()) || rhs_to_lhs_.contains(b.get())) return Bind(a, b);
    return VarFields(a, b) && Bind(a, b);  // A free var: bind on first sight.
  }

  bool VarDefs(const char* field, const std::vector<VarPtr>& x, const std::vector<VarPtr>& y,
               const Node* a, const Node* b) {
    if (x.size() != y.size()) {
      return Fail(a, b, StrCat(field, ": ", x.size(), " vs ", y.size(), " elements"));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      Path p(this, field, i);
      if (!VarDef(x[i], y[i])) return false;
    }
    return true;
  }

  bool IterArgs(const std::vector<IterArgPtr>& x, const std::vector<IterArgPtr>& y, const Node* a,
                const Node* b) {
    if (x.size() != y.size()) {
      return Fail(a, b, StrCat("iter_args: ", x.size(), " vs ", y.size(), " elements"));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      Path p(this, "iter_args", i);
      if (!VarDef(x[i], y[i])) return false;
    }
    return true;
  }

  absl::flat_hash_map<const Var*, const Var*> lhs_to_rhs_;
  absl::flat_hash_map<const Var*, const Var*> rhs_to_lhs_;
  std::vector<PathEntry> path_;
  const ir::Function* func_a_ = nullptr;
  const ir::Function* func_b_ = nullptr;
  std::optional<std::string> diff_;
};

}  // namespace

bool StructuralEqual(const ProgramPtr& a, const ProgramPtr& b) { return Comparer().Program(a, b); }
bool StructuralEqual(const FunctionPtr& a, const FunctionPtr& b) {
  return Comparer().Function(a, b);
}
bool StructuralEqual(const StmtPtr& a, const StmtPtr& b) { return Comparer().Stmt(a, b); }
bool StructuralEqual(const ExprPtr& a, const ExprPtr& b) { return Comparer().Expr(a, b); }
bool StructuralEqual(const TypePtr& a, const TypePtr& b) { return Comparer().Type(a, b); }

std::optional<std::string> StructuralDiff(const ProgramPtr& a, const ProgramPtr& b) {
  Comparer c;
  c.Program(a, b);
  return c.TakeDiff();
}
std::optional<std::string> StructuralDiff(const FunctionPtr& a, const FunctionPtr& b) {
  Comparer c;
  c.Function(a, b);
  return c.TakeDiff();
}
std::optional<std::string> StructuralDiff(const StmtPtr& a, const StmtPtr& b) {
  Comparer c;
  c.Stmt(a, b);
  return c.TakeDiff();
}
std::optional<std::string> StructuralDiff(const ExprPtr& a, const ExprPtr& b) {
  Comparer c;
  c.Expr(a, b);
  return c.TakeDiff();
}
std::optional<std::string> StructuralDiff(const TypePtr& a, const TypePtr& b) {
  Comparer c;
  c.Type(a, b);
  return c.TakeDiff();
}

}  // namespace pto::ir
