#include "tools/driver_util.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "compiler/support/diagnostics.h"

namespace pto::tools {

bool ReadInput(const std::string& path, std::string* text) {
  if (path == "-") {
    text->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

int Report(const absl::Status& status, const SourceFile* file) {
  std::cerr << FormatDiagnostic(status, file);
  return IsUserError(status) ? 1 : 2;
}

}  // namespace pto::tools
