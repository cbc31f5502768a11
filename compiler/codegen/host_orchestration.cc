#include "compiler/codegen/host_orchestration.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "compiler/codegen/builtin_kernels.h"
#include "compiler/codegen/cpp_emitter.h"
#include "compiler/codegen/cpp_names.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/ops/collective_def.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen {
namespace {

constexpr int64_t kCommBufferAlignment = 32;  // runtime/core/domain.h
constexpr char kOrdBuffer[] = "_ord";

const ir::AttrValue* FindCallAttr(const ir::Call& call, std::string_view key) {
  const ir::AttrValue* v = ir::FindAttr(call.attrs(), key);
  return v != nullptr ? v : ir::FindAttr(call.kwargs(), key);
}

std::optional<int64_t> ConstIntOf(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return c->value();
  return std::nullopt;
}

bool IsPipelineCall(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && ir::Is<ir::GlobalVar>(call->op());
}

// Whether a call of a chip pipeline in `stmt` has no device=.
bool HasUnpinnedDispatch(const ir::StmtPtr& stmt) {
  if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
    for (const ir::StmtPtr& s : seq->stmts()) {
      if (HasUnpinnedDispatch(s)) return true;
    }
    return false;
  }
  if (auto loop = ir::As<ir::ForStmt>(stmt)) return HasUnpinnedDispatch(loop->body());
  if (auto scope = ir::As<ir::ScopeStmt>(stmt)) return HasUnpinnedDispatch(scope->body());
  ir::ExprPtr value;
  if (auto a = ir::As<ir::AssignStmt>(stmt)) value = a->value();
  if (auto e = ir::As<ir::EvalStmt>(stmt)) value = e->expr();
  if (!IsPipelineCall(value)) return false;
  const auto& call = static_cast<const ir::Call&>(*value);
  return FindCallAttr(call, ir::kAttrDevice) == nullptr;
}

// Whether a dispatch in `stmt` has device=`var` (a loop over a constant count
// of devices, PyPTO's `for r in pl.range(NR): self.f(..., device=r)`).
bool DispatchesOn(const ir::StmtPtr& stmt, const ir::Var* var) {
  if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
    for (const ir::StmtPtr& s : seq->stmts()) {
      if (DispatchesOn(s, var)) return true;
    }
    return false;
  }
  if (auto scope = ir::As<ir::ScopeStmt>(stmt)) return DispatchesOn(scope->body(), var);
  ir::ExprPtr value;
  if (auto a = ir::As<ir::AssignStmt>(stmt)) value = a->value();
  if (auto e = ir::As<ir::EvalStmt>(stmt)) value = e->expr();
  auto call = ir::As<ir::Call>(value);
  if (call == nullptr) return false;
  const ir::AttrValue* dev = FindCallAttr(*call, ir::kAttrDevice);
  const auto* e = dev != nullptr ? std::get_if<ir::ExprPtr>(dev) : nullptr;
  return e != nullptr && ir::As<ir::Var>(*e).get() == var;
}

// Python's // and % (floor), emitted when a HOST scalar uses them. A zero
// divisor is checked where the scalar is computed.
bool IsWorldSize(const ir::ExprPtr& e) {
  auto call = ir::As<ir::Call>(e);
  return call != nullptr && ir::IsOp(call, ir::OpId::kPldSystemWorldSize);
}

class Generator : public CppEmitter {
 public:
  Generator(const ir::ProgramPtr& program, std::string_view host_function)
      : CppEmitter("a HOST orchestrator", "an inline expression operand",
                   {"host", "callables", "world_size", "Typed", "RankOf", "Find", "FloorDiv",
                    "FloorMod", "d", "next_chip"}),
        program_(program),
        host_function_(host_function) {}

