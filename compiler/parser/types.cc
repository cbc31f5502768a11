// Type annotations: pl.Scalar / pl.Tensor / pld.DistributedTensor / pl.Tile
// with their views and memory, tuples, parameter directions, and the fast
// path for the simple annotations of function headers.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/ir/arena.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

// ===========================================================================
// Types.

absl::StatusOr<DataType> Parser::LowerDType(const Ast* a, std::string_view what) {
  if (std::optional<DataType> dt = ResolveDType(a)) return *dt;
  if (a->kind == AstKind::kAttribute && DottedPath(a) && StartsWith(path_, "pl.")) {
    return ErrorAt(a, pto::StrCat("unknown data type '", path_, "'"));
  }
  return ErrorAt(a, pto::StrCat("expected a data type such as pl.FP32 for ", what));
}

absl::StatusOr<ExprPtr> Parser::LowerDim(const Ast* a) {
  if (IsPathCall(a, "pl.dynamic")) return InlineDynDim(a);
  ASSIGN_OR_RETURN(ExprPtr e, LowerExpr(a));
  auto st = ir::As<ir::ScalarType>(e->type());
  if (st == nullptr || !ir::IsIntegral(st->dtype())) {
    return ErrorAt(a, pto::StrCat("a shape dimension must be an integer scalar, got ",
                                  TypeText(e->type())));
  }
  return e;
}

absl::StatusOr<std::vector<ExprPtr>> Parser::LowerShape(const Ast* a, std::string_view what) {
  std::vector<ExprPtr> dims;
  if (a->kind == AstKind::kList || a->kind == AstKind::kTuple) {
    dims.reserve(a->num_kids);
    for (uint32_t i = 0; i < a->num_kids; ++i) {
      ASSIGN_OR_RETURN(ExprPtr d, LowerDim(Kid(a, i)));
      dims.push_back(std::move(d));
    }
    return dims;
  }
  if (IsConstAst(a)) {
    ASSIGN_OR_RETURN(ConstVal v, ConstEval(a));
    if (v.kind == ConstVal::kList) {
      for (const ConstVal& e : v.list) {
        if (e.kind != ConstVal::kInt) {
          return ErrorAt(a, pto::StrCat(what, " must be a list of integer dimensions"));
        }
        dims.push_back(ir::MakeNode<ir::ConstInt>(e.i, DataType::kIndex, SpanOf(a)));
      }
      return dims;
    }
  }
  return ErrorAt(a, pto::StrCat(what, " must be a list of dimensions such as [64, 128]"));
}

absl::StatusOr<ir::TensorView> Parser::LowerTensorView(const Ast* call) {
  static constexpr std::string_view kFields[] = {"stride", "layout", "valid_shape", "pad"};
  const Ast* field[4] = {nullptr, nullptr, nullptr, nullptr};
  RETURN_IF_ERROR(BindFourFields(call, kFields, 0, "pl.TensorView", field));
  ir::TensorView view;
  if (field[0] != nullptr) {
    ASSIGN_OR_RETURN(view.stride, LowerShape(field[0], "stride"));
  }
  if (field[1] != nullptr) {
    std::optional<ir::TensorLayout> layout;
    if (DottedPath(field[1]) && StartsWith(path_, "pl.TensorLayout.")) {
      layout = ir::TensorLayoutFromName(std::string_view(path_).substr(16));
    }
    if (!layout) return ErrorAt(field[1], "expected a layout such as pl.TensorLayout.ND");
    view.layout = *layout;
  }
  if (field[2] != nullptr) {
    ASSIGN_OR_RETURN(view.valid_shape, LowerShape(field[2], "valid_shape"));
  }
  if (field[3] != nullptr) {
    std::optional<ir::PadValue> pad;
    if (DottedPath(field[3]) && StartsWith(path_, "pl.PadValue.")) {
      pad = ir::PadValueFromName(std::string_view(path_).substr(12));
    }
    if (!pad) return ErrorAt(field[3], "expected a pad value such as pl.PadValue.zero");
    view.pad = *pad;
  }
  return view;
}

