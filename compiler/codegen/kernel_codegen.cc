#include "compiler/codegen/kernel_codegen.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "compiler/codegen/aic_kernel.h"
#include "compiler/ir/attrs.h"
#include "compiler/codegen/cpp_names.h"
#include "compiler/codegen/kernel_generator.h"
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
    case ir::DataType::kBF16:
      return "pto::bfloat16";
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


}  // namespace

namespace kernel_internal {

absl::StatusOr<std::string> Generator::Run() {
  ir::FunctionPtr fn = program_->GetFunction(function_);
  if (fn == nullptr) {
    return absl::NotFoundError(pto::StrCat("no function '", function_, "' in the program"));
  }
  aic_ = IsAicKernel(*fn);
  mix_half_ = fn->func_type() == ir::FunctionType::kAIC || fn->func_type() == ir::FunctionType::kAIV;
  dual_aiv_ = mix_half_ && ir::GetAttr<bool>(fn->attrs(), "dual_aiv_dispatch").value_or(false);
  if (fn->func_type() != ir::FunctionType::kInCore && fn->func_type() != ir::FunctionType::kAIV &&
      !aic_) {
    return UserErrorF(fn->span(), "'", function_,
                      "' is not an InCore, AIC or AIV function, so it has no kernel code");
  }
  UsedVars uses;
  uses.VisitStmt(fn->body());
  used_ = uses.used;

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
      // A pl.dynamic symbol of a valid_shape reads the scalar param of its
      // name (MaterializeValidShapeSymbols adds one for each unbound symbol).
      dyn_params_.emplace(p->name_hint(), name);
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
                     "#include <cstdint>\n\n",
                     aic_ ? "#include \"runtime/device/cube_api.h\"\n"
                            "#include \"runtime/device/cube_support.h\"\n"
                          : "",
                     uses_pipes_ ? "#include \"runtime/device/pipe_api.h\"\n" : "",
                     "#include \"runtime/device/comm_context.h\"\n"
                     "#include \"runtime/device/device_api.h\"\n"
                     "#include \"runtime/device/kernel_abi.h\"\n"
                     "#include \"runtime/device/kernel_support.h\"\n\n",
                     "namespace pto::kernels {\n\n", "// args: ", tensors,
                     " tensor descriptors, then ", scalar_index - tensors,
                     " scalars, in the order of the params. ",
                     aic_ ? std::string("An AIC (cube) kernel.\n")
                          : pto::StrCat("UB use: ", ub_bytes_, " bytes.\n"),
                     "void ",
                     CppIdentifier(function_), "(int64_t* args) {\n", params, body_,
                     "}\n\n"
                     "}  // namespace pto::kernels\n");
}

absl::StatusOr<std::string> Generator::ElemType(ir::DataType t, const Span& span) {
  std::optional<std::string> type = CppType(t);
  if (!type) return Unsupported(span, pto::StrCat("a ", ir::DataTypeName(t), " value"));
  return *type;
}

std::string Generator::MaybeUnused(const ir::VarPtr& v) const {
  return used_.count(v.get()) != 0 ? "" : "[[maybe_unused]] ";
}

absl::StatusOr<Generator::Value> Generator::LookupKind(const ir::ExprPtr& e, Kind kind,
                                                       std::string_view what) {
  ASSIGN_OR_RETURN(Value v, Lookup(e));
  if (v.kind != kind) return Unsupported(e->span(), pto::StrCat("a non-", what, " operand here"));
  return v;
}

// The C++ type of a variable of type `type`.
absl::StatusOr<std::string> Generator::DeclType(const ir::TypePtr& type, const Span& span) {
  if (ir::AsTensorTypeLike(type) != nullptr) return std::string("const pto::TensorDesc*");
  if (ir::Is<ir::CommCtxType>(type)) return std::string("const pto::CommContext*");
  if (auto t = ir::As<ir::TileType>(type)) {
    ASSIGN_OR_RETURN(std::string elem, ElemType(t->dtype(), span));
    if (std::optional<std::string> cube = CubeTileType(type, elem)) return *cube;
    return pto::StrCat("pto::Tile<", elem, ">");
  }
  if (auto s = ir::As<ir::ScalarType>(type)) return ElemType(s->dtype(), span);
  return Unsupported(span, "a variable of this type");
}

