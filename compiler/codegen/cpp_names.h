// C++ identifiers for names from a program: generated code uses program
// names for functions and locals, and a program may use any name its
// language allows, including C++ keywords (`def double(...)`).
#ifndef PTO_COMPILER_CODEGEN_CPP_NAMES_H_
#define PTO_COMPILER_CODEGEN_CPP_NAMES_H_

#include <set>
#include <string>
#include <string_view>

namespace pto::codegen {

// `name` as a C++ identifier: characters outside [A-Za-z0-9_] become '_', a
// leading digit (or nothing) gets a 'v' in front, and a C++ keyword or
// alternative token gets a trailing '_' (`double` -> `double_`).
std::string CppIdentifier(std::string_view name);

// CppIdentifier(hint), made unique against `taken` (with _1, _2, ...) and
// added to it.
std::string FreshCppName(std::string_view hint, std::set<std::string>* taken);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_CPP_NAMES_H_