// ---------------------------------------------------------------------------
// PyPTO's declared allocations (docs/en/dev/language/00-python_syntax.md,
// "Declared Allocations", "Slots"): a tile bound to an allocation of its
// own, or to slot k of one of N slots. They direct PyPTO's InitMemRef /
// MemoryReuse; the planner here places every tile itself, so a well-formed
// declaration is checked, reported by a located warning and dropped (the
// results do not change; the separation or ping-pong it asks for is not kept).

// pl.MemRef(), pl.MemRef("name"), pl.MemRef(slots=N), pl.MemRef("name", slots=N).
bool Parser::IsMemRefDeclCall(const Ast* a) {
  if (a->kind != AstKind::kCall || NumPos(a) > 1) return false;
  for (uint32_t i = 0; i < a->num_kws; ++i) {
    if (KwAt(a, i).name != "slots") return false;
  }
  return true;
}

absl::StatusOr<MemRefDecl> Parser::MemRefDeclOf(const Ast* call, std::string_view var) {
  MemRefDecl d;
  d.name = std::string(var);
  if (NumPos(call) == 1) {
    const Ast* n = PosArg(call, 0);
    bool ident = n->kind == AstKind::kString && !n->text.empty() &&
                 !std::isdigit(static_cast<unsigned char>(n->text[0]));
    for (char c : ident ? n->text : std::string_view()) {
      ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    }
    if (!ident) {
      return ErrorAt(n, "a declared allocation pl.MemRef(\"name\") needs an identifier string "
                        "as its name");
    }
    d.name = std::string(n->text);
  }
  for (uint32_t i = 0; i < call->num_kws; ++i) {
    const Ast* v = KwValue(call, i);
    if (v->kind != AstKind::kInt || v->negative || v->int_value < 1 ||
        v->int_value > (uint64_t{1} << 31)) {
      return ErrorAt(v, "slots must be a positive integer literal, e.g. pl.MemRef(\"scratch\", "
                        "slots=2)");
    }
    d.slots = static_cast<int64_t>(v->int_value);
  }
  if (d.name.empty()) {
    return ErrorAt(call, "an unnamed declared allocation pl.MemRef() inside a type needs a name: "
                         "pl.MemRef(\"name\"), or declare it at module level (NAME = "
                         "pl.MemRef())");
  }
  return d;
}

absl::Status Parser::DefineMemRefDecl(const Token& name, const Ast* call) {
  ASSIGN_OR_RETURN(MemRefDecl d, MemRefDeclOf(call, name.text()));
  for (const auto& [k, other] : memref_decls_) {
    if (other.name == d.name && k != name.text()) {
      return ErrorAt(call, pto::StrCat("two separate pl.MemRef() declarations both resolve to "
                                       "the name '", d.name, "' ('", k, "' and '", name.text(),
                                       "'); give one of them an explicit name with "
                                       "pl.MemRef(\"...\")"));
    }
  }
  memref_decls_[name.text()] = std::move(d);
  return absl::OkStatus();
}

// Whether `e`, an item of a type, refers to a declared allocation: a declared
// name, a pl.MemRef(...) declaration, or one of those subscripted by a slot.
absl::StatusOr<bool> Parser::DeclaredMemRefItem(const Ast* e) {
  const Ast* base = e->kind == AstKind::kSubscript ? Kid(e, 0) : e;
  std::optional<MemRefDecl> decl;
  if (base->kind == AstKind::kName && LookupLocal(base->text) == nullptr &&
      LookupConst(base->text) == nullptr) {
    auto it = memref_decls_.find(base->text);
    if (it != memref_decls_.end()) decl = it->second;
  } else if (IsPathCall(base, "pl.MemRef") && IsMemRefDeclCall(base)) {
    ASSIGN_OR_RETURN(decl, MemRefDeclOf(base, ""));
  }
  if (!decl) return false;
  if (e->kind == AstKind::kSubscript) {
    if (decl->slots <= 1) {
      return ErrorAt(e, pto::StrCat("'", decl->name, "' was declared with a single slot, so it "
                                    "cannot be subscripted; declare it as pl.MemRef(slots=N), "
                                    "or reference it without a subscript"));
    }
    ASSIGN_OR_RETURN(ExprPtr index, LowerExpr(Kid(e, 1)));
    auto st = ir::As<ir::ScalarType>(index->type());
    if (st == nullptr || !ir::IsIntegral(st->dtype())) {
      return ErrorAt(Kid(e, 1), pto::StrCat("the slot index of '", decl->name, "' must be an "
                                            "integer scalar, got ", TypeText(index->type())));
    }
    std::optional<int64_t> k = ir::GetConstInt(index);
    if (k && (*k < 0 || *k >= decl->slots)) {
      return ErrorAt(Kid(e, 1), pto::StrCat("slot index ", *k, " is out of range for '",
                                            decl->name, "', declared with ", decl->slots,
                                            " slot(s)"));
    }
  }
  if (warnings_ != nullptr && warned_memref_decls_.insert(decl->name).second) {
    warnings_->push_back(UserError(
        SpanOf(e), pto::StrCat("the declared allocation '", decl->name, "' (pl.MemRef) is "
                               "ignored: the memory planner here (InitMemRef, MemoryReuse) "
                               "places every tile itself; the results are the same, the "
                               "separation or slots it asks for are not kept")));
  }
  return true;
}

