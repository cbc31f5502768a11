// Located diagnostics. A user error (a bad program) and an internal error (a
// compiler bug) are distinct absl status codes; the span travels as a payload
// so the driver can render `FILE:LINE:COL: error: MESSAGE`, the line and a caret.
#ifndef PTO_COMPILER_SUPPORT_DIAGNOSTICS_H_
#define PTO_COMPILER_SUPPORT_DIAGNOSTICS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "compiler/support/source.h"
#include "compiler/support/strings.h"

namespace pto {

// A bad program: absl::StatusCode::kInvalidArgument with the span attached.
absl::Status UserError(const Span& span, std::string message);
// A compiler bug: absl::StatusCode::kInternal with the span attached.
absl::Status InternalError(const Span& span, std::string message);

template <typename... Args>
absl::Status UserErrorF(const Span& span, const Args&... args) {
  return UserError(span, pto::StrCat(args...));
}
template <typename... Args>
absl::Status InternalErrorF(const Span& span, const Args&... args) {
  return InternalError(span, pto::StrCat(args...));
}

bool IsUserError(const absl::Status& status);

// Location carried by a status made with UserError/InternalError (nullopt when
// the status has none).
struct DiagnosticLocation {
  std::string path;
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;
};
std::optional<DiagnosticLocation> GetDiagnosticLocation(const absl::Status& status);

// Renders `FILE:LINE:COL: error: MESSAGE` (or `internal error`), followed by the
// source line and a caret when `file` holds the text of the located file.
// A status without a location renders as `error: MESSAGE`.
std::string FormatDiagnostic(const absl::Status& status, const SourceFile* file);

}  // namespace pto

#endif  // PTO_COMPILER_SUPPORT_DIAGNOSTICS_H_
