#include "compiler/codegen/kernel_codegen.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/cpp_names.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen {
namespace {

std::optional<std::string> CppType(ir::DataType t) {
  switch (t) {
    case ir::DataType::kBool:
      return "bool";
    case ir::DataType::kInt8:
      return "int8_t";
    case ir::DataType::kInt16:
      return "int16_t";
    case ir::DataType::kInt32:
      return "int32_t";
    case ir::DataType::kInt64:
      return "int64_t";
    case ir::DataType::kUInt8:
      return "uint8_t";
    case ir::DataType::kUInt16:
      return "uint16_t";
    case ir::DataType::kUInt32:
      return "uint32_t";
    case ir::DataType::kUInt64:
      return "uint64_t";
    case ir::DataType::kFP16:
      return "pto::half";
    case ir::DataType::kFP32:
      return "float";
    case ir::DataType::kFP64:
      return "double";
    case ir::DataType::kIndex:
      return "int64_t";
    default:
      return std::nullopt;
  }
}

// The end of the highest UB buffer AllocateMemoryAddr placed: the staging
// boxes code generation adds for an unstaged tensor put or get go above it,
// so they never overlap a tile.
class UbHighWater : public ir::IRVisitor {
 public:
  int64_t end = 0;
  void VisitMemRef(const ir::MemRefPtr& m) override {
    std::optional<int64_t> addr = ir::GetConstInt(m->addr());
    if (m->memory_space() == ir::MemorySpace::kUB && addr && *addr >= 0) {
      end = std::max(end, *addr + m->size());
    }
    ir::IRVisitor::VisitMemRef(m);
  }
};

// The alignment of a staging box: the coarsest UB block of the built-in
// platforms, as AllocateMemoryAddr aligns without a platform.
constexpr int64_t kStageAlign = 32;

// Variables read anywhere in a body but its returns (so unread definitions
// get [[maybe_unused]] and the kernel compiles warning-free).
class UsedVars : public ir::IRVisitor {
 public:
  std::set<const ir::Var*> used;

 protected:
  void VisitVar(const ir::VarPtr& var) override { used.insert(var.get()); }
  void VisitIterArg(const ir::IterArgPtr& var) override { used.insert(var.get()); }
  void VisitReturnStmt(const std::shared_ptr<const ir::ReturnStmt>&) override {}
  void VisitType(const ir::TypePtr&) override {}
};

class Generator {
 public:
  Generator(const ir::ProgramPtr& program, std::string_view function)
      : program_(program), function_(function) {}

  absl::StatusOr<std::string> Run() {
    ir::FunctionPtr fn = program_->GetFunction(function_);
    if (fn == nullptr) {
      return absl::NotFoundError(pto::StrCat("no function '", function_, "' in the program"));
    }
    if (fn->func_type() != ir::FunctionType::kInCore && fn->func_type() != ir::FunctionType::kAIV) {
      return UserErrorF(fn->span(), "'", function_,
                        "' is not an InCore or AIV function, so it has no kernel code");
    }
    UsedVars uses;
    uses.VisitStmt(fn->body());
    used_ = uses.used;
    UbHighWater high;
    high.VisitStmt(fn->body());
    stage_next_ = (high.end + kStageAlign - 1) / kStageAlign * kStageAlign;

    int tensors = 0;
    for (const ir::VarPtr& p : fn->params()) {
      if (ir::AsTensorTypeLike(p->type()) != nullptr) ++tensors;
    }
    std::string params;
    int tensor_index = 0;
    int scalar_index = tensors;
    std::vector<const ir::Var*> windows;
    std::vector<std::string> ctxs;
    for (const ir::VarPtr& p : fn->params()) {
      const std::string name = Fresh(p->name_hint());
      if (auto t = ir::AsTensorTypeLike(p->type())) {
        ASSIGN_OR_RETURN(std::string elem, ElemType(t->dtype(), p->span()));
        pto::StrAppend(&params, "  ", MaybeUnused(p), "const pto::TensorDesc* ", name,
                       " = pto::TensorArg(args, ", tensor_index++, ");\n",
                       "  pto::kernels::internal::CheckTensor(", name, ", ", t->shape().size(),
                       ", sizeof(", elem, "), \"", function_, ": tensor '", p->name_hint(),
                       "' has the wrong rank or dtype\");\n");
        values_[p.get()] = {Kind::kTensor, name, t->dtype()};
        if (ir::Is<ir::DistributedTensorType>(p->type())) windows.push_back(p.get());
      } else if (ir::Is<ir::CommCtxType>(p->type())) {
        pto::StrAppend(&params, "  ", MaybeUnused(p), "const pto::CommContext* ", name,
                       " = reinterpret_cast<const pto::CommContext*>(args[", scalar_index++,
                       "]);\n");
        values_[p.get()] = {Kind::kCtx, name, ir::DataType::kUInt64};
        ctxs.push_back(name);
      } else if (auto s = ir::As<ir::ScalarType>(p->type())) {
        if (ir::IsFloat(s->dtype())) return Unsupported(p->span(), "a floating-point scalar param");
        ASSIGN_OR_RETURN(std::string type, ElemType(s->dtype(), p->span()));
        pto::StrAppend(&params, "  ", MaybeUnused(p), "const ", type, " ", name, " = static_cast<",
                       type, ">(args[", scalar_index++, "]);\n");
        values_[p.get()] = {Kind::kScalar, name, s->dtype()};
      } else {
        return Unsupported(p->span(), "a parameter of this type");
      }
    }
    // MaterializeDistTensorCtx appends one CommCtx param per window param,
    // in param order: the context remote accesses to that window go through.
    if (windows.size() == ctxs.size()) {
      for (size_t i = 0; i < windows.size(); ++i) values_[windows[i]].ctx = ctxs[i];
    }
    top_body_ = fn->body();
    RETURN_IF_ERROR(EmitStmt(fn->body(), 1));

    return pto::StrCat("// Kernel ", function_,
                       ", generated by the PTO compiler.\n"
                       "#include <algorithm>\n"
                       "#include <cstddef>\n"
                       "#include <cstdint>\n\n"
                       "#include \"runtime/device/comm_context.h\"\n"
                       "#include \"runtime/device/device_api.h\"\n"
                       "#include \"runtime/device/kernel_abi.h\"\n"
                       "#include \"runtime/device/kernel_support.h\"\n\n",
                       "namespace pto::kernels {\n\n", "// args: ", tensors,
                       " tensor descriptors, then ", scalar_index - tensors,
                       " scalars, in the order of the params. UB use: ", ub_bytes_,
                       " bytes.\n"
                       "void ",
                       CppIdentifier(function_), "(int64_t* args) {\n", params, body_,
                       "}\n\n"
                       "}  // namespace pto::kernels\n");
  }