absl::StatusOr<Generator::Kind> Generator::KindOf(const ir::TypePtr& type, const Span& span) {
  if (ir::AsTensorTypeLike(type) != nullptr) return Kind::kTensor;
  if (ir::Is<ir::TileType>(type)) return Kind::kTile;
  if (ir::Is<ir::ScalarType>(type)) return Kind::kScalar;
  if (ir::Is<ir::CommCtxType>(type)) return Kind::kCtx;
  return Unsupported(span, "a variable of this type");
}

ir::DataType Generator::DTypeOf(const ir::TypePtr& type) {
  if (auto s = ir::As<ir::ScalarType>(type)) return s->dtype();
  if (auto t = ir::As<ir::ShapedType>(type)) return t->dtype();
  return ir::DataType::kIndex;
}

// Binds `var` to a new C++ variable (`mut`: not const) and returns its
// declaration prefix, e.g. "const int32_t x".
absl::StatusOr<std::string> Generator::Declare(const ir::VarPtr& var, bool mut) {
  ASSIGN_OR_RETURN(std::string type, DeclType(var->type(), var->span()));
  ASSIGN_OR_RETURN(Kind kind, KindOf(var->type(), var->span()));
  const std::string name = Fresh(var->name_hint());
  values_[var.get()] = {kind, name, DTypeOf(var->type())};
  const bool is_const = !mut && kind == Kind::kScalar;
  return pto::StrCat(MaybeUnused(var), is_const ? "const " : "", type, " ", name);
}

// ---------------------------------------------------------------- exprs
std::optional<std::string> Generator::BinaryToken(ir::BinaryOp op) {
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

// The value of pl.dynamic symbol `d` read at `use`: the scalar param of its
// name.
absl::StatusOr<std::string> Generator::DynParam(const ir::DynDim& d, const Span& use) {
  auto it = dyn_params_.find(d.name());
  if (it == dyn_params_.end()) {
    return UserErrorF(use, "pl.dynamic symbol '", d.name(), "' has no value in kernel '", function_,
                      "': declare it in a parameter's pl.TensorView(valid_shape=...) or pass it "
                      "as a pl.Scalar[pl.INDEX] parameter named '", d.name(), "'");
  }
  return it->second;
}

absl::StatusOr<std::string> Generator::Scalar(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) {
    if (c->dtype() == ir::DataType::kIndex) return pto::StrCat(c->value());
    ASSIGN_OR_RETURN(std::string type, ElemType(c->dtype(), e->span()));
    return pto::StrCat(type, "{", c->value(), "}");
  }
  if (auto c = ir::As<ir::ConstFloat>(e)) {
    ASSIGN_OR_RETURN(std::string type, ElemType(c->dtype(), e->span()));
    // 17 significant digits: the double round-trips, so the cast rounds the
    // program's value, not StrCat's 6-digit one (2^-12 is not 0.000244141).
    return pto::StrCat("static_cast<", type, ">(", absl::StrFormat("%.17g", c->value()), ")");
  }
  if (auto c = ir::As<ir::ConstBool>(e)) return std::string(c->value() ? "true" : "false");
  if (auto d = ir::As<ir::DynDim>(e)) return DynParam(*d, e->span());
  if (auto call = ir::As<ir::Call>(e);
      call != nullptr && ir::IsOp(call, ir::OpId::kPlTensorRead) && call->args().size() == 2) {
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
absl::StatusOr<std::string> Generator::ReadExpr(const ir::CallPtr& call) {
  ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTensor, "tensor"));
  ASSIGN_OR_RETURN(std::string idx, IndexList(call->args()[1]));
  ASSIGN_OR_RETURN(std::string elem, ElemType(t.dtype, call->span()));
  return pto::StrCat("pto::kernels::internal::ReadElement<", elem, ">(", t.name, ", ", idx, ")");
}

