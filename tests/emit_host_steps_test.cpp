// `emit all` writes every host step a plan needs, in setup.sh (undone by teardown.sh) and as
// LAUNCH.md's first step, before the engine: the /30s of a direct cable between two DGX Sparks
// (whose launch files then name that cable), a Mac's GPU wired limit, and a Thunderbolt cluster's
// bridge, cables and RDMA. Through the real binary, as a user runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::emit_host_steps_test {
namespace {

using testing::read_text;
using testing::run_meshplan;

// Two DGX Sparks: a 10 GbE LAN, and a direct 200GbE RoCE cable whose ports have no address yet.
const std::string kSparks =
    read_text(testing::source_path("tests/fixtures/clusters/spark-pair-roce-cable.yaml"));

constexpr const char* kOneStudio = R"(schema: meshplan.cluster/1
hosts:
  - {name: studio, chip: m3-ultra-80c, memory: 128GiB}
)";

struct Launch {
  std::string dir;
  std::string cluster;
  std::string plan;
  nlohmann::json plan_json;
  testing::RunResult emit;
  std::string file(const std::string& name) const { return read_text(dir + "/out/" + name); }
  bool has(const std::string& name) const { return std::filesystem::exists(dir + "/out/" + name); }
};

// `plan` then `emit all` on `cluster` (a path, or YAML text written to a file first).
Launch plan_and_emit(const std::string& cluster, bool is_text,
                     const std::vector<std::string>& plan_args) {
  Launch l;
  l.dir = testing::temp_dir();
  l.cluster = cluster;
  if (is_text) {
    l.cluster = l.dir + "/cluster.yaml";
    std::ofstream(l.cluster) << cluster;
  }
  l.plan = l.dir + "/plan.json";
  std::vector<std::string> args = {"plan", "-c", l.cluster, "-o", l.plan};
  args.insert(args.end(), plan_args.begin(), plan_args.end());
  auto p = run_meshplan(args);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  l.plan_json = nlohmann::json::parse(read_text(l.plan));
  l.emit = run_meshplan({"emit", "all", "-c", l.cluster, "--plan", l.plan, "-o", l.dir + "/out"});
  EXPECT_EQ(l.emit.exit_code, 0) << l.emit.err;
  return l;
}

// The text of the block "Setup for HOST" (or Teardown) of a setup.sh-style file, without its title.
std::string block(const std::string& text, const std::string& title) {
  const size_t at = text.find(title + "\n");
  if (at == std::string::npos) return "";
  const size_t end = text.find("\n\n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The lines of `text` that are commands (not titles, rules, comments or blank).
std::vector<std::string> commands(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind("sudo ", 0) == 0) out.push_back(line);
    start = end + 1;
  }
  return out;
}

TEST(emit_host_steps_test, two_sparks_on_a_direct_cable_get_its_addresses_and_use_it) {
  const Launch l = plan_and_emit(kSparks, true, {"-m", "llama-3.3-70b-8bit"});
  ASSERT_EQ(l.plan_json["engine"], "vllm");
  ASSERT_EQ(l.plan_json["ranks"][0]["hop_to_next"]["kind"], "200gbe");  // the cable is priced

  // setup.sh: the /30 of each end, as `meshplan setup` prints them; teardown.sh takes them back.
  ASSERT_TRUE(l.has("setup.sh"));
  const std::string setup = l.file("setup.sh");
  EXPECT_NE(block(setup, "Setup for spark-1")
                .find("sudo ip addr replace 192.168.0.1/30 dev "
                      "enp1s0f0np0"),
            std::string::npos)
      << setup;
  EXPECT_NE(block(setup, "Setup for spark-2")
                .find("sudo ip addr replace 192.168.0.2/30 dev "
                      "enp1s0f0np0"),
            std::string::npos)
      << setup;
  auto printed = run_meshplan({"setup", "-c", l.cluster});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(commands(setup), commands(printed.out));
  ASSERT_TRUE(l.has("teardown.sh"));
  EXPECT_NE(l.file("teardown.sh").find("sudo ip addr del 192.168.0.2/30 dev enp1s0f0np0"),
            std::string::npos);

  // NCCL, Gloo and vLLM's rendezvous on the cable; ssh and the API on the LAN.
  const std::string nccl = l.file("nccl-env.sh");
  EXPECT_NE(nccl.find("export NCCL_SOCKET_IFNAME==enp1s0f0np0\n"), std::string::npos) << nccl;
  EXPECT_NE(nccl.find("export GLOO_SOCKET_IFNAME=enp1s0f0np0\n"), std::string::npos) << nccl;
  EXPECT_NE(nccl.find("export NCCL_IB_HCA==rocep1s0f0:1\n"), std::string::npos) << nccl;
  EXPECT_EQ(nccl.find("enP7s7"), std::string::npos) << nccl;
  const std::string vllm = l.file("vllm.sh");
  EXPECT_NE(vllm.find("VLLM_HOST_IP=192.168.0.1 NCCL_SOCKET_IFNAME==enp1s0f0np0 "
                      "GLOO_SOCKET_IFNAME=enp1s0f0np0"),
            std::string::npos)
      << vllm;
  EXPECT_NE(vllm.find("VLLM_HOST_IP=192.168.0.2 "), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("--master-addr 192.168.0.1 "), std::string::npos) << vllm;

  // LAUNCH.md: the addresses first, then the engine.
  const std::string guide = l.file("LAUNCH.md");
  const size_t host_setup = guide.find("## 1. Host setup (before any engine)");
  ASSERT_NE(host_setup, std::string::npos) << guide;
  EXPECT_LT(host_setup, guide.find("ip addr replace 192.168.0.2/30 dev enp1s0f0np0"));
  EXPECT_LT(host_setup, guide.find(". vLLM\n"));

  // Sparks have no Thunderbolt port: no file and no message advises a Thunderbolt cable.
  EXPECT_EQ(l.emit.err.find("Thunderbolt"), std::string::npos) << l.emit.err;
  for (const auto& f : std::filesystem::directory_iterator(l.dir + "/out"))
    EXPECT_EQ(read_text(f.path().string()).find("Thunderbolt"), std::string::npos) << f.path();
}

