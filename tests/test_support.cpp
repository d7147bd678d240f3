#include "tests/test_support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace meshplan::testing {
namespace {

// Tests call temp_dir() from several threads at once (fake executors run per host in parallel).
struct TempDirs {
  std::mutex mutex;
  std::vector<std::string> dirs;
  ~TempDirs() {
    for (const auto& d : dirs) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  }
};

TempDirs& temp_dirs() {
  static TempDirs t;
  return t;
}

}  // namespace

std::string source_path(const std::string& relative) {
  return std::string(MESHPLAN_SOURCE_DIR) + "/" + relative;
}

std::string fixture_path(const std::string& relative) {
  return source_path("tests/fixtures/" + relative);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "meshplan-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  TempDirs& t = temp_dirs();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.dirs.push_back(tmpl);
  return tmpl;
}

RunResult run_meshplan(const std::vector<std::string>& args, const std::string& stdin_text,
                       const std::vector<std::string>& extra_env) {
  return run_binary(MESHPLAN_BINARY, args, stdin_text, extra_env);
}

#ifdef MESHPLAN_BENCH_BINARY
RunResult run_meshplan_bench(const std::vector<std::string>& args) {
  return run_binary(MESHPLAN_BENCH_BINARY, args, "", {});
}
#endif

RunResult run_binary(const std::string& program, const std::vector<std::string>& args,
                     const std::string& stdin_text, const std::vector<std::string>& extra_env) {
  std::string dir = temp_dir();
  std::string in_path = dir + "/stdin", out_path = dir + "/stdout", err_path = dir + "/stderr";
  {
    std::ofstream in(in_path, std::ios::binary);
    in << stdin_text;
  }
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int in = open(in_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (const auto& e : extra_env)
      putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    std::string binary = program;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execve(binary.c_str(), argv.data(), environ);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

std::string run_recorded(const std::string& dir, const std::string& script,
                         const std::vector<std::string>& programs) {
  std::string bin = dir + "/bin";
  std::filesystem::create_directories(bin);
  // One write a run: programs the script leaves in the background record beside each other,
  // and line-by-line appends would interleave.
  std::ofstream(bin + "/record")
      << "#!/bin/sh\n"
         "out=$(printf 'run %s\\n' \"${0##*/}\"\n"
         "  for a in \"$@\"; do printf 'arg <%s>\\n' \"$a\"; done\n"
         "  for v in NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME NCCL_IB_HCA VLLM_HOST_IP; do\n"
         "    eval \"x=\\${$v-unset}\"; printf 'env %s <%s>\\n' \"$v\" \"$x\"; done)\n"
         "printf '%s\\n' \"$out\" >>\"$RECORD\"\n";
  std::filesystem::permissions(bin + "/record", std::filesystem::perms::owner_all);
  for (const std::string& program : programs)
    std::filesystem::create_symlink(bin + "/record", bin + "/" + program);
  std::ofstream(dir + "/script.sh") << script;
  std::string record = dir + "/record.txt";
  std::ofstream(record).close();
  std::string cmd = "cd '" + dir + "' && sh -n script.sh && PATH='" + bin + "':\"$PATH\" RECORD='" +
                    record + "' sh script.sh 2>&1";
  // Read the script's output through a pipe to its end: every process the script starts holds the
  // pipe, also one it leaves in the background, so the record is complete once the pipe closes.
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::string output;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  if (pclose(pipe) != 0)
    throw std::runtime_error("the script failed (sh -n or sh):\n" + script + "\n" + output);
  return read_text(record);
}

std::vector<std::string> readme_session_lines(const std::string& name) {
  const std::string readme = read_text(source_path("README.md"));
  const size_t at = readme.find("<!-- session: " + name + " -->\n```sh\n");
  if (at == std::string::npos)
    throw std::runtime_error("README.md has no block under <!-- session: " + name + " -->");
  const size_t begin = readme.find("```sh\n", at) + 6;
  const size_t end = readme.find("```", begin);
  std::vector<std::string> lines;
  std::istringstream in(readme.substr(begin, end - begin));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

int free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

NginxProcess::NginxProcess(const std::string& dir) {
  pid_ = ::fork();
  if (pid_ == 0) {
    int fd = ::open((dir + "/nginx.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execl("/usr/sbin/nginx", "nginx", "-p", dir.c_str(), "-c", "nginx.conf", "-g", "daemon off;",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
}

NginxProcess::~NginxProcess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
}

}  // namespace meshplan::testing