// `{a, b, ...}` of int64_t indices from a MakeTuple.
absl::StatusOr<std::string> Generator::IndexList(const ir::ExprPtr& e) {
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

// `var` names the same GM buffer (or UB tile) as `v`.
absl::Status Generator::Alias(const ir::VarPtr& var, const Value& v, int indent) {
  ASSIGN_OR_RETURN(Kind kind, KindOf(var->type(), var->span()));
  if (kind != v.kind) return Unsupported(var->span(), "a value of a different kind");
  ASSIGN_OR_RETURN(std::string decl, Declare(var));
  values_[var.get()].ctx = v.ctx;
  pto::StrAppend(&body_, Indent(indent), decl, " = ", v.name, ";\n");
  return absl::OkStatus();
}

// `vars` = the yielded values, all at once. A window keeps the context it
// was first given (MaterializeDistTensorCtx rejects a yield that changes it).
absl::Status Generator::EmitAssignAll(const std::vector<const ir::Var*>& vars,
                                      const std::vector<ir::ExprPtr>& values, const Span& span,
                                      int indent) {
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
absl::StatusOr<Generator::Value> Generator::Operand(const ir::ExprPtr& e, int indent) {
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

absl::Status Generator::EmitStmt(const ir::StmtPtr& stmt, int indent) {
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
    const std::string op = call != nullptr ? call->op()->name() : "";  // for messages
    const ir::OpId id = call != nullptr ? call->op()->id() : ir::OpId::kUnknown;
    if (id == ir::OpId::kPlSystemCacheinvalid) {
      // The region form invalidates at least its lines; the whole cache is
      // a superset.
      pto::StrAppend(&body_, in, "pto::dcci(nullptr, pto::ENTIRE_DATA_CACHE);\n");
      return absl::OkStatus();
    }
    if (call != nullptr && IsPipeOp(*call)) return EmitPipeCall(nullptr, call, indent);
    if (id == ir::OpId::kPlSystemFence) {
      pto::StrAppend(&body_, in, "pto::dsb(pto::DSB_DDR);\n");
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPlTensorWrite) {
      ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTensor, "tensor"));
      return EmitWrite(call, t, indent);
    }
    if (id == ir::OpId::kPldSystemNotify || id == ir::OpId::kPldSystemWait)
      return EmitSignal(call, indent);
    if (id == ir::OpId::kPldTilePut || id == ir::OpId::kPldTensorPut ||
        id == ir::OpId::kPldTileGet || id == ir::OpId::kPldTensorGet) {
      return EmitPutGet(call, indent);
    }
    if (id == ir::OpId::kPldTileRemoteLoad) return EmitRemoteLoad(call, indent);
    if (id == ir::OpId::kPldTileRemoteStore) return EmitRemoteStore(call, indent);
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

bool Generator::IsLastTopLevel(const ir::StmtPtr& stmt) const {
  if (stmt == top_body_) return true;
  auto seq = ir::As<ir::SeqStmts>(top_body_);
  return seq != nullptr && !seq->stmts().empty() && seq->stmts().back() == stmt;
}

// Mutable C++ variables for loop-carried values, set to their inits.
absl::StatusOr<std::vector<const ir::Var*>> Generator::DeclareCarried(
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
absl::Status Generator::BindLoopResults(const std::vector<const ir::Var*>& carried,
                                        const std::vector<ir::VarPtr>& return_vars,
                                        const Span& span, int indent) {
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

absl::Status Generator::EmitFor(const std::shared_ptr<const ir::ForStmt>& f, int indent) {
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
absl::Status Generator::EmitWhile(const std::shared_ptr<const ir::WhileStmt>& w, int indent) {
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

absl::Status Generator::EmitIf(const std::shared_ptr<const ir::IfStmt>& s, int indent) {
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

}  // namespace kernel_internal

absl::StatusOr<std::string> GenerateKernel(const ir::ProgramPtr& program,
                                           std::string_view function) {
  return kernel_internal::Generator(program, function).Run();
}

}  // namespace pto::codegen
