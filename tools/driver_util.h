// What the command-line drivers (pto-opt, pto-compile) share: reading the
// input program and turning a status into a diagnostic and an exit status.
#ifndef PTO_TOOLS_DRIVER_UTIL_H_
#define PTO_TOOLS_DRIVER_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/support/source.h"

namespace pto::tools {

// Reads `path` ("-" = standard input) into `text`; false if it cannot be read.
bool ReadInput(const std::string& path, std::string* text);

// Prints the located diagnostic to stderr; returns the exit status: 1 for a bad
// program (user error), 2 for anything else (usage-like or internal).
int Report(const absl::Status& status, const SourceFile* file);

}  // namespace pto::tools

#endif  // PTO_TOOLS_DRIVER_UTIL_H_