  absl::StatusOr<std::string> Run() {
    ir::FunctionPtr host = program_->GetFunction(host_function_);
    if (host == nullptr) {
      return absl::NotFoundError(
          pto::StrCat("no function '", host_function_, "' in the program"));
    }
    if (!host->level().has_value() || *host->level() != ir::Level::kHost) {
      return UserErrorF(host->span(), "'", host_function_,
                        "' is not a HOST orchestrator, so it has no host orchestration code");
    }
    std::string params;
    Line(1, "const int world_size = host.device_count();");
    for (const ir::VarPtr& p : host->params()) {
      if (ir::AsTensorTypeLike(p->type()) == nullptr) {
        return Unsupported(p->span(), "a non-tensor parameter");
      }
      const std::string name = Fresh(p->name_hint());
      pto::StrAppend(&params, ",\n    const std::vector<pto::rt::Tensor>& ", name);
      Line(1, pto::StrCat("if (", name, ".size() != static_cast<size_t>(world_size)) {"));
      Line(2, pto::StrCat("return absl::InvalidArgumentError(\"", name,
                          ": needs one tensor per device\");"));
      Line(1, "}");
      Value v{Kind::kHostParam, name};
      // Its type as a whole, for passing it whole (a replicated operand);
      // a dynamic shape leaves bytes 0 and is refused where it is passed.
      if (!TypeInfo(p->type(), p->span(), &v).ok()) v.bytes = 0;
      values_[p.get()] = v;
    }
    if (HasUnpinnedDispatch(host->body())) {
      // PyPTO's comm-less dispatch: a call without device= runs on the chips
      // in turn, in submit order, from chip 0 on every run.
      Line(1, "int next_chip = 0;");
    }
    RETURN_IF_ERROR(EmitStmt(host->body(), 1));
    Line(1, "return absl::OkStatus();");
    return pto::StrCat(
        "// Host orchestration of ", host_function_,
        ", generated by the PTO compiler.\n",
        uses_scalar_ops_ ? "#include <algorithm>\n" : "",
        "#include <cstdint>\n"
        "#include <initializer_list>\n"
        "#include <map>\n"
        "#include <string>\n"
        "#include <vector>\n\n"
        "#include \"absl/status/status.h\"\n"
        "#include \"absl/status/statusor.h\"\n"
        "#include \"runtime/api/host.h\"\n"
        "#include \"runtime/api/host_orchestration_support.h\"\n"
        "#include \"runtime/api/orchestrator.h\"\n"
        "#include \"runtime/api/task_args.h\"\n\n"
        "// callables: chip pipelines by function name, builtin variants by entry\n"
        "// symbol. Each tensor param: one tensor per device with the param's\n"
        "// shape; device r's dispatches use rows of param[r].\n"
        "absl::Status host_orchestration_entry(\n"
        "    pto::rt::Host& host,\n"
        "    const std::map<std::string, pto::rt::ChipCallable>& callables",
        params, ") {\n", body_, "}\n");
  }

 private:
  enum class Kind {
    kHostParam,  // `name` is a tensor per device
    kTensor,  // `name` is a tensor valid where it is used
    kScalar,  // `name` is a uint64_t
    kPtr,     // a window slot (`slot`) of domain `domain`
    kWindow,  // a window view of slot `slot`, typed below
    kTuple,   // the results of a dispatch: `elements`
  };
  struct Value {
    Kind kind = Kind::kTensor;
    std::string name;
    int domain = -1;
    std::string slot;
    int elem_bytes = 1;
    int64_t bytes = 0;
    std::string dims;
    std::vector<Value> elements;  // kTuple
  };

  absl::StatusOr<Value> Lookup(const ir::ExprPtr& e) { return LookupIn(values_, e); }

  // Element bytes, total bytes and `a, b` dims of a static tensor type.
  absl::Status TypeInfo(const ir::TypePtr& type, const Span& span, Value* v) {
    auto t = ir::AsTensorTypeLike(type);
    if (t == nullptr || t->shape().size() > 5) return Unsupported(span, "a tensor of this type");
    v->elem_bytes = ir::DataTypeBytes(t->dtype());
    v->bytes = v->elem_bytes;
    v->dims.clear();
    for (const ir::ExprPtr& d : t->shape()) {
      std::optional<int64_t> n = ConstIntOf(d);
      if (!n.has_value()) return Unsupported(span, "a tensor of dynamic shape");
      v->bytes *= *n;
      pto::StrAppend(&v->dims, v->dims.empty() ? "" : ", ", *n);
    }
    return absl::OkStatus();
  }

  // The current rank's context of domain `d` (inside a dispatch loop).
  absl::StatusOr<std::string> RankCtx(int d, const Span& span) {
    if (device_.empty()) return Unsupported(span, "a per-rank value outside a device loop");
    auto it = rank_ctx_.find(d);
    if (it != rank_ctx_.end()) return it->second;
    const std::string name = Fresh(pto::StrCat(domains_[d], "_rank"));
    Line(loop_indent_, pto::StrCat("const pto::rt::ChipDomainContext* ", name, " = RankOf(*",
                                   domains_[d], ", ", device_, ");"));
    Line(loop_indent_, pto::StrCat("if (", name, " == nullptr) {"));
    Line(loop_indent_ + 1,
         pto::StrCat("return absl::InvalidArgumentError(\"device \" + std::to_string(", device_,
                     ") + \" is not in comm domain ", domains_[d], "\");"));
    Line(loop_indent_, "}");
    rank_ctx_[d] = name;
    return name;
  }

  // A C++ tensor expression for `v` on the current device.
  absl::StatusOr<std::string> TensorExpr(const Value& v, const Span& span) {
    if (v.kind == Kind::kTensor) return v.name;
    if (v.kind == Kind::kHostParam) {
      // The whole parameter: this device's copy of it (PyPTO's replicated
      // operand, e.g. b of a GEMM sharded along a's rows).
      if (device_.empty() || v.bytes == 0) {
        return Unsupported(span, "a whole parameter of dynamic shape or outside a device loop");
      }
      return pto::StrCat("Typed(", v.name, "[", device_, "], ", v.elem_bytes, ", {", v.dims, "})");
    }
    if (v.kind != Kind::kWindow) return Unsupported(span, "a non-tensor tensor argument");
    ASSIGN_OR_RETURN(std::string rank, RankCtx(v.domain, span));
    return pto::StrCat("Typed(", rank, "->buffers.at(\"", v.slot, "\").View(0, ", v.bytes, "), ",
                       v.elem_bytes, ", {", v.dims, "})");
  }

