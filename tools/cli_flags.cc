#include "tools/cli_flags.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace pto::tools {
namespace {

// Bazel compiles with paths relative to the workspace, but a flag's file may
// be reported with a prefix (or normalized); match on the trailing path.
bool SameFile(const std::string& a, const std::string& b) {
  return absl::EndsWith(a, b) || absl::EndsWith(b, a);
}

// The tool's flags by their dashed name ("print-ir-after-all").
std::map<std::string, absl::CommandLineFlag*> ToolFlags(const ToolInfo& info) {
  std::map<std::string, absl::CommandLineFlag*> out;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (flag->IsRetired() || !SameFile(flag->Filename(), info.flag_file)) continue;
    out[absl::StrReplaceAll(name, {{"_", "-"}})] = flag;
  }
  return out;
}

bool IsBool(const absl::CommandLineFlag& f) { return f.IsOfType<bool>(); }
bool IsList(const absl::CommandLineFlag& f) { return f.IsOfType<std::vector<std::string>>(); }

// A help text may start with the value's name, one word that starts with a
// capital: "NAME: what it does", "OUT.cc: ...".
std::pair<std::string, std::string> MetavarAndHelp(const absl::CommandLineFlag& f) {
  const std::string help = f.Help();
  const size_t colon = help.find(": ");
  if (colon != std::string::npos && colon > 0 &&
      std::all_of(help.begin(), help.begin() + colon, [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '|' || c == ',' || c == '.';
      }) &&
      help[0] >= 'A' && help[0] <= 'Z') {
    return {help.substr(0, colon), help.substr(colon + 2)};
  }
  return {"", help};
}

std::string Placeholder(const absl::CommandLineFlag& f) {
  if (IsBool(f)) return "";
  if (std::string metavar = MetavarAndHelp(f).first; !metavar.empty()) return "=" + metavar;
  if (IsList(f)) return "=A,B,...";
  if (f.IsOfType<std::string>()) return "=STR";
  if (f.IsOfType<double>()) return "=X";
  return "=N";
}

// Words of `text` wrapped to `width` columns after `indent` spaces.
std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out;
  size_t col = indent;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (col > indent && col + 1 + word.size() > width) {
      absl::StrAppend(&out, "\n", std::string(indent, ' '));
      col = indent;
    } else if (col > indent) {
      out += ' ';
      ++col;
    }
    absl::StrAppend(&out, word);
    col += word.size();
  }
  return out;
}

}  // namespace

std::string HelpText(const ToolInfo& info) {
  std::string out = absl::StrCat("usage: ", info.name, " ", info.synopsis, "\n\n");
  if (!info.about.empty()) absl::StrAppend(&out, info.about, "\n");
  absl::StrAppend(&out, "flags:\n");
  constexpr size_t kIndent = 26;
  auto entry = [&](const std::string& left, const std::string& help) {
    std::string line = absl::StrCat("  ", left);
    if (line.size() + 1 > kIndent) {
      absl::StrAppend(&line, "\n", std::string(kIndent, ' '));
    } else {
      line.resize(kIndent, ' ');
    }
    // '\x1f' keeps "(default: X)" on one line: grep-able, and easier to read.
    absl::StrAppend(&out, line, absl::StrReplaceAll(Wrap(help, kIndent, 79), {{"\x1f", " "}}),
                    "\n");
  };
  for (const auto& [name, flag] : ToolFlags(info)) {
    std::string help = MetavarAndHelp(*flag).second;
    const std::string def = flag->DefaultValue();
    if (IsBool(*flag)) {
      if (def == "true") absl::StrAppend(&help, " (default:\x1fon;\x1f--no", name, "\x1fturns\x1fit\x1foff)");
    } else if (!def.empty()) {
      absl::StrAppend(&help, " (default:\x1f", def, ")");
    }
    // A one-letter flag reads like a compiler's: -o OUT.
    const std::string placeholder = Placeholder(*flag);
    entry(name.size() == 1 && !placeholder.empty()
              ? absl::StrCat("-", name, " ", placeholder.substr(1))
              : absl::StrCat("--", name, placeholder),
          help);
  }
  entry("-h, --help", "show this help and exit");
  if (!info.epilogue.empty()) absl::StrAppend(&out, "\n", info.epilogue);
  return out;
}

int UsageError(const ToolInfo& info, absl::string_view message) {
  std::cerr << info.name << ": " << message << "\n(see " << info.name << " --help)\n";
  return kUsageExit;
}

int ParseCommandLine(int argc, char** argv, const ToolInfo& info,
                     std::vector<std::string>* positional) {
  const std::map<std::string, absl::CommandLineFlag*> flags = ToolFlags(info);
  std::set<std::string> seen;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg == "-" || arg.empty() || arg[0] != '-') {
      positional->push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      std::cout << HelpText(info);
      return 0;
    }
    const std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    std::string name = absl::StrReplaceAll(body.substr(0, eq), {{"_", "-"}});
    std::optional<std::string> value;
    if (eq != std::string::npos) value = body.substr(eq + 1);
    auto it = flags.find(name);
    bool negated = false;
    if (it == flags.end() && absl::StartsWith(name, "no") && !value.has_value()) {
      auto neg = flags.find(name.substr(2));
      if (neg != flags.end() && IsBool(*neg->second)) {
        it = neg;
        negated = true;
      }
    }
    if (it == flags.end()) return UsageError(info, absl::StrCat("unknown flag '", arg, "'"));
    absl::CommandLineFlag& flag = *it->second;
    if (IsBool(flag)) {
      if (!value.has_value()) value = negated ? "false" : "true";
    } else if (!value.has_value()) {
      if (i + 1 >= argc) return UsageError(info, absl::StrCat("--", name, " needs a value"));
      value = argv[++i];
    }
    if (IsList(flag) && !seen.insert(name).second && !value->empty()) {
      const std::string before = flag.CurrentValue();
      if (!before.empty()) value = absl::StrCat(before, ",", *value);
    }
    seen.insert(name);
    std::string error;
    if (!flag.ParseFrom(*value, &error)) {
      return UsageError(info, absl::StrCat("--", name, "=", *value, ": ", error));
    }
  }
  if (static_cast<int>(positional->size()) > info.max_positional) {
    return UsageError(info, absl::StrCat("more than ", info.max_positional, " input file",
                                         info.max_positional == 1 ? "" : "s", " ('",
                                         (*positional)[info.max_positional - 1], "' and '",
                                         (*positional)[info.max_positional], "')"));
  }
  return -1;
}

}  // namespace pto::tools
