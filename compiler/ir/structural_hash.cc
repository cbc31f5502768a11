#include "compiler/ir/structural_hash.h"

#include <cstring>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace pto::ir {
namespace {

// Fixed mixing (not absl::Hash, which is seeded per process) so hashes are
// reproducible across runs, e.g. in golden files.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashString(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return Mix(h);
}

uint64_t HashDouble(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));  // Bitwise, as StructuralEqual compares.
  return Mix(bits);
}

// Mirrors the traversal order of StructuralEqual's Comparer exactly: vars get
// their index at the point where the comparer binds them.
class Hasher {
 public:
  void Add(uint64_t v) { h_ = Mix(h_ ^ Mix(v)) + 0x632be59bd9b4e019ULL; }
  void AddKind(NodeKind k) { Add(static_cast<uint64_t>(k) + 1000); }
  uint64_t value() const { return h_; }

  void Program(const ProgramPtr& p) {
    if (p == nullptr) return Add(0);
    Add(p->functions().size());
    for (const auto& [gv, func] : p->functions()) {
      var_index_.clear();
      next_index_ = 0;
      Function(func);
    }
  }

  void Function(const FunctionPtr& f) {
    if (f == nullptr) return Add(0);
    AddKind(NodeKind::kFunction);
    Add(f->params().size());
    for (const VarPtr& v : f->params()) VarDef(v);
    for (ParamDirection d : f->param_directions()) Add(static_cast<uint64_t>(d));
    Add(f->return_types().size());
    for (const TypePtr& t : f->return_types()) Type(t);
    Add(static_cast<uint64_t>(f->func_type()));
    Add(f->level().has_value() ? static_cast<uint64_t>(*f->level()) + 1 : 0);
    Add(f->role().has_value() ? static_cast<uint64_t>(*f->role()) + 1 : 0);
    Add(f->requires_runtime_binding());
    Attrs(f->attrs());
    Stmt(f->body());
  }

  void Stmt(const StmtPtr& s) {
    if (s == nullptr) return Add(0);
    AddKind(s->kind());
    switch (s->kind()) {
      case NodeKind::kAssignStmt: {
        const auto& x = static_cast<const AssignStmt&>(*s);
        Expr(x.value());
        VarDef(x.var());
        return;
      }
      case NodeKind::kEvalStmt:
        return Expr(static_cast<const EvalStmt&>(*s).expr());
      case NodeKind::kReturnStmt:
        return Exprs(static_cast<const ReturnStmt&>(*s).value());
      case NodeKind::kYieldStmt:
        return Exprs(static_cast<const YieldStmt&>(*s).value());
      case NodeKind::kSeqStmts: {
        const auto& stmts = static_cast<const SeqStmts&>(*s).stmts();
        Add(stmts.size());
        for (const StmtPtr& c : stmts) Stmt(c);
        return;
      }
      case NodeKind::kIfStmt: {
        const auto& x = static_cast<const IfStmt&>(*s);
        Expr(x.condition());
        Stmt(x.then_body());
        Add(x.else_body().has_value());
        if (x.else_body().has_value()) Stmt(*x.else_body());
        VarDefs(x.return_vars());
        return;
      }
      case NodeKind::kForStmt: {
        const auto& x = static_cast<const ForStmt&>(*s);
        Add(static_cast<uint64_t>(x.for_kind()));
        Expr(x.start());
        Expr(x.stop());
        Expr(x.step());
        Attrs(x.attrs());
        VarDef(x.loop_var());
        Add(x.iter_args().size());
        for (const IterArgPtr& ia : x.iter_args()) VarDef(ia);
        Stmt(x.body());
        VarDefs(x.return_vars());
        return;
      }
      case NodeKind::kWhileStmt: {
        const auto& x = static_cast<const WhileStmt&>(*s);
        Add(x.iter_args().size());
        for (const IterArgPtr& ia : x.iter_args()) VarDef(ia);
        Expr(x.condition());
        Stmt(x.body());
        VarDefs(x.return_vars());
        return;
      }
      case NodeKind::kCommDomainScopeStmt: {
        const auto& x = static_cast<const CommDomainScopeStmt&>(*s);
        Add(HashString(x.name_hint()));
        Add(x.devices().size());
        for (int64_t d : x.devices()) Add(static_cast<uint64_t>(d));
        Add(x.slots().size());
        for (const WindowBufferPtr& w : x.slots()) Expr(w);
        Attrs(x.attrs());
        return Stmt(x.body());
      }
      case NodeKind::kRuntimeScopeStmt: {
        const auto& x = static_cast<const RuntimeScopeStmt&>(*s);
        Add(HashString(x.name_hint()));
        Add(x.manual());
        Attrs(x.attrs());
        return Stmt(x.body());
      }
      case NodeKind::kExecScopeStmt: {
        const auto& x = static_cast<const ExecScopeStmt&>(*s);
        Add(static_cast<uint64_t>(x.GetScopeKind()));
        Add(HashString(x.name_hint()));
        Add(x.level() ? static_cast<uint64_t>(*x.level()) + 1 : 0);
        Add(x.role() ? static_cast<uint64_t>(*x.role()) + 1 : 0);
        Add(x.sync_start());
        if (x.core_num() != nullptr) Expr(x.core_num());
        Attrs(x.attrs());
        return Stmt(x.body());
      }
      default:
        return;
    }
  }