// which: 0 tensor, 1 distributed tensor, 2 tile.
absl::StatusOr<TypePtr> Parser::LowerShapedType(const Ast* a, int which) {
  static constexpr std::string_view kNames[] = {"pl.Tensor", "pld.DistributedTensor", "pl.Tile"};
  std::string_view name = kNames[which];
  const Ast* idx = Kid(a, 1);
  if (idx->kind != AstKind::kTuple || idx->num_kids < 2) {
    return ErrorAt(a, pto::StrCat(name, " needs a shape and a data type, e.g. ", name,
                                  "[[64, 128], pl.FP32]"));
  }
  ASSIGN_OR_RETURN(std::vector<ExprPtr> shape, LowerShape(Kid(idx, 0), "the shape"));
  ASSIGN_OR_RETURN(DataType dtype, LowerDType(Kid(idx, 1), name));
  std::optional<ir::TensorView> view;
  std::vector<ExprPtr> tile_valid;
  bool have_tile_view = false;
  std::optional<ir::MemRefPtr> memref;
  std::optional<ir::WindowBufferPtr> wb;
  std::optional<ir::MemorySpace> space;
  const Ast* declared = nullptr;
  for (uint32_t i = 2; i < idx->num_kids; ++i) {
    const Ast* e = Kid(idx, i);
    ASSIGN_OR_RETURN(bool is_decl, DeclaredMemRefItem(e));
    if (is_decl) {
      if (which != 2) {
        return ErrorAt(e, pto::StrCat("a declared allocation (pl.MemRef) binds tiles; ", name,
                                      " takes pl.MemRef(memory_space, addr, size, id)"));
      }
      if (declared != nullptr || memref) return ErrorAt(e, "duplicate pl.MemRef in a type");
      declared = e;
      continue;
    }
    std::string what;
    if (e->kind == AstKind::kCall && DottedPath(Kid(e, 0))) what = path_;
    // PyPTO's tile memory space: pl.Tile[[16, 16], pl.FP16, pl.MemorySpace.Left].
    if (which == 2 && e->kind == AstKind::kAttribute && DottedPath(e) &&
        (StartsWith(path_, "pl.MemorySpace.") || StartsWith(path_, "pl.Mem."))) {
      std::string_view member = std::string_view(path_).substr(path_.rfind('.') + 1);
      if (space) return ErrorAt(e, "duplicate memory space in a pl.Tile type");
      space = ir::MemorySpaceFromName(member);
      if (!space) return ErrorAt(e, pto::StrCat("unknown memory space '", path_, "'"));
      continue;
    }
    if (what == "pl.TensorView" && which != 2) {
      if (view) return ErrorAt(e, "duplicate pl.TensorView in a type");
      ASSIGN_OR_RETURN(view, LowerTensorView(e));
    } else if (what == "pl.TileView" && which == 2) {
      if (have_tile_view) return ErrorAt(e, "duplicate pl.TileView in a type");
      have_tile_view = true;
      RETURN_IF_ERROR(CheckPosCount(e, 0, 1, "pl.TileView"));
      const Ast* vs = NumPos(e) == 1 ? PosArg(e, 0) : nullptr;
      for (uint32_t k = 0; k < e->num_kws; ++k) {
        if (KwAt(e, k).name != "valid_shape" || vs != nullptr) {
          return UserError(KwSpan(KwAt(e, k)),
                           pto::StrCat("unsupported pl.TileView field '", KwAt(e, k).name, "'"));
        }
        vs = KwValue(e, k);
      }
      if (vs != nullptr) {
        ASSIGN_OR_RETURN(tile_valid, LowerShape(vs, "valid_shape"));
      }
    } else if (what == "pl.MemRef") {
      if (memref || declared != nullptr) return ErrorAt(e, "duplicate pl.MemRef in a type");
      ASSIGN_OR_RETURN(ExprPtr m, LowerMemRef(e));
      memref = std::static_pointer_cast<const ir::MemRef>(m);
    } else if (what == "pld.WindowBuffer" && which == 1) {
      if (wb) return ErrorAt(e, "duplicate pld.WindowBuffer in a type");
      ASSIGN_OR_RETURN(wb, LowerWindowBufferRef(e));
    } else {
      std::string_view expected = which == 0   ? "pl.TensorView(...) or pl.MemRef(...)"
                                  : which == 1 ? "pl.TensorView(...), pl.MemRef(...) or "
                                                 "pld.WindowBuffer(\"name\")"
                                               : "pl.TileView(...), pl.MemRef(...) or pl.MemorySpace.<space>";
      return ErrorAt(e, pto::StrCat("unexpected item in a ", name, " type; expected ", expected));
    }
  }
  if (declared != nullptr && !space) {
    return ErrorAt(declared, "a pl.Tile with a declared allocation must also give its memory "
                             "space, e.g. pl.Tile[[64, 64], pl.FP32, pl.MemRef(\"scratch\"), "
                             "pl.Mem.Vec]");
  }
  Span span = SpanOf(a);
  switch (which) {
    case 0:
      return TypePtr(ir::MakeNode<ir::TensorType>(std::move(shape), dtype, std::move(memref),
                                                      std::move(view), span));
    case 1:
      return TypePtr(ir::MakeNode<ir::DistributedTensorType>(
          std::move(shape), dtype, std::move(memref), std::move(view), std::move(wb), span));
    default:
      return TypePtr(ir::MakeNode<ir::TileType>(std::move(shape), dtype, std::move(memref),
                                                    std::move(tile_valid), span, space));
  }
}