 private:
  enum class Kind { kScalar, kTensor, kTile, kCtx };
  struct Value {
    Kind kind;
    std::string name;
    ir::DataType dtype;
    // For a window tensor: the C++ name of its CommContext pointer, if known.
    std::string ctx;
  };

  absl::Status Unsupported(const Span& span, std::string_view construct) {
    return UserErrorF(span, "code generation does not support ", construct, " in a kernel yet");
  }

  absl::StatusOr<std::string> ElemType(ir::DataType t, const Span& span) {
    std::optional<std::string> type = CppType(t);
    if (!type) return Unsupported(span, pto::StrCat("a ", ir::DataTypeName(t), " value"));
    return *type;
  }

  std::string MaybeUnused(const ir::VarPtr& v) const {
    return used_.count(v.get()) != 0 ? "" : "[[maybe_unused]] ";
  }

  // A C++ identifier from `hint`, unique in the kernel.
  std::string Fresh(std::string_view hint) {
    return FreshCppName(hint == "args" ? std::string_view("args_") : hint, &names_);
  }

  static std::string Indent(int n) { return std::string(2 * n, ' '); }

  absl::StatusOr<Value> Lookup(const ir::ExprPtr& e) {
    ir::VarPtr var = ir::As<ir::Var>(e);
    if (var == nullptr) return Unsupported(e->span(), "an inline tensor or tile operand");
    auto it = values_.find(var.get());
    if (it == values_.end()) {
      return InternalErrorF(e->span(), "'", var->name_hint(), "' used before it is bound");
    }
    return it->second;
  }

  absl::StatusOr<Value> LookupKind(const ir::ExprPtr& e, Kind kind, std::string_view what) {
    ASSIGN_OR_RETURN(Value v, Lookup(e));
    if (v.kind != kind) return Unsupported(e->span(), pto::StrCat("a non-", what, " operand here"));
    return v;
  }

  // The C++ type of a variable of type `type`.
  absl::StatusOr<std::string> DeclType(const ir::TypePtr& type, const Span& span) {
    if (ir::AsTensorTypeLike(type) != nullptr) return std::string("const pto::TensorDesc*");
    if (ir::Is<ir::CommCtxType>(type)) return std::string("const pto::CommContext*");
    if (auto t = ir::As<ir::TileType>(type)) {
      ASSIGN_OR_RETURN(std::string elem, ElemType(t->dtype(), span));
      return pto::StrCat("pto::Tile<", elem, ">");
    }
    if (auto s = ir::As<ir::ScalarType>(type)) return ElemType(s->dtype(), span);
    return Unsupported(span, "a variable of this type");
  }

  absl::StatusOr<Kind> KindOf(const ir::TypePtr& type, const Span& span) {
    if (ir::AsTensorTypeLike(type) != nullptr) return Kind::kTensor;
    if (ir::Is<ir::TileType>(type)) return Kind::kTile;
    if (ir::Is<ir::ScalarType>(type)) return Kind::kScalar;
    if (ir::Is<ir::CommCtxType>(type)) return Kind::kCtx;
    return Unsupported(span, "a variable of this type");
  }

  static ir::DataType DTypeOf(const ir::TypePtr& type) {
    if (auto s = ir::As<ir::ScalarType>(type)) return s->dtype();
    if (auto t = ir::As<ir::ShapedType>(type)) return t->dtype();
    return ir::DataType::kIndex;
  }

  // Binds `var` to a new C++ variable (`mut`: not const) and returns its
  // declaration prefix, e.g. "const int32_t x".
  absl::StatusOr<std::string> Declare(const ir::VarPtr& var, bool mut = false) {
    ASSIGN_OR_RETURN(std::string type, DeclType(var->type(), var->span()));
    ASSIGN_OR_RETURN(Kind kind, KindOf(var->type(), var->span()));
    const std::string name = Fresh(var->name_hint());
    values_[var.get()] = {kind, name, DTypeOf(var->type())};
    const bool is_const = !mut && kind == Kind::kScalar;
    return pto::StrCat(MaybeUnused(var), is_const ? "const " : "", type, " ", name);
  }

  // ---------------------------------------------------------------- exprs

  static std::optional<std::string> BinaryToken(ir::BinaryOp op) {
    switch (op) {
      case ir::BinaryOp::kAdd:
        return "+";
      case ir::BinaryOp::kSub:
        return "-";
      case ir::BinaryOp::kMul:
        return "*";
      case ir::BinaryOp::kEq:
        return "==";
      case ir::BinaryOp::kNe:
        return "!=";
      case ir::BinaryOp::kLt:
        return "<";
      case ir::BinaryOp::kLe:
        return "<=";
      case ir::BinaryOp::kGt:
        return ">";
      case ir::BinaryOp::kGe:
        return ">=";
      case ir::BinaryOp::kAnd:
        return "&&";
      case ir::BinaryOp::kOr:
        return "||";
      case ir::BinaryOp::kBitAnd:
        return "&";
      case ir::BinaryOp::kBitOr:
        return "|";
      case ir::BinaryOp::kBitXor:
        return "^";
      case ir::BinaryOp::kShl:
        return "<<";
      case ir::BinaryOp::kShr:
        return ">>";
      default:
        return std::nullopt;
    }
  }

