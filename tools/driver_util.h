// What the command-line drivers (pto-opt, pto-compile, pto-run) share: reading
// the input program and turning a status into a diagnostic and an exit status.
#ifndef PTO_TOOLS_DRIVER_UTIL_H_
#define PTO_TOOLS_DRIVER_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/support/source.h"

namespace pto::tools {

// Reads `path` ("-" = standard input) into `text`; false if it cannot be read.
bool ReadInput(const std::string& path, std::string* text);

// Reads the program at `path` ("-" = standard input, named <stdin>). A file
// that cannot be read (missing, a directory, no permission) is a user error
// naming the file and the system's reason. Binary input is the lexer's to
// reject (a located "source contains a NUL byte" / invalid UTF-8 error).
absl::StatusOr<std::shared_ptr<const SourceFile>> ReadSource(const std::string& path);

// Prints the located diagnostic to stderr; returns the exit status: 1 for a bad
// program (user error), 2 for anything else (usage-like or internal).
int Report(const absl::Status& status, const SourceFile* file);

// Report() for a status of ReadSource: "<tool>: MESSAGE" when it has no
// location, else the located diagnostic.
int Report(const std::string& tool, const absl::Status& status);

}  // namespace pto::tools

#endif  // PTO_TOOLS_DRIVER_UTIL_H_
