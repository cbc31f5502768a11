// The module level: imports, constants, the @pl.program class and its
// function headers (the first pass over the class), and the entry points of
// parser.h.
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/arena.h"
#include "compiler/parser/parser_impl.h"

namespace pto::parser::internal {

// ===========================================================================
// Module, class and function headers.

namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool ExprNamesAVar(const ExprPtr& e, int depth) {
  if (e == nullptr || depth > kMaxExpressionHeight) return e != nullptr;
  switch (e->kind()) {
    case ir::NodeKind::kVar:
    case ir::NodeKind::kIterArg:
    case ir::NodeKind::kMemRef:
    case ir::NodeKind::kWindowBuffer:
      return true;
    case ir::NodeKind::kBinaryExpr: {
      const auto& b = static_cast<const ir::BinaryExpr&>(*e);
      return ExprNamesAVar(b.lhs(), depth + 1) || ExprNamesAVar(b.rhs(), depth + 1);
    }
    case ir::NodeKind::kUnaryExpr:
      return ExprNamesAVar(static_cast<const ir::UnaryExpr&>(*e).operand(), depth + 1);
    case ir::NodeKind::kCast:
      return ExprNamesAVar(static_cast<const ir::Cast&>(*e).value(), depth + 1);
    case ir::NodeKind::kMakeTuple:
      for (const ExprPtr& x : static_cast<const ir::MakeTuple&>(*e).elements()) {
        if (ExprNamesAVar(x, depth + 1)) return true;
      }
      return false;
    case ir::NodeKind::kTupleGetItem:
      return ExprNamesAVar(static_cast<const ir::TupleGetItem&>(*e).tuple(), depth + 1);
    case ir::NodeKind::kCall:
      for (const ExprPtr& x : static_cast<const ir::Call&>(*e).args()) {
        if (ExprNamesAVar(x, depth + 1)) return true;
      }
      return false;
    default:
      return false;
  }
}

bool TypeNamesAVar(const TypePtr& t, int depth) {
  if (t == nullptr || depth > kMaxNestingDepth) return false;
  auto any = [depth](const std::vector<ExprPtr>& v) {
    for (const ExprPtr& e : v) {
      if (ExprNamesAVar(e, depth + 1)) return true;
    }
    return false;
  };
  if (auto s = ir::As<ir::ShapedType>(t)) {
    if (any(s->shape()) || s->memref().has_value()) return true;
    if (auto tt = ir::AsTensorTypeLike(t); tt != nullptr && tt->tensor_view()) {
      if (any(tt->tensor_view()->stride) || any(tt->tensor_view()->valid_shape)) return true;
    }
    if (auto tile = ir::As<ir::TileType>(t); tile != nullptr && any(tile->valid_shape())) {
      return true;
    }
    return false;
  }
  if (auto tup = ir::As<ir::TupleType>(t)) {
    for (const TypePtr& x : tup->types()) {
      if (TypeNamesAVar(x, depth + 1)) return true;
    }
  }
  return false;
}

}  // namespace

// Pass 2: the bodies (those a caller needed first are done already).
absl::Status Parser::ParseFunctionBodies() {
  // A function with a parameter bound at the call waits for its first caller.
  for (auto& f : funcs_) {
    if (!f->body_done && f->pending_params.empty()) RETURN_IF_ERROR(ParseFunctionBody(f.get()));
  }
  // Nothing called these: report the program's entry first, the root cause.
  FuncState* unbound = nullptr;
  for (auto& f : funcs_) {
    if (!f->body_done && (unbound == nullptr || f->name == program_name_)) unbound = f.get();
  }
  if (unbound != nullptr) return unbound->pending_params.front().error;
  return absl::OkStatus();
}

absl::StatusOr<ir::ProgramPtr> Parser::Run() {
  RETURN_IF_ERROR(ParseModule());
  // A module-level @pl.function after the class is read here.
  if (jit_form_ || (have_program_ && !module_funcs_.empty())) {
    RETURN_IF_ERROR(ParseFunctionBodies());
  } else if (!have_program_) {
    return UserError(Span(file_, 1, 1, 1, 1),
                     "no @pl.program class and no @pl.jit function in this file");
  }
  std::vector<ir::FunctionPtr> functions;
  functions.reserve(funcs_.size());
  // Every body has been read, so the header data can move into the Functions.
  for (const auto& f : funcs_) {
    ASSIGN_OR_RETURN(ir::FunctionPtr fn,
                     ir::Function::Create(std::string(f->name), std::move(f->params),
                                          std::move(f->dirs), std::move(f->ret_types),
                                          std::move(f->body), f->func_type, f->level, f->role,
                                          std::move(f->attrs), f->runtime_binding, f->span));
    functions.push_back(std::move(fn));
  }
  return ir::Program::Create(std::move(functions), program_name_, program_span_);
}

