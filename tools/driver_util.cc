#include "tools/driver_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/support/diagnostics.h"

namespace pto::tools {

bool ReadInput(const std::string& path, std::string* text) {
  // POSIX reads: an ifstream on a directory "opens" and then throws from
  // inside the stream iterator.
  const int fd = path == "-" ? STDIN_FILENO : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    if (fd != STDIN_FILENO) close(fd);
    errno = EISDIR;
    return false;
  }
  text->clear();
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      if (fd != STDIN_FILENO) close(fd);
      errno = err;
      return false;
    }
    text->append(buf, static_cast<size_t>(n));
  }
  if (fd != STDIN_FILENO) close(fd);
  return true;
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