  void Expr(const ExprPtr& e) {
    if (e == nullptr) return Add(0);
    AddKind(e->kind());
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg:
      case NodeKind::kMemRef:
      case NodeKind::kWindowBuffer:
        return VarUse(std::static_pointer_cast<const Var>(e));
      case NodeKind::kOp:
      case NodeKind::kGlobalVar:
        return Add(HashString(static_cast<const Op&>(*e).name()));
      case NodeKind::kConstInt: {
        const auto& x = static_cast<const ConstInt&>(*e);
        Add(static_cast<uint64_t>(x.value()));
        return Add(static_cast<uint64_t>(x.dtype()));
      }
      case NodeKind::kConstFloat: {
        const auto& x = static_cast<const ConstFloat&>(*e);
        Add(HashDouble(x.value()));
        return Add(static_cast<uint64_t>(x.dtype()));
      }
      case NodeKind::kConstBool:
        return Add(static_cast<const ConstBool&>(*e).value());
      case NodeKind::kConstString:
        return Add(HashString(static_cast<const ConstString&>(*e).value()));
      case NodeKind::kDynDim:
        return Add(HashString(static_cast<const DynDim&>(*e).name()));
      case NodeKind::kBinaryExpr: {
        const auto& x = static_cast<const BinaryExpr&>(*e);
        Add(static_cast<uint64_t>(x.op()));
        Expr(x.lhs());
        Expr(x.rhs());
        return Type(x.type());
      }
      case NodeKind::kUnaryExpr: {
        const auto& x = static_cast<const UnaryExpr&>(*e);
        Add(static_cast<uint64_t>(x.op()));
        Expr(x.operand());
        return Type(x.type());
      }
      case NodeKind::kCall: {
        const auto& x = static_cast<const Call&>(*e);
        Expr(x.op());
        Exprs(x.args());
        Attrs(x.kwargs());
        Attrs(x.attrs());
        return Type(x.type());
      }
      case NodeKind::kMakeTuple:
        return Exprs(static_cast<const MakeTuple&>(*e).elements());
      case NodeKind::kTupleGetItem: {
        const auto& x = static_cast<const TupleGetItem&>(*e);
        Add(static_cast<uint64_t>(x.index()));
        Expr(x.tuple());
        return Type(x.type());
      }
      case NodeKind::kCast: {
        const auto& x = static_cast<const Cast&>(*e);
        Add(static_cast<uint64_t>(x.dtype()));
        return Expr(x.value());
      }
      default:
        return;
    }
  }

  void Type(const TypePtr& t) {
    if (t == nullptr) return Add(0);
    AddKind(t->kind());
    switch (t->kind()) {
      case NodeKind::kScalarType:
        return Add(static_cast<uint64_t>(static_cast<const ScalarType&>(*t).dtype()));
      case NodeKind::kTensorType:
        return TensorFields(static_cast<const TensorType&>(*t));
      case NodeKind::kDistributedTensorType: {
        const auto& x = static_cast<const DistributedTensorType&>(*t);
        TensorFields(x);
        Add(x.window_buffer().has_value());
        if (x.window_buffer().has_value()) Expr(*x.window_buffer());
        return;
      }
      case NodeKind::kTileType: {
        const auto& x = static_cast<const TileType&>(*t);
        ShapedFields(x);
        Add(x.Space() ? 1 + static_cast<uint64_t>(*x.Space()) : 0);
        return Exprs(x.valid_shape());
      }
      case NodeKind::kArrayType: {
        const auto& x = static_cast<const ArrayType&>(*t);
        Add(static_cast<uint64_t>(x.dtype()));
        return Expr(x.extent());
      }
      case NodeKind::kTupleType: {
        const auto& types = static_cast<const TupleType&>(*t).types();
        Add(types.size());
        for (const TypePtr& c : types) Type(c);
        return;
      }
      default:
        return;
    }
  }

 private:
  void Exprs(const std::vector<ExprPtr>& es) {
    Add(es.size());
    for (const ExprPtr& e : es) Expr(e);
  }

  void ShapedFields(const ShapedType& x) {
    Add(static_cast<uint64_t>(x.dtype()));
    Exprs(x.shape());
    Add(x.memref().has_value());
    if (x.memref().has_value()) Expr(*x.memref());
  }

  void TensorFields(const TensorType& x) {
    ShapedFields(x);
    const auto& v = x.tensor_view();
    Add(v.has_value());
    if (!v.has_value()) return;
    Add(static_cast<uint64_t>(v->layout));
    Add(static_cast<uint64_t>(v->pad));
    Exprs(v->stride);
    Exprs(v->valid_shape);
  }

  void Attrs(const AttrList& attrs) {
    Add(attrs.size());
    for (const auto& [key, value] : attrs) {
      Add(HashString(key));
      Add(value.index());
      std::visit(
          [this](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, ExprPtr>) {
              Expr(v);
            } else if constexpr (std::is_same_v<T, std::vector<ExprPtr>>) {
              Exprs(v);
            } else if constexpr (std::is_same_v<T, double>) {
              Add(HashDouble(v));
            } else if constexpr (std::is_same_v<T, std::string>) {
              Add(HashString(v));
            } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
              Add(v.size());
              for (int64_t i : v) Add(static_cast<uint64_t>(i));
            } else if constexpr (std::is_same_v<T, std::vector<ArgDirection>>) {
              Add(v.size());
              for (ArgDirection d : v) Add(static_cast<uint64_t>(d));
            } else {
              Add(static_cast<uint64_t>(v));  // bool, int64_t, DataType
            }
          },
          value);
    }
  }

  void VarFields(const VarPtr& v) {
    switch (v->kind()) {
      case NodeKind::kMemRef: {
        const auto& x = static_cast<const MemRef&>(*v);
        Add(static_cast<uint64_t>(x.memory_space()));
        Add(static_cast<uint64_t>(x.size()));
        Add(static_cast<uint64_t>(x.id()));
        return Expr(x.addr());
      }
      case NodeKind::kWindowBuffer: {
        const auto& x = static_cast<const WindowBuffer&>(*v);
        Add(x.load_from_host());
        Add(x.store_to_host());
        Expr(x.base());
        return Expr(x.size());
      }
      case NodeKind::kIterArg:
        Type(v->type());
        return Expr(static_cast<const IterArg&>(*v).init_value());
      default:
        return Type(v->type());
    }
  }

  uint64_t IndexOf(const Var* v) {
    auto [it, inserted] = var_index_.try_emplace(v, next_index_);
    if (inserted) ++next_index_;
    return it->second;
  }

  void VarDef(const VarPtr& v) {
    if (v == nullptr) return Add(0);
    AddKind(v->kind());
    VarFields(v);
    Add(IndexOf(v.get()));
  }

  void VarUse(const VarPtr& v) {
    auto it = var_index_.find(v.get());
    if (it != var_index_.end()) return Add(it->second);
    VarFields(v);  // First sight of a free var.
    Add(IndexOf(v.get()));
  }

  void VarDefs(const std::vector<VarPtr>& vars) {
    Add(vars.size());
    for (const VarPtr& v : vars) VarDef(v);
  }

  uint64_t h_ = 0x2545f4914f6cdd1dULL;
  absl::flat_hash_map<const Var*, uint64_t> var_index_;
  uint64_t next_index_ = 0;
};

}  // namespace

uint64_t StructuralHash(const ProgramPtr& program) {
  Hasher h;
  h.Program(program);
  return h.value();
}
uint64_t StructuralHash(const FunctionPtr& func) {
  Hasher h;
  h.Function(func);
  return h.value();
}
uint64_t StructuralHash(const StmtPtr& stmt) {
  Hasher h;
  h.Stmt(stmt);
  return h.value();
}
uint64_t StructuralHash(const ExprPtr& expr) {
  Hasher h;
  h.Expr(expr);
  return h.value();
}
uint64_t StructuralHash(const TypePtr& type) {
  Hasher h;
  h.Type(type);
  return h.value();
}

}  // namespace pto::ir
