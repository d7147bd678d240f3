// The launch files, run by the real consumers where Debian has them: Open MPI maps every rank to
// its planned host, MPICH's Hydra places them (through an ssh stand-in that runs each proxy
// here), torchrun's per-node commands rendezvous on loopback and all-reduce with Gloo, Ansible
// lists the inventory. Also `emit all`, `emit --list` and the inputs that must write nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/test_support.hpp"

namespace meshplan::launchers_cli_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kCluster = source_path("tests/fixtures/launch/loopback.yaml");
const std::string kPlan = source_path("tests/fixtures/launch/loopback_plan.json");
// The plan's hosts in rank order (not the cluster file's order).
const std::vector<std::string> kRankHosts = {"node-b", "node-c", "node-a"};

bool have(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Starts `sh -c command` in `dir`, in its own process group, output to dir/NAME.out.
pid_t start_shell(const std::string& command, const std::string& dir, const std::string& name) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0) _exit(126);
    std::string out = dir + "/" + name + ".out";
    FILE* f = freopen(out.c_str(), "w", stdout);
    if (!f || dup2(fileno(stdout), 2) < 0) _exit(126);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Waits for every pid until the deadline; the ones still running then are stopped (their
// process groups, which they lead). Exit codes in order, -1 for a stopped one.
// Waits for every process until `limit`; once one fails, the others (which would wait for it
// until their own timeouts) are given a few seconds, then killed.
std::vector<int> wait_all(const std::vector<pid_t>& pids, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<int> codes(pids.size(), -2);
  size_t left = pids.size();
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (codes[i] != -2) continue;
      int status = 0;
      if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        --left;
        if (codes[i] != 0)
          deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(5));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    if (codes[i] != -2) continue;
    kill(-pids[i], SIGKILL);
    waitpid(pids[i], nullptr, 0);
    codes[i] = -1;
  }
  return codes;
}

int run_shell(const std::string& command, const std::string& dir, const std::string& name) {
  return wait_all({start_shell(command, dir, name)}, std::chrono::seconds(60)).front();
}

std::string emit(const std::string& format, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"emit", format, "-c", kCluster, "--plan", kPlan};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
  return r.out;
}

// The command lines of an artifact: lines that are neither blank nor comments.
std::vector<std::string> command_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

TEST(launchers_cli_test, open_mpi_maps_every_rank_to_its_planned_host) {
  if (!have("mpirun.openmpi")) GTEST_SKIP() << "mpirun.openmpi (openmpi-bin) is not installed";
  std::string dir = temp_dir();
  write(dir + "/hostfile", emit("openmpi-hostfile"));
  // Host names that are not this machine: Open MPI would map its own host first otherwise.
  int rc = run_shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --hostfile "
      "hostfile --display-map --do-not-launch -np 3 true",
      dir, "map");
  std::string map = read_text(dir + "/map.out");
  EXPECT_EQ(rc, 0) << map;
  std::regex node(R"(Data for node: (\S+)\s+Num slots: 1\s+Max slots: 1\s+Num procs: 1\s+)"
                  R"(Process OMPI jobid: \S+ App: 0 Process rank: (\d+))");
  std::map<int, std::string> placed;
  for (std::sregex_iterator it(map.begin(), map.end(), node), end; it != end; ++it)
    placed[std::stoi((*it)[2])] = (*it)[1];
  ASSERT_EQ(placed.size(), 3u) << map;
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(placed[r], kRankHosts[static_cast<size_t>(r)]) << "rank " << r << "\n" << map;

  // One more rank than the plan has does not fit: slots are the plan's ranks per host.
  run_shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --hostfile "
      "hostfile --display-map --do-not-launch -np 4 true",
      dir, "over");
  EXPECT_NE(read_text(dir + "/over.out").find("not enough slots"), std::string::npos);
}

TEST(launchers_cli_test, mpich_hydra_places_every_rank_on_its_planned_host) {
  if (!have("mpiexec.mpich")) GTEST_SKIP() << "mpiexec.mpich (mpich) is not installed";
  std::string dir = temp_dir();
  write(dir + "/hostfile", emit("mpich-hostfile"));
  // Hydra starts one proxy per host through its launcher: this stand-in for ssh records the
  // host and runs the proxy here, with the host in the environment its ranks inherit.
  write(dir + "/ssh",
        "#!/bin/sh\n"
        "while [ $# -gt 0 ]; do case \"$1\" in -*) shift;; *) break;; esac; done\n"
        "MESHPLAN_HOST=$1; export MESHPLAN_HOST; shift\n"
        "exec sh -c \"$*\"\n");
  std::filesystem::permissions(dir + "/ssh", std::filesystem::perms::owner_all);
  int rc = run_shell(
      "mpiexec.mpich -launcher ssh -launcher-exec ./ssh -f hostfile -n 3 "
      "sh -c 'echo \"rank $PMI_RANK on $MESHPLAN_HOST\"'",
      dir, "run");
  std::string out = read_text(dir + "/run.out");
  ASSERT_EQ(rc, 0) << out;
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(
        out.find("rank " + std::to_string(r) + " on " + kRankHosts[static_cast<size_t>(r)] + "\n"),
        std::string::npos)
        << out;
}

