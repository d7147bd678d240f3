#include "bench/bounded_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

using Steady = std::chrono::steady_clock;

// The child's standard streams on /dev/null: whatever the work (or a library under it) might
// print stays off the terminal.
void silence() {
  const int null = open("/dev/null", O_RDWR);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd)
    dup2(null, fd);
  if (null > 2) close(null);
}

void write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The child: runs the work and sends "F <seconds>\n<result>" or "C <what went wrong>". It leaves
// by _exit, so that neither this process's atexit handlers nor its stdio buffers run twice.
[[noreturn]] void child(const std::function<std::string()>& work, int out, uint64_t memory) {
  silence();
  if (memory > 0 && memory_limit_applies()) {
    const rlimit limit{memory, memory};
    setrlimit(RLIMIT_AS, &limit);
  }
  std::string message;
  try {
    const Steady::time_point began = Steady::now();
    std::string result = work();
    const double s = std::chrono::duration<double>(Steady::now() - began).count();
    message = fmt::format("F {:.9f}\n", s) + result;
  } catch (const std::exception& e) {
    message = std::string("C ") + e.what();
  } catch (...) {
    message = "C an exception that is not a std::exception";
  }
  write_all(out, message);
  _exit(0);
}

// What the child sent before the end of the pipe, or before the deadline (then `ended` false).
std::string read_until(int fd, Steady::time_point deadline, bool* ended) {
  std::string data;
  *ended = false;
  while (!*ended) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Steady::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw internal_error("poll: {}", std::strerror(errno));
    if (ready == 0) continue;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0)
      data.append(buffer, static_cast<size_t>(n));
    else
      *ended = true;  // end of the pipe (or an error reading it: the child's result is lost)
  }
  return data;
}

}  // namespace

bool memory_limit_applies() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return false;
#endif
#endif
  return true;
}

BoundedRun run_bounded(const std::function<std::string()>& work, double limit_s,
                       uint64_t memory_limit_bytes) {
  if (!(limit_s > 0)) throw input_error("a time limit must be above 0 seconds, got {}", limit_s);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw internal_error("pipe: {}", std::strerror(errno));
  const Steady::time_point deadline =
      Steady::now() + std::chrono::duration_cast<Steady::duration>(
                          std::chrono::duration<double>(std::min(limit_s, 1e9)));
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    throw internal_error("fork: {}", std::strerror(error));
  }
  if (pid == 0) {
    close(fds[0]);
    child(work, fds[1], memory_limit_bytes);
  }
  close(fds[1]);
  bool ended = false;
  std::string data;
  try {
    data = read_until(fds[0], deadline, &ended);
  } catch (...) {
    kill(pid, SIGKILL);  // reaped before the error goes on
    waitpid(pid, nullptr, 0);
    close(fds[0]);
    throw;
  }
  if (!ended) kill(pid, SIGKILL);
  close(fds[0]);
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw internal_error("wait4: {}", std::strerror(errno));
  BoundedRun run;
  run.peak_bytes = static_cast<uint64_t>(std::max<long>(usage.ru_maxrss, 0)) * 1024;  // KiB
  if (!ended) {
    run.status = BoundedRun::Status::kOverLimit;
    run.seconds = limit_s;
  } else if (data.rfind("F ", 0) == 0 && data.find('\n') != std::string::npos) {
    run.status = BoundedRun::Status::kFinished;
    const size_t line = data.find('\n');
    run.seconds = std::stod(data.substr(2, line - 2));
    run.result = data.substr(line + 1);
  } else if (data.rfind("C ", 0) == 0) {
    run.result = data.substr(2);
  } else if (WIFSIGNALED(status)) {
    run.result =
        fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else {
    run.result = fmt::format("exited with {} and no result", WEXITSTATUS(status));
  }
  return run;
}

}  // namespace meshplan
