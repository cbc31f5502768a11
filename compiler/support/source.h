// Source files and spans: every IR node carries the span it came from so that
// any later diagnostic can point at the user's text.
#ifndef PTO_COMPILER_SUPPORT_SOURCE_H_
#define PTO_COMPILER_SUPPORT_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// An immutable source buffer with a line index.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  // 1-based line; returns "" for a line out of range. No trailing newline.
  std::string_view Line(int line) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

// A half-open region [begin, end) in a file; lines and columns are 1-based.
// A default Span is "unknown" (no file): nodes built by passes without a user
// origin print as <unknown>.
struct Span {
  SourceFilePtr file;
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;

  Span() = default;
  Span(SourceFilePtr f, int l, int c, int el, int ec)
      : file(std::move(f)), line(l), col(c), end_line(el), end_col(ec) {}

  bool known() const { return file != nullptr && line > 0; }
  // "path:line:col" or "<unknown>".
  std::string ToString() const;
  // The span covering both (files must match; otherwise returns *this).
  Span Merge(const Span& other) const;
};

}  // namespace pto

#endif  // PTO_COMPILER_SUPPORT_SOURCE_H_
