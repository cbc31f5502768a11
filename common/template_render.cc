#include "common/template_render.h"

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace pto {
namespace {

bool IsKeyChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

int LineOf(absl::string_view text, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

absl::StatusOr<std::string> RenderTemplate(absl::string_view text,
                                           const TemplateVars& vars) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("{{", pos);
    if (open == absl::string_view::npos) break;
    out.append(text.data() + pos, open - pos);
    const size_t close = text.find("}}", open + 2);
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "template line ", LineOf(text, open), ": '{{' without a closing '}}'"));
    }
    const absl::string_view key = text.substr(open + 2, close - open - 2);
    bool ident = !key.empty();
    for (char c : key) ident = ident && IsKeyChar(c);
    if (!ident) {
      return absl::InvalidArgumentError(
          absl::StrCat("template line ", LineOf(text, open),
                       ": malformed placeholder '{{", key, "}}'"));
    }
    auto it = vars.find(key);
    if (it == vars.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("template line ", LineOf(text, open),
                       ": no value for placeholder '{{", key, "}}'"));
    }
    out += it->second;
    pos = close + 2;
  }
  out.append(text.data() + pos, text.size() - pos);
  return out;
}

absl::StatusOr<TemplateVars> ParseTemplateVars(
    const std::vector<std::string>& pairs) {
  TemplateVars vars;
  for (const std::string& p : pairs) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("template variable '", p, "' is not key=value"));
    }
    if (!vars.emplace(p.substr(0, eq), p.substr(eq + 1)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("template variable '", p.substr(0, eq),
                       "' given twice"));
    }
  }
  return vars;
}

}  // namespace pto