  absl::StatusOr<std::string> Scalar(const ir::ExprPtr& e) {
    if (auto c = ir::As<ir::ConstInt>(e)) {
      if (c->dtype() == ir::DataType::kIndex) return pto::StrCat(c->value());
      ASSIGN_OR_RETURN(std::string type, ElemType(c->dtype(), e->span()));
      return pto::StrCat(type, "{", c->value(), "}");
    }
    if (auto c = ir::As<ir::ConstFloat>(e)) {
      ASSIGN_OR_RETURN(std::string type, ElemType(c->dtype(), e->span()));
      return pto::StrCat("static_cast<", type, ">(", c->value(), ")");
    }
    if (auto c = ir::As<ir::ConstBool>(e)) return std::string(c->value() ? "true" : "false");
    if (auto call = ir::As<ir::Call>(e);
        call != nullptr && call->op()->name() == "pl.tensor.read" && call->args().size() == 2) {
      // A GM read inline, so a while condition re-reads it on every test.
      return ReadExpr(call);
    }
    if (ir::Is<ir::Var>(e)) {
      ASSIGN_OR_RETURN(Value v, LookupKind(e, Kind::kScalar, "scalar"));
      return v.name;
    }
    if (auto c = ir::As<ir::Cast>(e)) {
      ASSIGN_OR_RETURN(std::string type, ElemType(c->dtype(), e->span()));
      ASSIGN_OR_RETURN(std::string v, Scalar(c->value()));
      return pto::StrCat("static_cast<", type, ">(", v, ")");
    }
    if (auto u = ir::As<ir::UnaryExpr>(e)) {
      ASSIGN_OR_RETURN(std::string v, Scalar(u->operand()));
      switch (u->op()) {
        case ir::UnaryOp::kNeg:
          return pto::StrCat("-(", v, ")");
        case ir::UnaryOp::kNot:
          return pto::StrCat("!(", v, ")");
        case ir::UnaryOp::kBitNot:
          return pto::StrCat("~(", v, ")");
        case ir::UnaryOp::kAbs:
          return Unsupported(e->span(), "abs");
      }
    }
    if (auto b = ir::As<ir::BinaryExpr>(e)) {
      ASSIGN_OR_RETURN(std::string lhs, Scalar(b->lhs()));
      ASSIGN_OR_RETURN(std::string rhs, Scalar(b->rhs()));
      if (std::optional<std::string> tok = BinaryToken(b->op())) {
        return pto::StrCat("(", lhs, " ", *tok, " ", rhs, ")");
      }
      // The rest compute in the result type.
      ASSIGN_OR_RETURN(std::string type, ElemType(DTypeOf(e->type()), e->span()));
      const std::string l = pto::StrCat("static_cast<", type, ">(", lhs, ")");
      const std::string r = pto::StrCat("static_cast<", type, ">(", rhs, ")");
      const bool integral = ir::IsIntegral(DTypeOf(e->type()));
      switch (b->op()) {
        case ir::BinaryOp::kMin:
          return pto::StrCat("std::min(", l, ", ", r, ")");
        case ir::BinaryOp::kMax:
          return pto::StrCat("std::max(", l, ", ", r, ")");
        case ir::BinaryOp::kFloorDiv:
          if (integral) return pto::StrCat("pto::kernels::internal::FloorDiv(", l, ", ", r, ")");
          break;
        case ir::BinaryOp::kFloorMod:
          if (integral) return pto::StrCat("pto::kernels::internal::FloorMod(", l, ", ", r, ")");
          break;
        case ir::BinaryOp::kDiv:
          if (!integral) return pto::StrCat("(", l, " / ", r, ")");
          break;
        default:
          break;
      }
      return Unsupported(e->span(), "this scalar operator");
    }
    return Unsupported(e->span(), "this expression");
  }