absl::StatusOr<TypePtr> Parser::LowerType(const Ast* a) {
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  switch (a->kind) {
    case AstKind::kSubscript: {
      const Ast* base = Kid(a, 0);
      const Ast* idx = Kid(a, 1);
      std::string path_copy;
      if (base->kind == AstKind::kName && (base->text == "tuple" || base->text == "Tuple")) {
        path_copy = "tuple";
      } else if (base->kind == AstKind::kAttribute && DottedPath(base)) {
        path_copy = path_;
      } else if (base->kind == AstKind::kName) {
        return ErrorAt(base, pto::StrCat("unknown type '", base->text, "'"));
      } else {
        return ErrorAt(a, "expected a type");
      }
      std::string_view path = path_copy;
      if (path == "pl.Scalar") {
        ASSIGN_OR_RETURN(DataType dt, LowerDType(idx, "pl.Scalar"));
        return TypePtr(ir::ScalarType::Get(dt));
      }
      if (path == "pl.Array") {
        // pl.Array[extent, dtype], as PyPTO writes it.
        if (idx->kind != AstKind::kTuple || idx->num_kids != 2) {
          return ErrorAt(a, "pl.Array needs [extent, dtype], e.g. pl.Array[4, pl.TASK_ID]");
        }
        ASSIGN_OR_RETURN(int64_t extent, ConstInt(Kid(idx, 0), "the extent of pl.Array"));
        if (extent <= 0) {
          return ErrorAt(Kid(idx, 0), pto::StrCat("the extent of pl.Array must be positive, got ",
                                                  extent));
        }
        ASSIGN_OR_RETURN(DataType dt, LowerDType(Kid(idx, 1), "pl.Array"));
        return TypePtr(ir::MakeNode<ir::ArrayType>(
            ir::MakeNode<ir::ConstInt>(extent, DataType::kIndex, SpanOf(Kid(idx, 0))), dt,
            SpanOf(a)));
      }
      if (path == "pl.Tensor") return LowerShapedType(a, 0);
      if (path == "pld.DistributedTensor") return LowerShapedType(a, 1);
      if (path == "pl.Tile") return LowerShapedType(a, 2);
      if (path == "tuple" || path == "pl.Tuple") {
        std::vector<TypePtr> types;
        if (idx->kind == AstKind::kTuple) {
          types.reserve(idx->num_kids);
          for (uint32_t i = 0; i < idx->num_kids; ++i) {
            ASSIGN_OR_RETURN(TypePtr t, LowerType(Kid(idx, i)));
            types.push_back(std::move(t));
          }
        } else {
          ASSIGN_OR_RETURN(TypePtr t, LowerType(idx));
          types.push_back(std::move(t));
        }
        return TypePtr(ir::MakeNode<ir::TupleType>(std::move(types), SpanOf(a)));
      }
      if (path == "pl.Out" || path == "pl.InOut") {
        return ErrorAt(a, pto::StrCat(path, "[...] is only allowed on function parameters"));
      }
      return ErrorAt(base, pto::StrCat("unknown type '", path, "'"));
    }
    case AstKind::kAttribute: {
      if (std::optional<DataType> dt = ResolveDType(a)) {
        return ErrorAt(a, pto::StrCat("expected a type, got the data type pl.",
                                      ir::DataTypeName(*dt), " (did you mean pl.Scalar[pl.",
                                      ir::DataTypeName(*dt), "]?)"));
      }
      if (!DottedPath(a)) return ErrorAt(a, "expected a type");
      std::string_view path = path_;
      if (path == "pl.Ptr") return TypePtr(ir::PtrType::Get());
      if (path == "pl.MemRefType") return TypePtr(ir::MemRefType::Get());
      if (path == "pld.WindowBufferType") return TypePtr(ir::WindowBufferType::Get());
      if (path == "pld.CommCtx") return TypePtr(ir::CommCtxType::Get());
      if (path == "pl.Unknown") return TypePtr(ir::UnknownType::Get());
      if (path == "pl.Scalar" || path == "pl.Tensor" || path == "pl.Array" || path == "pld.DistributedTensor" ||
          path == "pl.Tile" || path == "pl.Tuple") {
        return ErrorAt(a, pto::StrCat(path_, " needs type arguments in [...]"));
      }
      return ErrorAt(a, pto::StrCat("unknown type '", path_, "'"));
    }
    case AstKind::kName:
      if (a->text == "tuple" || a->text == "Tuple") {
        return ErrorAt(a, "tuple needs element types: tuple[T1, T2]");
      }
      return ErrorAt(a, pto::StrCat("unknown type '", a->text, "'"));
    case AstKind::kNone:
      return ErrorAt(a, "None is not a type here");
    default:
      return ErrorAt(a, "expected a type");
  }
}

