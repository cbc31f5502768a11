#include "sim/common/fork_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace pto::sim {

absl::StatusOr<std::string> RunInChild(const std::function<std::string()>& body,
                                       const std::string& who) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError("pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork() failed");
  if (pid == 0) {
    close(fds[0]);
    const std::string bytes = body();
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) bytes.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        WIFSIGNALED(status) ? absl::StrCat(who, " died with signal ", WTERMSIG(status))
                            : absl::StrCat(who, " exited with ", WEXITSTATUS(status)));
  }
  return bytes;
}

}  // namespace pto::sim
