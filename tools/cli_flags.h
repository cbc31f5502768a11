// The command line of every tool: flags are Abseil flags (ABSL_FLAG in the
// tool's own source file), parsed here so that every tool has the same
// spelling rules, a --help generated from the flag definitions, and the same
// exit status (2) for a usage error. absl::ParseCommandLine exits with status 1
// on a bad flag, and 1 means "the input has an error" in our tools, so the
// parsing goes through absl::CommandLineFlag::ParseFrom instead.
//
// Spelling (docs/errors.md, "Usage errors"):
//   --name=VALUE, or --name VALUE for a non-boolean flag;
//   --name / --noname for a boolean, or --name=true|false;
//   one leading dash works like two (-o OUT);
//   '-' in a name is the same as '_' (--print-ir-after-all);
//   a list flag (std::vector<std::string>) given twice accumulates;
//   "--" ends the flags; "-" alone is a positional argument (standard input);
//   -h / --help prints the generated help and exits with status 0.
#ifndef PTO_TOOLS_CLI_FLAGS_H_
#define PTO_TOOLS_CLI_FLAGS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pto::tools {

struct ToolInfo {
  std::string name;       // "pto-run"
  std::string synopsis;   // "FILE --platform=a2a3|a5 --ranks=N [flags]"
  std::string about;      // paragraphs printed before the flags
  std::string epilogue;   // printed after the flags (exit status, ...)
  std::string flag_file;  // __FILE__ of the ABSL_FLAG definitions
  int max_positional = 1;
};

// The exit status of a usage error.
inline constexpr int kUsageExit = 2;

// Parses argv[1..] into the flags defined in info.flag_file and `positional`.
// Returns -1 to go on, 0 after printing --help, or kUsageExit after printing
// "<tool>: <error>\n(see <tool> --help)" to stderr.
int ParseCommandLine(int argc, char** argv, const ToolInfo& info,
                     std::vector<std::string>* positional);

// The generated help text (what --help prints).
std::string HelpText(const ToolInfo& info);

// Prints a usage error as ParseCommandLine does; returns kUsageExit.
int UsageError(const ToolInfo& info, absl::string_view message);

}  // namespace pto::tools

#endif  // PTO_TOOLS_CLI_FLAGS_H_
