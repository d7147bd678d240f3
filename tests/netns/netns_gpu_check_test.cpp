// `check --live` for a vLLM launch on two Linux hosts (network namespaces, each with its own sshd)
// joined by a veth "switch" 10.77.0.0/24. The cluster file gives each two H100s and an HCA;
// fake `nvidia-smi` and `ibv_devinfo` first in each session's PATH print the same, or one GPU
// fewer on node-2 while a marker file exists. The plan is the real `meshplan plan --engine vllm`.
// vLLM's ports open; an iptables REJECT of the master port on node-1 is a finding naming the
// port, both hosts and the one rule; with the rule removed the check passes again.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lib/core/units.hpp"
#include "tests/fake_mac.hpp"
#include "tests/netns/netns_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::netns_gpu_check_test {
namespace {

using testing::NetnsFarm;
using testing::temp_dir;

const std::vector<std::string> kHosts = {"node-1", "node-2"};
NetnsFarm* farm = nullptr;
std::string skip_reason;
std::string fewer_marker;  // while it exists, node-2's nvidia-smi lists one GPU

std::string iptables_reason() {
  return std::system("command -v iptables >/dev/null 2>&1") == 0
             ? ""
             : "iptables is not installed (apt-get install -y iptables)";
}

class FarmEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    skip_reason = NetnsFarm::unavailable_reason();
    if (skip_reason.empty()) skip_reason = iptables_reason();
    if (!skip_reason.empty()) return;
    farm = new NetnsFarm();
    try {
      for (const auto& n : kHosts)
        farm->add_host(n);
      farm->add_cable("node-1", "eth1", "node-2", "eth1");
      farm->exec("node-1", "ip addr add 10.77.0.1/24 dev eth1");
      farm->exec("node-2", "ip addr add 10.77.0.2/24 dev eth1");
      fewer_marker = farm->dir() + "/one-gpu-fewer";
      for (const auto& n : kHosts) {
        std::string wrap = farm->dir() + "/wrap-" + n;
        std::string count =
            n == "node-2" ? fmt::format("n=2; [ -f '{}' ] && n=1\n", fewer_marker) : "n=2\n";
        testing::write_fake_command(
            wrap, "nvidia-smi",
            count +
                "i=0; while [ $i -lt $n ]; do echo 'NVIDIA H100 80GB HBM3, 81559 MiB'; "
                "i=$((i+1)); done\n");
        testing::write_fake_command(wrap, "ibv_devinfo",
                                    "printf 'hca_id:\\tmlx5_0\\n\\tphys_port_cnt:\\t1\\n"
                                    "\\t\\tport:\\t1\\n\\t\\t\\tstate:\\t\\tPORT_ACTIVE (4)\\n"
                                    "\\t\\t\\tlink_layer:\\tEthernet\\n'\n");
        farm->host(n).session_env =
            "PATH=" + wrap + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
      }
      farm->start();
    } catch (...) {
      farm->stop();
      throw;
    }
  }
  void TearDown() override {
    if (farm) farm->stop();
    delete farm;
    farm = nullptr;
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new FarmEnvironment);

testing::RunResult meshplan(std::vector<std::string> args, bool ssh = true) {
  if (ssh)
    args.insert(args.end(), {"--ssh-config", farm->write_ssh_config(), "--known-hosts",
                             farm->write_known_hosts()});
  return testing::run_meshplan(args, "", {"HOME=" + farm->home(), "SSH_AUTH_SOCK="});
}

// Two GPU nodes on one 100 GbE switch with RoCE, each reached by its ssh alias.
std::string write_cluster() {
  std::string path = temp_dir() + "/gpus.yaml";
  std::ofstream out(path);
  out << "schema: meshplan.cluster/1\nname: netns-gpus\nhosts:\n";
  for (size_t i = 0; i < kHosts.size(); ++i)
    out << fmt::format(
        "  - name: {0}\n    ssh: {0}\n    os: {{kind: linux}}\n    memory: 512GiB\n"
        "    gpus: \"2 x h100-sxm\"\n    interfaces: [{{name: eth1, kind: ethernet, ipv4: "
        "10.77.0.{1}, prefix: 24, speed_gbps: 100, rdma_device: mlx5_0}}]\n",
        kHosts[i], i + 1);
  out << "links:\n  - {topology: switch, kind: 100gbe, hosts: all, subnet: 10.77.0.0/24, "
         "rdma: true}\n";
  return path;
}

class NetnsGpuCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason;
    ASSERT_NE(farm, nullptr);
    cluster_ = write_cluster();
    plan_ = temp_dir() + "/plan.json";
    auto p = meshplan({"plan", "-c", cluster_, "-m", "llama-3.3-70b-4bit", "--engine", "vllm",
                       "--min-hosts", "2", "-o", plan_},
                      false);
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  }
  void TearDown() override {
    if (!farm || !skip_reason.empty()) return;
    std::filesystem::remove(fewer_marker);
    farm->exec_status("node-1", "iptables -D INPUT -p tcp --dport 29501 -j REJECT");
  }
  testing::RunResult check() {
    return meshplan({"check", "-c", cluster_, "--plan", plan_, "--live", "--pings", "1"});
  }
  std::string cluster_, plan_;
};

TEST_F(NetnsGpuCheckTest, vllm_ports_open_then_one_is_refused_then_open_again) {
  auto ok = check();
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("TCP (vLLM launch: master port 29501, API 8000, 1 ephemeral per pair): "
                        "3 of 3 connections opened"),
            std::string::npos)
      << ok.out << ok.err;
  EXPECT_EQ(ok.out.find("problem:"), std::string::npos) << ok.out;

  farm->exec("node-1", "iptables -I INPUT -p tcp --dport 29501 -j REJECT");
  auto refused = check();
  farm->exec("node-1", "iptables -D INPUT -p tcp --dport 29501 -j REJECT");
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.out.find("2 of 3 connections opened"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("problem: node-2: cannot open a TCP connection to node-1 at "
                             "10.77.0.1:29501 for vLLM --master-port (Connection refused)"),
            std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("fix: allow TCP between the nodes on their network: on node-1, "
                             "`iptables -I INPUT -p tcp -s 10.77.0.0/24 -j ACCEPT`"),
            std::string::npos)
      << refused.out;

  auto again = check();
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("3 of 3 connections opened"), std::string::npos) << again.out;
}

TEST_F(NetnsGpuCheckTest, a_gpu_missing_on_a_host_is_a_finding) {
  std::ofstream(fewer_marker) << "1\n";
  auto r = check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("problem: node-2: nvidia-smi lists 1 GPU (NVIDIA H100 80GB HBM3), the "
                       "cluster file 2 x h100-sxm"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("3 of 3 connections opened"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace meshplan::netns_gpu_check_test