  // pl.tensor.read(t, idx) as a C++ expression.
  absl::StatusOr<std::string> ReadExpr(const ir::CallPtr& call) {
    ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTensor, "tensor"));
    ASSIGN_OR_RETURN(std::string idx, IndexList(call->args()[1]));
    ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, call->span()));
    return pto::StrCat("pto::kernels::internal::ReadElement<", elem, ">(", t.name, ", ", idx, ")");
  }

  // `{a, b, ...}` of int64_t indices from a MakeTuple.
  absl::StatusOr<std::string> IndexList(const ir::ExprPtr& e) {
    auto tuple = ir::As<ir::MakeTuple>(e);
    if (tuple == nullptr) return Unsupported(e->span(), "a non-literal index list");
    std::string out = "{";
    for (size_t i = 0; i < tuple->elements().size(); ++i) {
      const ir::ExprPtr& x = tuple->elements()[i];
      ASSIGN_OR_RETURN(std::string v, Scalar(x));
      const ir::DataType t = DTypeOf(x->type());
      const bool plain = ir::Is<ir::ConstInt>(x) || t == ir::DataType::kIndex ||
                         t == ir::DataType::kInt64 || t == ir::DataType::kInt32 ||
                         t == ir::DataType::kInt16 || t == ir::DataType::kInt8;
      pto::StrAppend(&out, i ? ", " : "", plain ? v : pto::StrCat("static_cast<int64_t>(", v, ")"));
    }
    return out + "}";
  }

  // The element count of a tile type with constant dims, and `{d0, d1, ...}`.
  absl::StatusOr<std::pair<int64_t, std::string>> TileShape(const ir::TypePtr& type,
                                                            const Span& span) {
    auto tile = ir::As<ir::TileType>(type);
    if (tile == nullptr) return Unsupported(span, "a non-tile operand here");
    int64_t count = 1;
    std::string dims = "{";
    for (size_t i = 0; i < tile->shape().size(); ++i) {
      std::optional<int64_t> d = ir::GetConstInt(tile->shape()[i]);
      if (!d) return Unsupported(span, "a tile with a non-constant shape");
      count *= *d;
      pto::StrAppend(&dims, i ? ", " : "", *d);
    }
    return std::make_pair(count, dims + "}");
  }

  // The GM box of a tile at `offsets`: the tile's dims, with leading 1s when
  // the offsets address a tensor of higher rank (PyPTO's `pl.store(row,
  // [0, j, 0], out)` of a [1, SIZE] row into a [1, NR, SIZE] tensor).
  // A tile with a valid_shape (PyPTO's partial tile) moves only that box,
  // each row at the tile's full row pitch (ValidRowPitch).
  absl::StatusOr<std::string> BoxShape(const ir::TypePtr& type, const ir::ExprPtr& offsets,
                                       const Span& span) {
    ASSIGN_OR_RETURN(auto shape, TileShape(type, span));
    auto tile = ir::As<ir::TileType>(type);
    if (!tile->valid_shape().empty()) {
      std::string dims = "{";
      for (size_t i = 0; i < tile->valid_shape().size(); ++i) {
        const ir::ExprPtr& v = tile->valid_shape()[i];
        ASSIGN_OR_RETURN(std::string d, Scalar(v));
        pto::StrAppend(&dims, i ? ", " : "",
                       ir::Is<ir::ConstInt>(v) ? d : pto::StrCat("static_cast<int64_t>(", d, ")"));
      }
      shape.second = dims + "}";
    }
    auto tuple = ir::As<ir::MakeTuple>(offsets);
    const size_t rank = tile->shape().size();
    if (tuple == nullptr || tuple->elements().size() <= rank) return shape.second;
    std::string dims = "{";
    for (size_t i = rank; i < tuple->elements().size(); ++i) pto::StrAppend(&dims, "1, ");
    return dims + shape.second.substr(1);
  }

  // `, pitch` for CopyBox when the tile has a valid_shape: its full innermost
  // dim, the UB distance between the box's rows.
  std::string ValidRowPitch(const ir::TypePtr& type) {
    auto tile = ir::As<ir::TileType>(type);
    if (tile == nullptr || tile->valid_shape().empty() || tile->shape().empty()) return "";
    std::optional<int64_t> d = ir::GetConstInt(tile->shape().back());
    return d.has_value() ? pto::StrCat(", ", *d) : "";
  }

  // ---------------------------------------------------------------- stmts

  // A tile-valued assignment: `var` at the UB address AllocateMemoryAddr
  // gave its MemRef.
  absl::StatusOr<std::string> NewTile(const ir::VarPtr& var, int indent) {
    ASSIGN_OR_RETURN(auto shape, TileShape(var->type(), var->span()));
    ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), var->span()));
    auto tile = ir::As<ir::TileType>(var->type());
    std::optional<int64_t> addr;
    if (tile->memref().has_value() && *tile->memref() != nullptr) {
      addr = ir::GetConstInt((*tile->memref())->addr());
    }
    if (!addr || *addr < 0) {
      return UserErrorF(var->span(), "code generation needs a UB address for tile '",
                        var->name_hint(),
                        "': run InitMemRef, MemoryReuse and AllocateMemoryAddr (the default "
                        "pipeline) first");
    }
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    const int64_t bytes = shape.first * ir::DataTypeBytes(DTypeOf(var->type()));
    ub_bytes_ = std::max(ub_bytes_, *addr + bytes);
    pto::StrAppend(&body_, Indent(indent), decl, " = pto::TASSIGN<", elem, ">(", *addr, ", ",
                   shape.first, ");\n");
    return values_[var.get()].name;
  }

  absl::Status EmitCallAssign(const ir::VarPtr& var, const ir::CallPtr& call, int indent) {
    // PyPTO's tile-with-scalar operators (pl.add(tile, 1.0) resolves to
    // pl.tile.adds) are the scalar branch of the binary operators below.
    const std::string& name = call->op()->name();
    const bool scalar_form =
        (name == "pl.tile.adds" || name == "pl.tile.subs" || name == "pl.tile.muls" ||
         name == "pl.tile.maximums" || name == "pl.tile.minimums") &&
        call->args().size() == 2 && ir::Is<ir::ScalarType>(call->args()[1]->type());
    const std::string op = scalar_form ? name.substr(0, name.size() - 1) : name;
    const auto& args = call->args();
    const std::string in = Indent(indent);
    if (op == "pl.tile.load") {
      ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
      ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
      ASSIGN_OR_RETURN(std::string box, BoxShape(var->type(), args[1], call->span()));
      ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
      pto::StrAppend(&body_, in, "pto::kernels::internal::CopyBox(true, ", tile, ", ", t.name, ", ",
                     off, ", ", box, ValidRowPitch(var->type()), ");\n");
      return absl::OkStatus();
    }
    if (op == "pld.tile.remote_load" && args.size() == 4) {
      // The value form, `recv = pld.tile.remote_load(window, peer, offsets,
      // shape)`: a fresh tile loaded from the peer's box.
      ASSIGN_OR_RETURN(Value window, WindowOperand(args[0], call));
      if (DTypeOf(var->type()) != window.dtype) {
        return Unsupported(call->span(), op + " between different dtypes");
      }
      ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
      ASSIGN_OR_RETURN(std::string off, IndexList(args[2]));
      ASSIGN_OR_RETURN(std::string shape, IndexList(args[3]));
      ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
      const std::string remote = Fresh("remote");
      pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                     " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                     ", static_cast<int64_t>(", peer, "));\n", in,
                     "  pto::kernels::internal::CopyBox(true, ", tile, ", &", remote, ", ", off,
                     ", ", shape, ");\n", in, "}\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.store") {
      ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
      ASSIGN_OR_RETURN(std::string off, IndexList(args[1]));
      ASSIGN_OR_RETURN(Value t, LookupKind(args[2], Kind::kTensor, "tensor"));
      ASSIGN_OR_RETURN(std::string box, BoxShape(args[0]->type(), args[1], call->span()));
      pto::StrAppend(&body_, in, "pto::kernels::internal::CopyBox(false, ", tile.name, ", ", t.name,
                     ", ", off, ", ", box, ValidRowPitch(args[0]->type()), ");\n");
      return Alias(var, t, indent);
    }
    if (op == "pl.tensor.write") {
      ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
      RETURN_IF_ERROR(EmitWrite(call, t, indent));
      return Alias(var, t, indent);
    }
    if (op == "pl.tensor.read") {
      ASSIGN_OR_RETURN(std::string read, ReadExpr(call));
      ASSIGN_OR_RETURN(std::string decl, Declare(var));
      pto::StrAppend(&body_, in, decl, " = ", read, ";\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.create") {
      return NewTile(var, indent).status();
    }
    if (op == "pld.system.get_comm_ctx") {
      ASSIGN_OR_RETURN(Value t, WindowOperand(args[0], call));
      ASSIGN_OR_RETURN(std::string decl, Declare(var));
      pto::StrAppend(&body_, in, decl, " = ", t.ctx, ";\n");
      return absl::OkStatus();
    }
    if (op == "pld.system.nranks" || op == "pld.system.rank") {
      ASSIGN_OR_RETURN(Value ctx, LookupKind(args[0], Kind::kCtx, "CommCtx"));
      ASSIGN_OR_RETURN(std::string decl, Declare(var));
      pto::StrAppend(&body_, in, decl, " = static_cast<int32_t>(", ctx.name,
                     op == "pld.system.rank" ? "->rankId" : "->rankNum", ");\n");
      return absl::OkStatus();
    }
    if (op == "pl.tensor.reshape") {
      // A descriptor of the new shape over the same GM (and window context).
      ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTensor, "tensor"));
      ASSIGN_OR_RETURN(std::string shape, IndexList(args[1]));
      const std::string desc = Fresh(pto::StrCat(var->name_hint(), "_desc"));
      ASSIGN_OR_RETURN(std::string decl, Declare(var));
      values_[var.get()].ctx = t.ctx;
      pto::StrAppend(&body_, in, "const pto::TensorDesc ", desc,
                     " = pto::kernels::internal::Reshape(", t.name, ", ", shape, ");\n", in, decl,
                     " = &", desc, ";\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.full") {
      ASSIGN_OR_RETURN(std::string value, Scalar(args[1]));
      ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
      ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
      pto::StrAppend(&body_, in, "pto::TEXPANDS(", tile, ", static_cast<", elem, ">(", value,
                     "));\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.add" || op == "pl.tile.sub" || op == "pl.tile.mul" ||
        op == "pl.tile.maximum" || op == "pl.tile.minimum") {
      ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
      ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
      if (ir::Is<ir::ScalarType>(args[1]->type())) {
        ASSIGN_OR_RETURN(std::string s, Scalar(args[1]));
        const std::string cast = DTypeOf(args[1]->type()) == DTypeOf(var->type())
                                     ? s
                                     : pto::StrCat("static_cast<", elem, ">(", s, ")");
        std::string api;
        if (op == "pl.tile.add") {
          api = pto::StrCat("pto::TADDS(%, ", a.name, ", ", cast, ")");
        } else if (op == "pl.tile.sub") {
          api = pto::StrCat("pto::TADDS(%, ", a.name, ", static_cast<", elem, ">(-", cast, "))");
        } else if (op == "pl.tile.mul") {
          api = pto::StrCat("pto::TMULS(%, ", a.name, ", ", cast, ")");
        } else {
          return Unsupported(call->span(), pto::StrCat(op, " with a scalar operand"));
        }
        ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
        api.replace(api.find('%'), 1, dst);
        pto::StrAppend(&body_, in, api, ";\n");
        return absl::OkStatus();
      }
      ASSIGN_OR_RETURN(Value b, LookupKind(args[1], Kind::kTile, "tile"));
      const std::string api = op == "pl.tile.add"       ? "TADD"
                              : op == "pl.tile.sub"     ? "TSUB"
                              : op == "pl.tile.mul"     ? "TMUL"
                              : op == "pl.tile.maximum" ? "TMAX"
                                                        : "TMIN";
      ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
      pto::StrAppend(&body_, in, "pto::", api, "(", dst, ", ", a.name, ", ", b.name, ");\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.move") {
      // A copy into the carried buffer (MemoryReuse's yield fixup).
      ASSIGN_OR_RETURN(Value src, LookupKind(args[0], Kind::kTile, "tile"));
      ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
      pto::StrAppend(&body_, in, "pto::TMOV(", dst, ", ", src.name, ");\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.cast") {
      // Only conversions that are one rounding-free or round-to-nearest C++
      // cast: a float -> integer cast needs PyPTO's rounding modes.
      ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
      const ir::DataType to = DTypeOf(var->type());
      if (!ir::IsFloat(to) && ir::IsFloat(a.dtype)) {
        return Unsupported(call->span(), "pl.tile.cast from a float to an integer dtype");
      }
      RETURN_IF_ERROR(ElemType(a.dtype, call->span()).status());
      ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
      pto::StrAppend(&body_, in, "pto::TCVT(", dst, ", ", a.name, ");\n");
      return absl::OkStatus();
    }
    if (op == "pl.tile.neg" || op == "pl.tile.relu") {
      ASSIGN_OR_RETURN(Value a, LookupKind(args[0], Kind::kTile, "tile"));
      ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(var->type()), call->span()));
      ASSIGN_OR_RETURN(std::string dst, NewTile(var, indent));
      if (op == "pl.tile.neg") {
        pto::StrAppend(&body_, in, "pto::TMULS(", dst, ", ", a.name, ", static_cast<", elem,
                       ">(-1));\n");
      } else {
        // relu(a) = max(a, 0), with the 0s in the result tile itself.
        pto::StrAppend(&body_, in, "pto::TEXPANDS(", dst, ", static_cast<", elem, ">(0));\n", in,
                       "pto::TMAX(", dst, ", ", a.name, ", ", dst, ");\n");
      }
      return absl::OkStatus();
    }
    return Unsupported(call->span(), op);
  }

  // ---------------------------------------------------------------- comm

  // A window operand of `call` whose communication context is known.
  absl::StatusOr<Value> WindowOperand(const ir::ExprPtr& e, const ir::CallPtr& call) {
    const std::string& op = call->op()->name();
    ASSIGN_OR_RETURN(Value v, LookupKind(e, Kind::kTensor, "tensor"));
    if (!ir::Is<ir::DistributedTensorType>(e->type()) || v.ctx.empty()) {
      return Unsupported(call->span(), pto::StrCat(op,
                                                   " on a window whose communication context "
                                                   "is not one of the kernel's params"));
    }
    return v;
  }

  // pld.system.notify: TNOTIFY into the peer's cell; pld.system.wait: TWAIT
  // on this rank's own cell.
  absl::Status EmitSignal(const ir::CallPtr& call, int indent) {
    const std::string& op = call->op()->name();
    const auto& args = call->args();
    const bool notify = op == "pld.system.notify";
    if (args.size() != (notify ? 4u : 3u)) {
      return Unsupported(call->span(), op + " of this form");
    }
    ASSIGN_OR_RETURN(Value t, WindowOperand(args[0], call));
    if (t.dtype != ir::DataType::kInt32) {
      return Unsupported(call->span(), pto::StrCat(op, " on a non-INT32 window"));
    }
    ASSIGN_OR_RETURN(std::string idx, IndexList(args[notify ? 2 : 1]));
    ASSIGN_OR_RETURN(std::string value, Scalar(args[notify ? 3 : 2]));
    const std::string in = Indent(indent);
    if (notify) {
      ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
      // NotifyOp ABI values (collectives.md §2): 0 AtomicAdd, 1 Set.
      const int64_t kind = ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0);
      pto::StrAppend(&body_, in, "pto::TNOTIFY(pto::kernels::internal::RemoteCell(", t.ctx, ", ",
                     t.name, ", ", idx, ", static_cast<int64_t>(", peer,
                     ")), static_cast<int32_t>(", value,
                     "), pto::NotifyOp::", kind == 1 ? "Set" : "AtomicAdd", ");\n");
      return absl::OkStatus();
    }
    // WaitCmp ABI values: 0 Eq, 1 Ge.
    const int64_t cmp = ir::GetAttr<int64_t>(call->kwargs(), "cmp").value_or(0);
    pto::StrAppend(&body_, in, "pto::TWAIT(pto::kernels::internal::LocalCell(", t.name, ", ", idx,
                   "), static_cast<int32_t>(", value, "), pto::WaitCmp::", cmp == 1 ? "GE" : "EQ",
                   ");\n");
    return absl::OkStatus();
  }

  // put (dst_window, peer, src, stage, dst_offsets, src_offsets, shape
  // [, stage2]) and get (dst, peer, src_window, stage, ...): one TPUT/TGET
  // of the box through `stage` (a second staging tile only buys overlap).
  absl::Status EmitPutGet(const ir::CallPtr& call, int indent) {
    const std::string& op = call->op()->name();
    const auto& args = call->args();
    const bool put = op.find(".put") != std::string::npos;
    // PyPTO's tensor form without a staging tile, (dst, peer, src,
    // dst_offsets, src_offsets, shape), stages through a UB tile of the box.
    const bool staged = args.size() == 7 || args.size() == 8;
    if (!staged && !(args.size() == 6 && op.rfind("pld.tensor.", 0) == 0)) {
      return Unsupported(call->span(), op + " of this form");
    }
    if (put && ir::GetAttr<int64_t>(call->kwargs(), "atomic").value_or(0) != 0) {
      return Unsupported(call->span(), op + " with an atomic mode");
    }
    const size_t box = staged ? 4 : 3;  // the first of dst_offsets, src_offsets, shape
    const ir::ExprPtr& window_arg = put ? args[0] : args[2];
    const ir::ExprPtr& local_arg = put ? args[2] : args[0];
    ASSIGN_OR_RETURN(Value window, WindowOperand(window_arg, call));
    ASSIGN_OR_RETURN(Value local, LookupKind(local_arg, Kind::kTensor, "tensor"));
    if (window.dtype != local.dtype) {
      return Unsupported(call->span(), op + " between different dtypes");
    }
    ASSIGN_OR_RETURN(std::string elem, ElemType(window.dtype, call->span()));
    const std::string in = Indent(indent);
    Value stage;
    if (staged) {
      ASSIGN_OR_RETURN(stage, LookupKind(args[3], Kind::kTile, "tile"));
      if (stage.dtype != window.dtype) {
        return Unsupported(call->span(), op + " between different dtypes");
      }
    } else {
      auto shape_tuple = ir::As<ir::MakeTuple>(args[box + 2]);
      int64_t count = shape_tuple != nullptr ? 1 : -1;
      for (const ir::ExprPtr& d :
           shape_tuple ? shape_tuple->elements() : std::vector<ir::ExprPtr>{}) {
        std::optional<int64_t> v = ir::GetConstInt(d);
        count = v ? count * *v : -1;
        if (!v) break;
      }
      if (count <= 0) return Unsupported(args[box + 2]->span(), op + " of a non-constant box");
      stage.name = Fresh("stage");
      const int64_t offset = stage_next_;
      stage_next_ +=
          (count * ir::DataTypeBytes(window.dtype) + kStageAlign - 1) / kStageAlign * kStageAlign;
      ub_bytes_ = std::max(ub_bytes_, stage_next_);
      pto::StrAppend(&body_, in, "pto::Tile<", elem, "> ", stage.name, " = pto::TASSIGN<", elem,
                     ">(", offset, ", ", count, ");\n");
    }
    ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
    ASSIGN_OR_RETURN(std::string dst_off, IndexList(args[box]));
    ASSIGN_OR_RETURN(std::string src_off, IndexList(args[box + 1]));
    ASSIGN_OR_RETURN(std::string shape, IndexList(args[box + 2]));
    const std::string remote = Fresh("remote");
    pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                   " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                   ", static_cast<int64_t>(", peer, "));\n", in,
                   "  pto::kernels::internal::CopyGmBox<", elem, ">(", put ? "true, &" : "false, ",
                   put ? remote : local.name, ", ", dst_off, ", ", put ? "" : "&",
                   put ? local.name : remote, ", ", src_off, ", ", shape, ", ", stage.name, ");\n",
                   in, "}\n");
    return absl::OkStatus();
  }

  // remote_load(tile, peer, window, offsets, shape): TLOAD of the peer's box.
  absl::Status EmitRemoteLoad(const ir::CallPtr& call, int indent) {
    const std::string& op = call->op()->name();
    const auto& args = call->args();
    if (args.size() != 5) return Unsupported(call->span(), op + " without offsets and shape");
    ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(Value window, WindowOperand(args[2], call));
    if (tile.dtype != window.dtype) {
      return Unsupported(call->span(), op + " between different dtypes");
    }
    ASSIGN_OR_RETURN(auto tile_shape, TileShape(args[0]->type(), call->span()));
    auto shape_tuple = ir::As<ir::MakeTuple>(args[4]);
    int64_t count = 1;
    for (const ir::ExprPtr& d :
         shape_tuple ? shape_tuple->elements() : std::vector<ir::ExprPtr>{}) {
      std::optional<int64_t> v = ir::GetConstInt(d);
      count = v ? count * *v : -1;
      if (!v) break;
    }
    if (shape_tuple == nullptr || count != tile_shape.first) {
      return Unsupported(args[4]->span(), op + " of a box that is not the tile's constant shape");
    }
    ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
    ASSIGN_OR_RETURN(std::string off, IndexList(args[3]));
    ASSIGN_OR_RETURN(std::string shape, IndexList(args[4]));
    const std::string in = Indent(indent);
    const std::string remote = Fresh("remote");
    pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                   " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                   ", static_cast<int64_t>(", peer, "));\n", in,
                   "  pto::kernels::internal::CopyBox(true, ", tile.name, ", &", remote, ", ", off,
                   ", ", shape, ");\n", in, "}\n");
    return absl::OkStatus();
  }

  absl::Status EmitWrite(const ir::CallPtr& call, const Value& t, int indent) {
    ASSIGN_OR_RETURN(std::string idx, IndexList(call->args()[1]));
    ASSIGN_OR_RETURN(std::string value, Scalar(call->args()[2]));
    ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, call->span()));
    pto::StrAppend(&body_, Indent(indent), "pto::kernels::internal::WriteElement<", elem, ">(",
                   t.name, ", ", idx, ", ", value, ");\n");
    return absl::OkStatus();
  }

  // `var` names the same GM buffer (or UB tile) as `v`.
  absl::Status Alias(const ir::VarPtr& var, const Value& v, int indent) {
    ASSIGN_OR_RETURN(Kind kind, KindOf(var->type(), var->span()));
    if (kind != v.kind) return Unsupported(var->span(), "a value of a different kind");
    ASSIGN_OR_RETURN(std::string decl, Declare(var));
    values_[var.get()].ctx = v.ctx;
    pto::StrAppend(&body_, Indent(indent), decl, " = ", v.name, ";\n");
    return absl::OkStatus();
  }

  // `vars` = the yielded values, all at once. A window keeps the context it
  // was first given (MaterializeDistTensorCtx rejects a yield that changes it).
  absl::Status EmitAssignAll(const std::vector<const ir::Var*>& vars,
                             const std::vector<ir::ExprPtr>& values, const Span& span, int indent) {
    if (vars.size() != values.size()) {
      return InternalErrorF(span, "yield of ", values.size(), " values into ", vars.size());
    }
    std::vector<std::string> targets;
    for (const ir::Var* v : vars) targets.push_back(values_[v].name);
    std::vector<std::string> rhs;
    bool clash = false;
    for (size_t i = 0; i < values.size(); ++i) {
      ASSIGN_OR_RETURN(Value v, Operand(values[i], indent));
      rhs.push_back(v.name);
      if (values_[vars[i]].ctx.empty()) values_[vars[i]].ctx = v.ctx;
      for (size_t j = 0; j < targets.size(); ++j) {
        if (j != i && v.name == targets[j]) clash = true;
      }
    }
    const std::string in = Indent(indent);
    if (!clash) {
      for (size_t i = 0; i < targets.size(); ++i) {
        if (targets[i] != rhs[i]) pto::StrAppend(&body_, in, targets[i], " = ", rhs[i], ";\n");
      }
      return absl::OkStatus();
    }
    pto::StrAppend(&body_, in, "{\n");
    for (size_t i = 0; i < targets.size(); ++i) {
      pto::StrAppend(&body_, in, "  const auto yielded_", i, " = ", rhs[i], ";\n");
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      pto::StrAppend(&body_, in, "  ", targets[i], " = yielded_", i, ";\n");
    }
    pto::StrAppend(&body_, in, "}\n");
    return absl::OkStatus();
  }

  // Any value: a bound variable, a scalar expression, or an op call (bound to
  // a temporary first).
  absl::StatusOr<Value> Operand(const ir::ExprPtr& e, int indent) {
    if (ir::Is<ir::Var>(e)) return Lookup(e);
    if (auto call = ir::As<ir::Call>(e); call != nullptr && !ir::Is<ir::GlobalVar>(call->op())) {
      // A tile needs a name: its UB address is on the named var's MemRef.
      if (ir::Is<ir::TileType>(e->type())) return Unsupported(e->span(), "an unnamed tile value");
      auto tmp = std::make_shared<const ir::Var>("tmp", e->type(), e->span());
      used_.insert(tmp.get());
      temps_.push_back(tmp);
      RETURN_IF_ERROR(EmitCallAssign(tmp, call, indent));
      return values_[tmp.get()];
    }
    if (!ir::Is<ir::ScalarType>(e->type())) return Unsupported(e->span(), "this expression");
    ASSIGN_OR_RETURN(std::string s, Scalar(e));
    return Value{Kind::kScalar, s, DTypeOf(e->type())};
  }

  absl::Status EmitStmt(const ir::StmtPtr& stmt, int indent) {
    const std::string in = Indent(indent);
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) RETURN_IF_ERROR(EmitStmt(s, indent));
      return absl::OkStatus();
    }
    if (auto a = ir::As<ir::AssignStmt>(stmt)) {
      if (auto call = ir::As<ir::Call>(a->value())) {
        if (ir::Is<ir::GlobalVar>(call->op())) {
          return Unsupported(call->span(), "a function call");
        }
        return EmitCallAssign(a->var(), call, indent);
      }
      if (ir::Is<ir::Var>(a->value())) {
        ASSIGN_OR_RETURN(Value v, Lookup(a->value()));
        return Alias(a->var(), v, indent);
      }
      if (!ir::Is<ir::ScalarType>(a->var()->type())) {
        return Unsupported(a->span(), "this assignment");
      }
      ASSIGN_OR_RETURN(std::string value, Scalar(a->value()));
      ASSIGN_OR_RETURN(std::string decl, Declare(a->var()));
      pto::StrAppend(&body_, in, decl, " = ", value, ";\n");
      return absl::OkStatus();
    }
    if (auto e = ir::As<ir::EvalStmt>(stmt)) {
      auto call = ir::As<ir::Call>(e->expr());
      const std::string op = call != nullptr ? call->op()->name() : "";
      if (op == "pl.system.cacheinvalid") {
        // The region form invalidates at least its lines; the whole cache is
        // a superset.
        pto::StrAppend(&body_, in, "pto::dcci(nullptr, pto::ENTIRE_DATA_CACHE);\n");
        return absl::OkStatus();
      }
      if (op == "pl.system.fence") {
        pto::StrAppend(&body_, in, "pto::dsb(pto::DSB_DDR);\n");
        return absl::OkStatus();
      }
      if (op == "pl.tensor.write") {
        ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTensor, "tensor"));
        return EmitWrite(call, t, indent);
      }
      if (op == "pld.system.notify" || op == "pld.system.wait") return EmitSignal(call, indent);
      if (op == "pld.tile.put" || op == "pld.tensor.put" || op == "pld.tile.get" ||
          op == "pld.tensor.get") {
        return EmitPutGet(call, indent);
      }
      if (op == "pld.tile.remote_load") return EmitRemoteLoad(call, indent);
      // A value op evaluated for its effect (e.g. a tile.store whose result is
      // unused): bound to an unused temporary.
      if (call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
          !ir::Is<ir::UnknownType>(call->type())) {
        if (ir::Is<ir::TileType>(call->type())) {
          return Unsupported(call->span(), "an unnamed tile value");
        }
        auto tmp = std::make_shared<const ir::Var>("unused", call->type(), call->span());
        temps_.push_back(tmp);
        return EmitCallAssign(tmp, call, indent);
      }
      return Unsupported(e->span(), op.empty() ? std::string("this statement") : op);
    }
    if (auto f = ir::As<ir::ForStmt>(stmt)) return EmitFor(f, indent);
    if (auto i = ir::As<ir::IfStmt>(stmt)) return EmitIf(i, indent);
    if (auto y = ir::As<ir::YieldStmt>(stmt)) {
      if (yield_targets_.empty()) return Unsupported(y->span(), "a yield outside a loop or if");
      return EmitAssignAll(yield_targets_.back(), y->value(), y->span(), indent);
    }
    if (auto r = ir::As<ir::ReturnStmt>(stmt)) {
      for (const ir::ExprPtr& v : r->value()) {
        ASSIGN_OR_RETURN(Value value, Operand(v, indent));
        if (value.kind != Kind::kTensor) {
          return Unsupported(v->span(), "returning a non-tensor value");
        }
      }
      // Returned tensors alias params: their data is already in GM.
      if (!IsLastTopLevel(stmt)) pto::StrAppend(&body_, in, "return;\n");
      return absl::OkStatus();
    }
    if (auto w = ir::As<ir::WhileStmt>(stmt)) return EmitWhile(w, indent);
    return Unsupported(stmt->span(), "this statement");
  }

  bool IsLastTopLevel(const ir::StmtPtr& stmt) const {
    if (stmt == top_body_) return true;
    auto seq = ir::As<ir::SeqStmts>(top_body_);
    return seq != nullptr && !seq->stmts().empty() && seq->stmts().back() == stmt;
  }

  // Mutable C++ variables for loop-carried values, set to their inits.
  absl::StatusOr<std::vector<const ir::Var*>> DeclareCarried(
      const std::vector<ir::IterArgPtr>& iter_args, int indent) {
    std::vector<const ir::Var*> carried;
    for (const ir::IterArgPtr& ia : iter_args) {
      ASSIGN_OR_RETURN(Value init, Operand(ia->init_value(), indent));
      ASSIGN_OR_RETURN(std::string decl, Declare(ia, /*mut=*/true));
      values_[ia.get()].ctx = init.ctx;
      pto::StrAppend(&body_, Indent(indent), decl, " = ", init.name, ";\n");
      carried.push_back(ia.get());
    }
    return carried;
  }

  // The loop's return vars take the final carried values.
  absl::Status BindLoopResults(const std::vector<const ir::Var*>& carried,
                               const std::vector<ir::VarPtr>& return_vars, const Span& span,
                               int indent) {
    if (return_vars.empty()) return absl::OkStatus();  // results not named
    if (return_vars.size() != carried.size()) {
      return InternalErrorF(span, "loop with ", carried.size(), " iter args and ",
                            return_vars.size(), " return vars");
    }
    for (size_t i = 0; i < carried.size(); ++i) {
      const Value c = values_[carried[i]];
      ASSIGN_OR_RETURN(std::string decl, Declare(return_vars[i]));
      values_[return_vars[i].get()].ctx = c.ctx;
      pto::StrAppend(&body_, Indent(indent), decl, " = ", c.name, ";\n");
    }
    return absl::OkStatus();
  }

  absl::Status EmitFor(const std::shared_ptr<const ir::ForStmt>& f, int indent) {
    const std::string in = Indent(indent);
    ASSIGN_OR_RETURN(std::vector<const ir::Var*> carried, DeclareCarried(f->iter_args(), indent));
    ASSIGN_OR_RETURN(std::string start, Scalar(f->start()));
    ASSIGN_OR_RETURN(std::string stop, Scalar(f->stop()));
    ASSIGN_OR_RETURN(std::string step, Scalar(f->step()));
    std::optional<int64_t> step_value = ir::GetConstInt(f->step());
    if (!step_value || *step_value == 0) {
      return Unsupported(f->step()->span(), "a for loop without a constant non-zero step");
    }
    const std::string var = Fresh(f->loop_var()->name_hint());
    values_[f->loop_var().get()] = {Kind::kScalar, var, ir::DataType::kIndex};
    const std::string advance =
        *step_value == 1 ? pto::StrCat("++", var) : pto::StrCat(var, " += ", step);
    pto::StrAppend(&body_, in, "for (int64_t ", var, " = ", start, "; ", var,
                   *step_value > 0 ? " < " : " > ", stop, "; ", advance, ") {\n");
    yield_targets_.push_back(carried);
    RETURN_IF_ERROR(EmitStmt(f->body(), indent + 1));
    yield_targets_.pop_back();
    pto::StrAppend(&body_, in, "}\n");
    return BindLoopResults(carried, f->return_vars(), f->span(), indent);
  }

  // `while (cond) { body }`: the condition reads the carried values, which
  // the body's yield updates for the next test.
  absl::Status EmitWhile(const std::shared_ptr<const ir::WhileStmt>& w, int indent) {
    const std::string in = Indent(indent);
    ASSIGN_OR_RETURN(std::vector<const ir::Var*> carried, DeclareCarried(w->iter_args(), indent));
    ASSIGN_OR_RETURN(std::string cond, Scalar(w->condition()));
    if (cond.size() < 2 || cond.front() != '(' || cond.back() != ')') cond = "(" + cond + ")";
    pto::StrAppend(&body_, in, "while ", cond, " {\n");
    yield_targets_.push_back(carried);
    RETURN_IF_ERROR(EmitStmt(w->body(), indent + 1));
    yield_targets_.pop_back();
    pto::StrAppend(&body_, in, "}\n");
    return BindLoopResults(carried, w->return_vars(), w->span(), indent);
  }

  absl::Status EmitIf(const std::shared_ptr<const ir::IfStmt>& s, int indent) {
    const std::string in = Indent(indent);
    std::vector<const ir::Var*> results;
    for (const ir::VarPtr& rv : s->return_vars()) {
      ASSIGN_OR_RETURN(std::string decl, Declare(rv, /*mut=*/true));
      const Kind kind = values_[rv.get()].kind;
      pto::StrAppend(&body_, in, decl, kind == Kind::kTensor ? " = nullptr" : "{}", ";\n");
      results.push_back(rv.get());
    }
    ASSIGN_OR_RETURN(std::string cond, Scalar(s->condition()));
    if (cond.size() < 2 || cond.front() != '(' || cond.back() != ')') cond = "(" + cond + ")";
    pto::StrAppend(&body_, in, "if ", cond, " {\n");
    yield_targets_.push_back(results);
    RETURN_IF_ERROR(EmitStmt(s->then_body(), indent + 1));
    if (s->else_body().has_value()) {
      pto::StrAppend(&body_, in, "} else {\n");
      RETURN_IF_ERROR(EmitStmt(*s->else_body(), indent + 1));
    }
    yield_targets_.pop_back();
    pto::StrAppend(&body_, in, "}\n");
    return absl::OkStatus();
  }

  const ir::ProgramPtr& program_;
  std::string function_;
  std::set<const ir::Var*> used_;
  std::map<const ir::Var*, Value> values_;
  std::set<std::string> names_ = {"args"};
  std::vector<std::vector<const ir::Var*>> yield_targets_;
  std::vector<ir::VarPtr> temps_;  // keeps the temporaries' keys alive
  ir::StmtPtr top_body_;
  std::string body_;
  int64_t ub_bytes_ = 0;
  int64_t stage_next_ = 0;  // next free UB byte above the allocated tiles
};

}  // namespace

absl::StatusOr<std::string> GenerateKernel(const ir::ProgramPtr& program,
                                           std::string_view function) {
  return Generator(program, function).Run();
}

}  // namespace pto::codegen