TEST(launchers_cli_test, torchrun_nodes_rendezvous_and_all_reduce_with_gloo) {
  if (!have("torchrun")) GTEST_SKIP() << "torchrun (python3-torch) is not installed";
  std::string dir = temp_dir();
  write(dir + "/job.py",
        "import json, os, torch, torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "t = torch.tensor([float(dist.get_rank() + 1)])\n"
        "dist.all_reduce(t)\n"
        "out = {'rank': dist.get_rank(), 'world': dist.get_world_size(), 'sum': t.item(),\n"
        "       'node': int(os.environ['GROUP_RANK']), 'gloo': os.environ['GLOO_SOCKET_IFNAME']}\n"
        "json.dump(out, open(os.path.join(os.path.dirname(__file__), 'rank%d.json' % "
        "dist.get_rank()), 'w'))\n"
        "dist.destroy_process_group()\n");
  // The rendezvous port is one the kernel just handed out. Another process may still take it
  // before the store binds it (other tests connect out from ephemeral ports), so a run whose
  // store found its port taken is tried again on a new one; any other failure fails at once.
  std::vector<std::string> lines;
  std::vector<int> codes;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int port = testing::free_loopback_port();
    ASSERT_GT(port, 0);
    lines = command_lines(
        emit("torchrun", {"--program", dir + "/job.py", "--port", std::to_string(port)}));
    ASSERT_EQ(lines.size(), 3u);
    std::vector<pid_t> pids;
    for (size_t i = 0; i < lines.size(); ++i) {
      // Debian 12's torch 1.13 under Python 3.11 cannot parse its own default "0" for
      // --redirects and --tee (Std.from_str returns None); "2" (stderr) parses in every version.
      std::string line = std::regex_replace(lines[i], std::regex(" torchrun "),
                                            " torchrun --redirects=2 --tee=2 ");
      pids.push_back(start_shell(line, dir, "node" + std::to_string(i)));
    }
    codes = wait_all(pids, std::chrono::seconds(90));
    bool port_taken = false;
    for (size_t i = 0; i < codes.size(); ++i)
      port_taken =
          port_taken ||
          (codes[i] != 0 &&
           read_text(dir + "/node" + std::to_string(i) + ".out").find("Address already in use") !=
               std::string::npos);
    if (!port_taken) break;
  }
  for (size_t i = 0; i < codes.size(); ++i)
    ASSERT_EQ(codes[i], 0) << lines[i] << "\n"
                           << read_text(dir + "/node" + std::to_string(i) + ".out");
  for (int r = 0; r < 3; ++r) {
    auto j = nlohmann::json::parse(read_text(dir + "/rank" + std::to_string(r) + ".json"));
    EXPECT_EQ(j["rank"], r);
    EXPECT_EQ(j["world"], 3);
    EXPECT_EQ(j["node"], r);  // one process per node: node i runs rank i
    EXPECT_EQ(j["sum"], 6.0);
    EXPECT_EQ(j["gloo"], "lo");
  }
}