  // A signed C++ expression of an integer scalar built from constants, the
  // rank, bound scalars and `pld.world_size()` with + - * // % min max.
  absl::StatusOr<std::string> ScalarExpr(const ir::ExprPtr& e) {
    if (std::optional<int64_t> k = ConstIntOf(e)) return pto::StrCat("int64_t{", *k, "}");
    if (IsWorldSize(e)) return std::string("int64_t{world_size}");
    if (ir::Is<ir::Var>(e)) {
      ASSIGN_OR_RETURN(Value v, Lookup(e));
      if (v.kind != Kind::kScalar) return Unsupported(e->span(), "a non-scalar in a scalar");
      return pto::StrCat("static_cast<int64_t>(", v.name, ")");
    }
    auto bin = ir::As<ir::BinaryExpr>(e);
    if (bin == nullptr) return Unsupported(e->span(), "this scalar expression");
    ASSIGN_OR_RETURN(std::string a, ScalarExpr(bin->lhs()));
    ASSIGN_OR_RETURN(std::string b, ScalarExpr(bin->rhs()));
    uses_scalar_ops_ = true;
    if (bin->op() == ir::BinaryOp::kFloorDiv || bin->op() == ir::BinaryOp::kFloorMod) {
      // A zero divisor is a reported error of the run, not a crash.
      Line(scalar_indent_, pto::StrCat("if (", b, " == 0) {"));
      Line(scalar_indent_ + 1, pto::StrCat("return absl::InvalidArgumentError(", "\"",
                                   absl::CEscape(pto::StrCat(e->span().ToString(),
                                                             ": integer division by zero")),
                                   "\"", ");"));
      Line(scalar_indent_, "}");
    }
    switch (bin->op()) {
      case ir::BinaryOp::kAdd: return pto::StrCat("(", a, " + ", b, ")");
      case ir::BinaryOp::kSub: return pto::StrCat("(", a, " - ", b, ")");
      case ir::BinaryOp::kMul: return pto::StrCat("(", a, " * ", b, ")");
      case ir::BinaryOp::kFloorDiv: return pto::StrCat("FloorDiv(", a, ", ", b, ")");
      case ir::BinaryOp::kFloorMod: return pto::StrCat("FloorMod(", a, ", ", b, ")");
      case ir::BinaryOp::kMin: return pto::StrCat("std::min(", a, ", ", b, ")");
      case ir::BinaryOp::kMax: return pto::StrCat("std::max(", a, ", ", b, ")");
      default: return Unsupported(e->span(), "this scalar operator");
    }
  }

  // `return outputs` of PyPTO's HOST orchestrators: the caller already holds
  // each parameter's per-device tensors, so returning them emits nothing.
  bool ReturnsParams(const ir::ReturnStmt& ret) const {
    for (const ir::ExprPtr& e : ret.value()) {
      auto var = ir::As<ir::Var>(e);
      auto it = var == nullptr ? values_.end() : values_.find(var.get());
      if (it == values_.end() || it->second.kind != Kind::kHostParam) return false;
    }
    return true;
  }

