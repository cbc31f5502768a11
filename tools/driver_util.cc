#include "tools/driver_util.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
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

absl::StatusOr<std::shared_ptr<const SourceFile>> ReadSource(const std::string& path) {
  std::string text;
  errno = 0;
  if (!ReadInput(path, &text)) {
    const int err = errno;
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read '", path, "'", err != 0 ? ": " : "", err != 0 ? std::strerror(err) : ""));
  }
  auto file = std::make_shared<const SourceFile>(path == "-" ? std::string("<stdin>") : path,
                                                 std::move(text));
  if (const size_t nul = file->text().find('\0'); nul != std::string::npos) {
    Span at;
    at.file = file;
    at.line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < nul; ++i) {
      if (file->text()[i] == '\n') {
        ++at.line;
        line_start = i + 1;
      }
    }
    at.col = static_cast<int>(nul - line_start) + 1;
    at.end_line = at.line;
    at.end_col = at.col + 1;
    return UserError(at, absl::StrCat("not a program: the file holds a NUL byte (offset ", nul,
                                      "); is it a binary file?"));
  }
  return file;
}

int Report(const absl::Status& status, const SourceFile* file) {
  std::cerr << FormatDiagnostic(status, file);
  return IsUserError(status) ? 1 : 2;
}

int Report(const std::string& tool, const absl::Status& status) {
  if (GetDiagnosticLocation(status).has_value()) {
    // The located file is the one ReadSource read; its text is in the span.
    return Report(status, nullptr);
  }
  std::cerr << tool << ": " << status.message() << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument ? 1 : 2;
}

}  // namespace pto::tools
