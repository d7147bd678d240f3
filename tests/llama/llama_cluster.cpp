#include "tests/llama/llama_cluster.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace meshplan::testing {
namespace {

std::string tail(const std::string& text, size_t n) {
  return text.size() > n ? text.substr(text.size() - n) : text;
}

}  // namespace

std::vector<LaunchLine> launch_lines(const std::string& script) {
  static const std::regex rank(R"(^# rank [0-9]+: on (\S+?),)");
  std::vector<LaunchLine> out;
  std::string host;
  std::istringstream in(script);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, rank)) host = m[1];
    if (line.empty() || line[0] == '#') continue;
    LaunchLine l{host, {}};
    std::istringstream words(line);
    for (std::string w; words >> w;)
      l.words.push_back(w);
    out.push_back(l);
  }
  return out;
}

std::map<std::string, PlannedHost> planned_hosts(const nlohmann::json& plan) {
  std::map<std::string, PlannedHost> out;
  for (const auto& r : plan["ranks"])
    out[r["host"]] = {r["layers"][0].get<int>(), r["layers"][1].get<int>(),
                      r.value("holds_head", false)};
  return out;
}

LlamaCluster::LlamaCluster() {
  try {
    for (const char* n : {"node-1", "node-2", "node-3"})
      farm_.add_host(n);
    farm_.add_cable("node-1", "eth1", "node-2", "eth1");
    farm_.add_cable("node-2", "eth2", "node-3", "eth1");
    farm_.add_cable("node-3", "eth2", "node-1", "eth2");
    farm_.start();
    found_state_ = network_state();
    std::filesystem::create_directories(farm_.home() + "/.ssh");
    std::filesystem::copy_file(farm_.write_ssh_config(), farm_.home() + "/.ssh/config");
    std::filesystem::copy_file(farm_.write_known_hosts(), farm_.home() + "/.ssh/known_hosts");
    session_ = "/meshplan-session-" + std::to_string(::getpid());
    work_ = llama_chroot() + session_;
    write_tiny_llama(session_ + "/tiny-llama", kLayers);
    run_readme_session("linux");
  } catch (...) {
    clean_up();
    throw;
  }
}

LlamaCluster::~LlamaCluster() {
  clean_up();
}

void LlamaCluster::clean_up() {
  if (!work_.empty() && std::filesystem::exists(cluster_file()))
    meshplan({"teardown", "-c", cluster_file(), "--apply"});
  farm_.stop();
  // MESHPLAN_LLAMA_KEEP=1 keeps the session's files (cluster, plans, launches, logs) to read.
  const char* keep = std::getenv("MESHPLAN_LLAMA_KEEP");
  if (!work_.empty() && !(keep && *keep == '1')) std::filesystem::remove_all(work_);
  work_.clear();
}

std::string LlamaCluster::network_state() const {
  std::string out;
  for (const auto& h : farm_.hosts())
    out += h.name + "\n" + farm_.exec(h.name, "ip -4 -o addr show | awk '{print $2, $4}'");
  return out;
}

RunResult LlamaCluster::meshplan(const std::vector<std::string>& args) const {
  return run_meshplan(args, "", {"HOME=" + farm_.home(), "SSH_AUTH_SOCK="});
}

void LlamaCluster::run_readme_session(const std::string& name) const {
  const std::string bin = std::filesystem::path(MESHPLAN_BINARY).parent_path().string();
  for (const std::string& line : readme_session_lines(name)) {
    if (line.rfind("meshplan ", 0) != 0) throw std::runtime_error("not meshplan: " + line);
    const std::string command = "cd '" + work_ + "' && export HOME='" + farm_.home() +
                                "' SSH_AUTH_SOCK= PATH='" + bin + "':\"$PATH\" && { " + line +
                                "\n} > session.out 2> session.err";
    if (std::system(command.c_str()) != 0)
      throw std::runtime_error("README session " + name + ": `" + line + "` failed:\n" +
                               read_text(work_ + "/session.err"));
  }
}

nlohmann::json LlamaCluster::plan_and_emit(const std::string& name,
                                           const std::vector<std::string>& plan_args,
                                           const std::string& cluster) const {
  const std::string file = cluster.empty() ? cluster_file() : cluster;
  const std::string dir = work_ + "/" + name;
  std::filesystem::create_directories(dir);
  std::vector<std::string> args = {"plan",
                                   "-c",
                                   file,
                                   "-m",
                                   work_ + "/tiny-llama",
                                   "--engine",
                                   "llama-rpc",
                                   "-o",
                                   dir + "/plan.json"};
  args.insert(args.end(), plan_args.begin(), plan_args.end());
  auto p = run_meshplan(args);
  if (p.exit_code != 0) throw std::runtime_error("plan failed: " + p.err);
  auto e = run_meshplan({"emit", "all", "-c", file, "--plan", dir + "/plan.json", "--model",
                         "tiny-llama/model.gguf", "-o", dir + "/launch"});
  if (e.exit_code != 0) throw std::runtime_error("emit all failed: " + e.err);
  return nlohmann::json::parse(read_text(dir + "/plan.json"));
}

Launched LlamaCluster::launch(const std::string& launch_dir, EngineProcesses& processes, int tokens,
                              const std::vector<std::string>& main_args) {
  Launched out;
  for (const LaunchLine& l : launch_lines(read_text(launch_dir + "/llama-rpc.sh"))) {
    std::vector<std::string> words = l.words;
    const bool main = words.at(0) == "llama-server";
    if (main) {
      words.insert(words.end(), main_args.begin(), main_args.end());
      words.push_back("-v");
    }
    // One thread per rpc-server, whatever this machine's cores: the hosts share them.
    if (words.at(0) == "rpc-server") words.insert(words.end(), {"-t", "1"});
    std::string log = processes.start(farm_.host(l.host).netns, session_, words, launch_dir);
    if (main) {
      out.main_host = l.host;
      out.main_log = log;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // until its socket listens
    }
  }
  if (out.main_host.empty()) return out;
  const std::string address = farm_.host(out.main_host).address;
  for (int i = 0; i < 600; ++i) {
    if (http_request(address, 8080, "GET", "/health", "", 1000).code == 200) break;
    if (!processes.running(out.main_log)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto a = http_request(
      address, 8080, "POST", "/completion",
      R"({"prompt":"the a of","ignore_eos":true,"n_predict":)" + std::to_string(tokens) + "}",
      60000);
  out.answer = a.code == 200 ? a.body
                             : "HTTP " + std::to_string(a.code) + " " + a.body + "\n" +
                                   read_text(launch_dir + "/llama-rpc.sh") + "\nits log ends:\n" +
                                   tail(read_text(out.main_log), 3000);
  return out;
}

std::string LlamaCluster::host_of(const std::string& address, const std::string& main) const {
  if (address == "127.0.0.1") return main;
  for (const auto& h : farm_.hosts())
    if (farm_.exec_status(h.name, "ip -4 -o addr show | grep -q ' " + address + "/'") == 0)
      return h.name;
  return "?" + address;
}

}  // namespace meshplan::testing
