// LAUNCH.md's "If start-up hangs": the ports, addresses, interfaces and HCAs it names are those of
// the files `emit all` writes for the same input.
#include "deploy/emit/launch_troubleshooting.hpp"
#include "deploy/emit/emit_all.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "deploy/layout/plan_match.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::launch_troubleshooting_test {
namespace {

// The first capture of each match of `pattern` in `text`.
std::vector<std::string> captures(const std::string& text, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two HGX nodes on InfiniBand: vLLM, Ray, torchrun, DeepSpeed, MPI, llama.cpp and MLX on nccl.
TEST(launch_troubleshooting_test, names_the_ports_interfaces_and_hcas_of_the_emitted_files) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  in->launch.user = "admin";
  const auto files = emit_all(in->input());
  const std::string& guide = files.at("LAUNCH.md");
  const size_t at = guide.find("\n## If start-up hangs\n");
  ASSERT_NE(at, std::string::npos) << guide;
  const std::string hangs = guide.substr(at);
  EXPECT_EQ(hangs, render_launch_troubleshooting(in->input(), files));
  for (const char* title :
       {"### Firewall", "### NCCL", "### MLX", "### llama.cpp RPC", "### torchrun", "### DeepSpeed",
        "### MPI", "### vLLM (`vllm.sh`)", "### Ray"})
    EXPECT_TRUE(has(hangs, title)) << title << "\n" << hangs;

  // Every master the launch files name, with its port.
  const std::string& vllm = files.at("vllm.sh");
  const auto vllm_master = captures(vllm, "--master-addr (\\S+)");
  const auto vllm_port = captures(vllm, "--master-port (\\d+)");
  ASSERT_EQ(vllm_master.size(), 2u);
  EXPECT_TRUE(
      has(hangs, "hgx-b connects to `" + vllm_master[0] + ":" + vllm_port[0] + "` on hgx-a"))
      << hangs;
  const auto torch = captures(files.at("torchrun.sh"), "--master_addr=(\\S+ --master_port=\\d+)");
  ASSERT_FALSE(torch.empty());
  EXPECT_TRUE(has(hangs, "`" + std::regex_replace(torch[0], std::regex(" --master_port="), ":") +
                             "` on hgx-a (`--master_addr`"))
      << hangs;
  const auto ray = captures(files.at("ray-cluster.yaml"), "--address=(\\d[\\d.]*:\\d+)");
  ASSERT_FALSE(ray.empty());
  EXPECT_TRUE(has(hangs, "Ray's GCS at `" + ray[0] + "`")) << hangs;
  const auto rpc = captures(files.at("llama-rpc.sh"), "--rpc (\\d\\S*)");
  ASSERT_FALSE(rpc.empty());
  EXPECT_TRUE(has(hangs, "connects to each rpc-server: `" + rpc[0] + "` (hgx-a)")) << hangs;
  const auto nccl_port = captures(files.at("mlx-env.sh"), "NCCL_PORT=(\\d+)");
  const auto nccl_host = captures(files.at("mlx-env.sh"), "NCCL_HOST_IP=(\\S+)");
  ASSERT_FALSE(nccl_port.empty());
  EXPECT_TRUE(has(hangs, "hgx-b connects to `" + nccl_host[0] + ":" + nccl_port[0] + "` on hgx-a"))
      << hangs;

  // Per host, NCCL's interface and HCAs as nccl-env.sh sets them, on the data address.
  const std::string& env = files.at("nccl-env.sh");
  const auto ifaces = captures(env, "NCCL_SOCKET_IFNAME==(\\S+)");
  const auto hcas = captures(env, "NCCL_IB_HCA==(\\S+)");
  ASSERT_EQ(ifaces.size(), 2u);
  ASSERT_EQ(hcas.size(), 2u);
  const auto data = captures(files.at("llama-rpc.sh"), "rpc-server -H (\\S+)");
  EXPECT_TRUE(has(hangs, "[0]mlx5_0:1/IB [1]mlx5_1:1/IB")) << hangs;
  EXPECT_TRUE(has(hangs, "; OOB " + ifaces[0] + ":" + data[0] + "<0>`")) << hangs;
  EXPECT_TRUE(has(hangs, "`NCCL_IB_HCA==" + hcas[1] + "`")) << hangs;
  EXPECT_TRUE(has(hangs, "[4]mlx5_5:1/IB")) << "hgx-b's fifth HCA is mlx5_5\n" << hangs;
  EXPECT_TRUE(has(hangs, "NCCL_IB_DISABLE=1")) << hangs;
  // Both networks the launch files use, by subnet and interface.
  EXPECT_TRUE(has(hangs, "10.0.0.0/24 (eno1) and 10.9.0.0/24 (ib0)")) << hangs;
  EXPECT_TRUE(has(hangs, "`sudo ufw allow from 10.9.0.0/24 proto tcp`")) << hangs;
  EXPECT_TRUE(has(hangs, "ip_local_port_range")) << hangs;
}

// Three Linux hosts on loopback addresses: sockets where a host has no HCA, a ring for MLX.
TEST(launch_troubleshooting_test, loopback_gives_sockets_without_an_hca_and_the_mlx_ring) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  const auto files = emit_all(in->input());
  const std::string& guide = files.at("LAUNCH.md");
  EXPECT_TRUE(has(guide, "## If start-up hangs")) << guide;
  EXPECT_TRUE(has(guide,
                  "node-c (`NCCL_SOCKET_IFNAME==lo`): `NCCL INFO NET/Socket : Using "
                  "[0]lo:127.0.0.3<0>`"))
      << guide;
  EXPECT_TRUE(has(guide, "`NCCL INFO NET/IB : Using [0]mlx5_1:1/IB ; OOB lo:127.0.0.2<0>`"))
      << guide;
  EXPECT_FALSE(has(guide, "### Ray")) << "Ray is not written";
  // mlx.launch's ring: each of the hostfile's ip:port entries, from the rank before.
  for (const std::string& entry : captures(files.at("mlx-env.sh"), "\"(127\\.0\\.0\\.\\d:\\d+)\""))
    EXPECT_TRUE(has(guide, "connects to `" + entry + "` on node-")) << entry << "\n" << guide;
  const auto master = captures(files.at("torchrun.sh"), "--master_addr=(\\S+)");
  EXPECT_TRUE(has(guide, "node-c, node-a connect to `" + master[0] + ":")) << guide;
}

