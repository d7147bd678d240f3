// Three Linux hosts for llama.cpp: network namespaces with their own sshd (each management link
// reaching only this machine) cabled in a triangle, a tiny random-weight Llama, and README.md's
// Linux session run on them as written (discover, setup --apply, calibrate, plan, emit all) in a
// folder inside the llama.cpp chroot, so that the paths the session writes are the engine's too.
// What `setup --apply` did is undone and the namespaces removed when it is destroyed. Shared by
// the end-to-end tests and the pipeline benchmark of tests/llama/.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/llama/llama_engine.hpp"
#include "tests/netns/netns_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {

// One line of an emitted llama-rpc.sh: the host it runs on (its "# rank K: on HOST" comment) and
// its words (the emitted lines quote nothing a shell would need here).
struct LaunchLine {
  std::string host;
  std::vector<std::string> words;
};
std::vector<LaunchLine> launch_lines(const std::string& script);

// What a plan gives each host: its layer range [first, last), and whether it holds the output
// layer.
struct PlannedHost {
  int first = 0, last = 0;
  bool head = false;
};
std::map<std::string, PlannedHost> planned_hosts(const nlohmann::json& plan);

struct Launched {
  std::string main_host;
  std::string main_log;
  std::string answer;  // llama-server's /completion answer, or what went wrong with its log
};

class LlamaCluster {
 public:
  static constexpr int kLayers = 16;

  // Starts the farm and runs the README's session; throws saying what failed.
  LlamaCluster();
  ~LlamaCluster();
  LlamaCluster(const LlamaCluster&) = delete;
  LlamaCluster& operator=(const LlamaCluster&) = delete;

  NetnsFarm& farm() { return farm_; }
  const std::string& session() const { return session_; }  // the folder as the engine sees it
  const std::string& work() const { return work_; }        // the same folder here
  std::string cluster_file() const { return work_ + "/cluster.json"; }
  const std::string& found_state() const { return found_state_; }
  // Every namespace's interfaces and IPv4 addresses.
  std::string network_state() const;

  // meshplan with the farm's ssh config and known hosts as the user's own (~/.ssh of HOME).
  RunResult meshplan(const std::vector<std::string>& args) const;
  // README.md's session `name`, each line as written under sh in work(); throws naming the line.
  void run_readme_session(const std::string& name) const;
  // `plan` (args after the cluster and model) and `emit all` into work()/name on `cluster`
  // (default: cluster_file()); the plan file.
  nlohmann::json plan_and_emit(const std::string& name, const std::vector<std::string>& args,
                               const std::string& cluster = "") const;

  // Starts the lines of `launch_dir`/llama-rpc.sh on their hosts, rpc-servers first as LAUNCH.md
  // says (each with -t 1; llama-server with -v, for its placement log), waits for the endpoint and
  // asks it for `tokens` tokens.
  // `main_args` go after llama-server's own.
  Launched launch(const std::string& launch_dir, EngineProcesses& processes, int tokens = 8,
                  const std::vector<std::string>& main_args = {});
  // The host whose namespace holds IPv4 `address` (127.0.0.1: `main`).
  std::string host_of(const std::string& address, const std::string& main) const;

 private:
  void clean_up();  // teardown --apply, the farm stopped, the folder removed; safe twice

  NetnsFarm farm_;
  std::string session_, work_, found_state_;
};

}  // namespace meshplan::testing
