#include "compiler/codegen/cpp_names.h"

#include <cctype>

#include "compiler/support/strings.h"

namespace pto::codegen {
namespace {

// C++20 keywords and alternative tokens ([lex.key], [lex.digraph]).
const std::set<std::string_view>& Keywords() {
  static const auto* k = new std::set<std::string_view>{
      "alignas",   "alignof",      "and",         "and_eq",       "asm",
      "auto",      "bitand",       "bitor",       "bool",         "break",
      "case",      "catch",        "char",        "char8_t",      "char16_t",
      "char32_t",  "class",        "compl",       "concept",      "const",
      "consteval", "constexpr",    "constinit",   "const_cast",   "continue",
      "co_await",  "co_return",    "co_yield",    "decltype",     "default",
      "delete",    "do",           "double",      "dynamic_cast", "else",
      "enum",      "explicit",     "export",      "extern",       "false",
      "float",     "for",          "friend",      "goto",         "if",
      "inline",    "int",          "long",        "mutable",      "namespace",
      "new",       "noexcept",     "not",         "not_eq",       "nullptr",
      "operator",  "or",           "or_eq",       "private",      "protected",
      "public",    "register",     "reinterpret_cast", "requires", "return",
      "short",     "signed",       "sizeof",      "static",       "static_assert",
      "static_cast", "struct",     "switch",      "template",     "this",
      "thread_local", "throw",     "true",        "try",          "typedef",
      "typeid",    "typename",     "union",       "unsigned",     "using",
      "virtual",   "void",         "volatile",    "wchar_t",      "while",
      "xor",       "xor_eq"};
  return *k;
}

}  // namespace

std::string CppIdentifier(std::string_view name) {
  std::string id;
  for (char c : name) id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "v" + id;
  if (Keywords().count(id) != 0) id += "_";
  return id;
}

std::string FreshCppName(std::string_view hint, std::set<std::string>* taken) {
  const std::string base = CppIdentifier(hint);
  std::string name = base;
  for (int i = 1; !taken->insert(name).second; ++i) name = pto::StrCat(base, "_", i);
  return name;
}

}  // namespace pto::codegen