// Macs: MLX's lines only, no NCCL and no Linux firewall.
TEST(launch_troubleshooting_test, macs_get_the_mlx_lines_only) {
  auto in =
      testing::launch_inputs(testing::kStudios, "tests/fixtures/launch/studios_tensor_plan.json");
  const auto files = emit_all(in->input());
  const std::string hangs = render_launch_troubleshooting(in->input(), files);
  EXPECT_TRUE(has(files.at("LAUNCH.md"), hangs));
  const auto coordinator = captures(files.at("mlx-env.sh"), "MLX_JACCL_COORDINATOR=(\\S+)");
  ASSERT_FALSE(coordinator.empty());
  EXPECT_TRUE(has(hangs, "m3-ultra-2, m3-ultra-3, m3-ultra-4 connect to `" + coordinator[0] +
                             "` on m3-ultra-1"))
      << hangs;
  EXPECT_TRUE(has(hangs, "macOS firewall")) << hangs;
  for (const char* linux_only : {"NCCL", "ufw", "### vLLM", "### torchrun"})
    EXPECT_FALSE(has(hangs, linux_only)) << linux_only << "\n" << hangs;
}

// One host: nothing crosses a network, so there is nothing to say.
TEST(launch_troubleshooting_test, a_launch_on_one_host_gets_no_section) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->plan->ranks.resize(1);
  in->plan->ranks[0].layers = std::make_pair(0, 32);
  CheckOptions o;
  o.backend = backend_for_plan("auto", in->plan);
  o.hosts = in->plan->hosts();
  o.fixed_order = true;
  in->report = check_cluster(*in->topology, o);
  const std::map<std::string, std::string> files = {{"vllm.sh", ""}, {"torchrun.sh", ""}};
  EXPECT_EQ(troubleshooting_sections(in->input(), files), "");
  EXPECT_EQ(troubleshooting_section(""), "");
}

}  // namespace
}  // namespace meshplan::launch_troubleshooting_test