absl::StatusOr<Parser::ParamType> Parser::LowerParamType(const Ast* a) {
  ParamType out;
  if (a->kind == AstKind::kSubscript && Kid(a, 0)->kind == AstKind::kAttribute &&
      DottedPath(Kid(a, 0)) &&
      (std::string_view(path_) == "pl.Out" || std::string_view(path_) == "pl.InOut")) {
    out.dir = std::string_view(path_) == "pl.Out" ? ir::ParamDirection::kOut
                                                   : ir::ParamDirection::kInOut;
    const Ast* inner = Kid(a, 1);
    if (inner->kind == AstKind::kTuple) {
      return ErrorAt(inner, pto::StrCat(path_, "[...] takes exactly one type"));
    }
    ASSIGN_OR_RETURN(out.type, LowerType(inner));
    return out;
  }
  ASSIGN_OR_RETURN(out.type, LowerType(a));
  return out;
}

// Fast path for the annotations that nearly every function header has:
// `pl.Tensor[[d0, d1, ...], pl.DT]` (each dimension an integer literal or a
// name) and `pl.Scalar[pl.DT]`. It builds exactly what ParseTest + LowerType
// build, without the generic syntax tree and dotted-path strings. On anything
// else, including anything that would be an error, it consumes nothing and
// returns false: the general path then handles and reports it.
bool Parser::TryParseSimpleType(TypePtr* out) {
  const size_t start = pos_;
  const Token& first = Cur();
  PoolMark mark = Mark();
  auto accept_op = [this](Op op) {
    if (!AtOp(op)) return false;
    Advance();
    return true;
  };
  auto accept_pl_dot = [this, &accept_op] {
    if (Cur().kind != TokenKind::kName || Cur().text() != "pl") return false;
    Advance();
    return accept_op(Op::kDot) && Cur().kind == TokenKind::kName;
  };
  // `pl.FP32` resolves without a scope lookup, as in ResolveDType.
  auto accept_dtype = [&](DataType* dt) {
    if (!accept_pl_dot()) return false;
    std::optional<DataType> d = ir::DataTypeFromName(Cur().text());
    if (!d) return false;
    Advance();
    *dt = *d;
    return true;
  };
  auto lower = [&]() -> TypePtr {
    if (!accept_pl_dot()) return nullptr;
    std::string_view kind = Cur().text();
    if (kind != "Tensor" && kind != "Scalar") return nullptr;
    Advance();
    if (!accept_op(Op::kLBracket)) return nullptr;
    DataType dtype;
    if (kind == "Scalar") {
      if (!accept_dtype(&dtype) || !accept_op(Op::kRBracket)) return nullptr;
      return ir::ScalarType::Get(dtype);
    }
    if (!accept_op(Op::kLBracket)) return nullptr;
    std::vector<ExprPtr> shape;
    shape.reserve(4);
    while (true) {
      const Token& d = Cur();
      if (d.kind != TokenKind::kName && d.kind != TokenKind::kInt) return nullptr;
      // The same one-token tree and LowerDim as the general path.
      Ast* dim = NewAst(d.kind == TokenKind::kName ? AstKind::kName : AstKind::kInt, d);
      if (d.kind == TokenKind::kName) {
        dim->text = d.text();
      } else {
        dim->int_value = d.int_value;
      }
      absl::StatusOr<ExprPtr> e = LowerDim(dim);
      if (!e.ok()) return nullptr;
      shape.push_back(*std::move(e));
      Advance();
      if (accept_op(Op::kComma)) continue;
      if (accept_op(Op::kRBracket)) break;
      return nullptr;
    }
    if (!accept_op(Op::kComma) || !accept_dtype(&dtype) || !accept_op(Op::kRBracket)) {
      return nullptr;
    }
    return ir::MakeNode<ir::TensorType>(std::move(shape), dtype, std::nullopt, std::nullopt,
                                            SpanFromTo(first, Prev()));
  };
  TypePtr t = lower();
  Release(mark);
  if (t == nullptr) {
    pos_ = start;
    return false;
  }
  *out = std::move(t);
  return true;
}