TEST(emit_host_steps_test, one_mac_with_a_long_context_raises_its_wired_limit_first) {
  const Launch l =
      plan_and_emit(kOneStudio, true, {"-m", "llama-3.3-70b-8bit", "--context", "100000"});
  const int64_t mb = l.plan_json["ranks"][0].value("wired_limit_mb", int64_t{0});
  ASSERT_GT(mb, 0) << "the plan holds more than macOS wires by default";
  const std::string line = "sudo sysctl iogpu.wired_limit_mb=" + std::to_string(mb);

  ASSERT_TRUE(l.has("setup.sh"));
  const std::string setup = l.file("setup.sh");
  EXPECT_EQ(commands(setup), std::vector<std::string>{line}) << setup;
  EXPECT_NE(block(setup, "Setup for studio").find(line), std::string::npos) << setup;
  ASSERT_TRUE(l.has("teardown.sh"));  // 0 puts back macOS's default
  EXPECT_EQ(commands(l.file("teardown.sh")),
            std::vector<std::string>{"sudo sysctl iogpu.wired_limit_mb=0"});
  // `setup --plan` prints the same limit.
  auto printed = run_meshplan({"setup", "-c", l.cluster, "--plan", l.plan});
  EXPECT_NE(printed.out.find(line), std::string::npos) << printed.out;

  const std::string guide = l.file("LAUNCH.md");
  const size_t step = guide.find("## 1. Host setup (before any engine)");
  const size_t limit = guide.find(line);
  const size_t engine = guide.find("## 2. MLX (mlx-lm)");
  ASSERT_NE(step, std::string::npos) << guide;
  ASSERT_NE(engine, std::string::npos) << guide;
  EXPECT_LT(step, limit);
  EXPECT_LT(limit, engine);
}

// Four Mac Studios on a Thunderbolt 5 mesh with RDMA: the bridge, each cable's /30 and route as
// `meshplan setup` prints them, RDMA named before the launch, and the undo.
TEST(emit_host_steps_test, a_thunderbolt_mac_cluster_keeps_its_interface_steps) {
  const std::string cluster = testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  const Launch l = plan_and_emit(cluster, false, {"-m", "llama-3.3-70b-8bit"});
  ASSERT_EQ(l.plan_json["transport"], "rdma");
  ASSERT_TRUE(l.has("setup.sh"));
  const std::string setup = l.file("setup.sh");
  auto printed = run_meshplan({"setup", "-c", l.cluster, "--plan", l.plan});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(commands(setup), commands(printed.out));
  const std::string first = block(setup, "Setup for m3-ultra-1");
  EXPECT_NE(first.find("sudo ifconfig bridge0 down\nsudo ifconfig en2 inet 192.168.0.1 netmask "
                       "255.255.255.252\nsudo route change 192.168.0.2 -interface en2\n"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("rdma_ctl enable"), std::string::npos) << first;
  const std::string teardown = l.file("teardown.sh");
  EXPECT_NE(block(teardown, "Teardown for m3-ultra-1").find("sudo ifconfig bridge0 up"),
            std::string::npos)
      << teardown;
  const std::string guide = l.file("LAUNCH.md");
  const size_t step = guide.find("## 1. Host setup (before any engine)");
  ASSERT_NE(step, std::string::npos) << guide;
  EXPECT_LT(step, guide.find("Thunderbolt Bridge (bridge0) down"));
  EXPECT_LT(guide.find("`rdma_ctl enable`"), guide.find("## 2. MLX (mlx-lm)"));
}

}  // namespace
}  // namespace meshplan::emit_host_steps_test
