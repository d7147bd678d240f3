// Helpers shared by the tests: paths to fixtures and examples, running the real binary.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace meshplan::testing {

// Path of a file in the source tree, e.g. source_path("examples/clusters/x.yaml").
std::string source_path(const std::string& relative);
// Path of a shared fixture, e.g. fixture_path("mlx_golden/two_hosts_one_cable/dot.txt").
std::string fixture_path(const std::string& relative);
std::string read_text(const std::string& path);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the meshplan binary with `args`; `stdin_text` is fed to its standard input.
RunResult run_meshplan(const std::vector<std::string>& args, const std::string& stdin_text = "",
                       const std::vector<std::string>& extra_env = {});
// The same for the solver-quality harness, meshplan-bench (bench/bench_main.cpp).
RunResult run_meshplan_bench(const std::vector<std::string>& args);
// The same for any program.
RunResult run_binary(const std::string& program, const std::vector<std::string>& args,
                     const std::string& stdin_text = "",
                     const std::vector<std::string>& extra_env = {});

// A fresh empty directory under the system temp dir, removed at exit.
std::string temp_dir();

// Runs `script` with sh in `dir` (after `sh -n`), with stand-ins for `programs` first on PATH that
// record, one line each, "run NAME", every "arg <WORD>" and the NCCL/Gloo/vLLM variables they see;
// returns what they recorded. A script that fails throws (a test failure).
std::string run_recorded(const std::string& dir, const std::string& script,
                         const std::vector<std::string>& programs);

// The lines of README.md's sh block under `<!-- session: NAME -->`, blank lines left out;
// throws when there is none.
std::vector<std::string> readme_session_lines(const std::string& name);

// A TCP port of 127.0.0.1 that nothing listens on now.
int free_loopback_port();

// This machine's nginx (/usr/sbin/nginx) in the root namespace, in the foreground with
// `-p DIR -c nginx.conf` as LAUNCH.md says; stopped by its PID when destroyed.
class NginxProcess {
 public:
  explicit NginxProcess(const std::string& dir);
  ~NginxProcess();
  NginxProcess(const NginxProcess&) = delete;
  NginxProcess& operator=(const NginxProcess&) = delete;

 private:
  pid_t pid_ = -1;
};

}  // namespace meshplan::testing