absl::Status Parser::BareTensorError(const Ast* ann, std::string_view function,
                                     std::string_view param) {
  const Ast* inner = ann->kind == AstKind::kSubscript ? Kid(ann, 1) : ann;
  // PyPTO's JIT takes the shape and dtype from the call's tensor.
  return ErrorAt(inner, pto::StrCat("parameter '", param, "' of @pl.jit function '", function,
                                    "' is a bare pl.Tensor: its shape and dtype come from "
                                    "the call; bind them (pto-opt --bind ", param,
                                    "=[d0,d1]:FP32 or --bind ", function, ".", param,
                                    "=...), or write pl.Tensor[[d0, d1], dtype]"));
}

absl::StatusOr<Parser::ParamType> Parser::LowerBareTensorParam(const Ast* a,
                                                               std::string_view function,
                                                               std::string_view param,
                                                               bool* bare) {
  ParamType out;
  const Ast* inner = a;
  if (a->kind == AstKind::kSubscript && Kid(a, 0)->kind == AstKind::kAttribute &&
      DottedPath(Kid(a, 0)) &&
      (std::string_view(path_) == "pl.Out" || std::string_view(path_) == "pl.InOut")) {
    out.dir = std::string_view(path_) == "pl.Out" ? ir::ParamDirection::kOut
                                                   : ir::ParamDirection::kInOut;
    inner = Kid(a, 1);
  }
  *bare = inner->kind == AstKind::kAttribute && DottedPath(inner) &&
          std::string_view(path_) == "pl.Tensor";
  if (!*bare) return out;
  const TensorBinding* b =
      jit_bindings_ == nullptr ? nullptr : FindJitBinding(*jit_bindings_, function, param);
  if (b == nullptr) return out;  // out.type == nullptr: typed at its first call

  std::vector<ExprPtr> shape;
  shape.reserve(b->shape.size());
  for (int64_t d : b->shape) {
    shape.push_back(ir::MakeNode<ir::ConstInt>(d, DataType::kIndex, SpanOf(inner)));
  }
  out.type = TypePtr(ir::MakeNode<ir::TensorType>(std::move(shape), b->dtype, std::nullopt,
                                                  std::nullopt, SpanOf(inner)));
  return out;
}

