// The helpers every C++ generator shares (chip orchestration, HOST
// orchestration, kernels): the located "not supported" error, fresh C++
// names, indented lines and the lookup of a bound IR variable. Each
// generator derives from CppEmitter and keeps only what it emits.
#ifndef PTO_COMPILER_CODEGEN_CPP_EMITTER_H_
#define PTO_COMPILER_CODEGEN_CPP_EMITTER_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/cpp_names.h"
#include "compiler/ir/expr.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/source.h"
#include "compiler/support/strings.h"

namespace pto::codegen {

class CppEmitter {
 protected:
  // `where` completes "code generation does not support X in <where> yet";
  // `inline_operand` names what Lookup refuses when the operand is not a
  // variable; `reserved` are C++ names the generated code already uses.
  CppEmitter(std::string_view where, std::string_view inline_operand,
             std::set<std::string> reserved)
      : where_(where), inline_operand_(inline_operand), names_(std::move(reserved)) {}

  // The located user error for a construct this generator cannot emit.
  absl::Status Unsupported(const Span& span, std::string_view construct) const {
    return UserErrorF(span, "code generation does not support ", construct, " in ", where_,
                      " yet");
  }

  // A C++ identifier from `hint`, unique in the generated unit.
  std::string Fresh(std::string_view hint) { return FreshCppName(hint, &names_); }

  static std::string Indent(int n) { return std::string(2 * n, ' '); }

  // Appends `text` as one line at `indent` to the body.
  void Line(int indent, std::string_view text) {
    pto::StrAppend(&body_, Indent(indent), text, "\n");
  }

  // The value `e` (a variable) is bound to in `values`.
  template <typename V>
  absl::StatusOr<V> LookupIn(const std::map<const ir::Var*, V>& values,
                             const ir::ExprPtr& e) const {
    auto var = ir::As<ir::Var>(e);
    if (var == nullptr) return Unsupported(e->span(), inline_operand_);
    auto it = values.find(var.get());
    if (it == values.end()) {
      return InternalErrorF(e->span(), "'", var->name_hint(), "' used before it is bound");
    }
    return it->second;
  }

  std::string where_;
  std::string inline_operand_;
  std::set<std::string> names_;
  std::string body_;
};

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_CPP_EMITTER_H_