absl::Status Parser::SkipImport() {
  while (!AtNewline() && Cur().kind != TokenKind::kEnd) Advance();
  if (AtNewline()) Advance();
  return absl::OkStatus();
}

absl::StatusOr<Ast*> Parser::ParseDecorator(const Token** at_tok) {
  if (at_tok != nullptr) *at_tok = &Cur();
  Advance();  // @
  ASSIGN_OR_RETURN(Ast * a, ParseTest());
  RETURN_IF_ERROR(ExpectNewline());
  if (AtOp(Op::kAt)) return ErrorAt(Cur(), "unsupported Python construct: multiple decorators (keep only the @pl.* decorator)");
  return a;
}

absl::Status Parser::ParseConstantDef(SvMap<ConstVal>* table) {
  const Token& name = Cur();
  Advance();  // name
  Advance();  // =
  PoolMark mark = Mark();
  ASSIGN_OR_RETURN(Ast * value, ParseTestList());
  if (AtOp(Op::kAssign)) return ErrorAt(Cur(), "unsupported Python construct: chained assignment (assign one name per statement)");
  RETURN_IF_ERROR(ExpectNewline());
  if (IsPathCall(value, "pl.dynamic")) {
    RETURN_IF_ERROR(DefineDynDim(name, value, table));
    Release(mark);
    return absl::OkStatus();
  }
  if (IsPathCall(value, "pl.MemRef") && IsMemRefDeclCall(value)) {
    RETURN_IF_ERROR(DefineMemRefDecl(name, value));
    Release(mark);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(ConstVal v, ConstEval(value));
  (*table)[name.text()] = std::move(v);
  Release(mark);
  return absl::OkStatus();
}

// `NAME = pl.dynamic("name")`: a dimension bound at run time. Every use of
// NAME is the same ir::DynDim, named by the string (PyPTO's DynVar name).
absl::StatusOr<std::string> Parser::DynDimName(const Ast* call) {
  RETURN_IF_ERROR(CheckPosCount(call, 1, 1, "pl.dynamic"));
  RETURN_IF_ERROR(CheckNoKeywords(call, "pl.dynamic"));
  const Ast* arg = PosArg(call, 0);
  std::string dim;
  if (IsConstAst(arg)) {
    ASSIGN_OR_RETURN(ConstVal s, ConstEval(arg));
    if (s.kind == ConstVal::kStr) dim = std::move(s.s);
  }
  if (dim.empty() || !IsIdentifier(dim)) {
    return ErrorAt(arg, "pl.dynamic(...) needs the dimension's name, an identifier string such "
                        "as \"N\"");
  }
  return dim;
}

// `pl.dynamic("N")` written inside a shape: the module's DynDim of that name
// (declared by a constant or by an earlier inline use), else a new one.
absl::StatusOr<ExprPtr> Parser::InlineDynDim(const Ast* call) {
  ASSIGN_OR_RETURN(std::string dim, DynDimName(call));
  for (const SvMap<ConstVal>* table : {&class_consts_, &module_consts_}) {
    for (const auto& [k, v] : *table) {
      if (v.kind == ConstVal::kDynDim && static_cast<const ir::DynDim&>(*v.dyn).name() == dim) {
        return v.dyn;
      }
    }
  }
  ExprPtr& slot = inline_dyn_dims_[dim];
  if (slot == nullptr) slot = ir::MakeNode<ir::DynDim>(dim, SpanOf(call));
  return slot;
}

absl::Status Parser::DefineDynDim(const Token& name, const Ast* call, SvMap<ConstVal>* table) {
  ASSIGN_OR_RETURN(std::string dim, DynDimName(call));
  const Ast* arg = PosArg(call, 0);
  for (const auto& [k, v] : *table) {
    if (v.kind == ConstVal::kDynDim && v.dyn != nullptr &&
        static_cast<const ir::DynDim&>(*v.dyn).name() == dim && k != name.text()) {
      return ErrorAt(arg, pto::StrCat("dynamic dimension \"", dim, "\" is already declared as '",
                                      k, "'; use that name"));
    }
  }
  ConstVal v;
  v.kind = ConstVal::kDynDim;
  v.dyn = ir::MakeNode<ir::DynDim>(dim, SpanOf(call));
  (*table)[name.text()] = std::move(v);
  return absl::OkStatus();
}

absl::Status Parser::ParseModule() {
  while (Cur().kind != TokenKind::kEnd) {
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kNewline:
        Advance();
        continue;
      case TokenKind::kIndent:
        return ErrorAt(t, "unexpected indent");
      case TokenKind::kDedent:
        Advance();
        continue;
      case TokenKind::kKeyword:
        switch (t.keyword()) {
          case Keyword::kImport:
          case Keyword::kFrom:
            RETURN_IF_ERROR(SkipImport());
            continue;
          case Keyword::kClass:
            return ErrorAt(Peek().kind == TokenKind::kName ? Peek() : t,
                           pto::StrCat("class '", Peek().text(),
                                       "' needs the @pl.program decorator"));
          case Keyword::kDef:
            return ErrorAt(t, "a function needs a decorator: @pl.function on a method of the "
                              "@pl.program class, or @pl.jit / @pl.jit.host / @pl.jit.incore "
                              "at module level");
          case Keyword::kPass:
            Advance();
            RETURN_IF_ERROR(ExpectNewline());
            continue;
          default:
            return ErrorAt(t, pto::StrCat("unsupported statement at module level ('",
                                          KeywordText(t.keyword()),
                                          "'): only imports, constants and the @pl.program "
                                          "class are allowed"));
        }
      case TokenKind::kString: {
        PoolMark mark = Mark();
        ASSIGN_OR_RETURN(Ast * a, ParseTestList());
        if (a->kind != AstKind::kString) {
          return ErrorAt(a, "unsupported statement at module level: only imports, constants "
                            "and the @pl.program class are allowed");
        }
        RETURN_IF_ERROR(ExpectNewline());
        Release(mark);
        continue;
      }
      case TokenKind::kName:
        if (Peek().Is(Op::kAssign)) {
          RETURN_IF_ERROR(ParseConstantDef(&module_consts_));
          continue;
        }
        if (Peek().Is(Op::kColon)) {
          return ErrorAt(t, "unsupported Python construct: annotated module constant (write "
                            "NAME = value)");
        }
        break;
      case TokenKind::kOp:
        if (t.Is(Op::kAt)) {
          PoolMark mark = Mark();
          const Token* at_tok = nullptr;
          ASSIGN_OR_RETURN(Ast * dec, ParseDecorator(&at_tok));
          const Ast* f = dec->kind == AstKind::kCall ? Kid(dec, 0) : dec;
          std::string name = DottedPath(f) ? path_ : std::string();
          if (name == "pl.program") {
            RETURN_IF_ERROR(ParseProgramClass(dec, *at_tok));
          } else if (name == "pl.jit" || StartsWith(name, "pl.jit.")) {
            if (have_program_) {
              return ErrorAt(dec, "a file holds one @pl.program class or @pl.jit functions, "
                                  "not both");
            }
            if (!module_funcs_.empty()) {
              return ErrorAt(dec, "a file holds @pl.function kernels for a @pl.program class or "
                                  "@pl.jit functions, not both (a @pl.jit function calls a "
                                  "kernel declared with @pl.jit.incore)");
            }
            FuncDecor decor;
            RETURN_IF_ERROR(ParseJitDecorator(dec, name, &decor));
            size_t n = funcs_.size();
            RETURN_IF_ERROR(ParseFunctionHeader(std::move(decor)));
            // The program is named after its entry: the HOST orchestrator, else
            // the first @pl.jit orchestration, else the first function.
            int rank = name == "pl.jit.host" ? 2 : name == "pl.jit" ? 1 : 0;
            if (!jit_form_ || rank > jit_entry_rank_) {
              jit_entry_rank_ = rank;
              program_name_ = std::string(funcs_[n]->name);
              program_span_ = funcs_[n]->span;
            }
            jit_form_ = true;
          } else if (name == "pl.function" && !jit_form_) {
            // PyPTO's external function: a module-level @pl.function that the
            // program's methods call by name (ast_parser.py,
            // _parse_external_function_call); it joins the program.
            FuncDecor decor;
            RETURN_IF_ERROR(ParseFunctionDecorator(dec, &decor));
            decor.method = false;
            size_t n = funcs_.size();
            RETURN_IF_ERROR(ParseFunctionHeader(std::move(decor)));
            module_funcs_.insert(funcs_[n]->name);
          } else if (name == "pl.function") {
            return ErrorAt(dec, "a file holds one @pl.program class or @pl.jit functions, not "
                                "both; a @pl.jit function calls a kernel declared with "
                                "@pl.jit.incore");
          } else {
            return ErrorAt(dec, "unsupported decorator: only @pl.program (on the class), "
                                "@pl.function (on its methods) and @pl.jit, @pl.jit.host, "
                                "@pl.jit.incore (on module-level functions) are supported");
          }
          Release(mark);
          continue;
        }
        break;
      default:
        break;
    }
    return ErrorAt(t, "unsupported statement at module level: only imports, constants NAME = "
                      "value and the @pl.program class are allowed");
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseProgramClass(const Ast* decorator, const Token& at_tok) {
  if (have_program_) {
    return ErrorAt(at_tok, "only one @pl.program class is allowed per file");
  }
  if (jit_form_) {
    return ErrorAt(at_tok, "a file holds one @pl.program class or @pl.jit functions, not both");
  }
  std::string name_override;
  bool has_override = false;
  if (decorator->kind == AstKind::kCall) {
    if (NumPos(decorator) > 0) {
      return ErrorAt(PosArg(decorator, 0), "@pl.program takes only the keyword argument name=");
    }
    for (uint32_t i = 0; i < decorator->num_kws; ++i) {
      const KwName& k = KwAt(decorator, i);
      if (k.name != "name") {
        return UserError(KwSpan(k), pto::StrCat("unknown @pl.program argument '", k.name, "'"));
      }
      const Ast* v = KwValue(decorator, i);
      if (v->kind != AstKind::kString && !IsConstAst(v)) {
        return ErrorAt(v, "@pl.program(name=...) needs a string");
      }
      ASSIGN_OR_RETURN(ConstVal s, ConstEval(v));
      if (s.kind != ConstVal::kStr) return ErrorAt(v, "@pl.program(name=...) needs a string");
      name_override = std::move(s.s);
      has_override = true;
    }
  }
  if (!AtKw(Keyword::kClass)) return Unexpected("'class' after @pl.program");
  const Token& class_tok = Cur();
  Advance();
  ASSIGN_OR_RETURN(const Token* name, ExpectName("a class name"));
  if (AtOp(Op::kLParen)) {
    Advance();
    if (!AtOp(Op::kRParen)) {
      return ErrorAt(Cur(), "unsupported Python construct: class inheritance (write `class Name:`)");
    }
    Advance();
  }
  have_program_ = true;
  program_name_ = has_override ? name_override : std::string(name->text());
  program_span_ = SpanFromTo(class_tok, *name);
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  if (!AtNewline()) return Unexpected("a new line after the class header");
  Advance();
  if (Cur().kind != TokenKind::kIndent) {
    return ErrorAt(Cur(), pto::StrCat("expected an indented block after 'class' statement on "
                                      "line ",
                                      class_tok.line));
  }
  Advance();
  in_class_ = true;
  class_consts_.clear();
  // Pass 1: constants and function headers, in order.
  while (Cur().kind != TokenKind::kDedent && Cur().kind != TokenKind::kEnd) {
    const Token& t = Cur();
    if (t.kind == TokenKind::kString) {  // docstrings
      PoolMark mark = Mark();
      ASSIGN_OR_RETURN(Ast * a, ParseTestList());
      if (a->kind != AstKind::kString) {
        return ErrorAt(a, "unsupported statement in a @pl.program class body");
      }
      RETURN_IF_ERROR(ExpectNewline());
      Release(mark);
      continue;
    }
    if (t.Is(Op::kAt)) {
      PoolMark mark = Mark();
      ASSIGN_OR_RETURN(Ast * dec, ParseDecorator(nullptr));
      const Ast* f = dec->kind == AstKind::kCall ? Kid(dec, 0) : dec;
      std::string dname = DottedPath(f) ? path_ : std::string();
      if (dname != "pl.function") {
        return ErrorAt(dec, "unsupported decorator: methods of a @pl.program class need "
                            "@pl.function");
      }
      FuncDecor decor;
      RETURN_IF_ERROR(ParseFunctionDecorator(dec, &decor));
      RETURN_IF_ERROR(ParseFunctionHeader(std::move(decor)));
      Release(mark);
      continue;
    }
    if (t.Is(Keyword::kDef)) {
      return ErrorAt(Peek(), pto::StrCat("method '", Peek().text(),
                                         "' needs the @pl.function decorator"));
    }
    if (t.kind == TokenKind::kName && Peek().Is(Op::kAssign)) {
      RETURN_IF_ERROR(ParseConstantDef(&class_consts_));
      continue;
    }
    if (t.Is(Keyword::kPass) || t.Is(Op::kEllipsis)) {
      Advance();
      RETURN_IF_ERROR(ExpectNewline());
      continue;
    }
    if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
    return ErrorAt(t, "unsupported statement in a @pl.program class body: only @pl.function "
                      "methods, constants NAME = value and docstrings are allowed");
  }
  size_t class_end = pos_;
  RETURN_IF_ERROR(ParseFunctionBodies());
  pos_ = class_end;
  if (Cur().kind == TokenKind::kDedent) Advance();
  in_class_ = false;
  return absl::OkStatus();
}

// `-> T` of a function header through the general expression path.
absl::Status Parser::ParseReturnAnnotation(FuncState* fs) {
  ASSIGN_OR_RETURN(Ast * ret, ParseTest());
  if (ret->kind == AstKind::kNone) {
    // no results
  } else if (ret->kind == AstKind::kSubscript &&
             ((Kid(ret, 0)->kind == AstKind::kName &&
               (Kid(ret, 0)->text == "tuple" || Kid(ret, 0)->text == "Tuple")) ||
              (Kid(ret, 0)->kind == AstKind::kAttribute && DottedPath(Kid(ret, 0)) &&
               path_ == "pl.Tuple"))) {
    ASSIGN_OR_RETURN(TypePtr t, LowerType(ret));
    fs->ret_types = static_cast<const ir::TupleType&>(*t).types();
  } else {
    ASSIGN_OR_RETURN(TypePtr t, LowerType(ret));
    fs->ret_types.push_back(std::move(t));
  }
  return absl::OkStatus();
}

// The keyword arguments of @pl.function(...).
absl::Status Parser::ParseFunctionDecorator(const Ast* decorator, FuncDecor* d) {
  ir::FunctionType& func_type = d->func_type;
  std::optional<ir::Level>& level = d->level;
  std::optional<ir::Role>& role = d->role;
  ir::AttrList& attrs = d->attrs;
  bool& runtime_binding = d->runtime_binding;
  if (decorator->kind == AstKind::kCall) {
    if (NumPos(decorator) > 0) {
      return ErrorAt(PosArg(decorator, 0), "@pl.function takes only keyword arguments");
    }
    for (uint32_t i = 0; i < decorator->num_kws; ++i) {
      const KwName& k = KwAt(decorator, i);
      const Ast* v = KwValue(decorator, i);
      auto enum_member = [&](std::string_view prefix) -> std::optional<std::string_view> {
        if (v->kind == AstKind::kAttribute && DottedPath(v) && StartsWith(path_, prefix)) {
          return std::string_view(path_).substr(prefix.size());
        }
        return std::nullopt;
      };
      if (k.name == "type") {
        std::optional<std::string_view> m = enum_member("pl.FunctionType.");
        std::optional<ir::FunctionType> ft = m ? ir::FunctionTypeFromName(*m) : std::nullopt;
        if (!ft) return ErrorAt(v, "expected a function type such as pl.FunctionType.InCore");
        func_type = *ft;
      } else if (k.name == "level") {
        std::optional<std::string_view> m = enum_member("pl.Level.");
        level = m ? ir::LevelFromName(*m) : std::nullopt;
        if (!level) return ErrorAt(v, "expected a level such as pl.Level.HOST");
      } else if (k.name == "role") {
        std::optional<std::string_view> m = enum_member("pl.Role.");
        role = m ? ir::RoleFromName(*m) : std::nullopt;
        if (!role) return ErrorAt(v, "expected a role such as pl.Role.Orchestrator");
      } else if (k.name == "attrs") {
        ASSIGN_OR_RETURN(attrs, ConvertAttrDict(v, /*call_attrs=*/false));
      } else if (k.name == "runtime_binding") {
        if (!IsConstAst(v)) return ErrorAt(v, "runtime_binding must be True or False");
        ASSIGN_OR_RETURN(ConstVal b, ConstEval(v));
        if (b.kind != ConstVal::kBool) return ErrorAt(v, "runtime_binding must be True or False");
        runtime_binding = b.i != 0;
      } else {
        return UserError(KwSpan(k), pto::StrCat("unknown @pl.function argument '", k.name, "'"));
      }
    }
  }
  return absl::OkStatus();
}

// PyPTO's function form (python/pypto/jit/decorator.py): @pl.jit is a device
// orchestration, @pl.jit.host the HOST orchestrator, @pl.jit.incore (level=)
// a kernel, @pl.jit.inline and @pl.jit.opaque as their function types say.
// Each becomes the @pl.function that PyPTO's specializer writes for it.
absl::Status Parser::ParseJitDecorator(const Ast* decorator, std::string_view path,
                                       FuncDecor* d) {
  d->method = false;
  if (path == "pl.jit") {
    d->func_type = ir::FunctionType::kOrchestration;
  } else if (path == "pl.jit.host") {
    d->level = ir::Level::kHost;
    d->role = ir::Role::kOrchestrator;
  } else if (path == "pl.jit.incore") {
    d->func_type = ir::FunctionType::kInCore;
  } else if (path == "pl.jit.inline") {
    d->func_type = ir::FunctionType::kInline;
  } else if (path == "pl.jit.opaque") {
    d->func_type = ir::FunctionType::kOpaque;
  } else {
    return ErrorAt(decorator, pto::StrCat("unsupported decorator @", path, ": the function form "
                                          "has @pl.jit, @pl.jit.host, @pl.jit.incore, "
                                          "@pl.jit.inline and @pl.jit.opaque"));
  }
  if (decorator->kind != AstKind::kCall) return absl::OkStatus();
  if (NumPos(decorator) > 0) {
    return ErrorAt(PosArg(decorator, 0), pto::StrCat("@", path, " takes only keyword arguments"));
  }
  for (uint32_t i = 0; i < decorator->num_kws; ++i) {
    const KwName& k = KwAt(decorator, i);
    const Ast* v = KwValue(decorator, i);
    if (k.name == "level" && path == "pl.jit.incore") {
      std::optional<ir::Level> level;
      if (v->kind == AstKind::kAttribute && DottedPath(v) && StartsWith(path_, "pl.Level.")) {
        level = ir::LevelFromName(std::string_view(path_).substr(9));
      }
      if (!level) return ErrorAt(v, "expected a level such as pl.Level.AIC");
      // A kernel's level is its function type here (spec §1.2): AIC and AIV
      // kernels are the AIC and AIV function types.
      if (*level == ir::Level::kAIC) {
        d->func_type = ir::FunctionType::kAIC;
      } else if (*level == ir::Level::kAIV) {
        d->func_type = ir::FunctionType::kAIV;
      } else {
        d->level = level;
      }
    } else if (k.name == "auto_scope" && (path == "pl.jit" || path == "pl.jit.host" ||
                                          path == "pl.jit.inline")) {
      // Scopes are placed by the pipeline; an explicit auto_scope=True is the
      // default and auto_scope=False (hand-placed scopes) is what the parser
      // keeps anyway, so only its type is checked.
      if (!IsConstAst(v)) return ErrorAt(v, "auto_scope must be True or False");
      ASSIGN_OR_RETURN(ConstVal b, ConstEval(v));
      if (b.kind != ConstVal::kBool) return ErrorAt(v, "auto_scope must be True or False");
    } else {
      return UserError(KwSpan(k), pto::StrCat("unknown @", path, " argument '", k.name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFunctionHeader(FuncDecor decor) {
  ir::FunctionType func_type = decor.func_type;
  std::optional<ir::Level> level = decor.level;
  std::optional<ir::Role> role = decor.role;
  ir::AttrList attrs = std::move(decor.attrs);
  bool runtime_binding = decor.runtime_binding;
  if (!AtKw(Keyword::kDef)) {
    return Unexpected(decor.method ? "'def' after @pl.function" : "'def' after the decorator");
  }
  const Token& def_tok = Cur();
  Advance();
  ASSIGN_OR_RETURN(const Token* name, ExpectName("a function name"));
  if (funcs_by_name_.contains(name->text())) {
    return ErrorAt(*name, pto::StrCat("function '", name->text(),
                                      "' is defined more than once (GlobalVar names must be "
                                      "unique)"));
  }
  auto fs = std::make_unique<FuncState>();
  fs->params.reserve(4);  // saves regrowing for the usual few parameters
  fs->dirs.reserve(4);
  fs->name = name->text();
  fs->span = SpanFromTo(def_tok, *name);
  cur_func_ = fs.get();
  ResetScopes();
  RETURN_IF_ERROR(ExpectOp(Op::kLParen));
  if (decor.method) {
    if (!(Cur().kind == TokenKind::kName && Cur().text() == "self")) {
      return ErrorAt(Cur(), pto::StrCat("the first parameter of @pl.function method '",
                                        name->text(), "' must be 'self'"));
    }
    Advance();
    if (AtOp(Op::kColon)) return ErrorAt(Cur(), "'self' takes no type annotation");
  } else if (Cur().kind == TokenKind::kName && Cur().text() == "self") {
    return ErrorAt(Cur(), pto::StrCat("function '", name->text(), "' is not a method: a "
                                      "@pl.jit function takes no 'self'"));
  }
  bool first_param = !decor.method;
  while (first_param || AtOp(Op::kComma)) {
    if (!first_param) Advance();
    first_param = false;
    if (AtOp(Op::kRParen)) break;
    const Token& p = Cur();
    if (p.Is(Op::kStar) || p.Is(Op::kDoubleStar)) {
      return ErrorAt(p, "unsupported Python construct: star-arguments (*args / **kwargs)");
    }
    if (p.Is(Op::kSlash)) {
      return ErrorAt(p, "unsupported Python construct: positional-only parameter marker '/' (remove the '/')");
    }
    ASSIGN_OR_RETURN(const Token* pname, ExpectName("a parameter name"));
    if (LookupLocal(pname->text()) != nullptr || pname->text() == "self") {
      return ErrorAt(*pname, pto::StrCat("duplicate parameter '", pname->text(), "'"));
    }
    if (!AtOp(Op::kColon)) {
      return ErrorAt(*pname, pto::StrCat("parameter '", pname->text(), "' of function '",
                                         name->text(), "' needs a type annotation"));
    }
    Advance();
    ParamType pt;
    if (!TryParseSimpleParamType(&pt)) {
      ASSIGN_OR_RETURN(Ast * ann, ParseTest());
      if (AtOp(Op::kAssign)) {
        return ErrorAt(Cur(), "unsupported Python construct: default parameter value (give every argument at the call)");
      }
      bool bare = false;
      if (!decor.method) {
        ASSIGN_OR_RETURN(pt, LowerBareTensorParam(ann, name->text(), pname->text(), &bare));
      }
      if (!bare) {
        ASSIGN_OR_RETURN(pt, LowerParamType(ann));
      } else if (pt.type == nullptr) {
        // Unbound: typed by the first call from another function (PyPTO's JIT
        // specializes a callee to its caller's tensors), else an error.
        fs->pending_params.push_back(
            {fs->params.size(), std::string(pname->text()), SpanOf(*pname),
             BareTensorError(ann, name->text(), pname->text())});
        fs->params.push_back(nullptr);
        fs->dirs.push_back(pt.dir);
        continue;
      }
    }
    auto var = ir::MakeNode<const ir::Var>(std::string(pname->text()), pt.type,
                                               SpanOf(*pname));
    Define(pname->text(), var);
    fs->params.push_back(std::move(var));
    fs->dirs.push_back(pt.dir);
  }
  RETURN_IF_ERROR(ExpectOp(Op::kRParen));
  if (AtOp(Op::kArrow)) {
    Advance();
    const size_t ret_pos = pos_;
    TypePtr simple;
    if (TryParseSimpleType(&simple) && AtOp(Op::kColon)) {
      fs->ret_types.push_back(std::move(simple));
    } else {
      pos_ = ret_pos;
      RETURN_IF_ERROR(ParseReturnAnnotation(fs.get()));
    }
  } else {
    fs->derive_results = true;
  }
  if (!AtOp(Op::kColon)) return Unexpected("':' after the function header");
  fs->body_pos = pos_;
  RETURN_IF_ERROR(SkipBlock(def_tok));
  // Checks level and role against the function type now, so that a header's
  // error comes before any body's; Run() builds the Function itself.
  RETURN_IF_ERROR(ir::Function::Create(std::string(fs->name), {}, {}, {}, nullptr, func_type,
                                       level, role, {}, runtime_binding, fs->span)
                      .status());
  fs->func_type = func_type;
  fs->level = level;
  fs->role = role;
  fs->attrs = std::move(attrs);
  fs->runtime_binding = runtime_binding;
  fs->gv = ir::MakeNode<const ir::GlobalVar>(std::string(fs->name), fs->span);
  SetCallType(fs.get());
  funcs_by_name_[fs->name] = fs.get();
  funcs_.push_back(std::move(fs));
  cur_func_ = nullptr;
  return absl::OkStatus();
}

void Parser::SetCallType(FuncState* fs) {
  if (fs->ret_types.empty()) {
    fs->call_type = ir::UnknownType::Get();
  } else if (fs->ret_types.size() == 1) {
    fs->call_type = fs->ret_types[0];
  } else {
    fs->call_type = ir::MakeNode<ir::TupleType>(fs->ret_types);
  }
  // The only values of the callee a result type can name are its params.
  fs->call_type_uses_params = TypeNamesAVar(fs->call_type, 0);
}

// Lowers the body of `callee` (whose results come from its body) in the middle
// of another body, saving and restoring everything the other body has in
// flight. The pools only grow above the caller's marks and come back to them.
absl::Status Parser::LowerBodyFirst(FuncState* callee, const Ast* call) {
  if (callee->body_active) {
    return ErrorAt(call, pto::StrCat("the results of function '", callee->name,
                                     "' come from its body, which calls it again; annotate "
                                     "them (def ", callee->name, "(...) -> T:)"));
  }
  const size_t pos = pos_;
  const int depth = depth_;
  FuncState* const caller = cur_func_;
  const bool expect_cond = expect_cond_;
  const int loop_depth = loop_depth_;
  ExprPtr cond_result = std::move(cond_result_);
  SvMap<Binding> names = std::move(names_);
  std::vector<Undo> undo = std::move(undo_);
  std::vector<Frame> frames = std::move(frames_);
  SvMap<DeadName> dead = std::move(dead_);
  SvMap<DeadName> stale = std::move(stale_);
  std::vector<std::vector<Escaped>> pending = std::move(pending_);
  pending_.clear();
  expect_cond_ = false;
  loop_depth_ = 0;
  absl::Status st = ParseFunctionBody(callee);
  pos_ = pos;
  depth_ = depth;
  cur_func_ = caller;
  expect_cond_ = expect_cond;
  loop_depth_ = loop_depth;
  cond_result_ = std::move(cond_result);
  names_ = std::move(names);
  undo_ = std::move(undo);
  frames_ = std::move(frames);
  dead_ = std::move(dead);
  stale_ = std::move(stale);
  pending_ = std::move(pending);
  return st;
}

// Skips `: <block>` without parsing it (the header pass).
absl::Status Parser::SkipBlock(const Token& header) {
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  if (!AtNewline()) {
    while (!AtNewline() && Cur().kind != TokenKind::kEnd) Advance();
    return ExpectNewline();
  }
  Advance();
  if (Cur().kind != TokenKind::kIndent) {
    return ErrorAt(Cur(), pto::StrCat("expected an indented block after 'def' statement on line ",
                                      header.line));
  }
  int depth = 0;
  while (true) {
    TokenKind k = Cur().kind;
    if (k == TokenKind::kIndent) ++depth;
    if (k == TokenKind::kDedent) --depth;
    if (k == TokenKind::kEnd) return ErrorAt(Cur(), "unexpected end of file");
    Advance();
    if (depth == 0) return absl::OkStatus();
  }
}

// Reads and lowers the body one line at a time (a compound statement is one
// line with its nested blocks), rewinding the pools after each.
absl::Status Parser::ParseFunctionBody(FuncState* f) {
  cur_func_ = f;
  f->body_active = true;
  ResetScopes();
  for (const VarPtr& p : f->params) Define(p->name_hint(), p);
  pos_ = f->body_pos;
  const Token& colon = Cur();  // only used for messages
  RETURN_IF_ERROR(EnterNesting());
  NestingExit exit{&depth_};
  RETURN_IF_ERROR(ExpectOp(Op::kColon));
  const bool one_line = !AtNewline();
  if (!one_line) {
    Advance();
    if (Cur().kind != TokenKind::kIndent) {
      return ErrorAt(Cur(), pto::StrCat("expected an indented block after 'def' statement on "
                                        "line ",
                                        colon.line));
    }
    Advance();
  }
  std::vector<StmtPtr> stmts;
  YieldInfo yield;
  do {
    PoolMark mark = Mark();
    size_t base = scratch_.size();
    RETURN_IF_ERROR(one_line ? ReadSimpleLine() : ReadLine());
    for (size_t i = base; i < scratch_.size(); ++i) {
      RETURN_IF_ERROR(LowerBlockStmt(scratch_[i], &stmts, &yield));
    }
    scratch_.resize(base);
    Release(mark);
  } while (!one_line && Cur().kind != TokenKind::kDedent && Cur().kind != TokenKind::kEnd);
  if (!one_line && Cur().kind == TokenKind::kDedent) Advance();
  if (yield.present) {
    return UserError(yield.span, "pl.yield_ outside of a loop or if body");
  }
  f->body = ir::MakeNode<ir::SeqStmts>(std::move(stmts), f->span);
  f->body_active = false;
  f->body_done = true;
  if (f->derive_results) SetCallType(f);
  cur_func_ = nullptr;
  return absl::OkStatus();
}

std::vector<std::string> Parser::LeadingComments(int line) const {
  const std::vector<Comment>& cs = ts_.comments;
  auto it = std::lower_bound(cs.begin(), cs.end(), line,
                             [](const Comment& c, int l) { return c.line < l; });
  std::vector<std::string> out;
  int expect = line - 1;
  while (it != cs.begin()) {
    --it;
    if (it->line != expect || !it->own_line) break;
    out.emplace_back(it->text);
    --expect;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace pto::parser::internal

namespace pto::parser {

absl::StatusOr<ir::ProgramPtr> ParseProgram(std::shared_ptr<const SourceFile> file,
                                            const ParseOptions& options) {
  if (file == nullptr) return absl::InvalidArgumentError("ParseProgram: null source file");
  ASSIGN_OR_RETURN(std::unique_ptr<TokenStream> tokens, Tokenize(file));
  const ops::OpRegistry& registry =
      options.registry != nullptr ? *options.registry : ops::OpRegistry::Global();
  internal::Parser parser(*tokens, registry, options.allow_internal_ops);
  parser.set_jit_bindings(&options.jit_bindings);
  parser.set_warnings(options.warnings);
  // Every node of the program comes from one arena (compiler/ir/arena.h).
  ir::ArenaScope arena;
  return parser.Run();
}

absl::StatusOr<ir::ProgramPtr> ParseProgramText(std::string path, std::string text,
                                                const ParseOptions& options) {
  return ParseProgram(std::make_shared<const SourceFile>(std::move(path), std::move(text)),
                      options);
}

}  // namespace pto::parser
