// Calls: the scalar helpers (pl.const, pl.cast, pl.min, ...), calls between
// the program's functions (self.f(...)), and operator calls, which
// LowerOpCall resolves and type-checks through compiler/ops; plus the
// conversion of keyword arguments to IR attributes.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/arena.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_binding.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

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

absl::StatusOr<ExprPtr> Parser::LowerCall(const Ast* a, std::string_view alloc_name) {
  const Ast* f = Kid(a, 0);
  Span span = SpanOf(a);
  if (IsConstAst(a)) {  // pl.FP32.get_byte(), float("nan")
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    return ConstToExpr(v, span);
  }
  if (f->kind == AstKind::kName) {
    // The function form calls the other @pl.jit functions by name.
    if ((jit_form_ || module_funcs_.contains(f->text)) && IsFreeName(f->text) &&
        funcs_by_name_.contains(f->text)) {
      return LowerFunctionCall(a, f->text);
    }
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
    return ExprPtr(ir::MakeNode<ir::BinaryExpr>(
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
  if ((path == "pl.set_validshape" || path == "pl.tensor.set_validshape") &&
      NumPos(a) + a->num_kws == 3) {
    return LowerSetValidShape(a, path);
  }
  if ((path == "pl.scatter_update" || path == "pl.tile.scatter_update" ||
       path == "pl.tensor.scatter_update") && a->num_kws > 0) {
    return LowerScatterUpdate(a, path);
  }
  if (path == "pl.submit") return LowerSubmit(a);
  if (path == "pl.spmd_submit") {
    return ErrorAt(f, "pl.spmd_submit(...) is not supported yet; use pl.submit(self.kernel, ...) "
                      "or a call with core_num=");
  }
  if (path == "pl.MemRef") return LowerMemRef(a);
  if (path == "pld.WindowBuffer") {
    ASSIGN_OR_RETURN(ir::WindowBufferPtr wb, LowerWindowBufferRef(a));
    return ExprPtr(wb);
  }
  return LowerOpCall(a, alloc_name);
}

// PyPTO's set_validshape(input, valid_rows, valid_cols) (op/unified_ops.py,
// op/tensor_ops.py): a tensor's is our set_validshape(t, [rows, cols]), a
// tile's is pl.tile.set_validshape.
absl::StatusOr<ExprPtr> Parser::LowerSetValidShape(const Ast* a, std::string_view path) {
  static constexpr std::string_view kNames[] = {"input", "valid_rows", "valid_cols"};
  const Ast* given[3] = {nullptr, nullptr, nullptr};
  for (uint32_t i = 0; i < NumPos(a); ++i) given[i] = PosArg(a, i);
  for (uint32_t i = 0; i < a->num_kws; ++i) {
    const KwName& k = KwAt(a, i);
    int slot = -1;
    for (int j = 0; j < 3; ++j) {
      if (k.name == kNames[j] || (j == 0 && (k.name == "tensor" || k.name == "tile"))) slot = j;
    }
    if (slot < 0 || given[slot] != nullptr) {
      return UserError(KwSpan(k), pto::StrCat(slot < 0 ? "unexpected" : "repeated",
                                              " keyword argument '", k.name, "' for ", path,
                                              " (input, valid_rows, valid_cols)"));
    }
    given[slot] = KwValue(a, i);
  }
  ASSIGN_OR_RETURN(ExprPtr input, LowerExpr(given[0]));
  ASSIGN_OR_RETURN(ExprPtr rows, LowerScalarOperand(given[1], path));
  ASSIGN_OR_RETURN(ExprPtr cols, LowerScalarOperand(given[2], path));
  Span span = SpanOf(a);
  if (ir::Is<ir::TileType>(input->type()) && path == "pl.set_validshape") {
    return MakeOpCall("pl.tile.set_validshape", {std::move(input), std::move(rows), std::move(cols)},
                      {}, {}, span);
  }
  if (ir::AsTensorTypeLike(input->type()) == nullptr) {
    return ErrorAt(given[0], pto::StrCat(path, " input must be a Tensor", path == "pl.set_validshape"
                                                                           ? " or a Tile"
                                                                           : "",
                                         ", got ", TypeText(input->type())));
  }
  ExprPtr shape = ir::MakeNode<ir::MakeTuple>(std::vector<ExprPtr>{std::move(rows), std::move(cols)},
                                              span);
  return MakeOpCall("pl.tensor.set_validshape", {std::move(input), std::move(shape)}, {}, {}, span);
}

// PyPTO's scatter_update builder (ir/op/tile_ops.py, tensor_ops.py) takes
// `(input, dim, index, src)`, `(input, index, src, dim=)` and
// `(input, dim, index=, src=)`; all three are read as the positional form,
// the one the IR keeps and prints.
absl::StatusOr<ExprPtr> Parser::LowerScatterUpdate(const Ast* a, std::string_view path) {
  const Ast* dim = nullptr;
  const Ast* index = nullptr;
  const Ast* src = nullptr;
  for (uint32_t i = 0; i < a->num_kws; ++i) {
    const KwName& k = KwAt(a, i);
    const Ast** slot = k.name == "dim" ? &dim : k.name == "index" ? &index
                       : k.name == "src" ? &src : nullptr;
    if (slot == nullptr || *slot != nullptr) {
      return UserError(KwSpan(k), pto::StrCat(slot == nullptr ? "unexpected" : "repeated",
                                              " keyword argument '", k.name, "' for ", path,
                                              " (input, dim, index, src)"));
    }
    *slot = KwValue(a, i);
  }
  const uint32_t npos = NumPos(a);
  if (npos == 3 && dim != nullptr && index == nullptr && src == nullptr) {
    index = PosArg(a, 1);
    src = PosArg(a, 2);
  } else if (npos == 2 && dim == nullptr && index != nullptr && src != nullptr) {
    dim = PosArg(a, 1);
  } else if (!(npos == 1 && dim != nullptr && index != nullptr && src != nullptr)) {
    return ErrorAt(a, pto::StrCat(path, " expects (input, dim, index, src), (input, index, src, "
                                        "dim=...) or (input, dim, index=..., src=...)"));
  }
  ASSIGN_OR_RETURN(ExprPtr input, LowerExpr(PosArg(a, 0)));
  ASSIGN_OR_RETURN(int64_t d, ConstInt(dim, pto::StrCat("the dim of ", path)));
  ASSIGN_OR_RETURN(ExprPtr idx, LowerExpr(index));
  ASSIGN_OR_RETURN(ExprPtr s, LowerExpr(src));
  std::string_view op = path;
  if (path == "pl.scatter_update") {
    op = ir::Is<ir::TileType>(input->type()) ? "pl.tile.scatter_update"
                                              : "pl.tensor.scatter_update";
  }
  Span span = SpanOf(a);
  std::vector<ExprPtr> args = {std::move(input), ir::MakeNode<ir::ConstInt>(d, DataType::kIndex, SpanOf(dim)),
                               std::move(idx), std::move(s)};
  return MakeOpCall(op, std::move(args), {}, {}, span);
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
    return ExprPtr(ir::MakeNode<ir::MakeTuple>(std::move(elems), SpanOf(a)));
  }
  // An operand the operator needs as a compile-time integer (an array's
  // extent): arithmetic of constants is folded, as PyPTO reads closure values
  // (`pl.array.create(N_RANKS * L, pl.INT32)`). Elsewhere arithmetic is kept.
  if (op == "pl.array.create" && a->kind == AstKind::kBinary && IsConstAst(a)) {
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    return ConstToExpr(v, SpanOf(a));
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
      const Ast* a = Arg(r);
      // PyPTO's read / write take a bare index for flat 1-D access
      // (op/tensor_ops.py read: `[indices]` when not a sequence).
      if (IsReadWrite(op_) && a->kind != AstKind::kList && a->kind != AstKind::kTuple &&
          (r.keyword ? KeywordName(r.index) == "indices" : r.index == 1)) {
        ASSIGN_OR_RETURN(ExprPtr i, p_->LowerOpArg(a, op_));
        return ExprPtr(ir::MakeNode<ir::MakeTuple>(std::vector<ExprPtr>{std::move(i)},
                                                   p_->SpanOf(a)));
      }
      return p_->LowerOpArg(a, op_);
    }
    static bool IsReadWrite(std::string_view op) {
      return op == "pl.read" || op == "pl.write" || op == "pl.tensor.read" ||
             op == "pl.tensor.write" || op == "pl.tile.read" || op == "pl.tile.write";
    }
    absl::StatusOr<ir::AttrValue> LowerAttr(ops::ArgRef r) override {
      if (r.keyword && KeywordName(r.index) == ir::kAttrDeps &&
          (op_ == "pl.system.task_dummy" || op_ == "system.task_dummy")) {
        ASSIGN_OR_RETURN(std::vector<ExprPtr> deps,
                         p_->LowerTaskDeps(Arg(r), "pl.system.task_dummy"));
        return ir::AttrValue(std::move(deps));
      }
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
  if ((std::string_view(bound.op->name) == "pl.tile.aiv_shard" ||
       std::string_view(bound.op->name) == "pl.tile.aic_gather") &&
      split_aiv_mode_ && !ir::HasAttr(kwargs, "split")) {
    // PyPTO's parser fills the split of the enclosing pl.split_aiv region.
    kwargs.emplace_back("split", *split_aiv_mode_);
  }
  if (std::string_view(bound.op->name) == "pl.tensor.slice" && bound.args.size() == 4) {
    // PyPTO's slice(t, shape, offset, valid_shape): the slice of `shape`
    // whose valid part is `valid_shape`, which is our set_validshape of it.
    ExprPtr valid = std::move(bound.args.back());
    bound.args.pop_back();
    ASSIGN_OR_RETURN(ExprPtr slice, MakeOpCall(bound.op->name, std::move(bound.args),
                                               std::move(kwargs), std::move(attrs), SpanOf(a)));
    return MakeOpCall("pl.tensor.set_validshape", {std::move(slice), std::move(valid)}, {}, {},
                      SpanOf(a));
  }
  return MakeOpCall(bound.op->name, std::move(bound.args), std::move(kwargs), std::move(attrs),
                    SpanOf(a));
}

// `pl.submit(self.f, args..., deps=[...])`: the call of f, marked `submit`,
// whose result is tuple[<f's results>, TASK_ID], as PyPTO's flat Submit type.
absl::StatusOr<ExprPtr> Parser::LowerSubmit(const Ast* a) {
  if (NumPos(a) == 0) return ErrorAt(a, "pl.submit(...) needs the function first: pl.submit(self.f, ...)");
  const Ast* f = PosArg(a, 0);
  std::string_view fname;
  if (f->kind == AstKind::kAttribute && DottedPath(f) && StartsWith(path_, "self.") &&
      funcs_by_name_.contains(std::string_view(path_).substr(5))) {
    fname = funcs_by_name_.find(std::string_view(path_).substr(5))->first;
  } else if (jit_form_ && f->kind == AstKind::kName && IsFreeName(f->text) &&
             funcs_by_name_.contains(f->text)) {
    fname = f->text;
  } else {
    return ErrorAt(f, "pl.submit(...) needs a function of the program first, as in "
                      "pl.submit(self.f, x)");
  }
  ASSIGN_OR_RETURN(ExprPtr e, LowerFunctionCall(a, fname, /*first_arg=*/1));
  auto call = std::static_pointer_cast<const ir::Call>(e);
  std::vector<TypePtr> types;
  if (auto tt = ir::As<ir::TupleType>(call->type()); tt != nullptr) {
    types = tt->types();
  } else if (!ir::Is<ir::UnknownType>(call->type())) {
    types.push_back(call->type());
  }
  types.push_back(ir::ScalarType::Get(DataType::kTaskId));
  ir::AttrList attrs = call->attrs();
  attrs.insert(attrs.begin(), {ir::kAttrSubmit, true});
  return ExprPtr(ir::MakeNode<ir::Call>(call->op(), call->args(), call->kwargs(),
                                            std::move(attrs),
                                            ir::MakeNode<ir::TupleType>(std::move(types)),
                                            SpanOf(a)));
}

absl::StatusOr<std::vector<ExprPtr>> Parser::LowerTaskDeps(const Ast* list,
                                                           std::string_view what) {
  if (list->kind != AstKind::kList && list->kind != AstKind::kTuple) {
    return ErrorAt(list, pto::StrCat(what, " deps= must be a list of task ids, as in deps=[tid]"));
  }
  std::vector<ExprPtr> deps;
  for (uint32_t i = 0; i < list->num_kids; ++i) {
    const Ast* e = Kid(list, i);
    if (e->kind == AstKind::kNone) continue;  // "no producer yet": no edge
    ASSIGN_OR_RETURN(ExprPtr d, LowerExpr(e));
    // Locate the error at the written entry (a Var's own span is its definition).
    if (absl::Status st = ops::CheckTaskDeps({d}, what); !st.ok()) {
      return UserError(SpanOf(e), std::string(st.message()));
    }
    deps.push_back(std::move(d));
  }
  return deps;
}

absl::StatusOr<ExprPtr> Parser::LowerFunctionCall(const Ast* a, std::string_view fname,
                                                  uint32_t first_arg) {
  auto it = funcs_by_name_.find(fname);
  if (it == funcs_by_name_.end()) {
    return ErrorAt(Kid(a, 0), pto::StrCat("unknown function 'self.", fname, "'"));
  }
  FuncState* callee = it->second;
  std::vector<ExprPtr> args;
  args.reserve(NumPos(a));
  auto lower_args = [&]() -> absl::Status {
    for (uint32_t i = first_arg; i < NumPos(a); ++i) {
      ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(PosArg(a, i)));
      args.push_back(std::move(e));
    }
    return absl::OkStatus();
  };
  const bool bind_now = !callee->pending_params.empty() && !callee->body_done;
  if (bind_now) {
    RETURN_IF_ERROR(lower_args());
    RETURN_IF_ERROR(BindParamsAtCall(callee, a, first_arg, args));
  }
  if ((callee->derive_results || bind_now) && !callee->body_done) {
    RETURN_IF_ERROR(LowerBodyFirst(callee, a));
  }
  if (!bind_now) RETURN_IF_ERROR(lower_args());
  ir::AttrList attrs;
  attrs.reserve(a->num_kws);
  for (uint32_t i = 0; i < a->num_kws; ++i) {
    const KwName& k = KwAt(a, i);
    if (k.name == "attrs") {  // PyPTO's printed form: attrs={"arg_directions": [...]}
      ASSIGN_OR_RETURN(ir::AttrList dict, ConvertAttrDict(KwValue(a, i), /*call_attrs=*/true));
      for (auto& [key, v] : dict) {
        if (ir::FindAttr(attrs, key) != nullptr) {
          return UserError(KwSpan(k), pto::StrCat("call attribute '", key, "' is given twice"));
        }
        attrs.emplace_back(std::move(key), std::move(v));
      }
      continue;
    }
    if (ir::FindAttr(attrs, k.name) != nullptr) {
      return UserError(KwSpan(k), pto::StrCat("call attribute '", k.name, "' is given twice"));
    }
    if (k.name == ir::kAttrDeps) {
      if (first_arg == 0) {
        return UserError(KwSpan(k), pto::StrCat("deps= is only allowed on pl.submit(...): write "
                                                "`out, tid = pl.submit(self.", fname,
                                                ", ..., deps=[...])`"));
      }
      ASSIGN_OR_RETURN(std::vector<ExprPtr> deps, LowerTaskDeps(KwValue(a, i), "pl.submit"));
      attrs.emplace_back(ir::kAttrDeps, std::move(deps));
      continue;
    }
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
  return ExprPtr(ir::MakeNode<ir::Call>(callee->gv, std::move(args), ir::AttrList{},
                                            std::move(attrs), std::move(type), SpanOf(a)));
}

absl::Status Parser::BindParamsAtCall(FuncState* callee, const Ast* a, uint32_t first_arg,
                                      const std::vector<ExprPtr>& args) {
  for (const FuncState::PendingParam& p : callee->pending_params) {
    if (p.index >= args.size()) {
      return ErrorAt(a, pto::StrCat("this call of '", callee->name, "' gives no argument for "
                                    "its bare pl.Tensor parameter '", p.name, "'"));
    }
    const Ast* arg_ast = PosArg(a, first_arg + static_cast<uint32_t>(p.index));
    std::shared_ptr<const ir::TensorType> t = ir::AsTensorTypeLike(args[p.index]->type());
    if (t == nullptr) {
      return ErrorAt(arg_ast, pto::StrCat("the bare pl.Tensor parameter '", p.name, "' of '",
                                          callee->name, "' takes a tensor, got ",
                                          TypeText(args[p.index]->type())));
    }
    for (const ExprPtr& d : t->shape()) {
      if (!ir::GetConstInt(d)) {
        return ErrorAt(arg_ast, pto::StrCat("the bare pl.Tensor parameter '", p.name, "' of '",
                                            callee->name, "' needs a static shape here, got ",
                                            TypeText(t), " (bind it: pto-opt --bind ",
                                            callee->name, ".", p.name, "=[...])"));
      }
    }
    callee->params[p.index] = ir::MakeNode<const ir::Var>(
        p.name, TypePtr(ir::MakeNode<ir::TensorType>(t->shape(), t->dtype())), p.span);
  }
  callee->pending_params.clear();
  return absl::OkStatus();
}

// `pl.ArgDirection.Input`, or PyPTO's short `pl.adir.input`.
std::optional<ir::ArgDirection> Parser::ArgDirectionOf(const Ast* e) {
  if (e->kind != AstKind::kAttribute || !DottedPath(e)) return std::nullopt;
  std::string_view path = path_;
  if (StartsWith(path, "pl.ArgDirection.")) return ir::ArgDirectionFromName(path.substr(16));
  if (StartsWith(path, "pl.adir.")) return ir::ArgDirectionFromAdirName(path.substr(8));
  return std::nullopt;
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
      case ConstVal::kDynDim: return ir::AttrValue(v.dyn);
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
    for (uint32_t i = 0; i < a->num_kids && dirs; ++i) dirs = ArgDirectionOf(Kid(a, i)).has_value();
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
      std::optional<ir::ArgDirection> d = ArgDirectionOf(e);
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


}  // namespace pto::parser::internal