TEST(launchers_cli_test, ansible_lists_every_host_with_its_variables_and_groups) {
  if (!have("ansible-inventory"))
    GTEST_SKIP() << "ansible-inventory (ansible-core) is not installed";
  std::string dir = temp_dir();
  write(dir + "/inventory.yaml", emit("ansible-inventory", {"--user", "admin"}));
  int rc = run_shell("ansible-inventory -i inventory.yaml --list 2>/dev/null", dir, "list");
  std::string out = read_text(dir + "/list.out");
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  auto hostvars = j["_meta"]["hostvars"];
  for (int r = 0; r < 3; ++r) {
    const auto& v = hostvars[kRankHosts[static_cast<size_t>(r)]];
    EXPECT_EQ(v["rank"], r);
    EXPECT_EQ(v["ansible_host"], kRankHosts[static_cast<size_t>(r)]);
    EXPECT_EQ(v["ansible_user"], "admin");
    EXPECT_EQ(v["backend"], "ethernet");
  }
  EXPECT_EQ(hostvars["node-b"]["address"], "127.0.0.2");
  EXPECT_EQ(hostvars["node-b"]["layers"], nlohmann::json::array({0, 10}));
  EXPECT_EQ(j["head"]["hosts"], nlohmann::json::array({"node-b"}));
  EXPECT_EQ(j["workers"]["hosts"], nlohmann::json::array({"node-c", "node-a"}));
  auto linux_hosts = j["linux"]["hosts"].get<std::vector<std::string>>();
  std::sort(linux_hosts.begin(), linux_hosts.end());
  EXPECT_EQ(linux_hosts, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
}

TEST(launchers_cli_test, emit_all_writes_every_applicable_file_and_the_guide) {
  std::string dir = temp_dir() + "/launch";
  auto r =
      run_meshplan({"emit", "all", "-c", kCluster, "--plan", kPlan, "-o", dir, "--user", "admin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{
                ".deepspeed_env", "LAUNCH.md", "cluster.dot", "deepspeed.hostfile", "exo.sh",
                "inventory.yaml", "llama-rpc.sh", "mlx-env.sh", "mlx-hostfile.json",
                "mlx-launch.sh", "mpich.hostfile", "nccl-env.sh", "openmpi.hostfile",
                "slurm.sbatch", "torchrun.sh", "vllm.sh"}));  // no GPUs: no engine runs on Ray
  // Each file is what `emit FORMAT` prints.
  EXPECT_EQ(read_text(dir + "/torchrun.sh"), emit("torchrun"));
  EXPECT_EQ(read_text(dir + "/slurm.sbatch"), emit("slurm"));
  EXPECT_EQ(read_text(dir + "/openmpi.hostfile"), emit("openmpi-hostfile"));
  std::string guide = read_text(dir + "/LAUNCH.md");
  // The plan's rank and mlx-lm's (its pipeline numbers from the last stage) side by side.
  EXPECT_NE(guide.find("| rank | mlx rank | host |"), std::string::npos) << guide;
  EXPECT_NE(guide.find("| 0 | 2 | node-b | `node-b` | 127.0.0.2 | [0, 10) |"), std::string::npos)
      << guide;
  EXPECT_NE(guide.find("line on node-a"), std::string::npos) << guide;  // llama-server: last rank
  EXPECT_NE(guide.find("mlx-lm 0.32.0"), std::string::npos) << guide;   // cannot take the split

  // The folder now exists: a second run refuses and leaves it as it was.
  auto again =
      run_meshplan({"emit", "all", "-c", kCluster, "--plan", kPlan, "-o", dir, "--user", "admin"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
}

TEST(launchers_cli_test, emit_list_names_every_format_and_all) {
  auto r = run_meshplan({"emit", "--list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"mlx-hostfile", "openmpi-hostfile", "mpich-hostfile", "deepspeed-hostfile",
                        "deepspeed-env", "torchrun", "nccl-env", "llama-rpc", "exo-env",
                        "mlx-launch", "vllm", "ray-cluster", "ansible-inventory", "all"})
    EXPECT_NE(r.out.find(std::string(f) + "\n"), std::string::npos) << f;
}

// Bad input exits 2 (1 for a backend the plan does not fit), names what is wrong, writes nothing.
TEST(launchers_cli_test, bad_input_names_the_problem_and_writes_nothing) {
  std::string dir = temp_dir();
  write(dir + "/stranger.json", R"({"schema": "meshplan.plan/2", "backend": "ethernet",
    "ranks": [{"rank": 0, "host": "node-a", "layers": [0, 4]},
              {"rank": 1, "host": "node-z", "layers": [4, 8]}]})");
  write(dir + "/rdma.json", R"({"schema": "meshplan.plan/2", "backend": "jaccl",
    "ranks": [{"rank": 0, "host": "node-a", "layers": [0, 4]},
              {"rank": 1, "host": "node-b", "layers": [4, 8]}]})");
  write(dir + "/tensor.json", R"({"schema": "meshplan.plan/2", "backend": "ethernet",
    "strategy": "tensor", "ranks": [{"rank": 0, "host": "node-a", "layers": [0, 8]},
              {"rank": 1, "host": "node-b", "layers": [0, 8]}]})");
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"torchrun", "--plan", dir + "/stranger.json"}, 2, "node-z"},
      {{"openmpi-hostfile", "--plan", dir + "/rdma.json"}, 1, "jaccl"},
      {{"llama-rpc"}, 2, "llama-rpc needs --plan"},
      {{"vllm"}, 2, "vllm needs --plan"},
      {{"llama-rpc", "--plan", dir + "/tensor.json"}, 1, "splits the model by layers"},
      {{"all", "--plan", dir + "/stranger.json"}, 2, "node-z"},
      {{"all"}, 2, "emit all needs --plan"},
      {{"ray-cluster", "--plan", kPlan, "--user", ""}, 2, "ssh user"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"emit"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string out = dir + "/out-" + c.args.front();
    args.insert(args.end(), {"-c", kCluster, "-o", out});
    auto r = run_meshplan(args, "", {"USER=", "LOGNAME="});
    EXPECT_EQ(r.exit_code, c.code) << c.args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args.front() << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << out;
  }
  // Nothing half-written beside the outputs either (no temporary folder left behind).
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".out-"), std::string::npos) << e.path();
}

}  // namespace
}  // namespace meshplan::launchers_cli_test