  absl::Status EmitStmt(const ir::StmtPtr& stmt, int indent) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) RETURN_IF_ERROR(EmitStmt(s, indent));
      return absl::OkStatus();
    }
    if (auto scope = ir::As<ir::CommDomainScopeStmt>(stmt)) return EmitDomain(*scope, indent);
    if (auto loop = ir::As<ir::ForStmt>(stmt)) return EmitLoop(*loop, indent);
    if (auto assign = ir::As<ir::AssignStmt>(stmt)) return EmitAssign(*assign, indent);
    if (auto eval = ir::As<ir::EvalStmt>(stmt)) {
      auto call = ir::As<ir::Call>(eval->expr());
      if (call != nullptr) return EmitDispatch(call, indent);
      return Unsupported(stmt->span(), "an expression statement");
    }
    if (auto ret = ir::As<ir::ReturnStmt>(stmt); ret != nullptr && ReturnsParams(*ret)) {
      return absl::OkStatus();
    }
    if (auto ret = ir::As<ir::ReturnStmt>(stmt)) {
      // A dispatch writes its results into its Out arguments, so a returned
      // result is already in the HOST's parameters.
      for (const ir::ExprPtr& v : ret->value()) {
        ASSIGN_OR_RETURN(Value value, Lookup(v));
        if (value.kind != Kind::kHostParam && value.kind != Kind::kTuple) {
          return Unsupported(v->span(), "returning a value that is not a parameter");
        }
      }
      return absl::OkStatus();
    }
    if (ir::Is<ir::WhileStmt>(stmt)) return Unsupported(stmt->span(), "a while loop");
    if (ir::Is<ir::IfStmt>(stmt)) return Unsupported(stmt->span(), "an if statement");
    if (ir::Is<ir::RuntimeScopeStmt>(stmt)) return Unsupported(stmt->span(), "a runtime scope");
    return Unsupported(stmt->span(), "this statement");
  }

  absl::Status EmitDomain(const ir::CommDomainScopeStmt& scope, int indent) {
    const int d = static_cast<int>(domains_.size());
    const std::string domain = Fresh(scope.name_hint());
    const std::string spec = Fresh(pto::StrCat(domain, "_spec"));
    domains_.push_back(domain);
    Line(indent, pto::StrCat("// comm domain ", scope.name_hint()));
    Line(indent, pto::StrCat("pto::rt::DomainSpec ", spec, ";"));
    Line(indent, pto::StrCat(spec, ".name = \"", scope.name_hint(), "\";"));
    if (scope.devices().empty()) {
      Line(indent, pto::StrCat("for (int d = 0; d < world_size; ++d) ", spec,
                               ".devices.push_back(d);"));
    } else {
      std::string devices;
      for (int64_t dev : scope.devices()) pto::StrAppend(&devices, devices.empty() ? "" : ", ", dev);
      Line(indent, pto::StrCat(spec, ".devices = {", devices, "};"));
    }
    int64_t window = 0;
    std::string buffers;
    for (const ir::WindowBufferPtr& slot : scope.slots()) {
      std::optional<int64_t> size = ConstIntOf(slot->size());
      if (!size.has_value()) return Unsupported(slot->span(), "a window buffer of dynamic size");
      const int64_t rounded =
          (*size + kCommBufferAlignment - 1) / kCommBufferAlignment * kCommBufferAlignment;
      window += rounded;
      pto::StrAppend(&buffers, "{\"", slot->name_hint(), "\", ", rounded, "}, ");
      slots_[slot->name_hint()] = d;
    }
    window += kCommBufferAlignment;
    pto::StrAppend(&buffers, "{\"", kOrdBuffer, "\", ", kCommBufferAlignment, "}");
    Line(indent, pto::StrCat(spec, ".buffers = {", buffers, "};"));
    Line(indent, pto::StrCat(spec, ".window_size = ", window, ";"));
    const std::string created = Fresh(pto::StrCat(domain, "_or"));
    Line(indent, pto::StrCat("absl::StatusOr<pto::rt::Domain> ", created, " = host.CreateDomain(",
                             spec, ");"));
    Line(indent, pto::StrCat("if (!", created, ".ok()) return ", created, ".status();"));
    Line(indent, pto::StrCat("const pto::rt::Domain* ", domain, " = &*", created, ";"));
    return EmitStmt(scope.body(), indent);
  }

  // `for r in range(world_size())`, or PyPTO's loop over a constant range of
  // devices (`for r in pl.range(1, 3): self.f(..., device=r)`).
  bool IsDeviceLoop(const ir::ForStmt& loop) const {
    if (ConstIntOf(loop.step()) != 1) return false;
    if (ConstIntOf(loop.start()) == 0 &&
        (IsWorldSize(loop.stop()) || world_size_vars_.count(loop.stop().get()) > 0)) {
      return true;
    }
    std::optional<int64_t> start = ConstIntOf(loop.start()), stop = ConstIntOf(loop.stop());
    return start.has_value() && stop.has_value() && *start >= 0 && *start < *stop &&
           DispatchesOn(loop.body(), loop.loop_var().get());
  }

  // PyPTO's `for rd in pl.range(ROUNDS)` around dispatches and collectives:
  // a C++ loop whose variable is a scalar (e.g. the round index of
  // `inputs[rd, r]`). Each iteration dispatches afresh, and every builtin
  // clears the signal cells it used before it returns, so a round never sees
  // an earlier round's notifications (docs/collectives.md, "Signals").
  absl::Status EmitRoundLoop(const ir::ForStmt& loop, int indent) {
    std::optional<int64_t> step = ConstIntOf(loop.step());
    if (!loop.iter_args().empty() || !step.has_value() || *step <= 0) {
      return Unsupported(loop.span(),
                         "a loop other than 'for r in range(world_size())' or a loop with a "
                         "positive constant step and no loop-carried values");
    }
    scalar_indent_ = indent;
    ASSIGN_OR_RETURN(std::string start, ScalarExpr(loop.start()));
    ASSIGN_OR_RETURN(std::string stop, ScalarExpr(loop.stop()));
    const std::string rd = Fresh(loop.loop_var()->name_hint());
    values_[loop.loop_var().get()] = {Kind::kScalar, pto::StrCat("static_cast<uint64_t>(", rd, ")")};
    Line(indent, pto::StrCat("for (int64_t ", rd, " = ", start, "; ", rd, " < ", stop, "; ", rd,
                             " += ", *step, ") {"));
    RETURN_IF_ERROR(EmitStmt(loop.body(), indent + 1));
    Line(indent, "}");
    return absl::OkStatus();
  }

  absl::Status EmitLoop(const ir::ForStmt& loop, int indent) {
    if (device_.empty() && !IsDeviceLoop(loop)) return EmitRoundLoop(loop, indent);
    if (!device_.empty() || !loop.iter_args().empty() || !IsDeviceLoop(loop)) {
      return Unsupported(loop.span(), "a loop other than 'for r in range(world_size())'");
    }
    device_ = Fresh(loop.loop_var()->name_hint());
    device_var_ = loop.loop_var().get();
    // The rank itself may be a scalar argument (PyPTO's `self.f(..., r, device=r)`).
    values_[device_var_] = {Kind::kScalar, pto::StrCat("static_cast<uint64_t>(", device_, ")")};
    loop_indent_ = indent + 1;
    std::string count = "world_size";
    const int64_t first = ConstIntOf(loop.start()).value_or(0);
    if (std::optional<int64_t> k = ConstIntOf(loop.stop())) {
      // A constant device range: the run must have its devices.
      count = pto::StrCat(*k);
      Line(indent, pto::StrCat("if (", *k, " > world_size) {"));
      Line(indent + 1,
           pto::StrCat("return absl::InvalidArgumentError(\"",
                       absl::CEscape(pto::StrCat(loop.span().ToString(), ": the loop dispatches to ",
                                                 *k, " devices; the run has ")),
                       "\" + std::to_string(world_size));"));
      Line(indent, "}");
    }
    Line(indent, pto::StrCat("for (int ", device_, " = ", first, "; ", device_, " < ", count,
                             "; ++", device_, ") {"));
    RETURN_IF_ERROR(EmitStmt(loop.body(), indent + 1));
    Line(indent, "}");
    device_.clear();
    device_var_ = nullptr;
    rank_ctx_.clear();
    return absl::OkStatus();
  }

  absl::Status EmitAssign(const ir::AssignStmt& assign, int indent) {
    const ir::ExprPtr& value = assign.value();
    const ir::Var* var = assign.var().get();
    if (ir::Is<ir::Var>(value)) {
      ASSIGN_OR_RETURN(values_[var], Lookup(value));
      return absl::OkStatus();
    }
    if (auto item = ir::As<ir::TupleGetItem>(value)) {
      ASSIGN_OR_RETURN(Value tuple, Lookup(item->tuple()));
      if (tuple.kind != Kind::kTuple || item->index() < 0 ||
          item->index() >= static_cast<int>(tuple.elements.size())) {
        return Unsupported(value->span(), "this tuple item");
      }
      values_[var] = tuple.elements[item->index()];
      return absl::OkStatus();
    }
    if (auto bin = ir::As<ir::BinaryExpr>(value)) {
      // A scalar such as PyPTO's `peer = (r + 1) % pld.world_size()`.
      scalar_indent_ = indent;
      ASSIGN_OR_RETURN(std::string e, ScalarExpr(value));
      const std::string name = Fresh(var->name_hint());
      Line(indent, pto::StrCat("const uint64_t ", name, " = static_cast<uint64_t>(", e, ");"));
      values_[var] = {Kind::kScalar, name};
      return absl::OkStatus();
    }
    auto call = ir::As<ir::Call>(value);
    if (call == nullptr) return Unsupported(value->span(), "this expression");
    if (ir::Is<ir::GlobalVar>(call->op())) {
      // The results are the call's Out / InOut arguments, in order (as
      // PyPTO's distributed code generation aliases them).
      RETURN_IF_ERROR(EmitPipelineDispatch(*call, indent));
      ASSIGN_OR_RETURN(std::vector<Value> outs, OutArgs(*call));
      auto tuple = ir::As<ir::TupleType>(assign.var()->type());
      const size_t results = tuple != nullptr ? tuple->types().size() : 1;
      if (outs.size() != results) {
        return Unsupported(value->span(), "a dispatch whose results are not its Out arguments");
      }
      values_[var] = tuple != nullptr ? Value{Kind::kTuple, "", -1, "", 1, 0, "", outs} : outs[0];
      return absl::OkStatus();
    }
    const std::string& op = call->op()->name();
    const ir::OpId id = call->op()->id();
    if (id == ir::OpId::kPldTensorAllocWindowBuffer) {
      auto it = slots_.find(var->name_hint());
      if (it == slots_.end()) {
        return Unsupported(value->span(), "a window buffer outside its comm domain's slots");
      }
      values_[var] = {Kind::kPtr, "", it->second, var->name_hint()};
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPldTensorWindow) {
      if (call->args().empty()) return Unsupported(value->span(), "a window without a buffer");
      ASSIGN_OR_RETURN(Value ptr, Lookup(call->args()[0]));
      if (ptr.kind != Kind::kPtr) return Unsupported(value->span(), "a window of this buffer");
      Value v{Kind::kWindow, "", ptr.domain, ptr.slot};
      RETURN_IF_ERROR(TypeInfo(assign.var()->type(), value->span(), &v));
      values_[var] = v;
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPldSystemGetCommCtx) {
      if (call->args().size() != 1) return Unsupported(value->span(), "this get_comm_ctx");
      ASSIGN_OR_RETURN(Value view, Lookup(call->args()[0]));
      if (view.kind != Kind::kWindow) {
        return Unsupported(value->span(), "get_comm_ctx of a non-window tensor");
      }
      ASSIGN_OR_RETURN(std::string rank, RankCtx(view.domain, value->span()));
      const std::string name = Fresh(var->name_hint());
      Line(indent, pto::StrCat("const uint64_t ", name, " = ", rank, "->device_ctx.addr();"));
      values_[var] = {Kind::kScalar, name};
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPldSystemWorldSize) {
      // A temporary of FlattenCallExpr (`_tmp = pld.system.world_size()`),
      // e.g. a device loop's bound.
      world_size_vars_.insert(var);
      values_[var] = {Kind::kScalar, "static_cast<uint64_t>(world_size)"};
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPlTensorIndex) {
      ASSIGN_OR_RETURN(Value row, RowView(*call, assign.var()->type()));
      const std::string name = Fresh(var->name_hint());
      Line(indent, pto::StrCat("const pto::rt::Tensor ", name, " = ", row.name, ";"));
      values_[var] = {Kind::kTensor, name};
      return absl::OkStatus();
    }
    if (id == ir::OpId::kPlTensorCreate) {
      if (device_.empty()) return Unsupported(value->span(), "a tensor created outside a device loop");
      Value v;
      RETURN_IF_ERROR(TypeInfo(assign.var()->type(), value->span(), &v));
      const std::string name = Fresh(var->name_hint());
      const std::string alloc = Fresh(pto::StrCat(name, "_or"));
      Line(indent, pto::StrCat("absl::StatusOr<pto::rt::Tensor> ", alloc, " = host.Alloc(",
                               device_, ", ", v.bytes, ", \"", var->name_hint(), "\");"));
      Line(indent, pto::StrCat("if (!", alloc, ".ok()) return ", alloc, ".status();"));
      Line(indent, pto::StrCat("const pto::rt::Tensor ", name, " = Typed(*", alloc, ", ",
                               v.elem_bytes, ", {", v.dims, "});"));
      values_[var] = {Kind::kTensor, name};
      return absl::OkStatus();
    }
    return Unsupported(value->span(), pto::StrCat("'", op, "'"));
  }

  // `pl.tensor.index(t, [r])` of a tensor: row r, typed as `type`.
  // `param[i0, ..., ik]` of a HOST parameter in a device loop: the row-major
  // sub-tensor at those leading indices (PyPTO's `inputs[r]`, and its
  // per-round `inputs[rd, r]`); each index a constant or the device.
  absl::StatusOr<Value> RowView(const ir::Call& call, const ir::TypePtr& type) {
    auto indices = call.args().size() == 2 ? ir::As<ir::MakeTuple>(call.args()[1]) : nullptr;
    auto base_type = ir::AsTensorTypeLike(call.args()[0]->type());
    if (indices == nullptr || indices->elements().empty() || base_type == nullptr ||
        indices->elements().size() > base_type->shape().size()) {
      return Unsupported(call.span(), "this 'pl.tensor.index'");
    }
    ASSIGN_OR_RETURN(Value base, Lookup(call.args()[0]));
    if (base.kind != Kind::kHostParam || device_.empty()) {
      return Unsupported(call.span(), "an index other than of a parameter in a device loop");
    }
    std::string row;
    for (size_t k = 0; k < indices->elements().size(); ++k) {
      const ir::ExprPtr& index = indices->elements()[k];
      std::string term;
      if (std::optional<int64_t> c = ConstIntOf(index)) {
        term = pto::StrCat(*c);
      } else if (auto v = ir::As<ir::Var>(index); v != nullptr && v.get() == device_var_) {
        term = pto::StrCat("static_cast<uint64_t>(", device_, ")");
      } else if (auto s = ir::As<ir::Var>(index); s != nullptr && values_.count(s.get()) > 0 &&
                                                  values_[s.get()].kind == Kind::kScalar) {
        // A round index: checked, since a loop's bound need not fit the dim.
        term = values_[s.get()].name;
        std::optional<int64_t> dim = ConstIntOf(base_type->shape()[k]);
        if (!dim.has_value()) return Unsupported(call.span(), "an index into a dynamic dimension");
        Line(loop_indent_, pto::StrCat("if (", term, " >= ", *dim, ") {"));
        Line(loop_indent_ + 1,
             pto::StrCat("return absl::OutOfRangeError(\"",
                         absl::CEscape(pto::StrCat(call.span().ToString(), ": index ")),
                         "\" + std::to_string(", term, ") + \" of '", s->name_hint(),
                         "' is outside dimension ", k, " of size ", *dim, "\");"));
        Line(loop_indent_, "}");
      } else {
        return Unsupported(index->span(), "an index other than a constant, the device or a round");
      }
      if (k > 0) {
        std::optional<int64_t> dim = ConstIntOf(base_type->shape()[k]);
        if (!dim.has_value()) return Unsupported(call.span(), "an index into a dynamic dimension");
        row = pto::StrCat("(", row, ") * ", *dim, " + ");
      }
      pto::StrAppend(&row, term);
    }
    Value v;
    RETURN_IF_ERROR(TypeInfo(type, call.span(), &v));
    if (indices->elements().size() > 1) row = pto::StrCat("(", row, ")");
    v.name = pto::StrCat("Typed(", base.name, "[", device_, "].View(", row, " * ", v.bytes, ", ",
                         v.bytes, "), ", v.elem_bytes, ", {", v.dims, "})");
    return v;
  }

  // Checks device=<the loop's device>.
  absl::Status CheckDevice(const ir::Call& call) {
    const ir::AttrValue* dev = FindCallAttr(call, ir::kAttrDevice);
    const auto* e = dev != nullptr ? std::get_if<ir::ExprPtr>(dev) : nullptr;
    if (device_.empty() || e == nullptr || ir::As<ir::Var>(*e).get() != device_var_) {
      return Unsupported(call.span(), "a dispatch other than to the loop's device");
    }
    return absl::OkStatus();
  }

  absl::Status EmitDispatch(const ir::CallPtr& call, int indent) {
    const std::string& op = call->op()->name();
    if (ir::Is<ir::GlobalVar>(call->op())) return EmitPipelineDispatch(*call, indent);
    if (ops::TraitsOf(*call).host_dispatch) return EmitBuiltinDispatch(call, indent);
    return Unsupported(call->span(), pto::StrCat("'", op, "'"));
  }

  // Lines that look up callable `name` into a fresh pointer; returns it.
  std::string FindCallable(std::string_view name, int indent) {
    const std::string c = Fresh("callable");
    Line(indent, pto::StrCat("const pto::rt::ChipCallable* ", c, " = Find(callables, \"", name,
                             "\");"));
    Line(indent, pto::StrCat("if (", c, " == nullptr) return absl::NotFoundError(\"no callable '",
                             name, "'\");"));
    return c;
  }

  absl::Status EmitPipelineDispatch(const ir::Call& call, int indent) {
    const std::string& name = call.op()->name();
    ir::FunctionPtr callee = program_->GetFunction(name);
    if (callee == nullptr) {
      return InternalErrorF(call.span(), "call of '", name, "', which is not in the program");
    }
    if (callee->func_type() != ir::FunctionType::kOrchestration) {
      return Unsupported(call.span(), pto::StrCat("a call of the non-pipeline '", name, "'"));
    }
    if (FindCallAttr(call, ir::kAttrDevice) == nullptr) return EmitUnpinnedDispatch(call, indent);
    RETURN_IF_ERROR(CheckDevice(call));
    std::vector<std::string> tensors, scalars;
    for (const ir::ExprPtr& arg : call.args()) {
      Value v;
      if (auto c = ir::As<ir::Call>(arg); c != nullptr && ir::IsOp(c, ir::OpId::kPlTensorIndex)) {
        ASSIGN_OR_RETURN(v, RowView(*c, arg->type()));
      } else if (std::optional<int64_t> k = ConstIntOf(arg)) {
        // A constant scalar argument (e.g. PyPTO's `pld.world_size()` once
        // pto-run binds the world, or a literal root).
        v = {Kind::kScalar, pto::StrCat("static_cast<uint64_t>(", *k, "LL)")};
      } else if (IsWorldSize(arg)) {
        v = {Kind::kScalar, "static_cast<uint64_t>(world_size)"};
      } else if (ir::Is<ir::BinaryExpr>(arg)) {
        // An inline scalar such as PyPTO's `(r + 1) % pld.world_size()`.
        scalar_indent_ = indent;
        ASSIGN_OR_RETURN(std::string e, ScalarExpr(arg));
        v = {Kind::kScalar, Fresh("arg")};
        Line(indent, pto::StrCat("const uint64_t ", v.name, " = static_cast<uint64_t>(", e, ");"));
      } else {
        ASSIGN_OR_RETURN(v, Lookup(arg));
      }
      if (v.kind == Kind::kScalar) {
        scalars.push_back(v.name);
      } else {
        ASSIGN_OR_RETURN(std::string t, TensorExpr(v, arg->span()));
        tensors.push_back(t);
      }
    }
    EmitArgsAndDispatch(name, name, tensors, scalars, indent);
    return absl::OkStatus();
  }

  // A call without device= (PyPTO's comm-less dispatch): the next chip in
  // turn runs it on its copies of the HOST parameters.
  absl::Status EmitUnpinnedDispatch(const ir::Call& call, int indent) {
    const std::string chip = Fresh("chip");
    std::vector<std::string> tensors, scalars;
    for (const ir::ExprPtr& arg : call.args()) {
      constexpr char kWhat[] =
          "an argument other than a HOST parameter or a scalar in a dispatch without device=";
      if (!ir::Is<ir::Var>(arg)) return Unsupported(arg->span(), kWhat);
      ASSIGN_OR_RETURN(Value v, Lookup(arg));
      if (v.kind == Kind::kScalar) {
        scalars.push_back(v.name);
        continue;
      }
      if (v.kind != Kind::kHostParam) return Unsupported(arg->span(), kWhat);
      Value t;
      RETURN_IF_ERROR(TypeInfo(arg->type(), arg->span(), &t));
      tensors.push_back(pto::StrCat("Typed(", v.name, "[", chip, "], ", t.elem_bytes, ", {",
                                    t.dims, "})"));
    }
    Line(indent, pto::StrCat("const int ", chip, " = next_chip++ % world_size;"));
    EmitArgsAndDispatch(call.op()->name(), call.op()->name(), tensors, scalars, indent, chip);
    return absl::OkStatus();
  }

  // The Out / InOut arguments of a dispatch (its arg_directions), in order.
  absl::StatusOr<std::vector<Value>> OutArgs(const ir::Call& call) {
    const ir::AttrValue* dirs = FindCallAttr(call, ir::kAttrArgDirections);
    const auto* list = dirs != nullptr ? std::get_if<std::vector<ir::ArgDirection>>(dirs) : nullptr;
    std::vector<Value> outs;
    if (list == nullptr) return outs;
    for (size_t i = 0; i < list->size() && i < call.args().size(); ++i) {
      const ir::ArgDirection d = (*list)[i];
      if (d != ir::ArgDirection::kOutputExisting && d != ir::ArgDirection::kInOut &&
          d != ir::ArgDirection::kOutput) {
        continue;
      }
      ASSIGN_OR_RETURN(Value v, Lookup(call.args()[i]));
      outs.push_back(v);
    }
    return outs;
  }

  absl::Status EmitBuiltinDispatch(const ir::CallPtr& call, int indent) {
    RETURN_IF_ERROR(CheckDevice(*call));
    ASSIGN_OR_RETURN(BuiltinVariant variant, HostBuiltinVariant(call));
    std::vector<std::string> tensors;
    int domain = -1;
    for (const ir::ExprPtr& arg : call->args()) {
      ASSIGN_OR_RETURN(Value v, Lookup(arg));
      if (v.kind == Kind::kWindow) {
        if (domain >= 0 && domain != v.domain) {
          return InternalErrorF(arg->span(), "builtin operands in different comm domains");
        }
        domain = v.domain;
      }
      ASSIGN_OR_RETURN(std::string t, TensorExpr(v, arg->span()));
      tensors.push_back(t);
    }
    if (domain < 0) return Unsupported(call->span(), "a builtin call without a window operand");
    ASSIGN_OR_RETURN(std::string rank, RankCtx(domain, call->span()));
    tensors.push_back(pto::StrCat(rank, "->buffers.at(\"", kOrdBuffer, "\")"));
    // scalar 1 = L: a constant, or a runtime scalar the entry range-checks.
    const ops::CoreNum l = ops::DecodeCoreNum(FindCallAttr(*call, ir::kAttrCoreNum), 1);
    std::string core_num;
    if (l.value) {
      core_num = pto::StrCat("static_cast<uint64_t>(", *l.value, ")");
    } else {
      ASSIGN_OR_RETURN(std::string e, ScalarExpr(l.expr));
      core_num = pto::StrCat("static_cast<uint64_t>(", e, ")");
    }
    EmitArgsAndDispatch(call->op()->name(), variant.entry, tensors,
                        {pto::StrCat(rank, "->device_ctx.addr()"), core_num}, indent);
    return absl::OkStatus();
  }

  void EmitArgsAndDispatch(std::string_view what, std::string_view callable,
                           const std::vector<std::string>& tensors,
                           const std::vector<std::string>& scalars, int indent,
                           std::string_view device = "") {
    Line(indent, pto::StrCat("// ", what));
    const std::string c = FindCallable(callable, indent);
    const std::string args = Fresh("args");
    Line(indent, pto::StrCat("pto::rt::ChipArgs ", args, ";"));
    for (const std::string& t : tensors) {
      Line(indent, pto::StrCat(args, ".tensors.push_back(", t, ");"));
    }
    for (const std::string& s : scalars) {
      Line(indent, pto::StrCat(args, ".scalars.push_back(", s, ");"));
    }
    const std::string st = Fresh("status");
    Line(indent, pto::StrCat("if (absl::Status ", st, " = host.Dispatch(",
                             device.empty() ? std::string_view(device_) : device, ", *", c, ", ",
                             args, "); !", st, ".ok()) {"));
    Line(indent + 1, pto::StrCat("return ", st, ";"));
    Line(indent, "}");
  }

  const ir::ProgramPtr& program_;
  std::string host_function_;
  std::map<const ir::Var*, Value> values_;
  std::set<const ir::Expr*> world_size_vars_;  // vars holding pld.system.world_size()
  bool uses_scalar_ops_ = false;
  int scalar_indent_ = 1;
  std::vector<std::string> domains_;      // C++ name per domain
  std::map<std::string, int> slots_;      // slot name -> domain
  std::map<int, std::string> rank_ctx_;   // domain -> this iteration's rank context
  std::string device_;                    // the device loop variable, if inside one
  const ir::Var* device_var_ = nullptr;
  int loop_indent_ = 0;
};

}  // namespace

absl::StatusOr<std::string> GenerateHostOrchestration(const ir::ProgramPtr& program,
                                                      std::string_view host_function) {
  return Generator(program, host_function).Run();
}

}  // namespace pto::codegen