// A parameter annotation for TryParseSimpleType, optionally in pl.Out[...] or
// pl.InOut[...], followed by ',' or ')'.
bool Parser::TryParseSimpleParamType(ParamType* out) {
  const size_t start = pos_;
  ir::ParamDirection dir = ir::ParamDirection::kIn;
  bool wrapped = false;
  if (Cur().kind == TokenKind::kName && Cur().text() == "pl" && Peek(1).Is(Op::kDot) &&
      Peek(2).kind == TokenKind::kName && Peek(3).Is(Op::kLBracket)) {
    std::string_view w = Peek(2).text();
    if (w == "Out" || w == "InOut") {
      dir = w == "Out" ? ir::ParamDirection::kOut : ir::ParamDirection::kInOut;
      wrapped = true;
      for (int i = 0; i < 4; ++i) Advance();
    }
  }
  TypePtr type;
  if (!TryParseSimpleType(&type) || (wrapped && !AtOp(Op::kRBracket))) {
    pos_ = start;
    return false;
  }
  if (wrapped) Advance();
  if (!AtOp(Op::kComma) && !AtOp(Op::kRParen)) {
    pos_ = start;
    return false;
  }
  out->type = std::move(type);
  out->dir = dir;
  return true;
}

// FlattenTileNdTo2D (13) keeps a load's tensor-rank window and flattens its
// tile to [d0 * ... * d(n-2), d(n-1)]; the parser deduces a load's tile from
// the window, so the printed annotation is the one place that says the load
// was flattened. Accepted only as exactly that flattening of a static window.
ExprPtr Parser::AsFlattenedLoad(const TypePtr& ann, const ExprPtr& v) {
  auto call = ir::As<ir::Call>(v);
  if (call == nullptr || ir::Is<ir::GlobalVar>(call->op()) ||
      call->op()->name() != "pl.tile.load") {
    return v;
  }
  auto want = ir::As<ir::TileType>(ann);
  auto got = ir::As<ir::TileType>(v->type());
  if (want == nullptr || got == nullptr || want->shape().size() != 2 ||
      got->shape().size() <= 2 || want->dtype() != got->dtype()) {
    return v;
  }
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < got->shape().size(); ++i) {
    std::optional<int64_t> d = ir::GetConstInt(got->shape()[i]);
    if (!d) return v;
    rows *= *d;
  }
  std::optional<int64_t> cols = ir::GetConstInt(got->shape().back());
  if (!cols || ir::GetConstInt(want->shape()[0]) != rows ||
      ir::GetConstInt(want->shape()[1]) != cols) {
    return v;
  }
  return ExprPtr(ir::MakeNode<ir::Call>(call->op(), call->args(), call->kwargs(), call->attrs(),
                                        ann, call->span()));
}

// An operator whose result the deducer cannot know (PyPTO's tpop_from_aic
// with no shape=: the pipe's slot) takes the annotation's type, as PyPTO's
// parser overrides an unknown inferred type with the annotation.
ExprPtr Parser::AsAnnotatedUnknown(const TypePtr& ann, const ExprPtr& v) {
  auto call = ir::As<ir::Call>(v);
  if (call == nullptr || ir::Is<ir::GlobalVar>(call->op()) ||
      !ir::Is<ir::UnknownType>(call->type()) || ir::Is<ir::UnknownType>(ann)) {
    return v;
  }
  return ExprPtr(ir::MakeNode<ir::Call>(call->op(), call->args(), call->kwargs(), call->attrs(),
                                        ann, call->span()));
}

absl::Status Parser::CheckAnnotation(const TypePtr& ann, const TypePtr& value,
                                     const Ast* ann_ast) {
  if (ir::TypesAgree(ann, value)) return absl::OkStatus();
  return ErrorAt(ann_ast, pto::StrCat("type annotation ", TypeText(ann),
                                      " does not match the value's type ", TypeText(value)));
}


}  // namespace pto::parser::internal
