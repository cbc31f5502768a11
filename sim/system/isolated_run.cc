#include "sim/system/isolated_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <google/protobuf/text_format.h>

#include "absl/strings/str_cat.h"

namespace pto::sim {

RunReport RunIsolated(const std::function<RunReport()>& body) {
  RunReport failed;
  failed.set_error_code(-1);
  int fds[2];
  if (pipe(fds) != 0) {
    failed.set_error_text("pipe() failed");
    return failed;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    failed.set_error_text("fork() failed");
    return failed;
  }
  if (pid == 0) {
    close(fds[0]);
    const auto t0 = std::chrono::steady_clock::now();
    RunReport r = body();
    r.set_wall_seconds(std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - t0)
                           .count());
    std::string bytes;
    r.SerializeToString(&bytes);
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
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
    failed.set_error_text(
        WIFSIGNALED(status)
            ? absl::StrCat("simulation process died with signal ",
                           WTERMSIG(status))
            : absl::StrCat("simulation process exited with ",
                           WEXITSTATUS(status)));
    return failed;
  }
  RunReport r;
  if (!r.ParseFromString(bytes)) {
    failed.set_error_text("simulation process sent an unreadable report");
    return failed;
  }
  return r;
}

std::string StatsText(const RunReport& report) {
  RunReport copy = report;
  copy.clear_wall_seconds();
  copy.clear_trace_json();
  std::string out;
  google::protobuf::TextFormat::PrintToString(copy, &out);
  return out;
}

}  // namespace pto::sim
