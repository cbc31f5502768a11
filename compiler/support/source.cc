#include "compiler/support/source.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace pto {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  // memchr scans a word at a time; a 10 MB program has ~350k lines.
  const char* begin = text_.data();
  const char* end = begin + text_.size();
  for (const char* p = begin; p < end;) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (nl == nullptr || nl + 1 == end) break;
    p = nl + 1;
    line_starts_.push_back(static_cast<uint32_t>(p - begin));
  }
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > line_count()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = begin;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string Span::ToString() const {
  if (!known()) return "<unknown>";
  return absl::StrCat(file->path(), ":", line, ":", col);
}

Span Span::Merge(const Span& other) const {
  if (!known()) return other;
  if (!other.known() || other.file != file) return *this;
  Span s = *this;
  if (other.line < s.line || (other.line == s.line && other.col < s.col)) {
    s.line = other.line;
    s.col = other.col;
  }
  if (other.end_line > s.end_line ||
      (other.end_line == s.end_line && other.end_col > s.end_col)) {
    s.end_line = other.end_line;
    s.end_col = other.end_col;
  }
  return s;
}

}  // namespace pto
