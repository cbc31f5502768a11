#include "compiler/support/diagnostics.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace pto {
namespace {

constexpr char kLocationPayload[] = "pto.dev/diagnostic-location";

absl::Status Attach(absl::Status status, const Span& span) {
  if (span.known()) {
    // path may contain ':'; put it last.
    status.SetPayload(kLocationPayload,
                      absl::Cord(absl::StrCat(span.line, ":", span.col, ":", span.end_line,
                                              ":", span.end_col, ":", span.file->path())));
  }
  return status;
}

}  // namespace

absl::Status UserError(const Span& span, std::string message) {
  return Attach(absl::InvalidArgumentError(std::move(message)), span);
}

absl::Status InternalError(const Span& span, std::string message) {
  return Attach(absl::InternalError(std::move(message)), span);
}

bool IsUserError(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument;
}

std::optional<DiagnosticLocation> GetDiagnosticLocation(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kLocationPayload);
  if (!payload) return std::nullopt;
  std::string text(*payload);
  std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits(':', 4));
  if (parts.size() != 5) return std::nullopt;
  DiagnosticLocation loc;
  if (!absl::SimpleAtoi(parts[0], &loc.line) || !absl::SimpleAtoi(parts[1], &loc.col) ||
      !absl::SimpleAtoi(parts[2], &loc.end_line) || !absl::SimpleAtoi(parts[3], &loc.end_col)) {
    return std::nullopt;
  }
  loc.path = parts[4];
  return loc;
}

std::string FormatDiagnostic(const absl::Status& status, const SourceFile* file) {
  const char* kind = status.code() == absl::StatusCode::kInternal ? "internal error" : "error";
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(status);
  if (!loc) return absl::StrCat(kind, ": ", status.message(), "\n");
  std::string out =
      absl::StrCat(loc->path, ":", loc->line, ":", loc->col, ": ", kind, ": ", status.message(), "\n");
  if (file != nullptr && file->path() == loc->path) {
    std::string_view line = file->Line(loc->line);
    if (!line.empty()) {
      std::string caret;
      for (int i = 1; i < loc->col && i <= static_cast<int>(line.size()); ++i) {
        caret += line[i - 1] == '\t' ? '\t' : ' ';
      }
      int width = 1;
      if (loc->end_line == loc->line && loc->end_col > loc->col) {
        width = std::min<int>(loc->end_col - loc->col,
                              static_cast<int>(line.size()) - loc->col + 1);
        if (width < 1) width = 1;
      }
      caret += '^';
      caret.append(width - 1, '~');
      // Control bytes and invalid UTF-8 would garble the terminal: show '?'.
      std::string shown;
      for (size_t i = 0; i < line.size();) {
        unsigned char u = static_cast<unsigned char>(line[i]);
        size_t len = u < 0x80 ? 1 : (u >> 5) == 0x6 ? 2 : (u >> 4) == 0xE ? 3 : (u >> 3) == 0x1E ? 4 : 0;
        bool valid = len > 0 && i + len <= line.size();
        for (size_t k = 1; valid && k < len; ++k) {
          valid = (static_cast<unsigned char>(line[i + k]) >> 6) == 0x2;
        }
        if (!valid || (u < 0x20 && u != '\t') || u == 0x7F) {
          shown += '?';
          ++i;
        } else {
          shown.append(line.data() + i, len);
          i += len;
        }
      }
      absl::StrAppend(&out, shown, "\n", caret, "\n");
    }
  }
  return out;
}

}  // namespace pto
