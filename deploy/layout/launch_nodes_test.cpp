// The layout every launcher shares: the plan's rank order (not the file's), management addresses
// and interfaces, RDMA devices on the links used, and the checks on values and plans.
#include "deploy/layout/launch_nodes.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::launch_nodes_test {
namespace {

using testing::launch_inputs;

TEST(launch_nodes_test, nodes_follow_the_plan_rank_order_with_their_addresses) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  LaunchLayout l = build_launch_layout(in->input());
  ASSERT_EQ(l.nodes.size(), 3u);
  EXPECT_EQ(l.nodes[0].host->name, "node-b");
  EXPECT_EQ(l.nodes[1].host->name, "node-c");
  EXPECT_EQ(l.nodes[2].host->name, "node-a");
  EXPECT_EQ(l.nodes[0].address, "127.0.0.2");
  EXPECT_EQ(l.nodes[0].interface, "lo");
  EXPECT_EQ(l.nodes[0].rdma_devices, std::vector<std::string>{"mlx5_1"});
  EXPECT_TRUE(l.nodes[1].rdma_devices.empty());
  EXPECT_EQ(l.backend, "ethernet");
  EXPECT_EQ(l.strategy, "pipeline");
  EXPECT_TRUE(splits_by_layers(l));
  EXPECT_EQ(layer_counts(l, "x"), (std::vector<int>{10, 6, 16}));
}

TEST(launch_nodes_test, thunderbolt_mesh_ranks_use_the_rdma_devices_of_their_cables) {
  auto in = launch_inputs(testing::kStudios);
  LaunchLayout l = build_launch_layout(in->input());
  ASSERT_EQ(l.nodes.size(), 4u);
  EXPECT_EQ(l.backend, "jaccl");
  EXPECT_EQ(l.nodes[0].address, "10.0.0.1");      // en0 on the switch, never a Thunderbolt /30
  EXPECT_EQ(l.nodes[0].rdma_devices.size(), 3u);  // one cable to each other host
  EXPECT_FALSE(l.from_plan);
  EXPECT_FALSE(splits_by_layers(l));
  EXPECT_THROW(layer_counts(l, "llama-rpc"), Error);
}

TEST(launch_nodes_test, a_plan_is_required_where_the_format_says_so) {
  auto in = launch_inputs(testing::kLoopback);
  try {
    require_plan(in->input(), "vllm", "-tp comes from the plan");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("vllm needs --plan PLAN: -tp comes from the plan"),
              std::string::npos);
  }
}

TEST(launch_nodes_test, line_breaks_in_values_are_refused) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->cluster.name = "x\ntouch PWNED";
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->cluster.name = "x";
  in->launch.program = "a.py\nrm -rf x";
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->launch.program = "";
  in->envs = {"A=1\nB"};
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->envs = {};
  EXPECT_NO_THROW(build_launch_layout(in->input()));
}

// Every writer of one launch reads one layout: built on first use, kept, and shared by copies of
// the input (which differ only in options the layout does not read).
TEST(launch_nodes_test, an_input_builds_its_layout_once_and_its_copies_share_it) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  const EmitInput input = in->input();
  const LaunchLayout& first = input.layout();
  EXPECT_EQ(&input.layout(), &first);
  EmitInput copy = input;
  copy.launch.engine = "vllm";
  EXPECT_EQ(&copy.layout(), &first);
  EXPECT_EQ(first.nodes[0].host->name, "node-b");
  const EmitInput other = in->input();
  EXPECT_NE(&other.layout(), &first);
  EXPECT_EQ(other.layout().nodes.size(), first.nodes.size());
}

// An input whose layout cannot be built fails only when a writer asks for it, every time.
TEST(launch_nodes_test, an_invalid_layout_fails_only_when_asked_for) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->cluster.name = "x\ntouch PWNED";
  const EmitInput input = in->input();
  EXPECT_THROW(input.layout(), Error);
  EXPECT_THROW(input.layout(), Error);
}

TEST(launch_nodes_test, hostfile_words_are_single_tokens) {
  EXPECT_EQ(hostfile_word("admin@mac-1.local", "ssh target", "h"), "admin@mac-1.local");
  for (std::string bad : {"", "-oProxyCommand=x", "a b", "a;b", "a#b", "a:b"})
    EXPECT_THROW(hostfile_word(bad, "ssh target", "h"), Error) << bad;
}

TEST(launch_nodes_test, shell_commands_quote_values_and_keep_assignments) {
  EXPECT_EQ(shell_command({{"A", "=en0"}, {"B", "x y"}}, {"run", "--flag=1", "a'b"}),
            "A==en0 B='x y' run --flag=1 'a'\"'\"'b'");
}

// Two DGX Sparks: a 10 GbE LAN and a direct 200GbE RoCE cable whose ports have no address yet
// (tests/fixtures/clusters/spark-pair-direct-cable.yaml has a 1 GbE LAN instead).
const std::string kSparks =
    testing::read_text(testing::source_path("tests/fixtures/clusters/spark-pair-roce-cable.yaml"));

// The plan `meshplan plan` makes for them: its all-reduce priced on the 200gbe cable.
constexpr const char* kSparkPlan = R"({"schema": "meshplan.plan/2", "strategy": "tensor",
  "backend": "ring", "transport": "network", "engine": "vllm",
  "ranks": [{"rank": 0, "host": "spark-1", "layers": [0, 80], "share": 0.5},
            {"rank": 1, "host": "spark-2", "layers": [0, 80], "share": 0.5}]})";

std::unique_ptr<testing::LaunchInputs> inputs_of(const std::string& cluster,
                                                 const std::string& plan) {
  auto in = std::make_unique<testing::LaunchInputs>();
  in->cluster = load_cluster(cluster, "cluster.yaml", Catalog::builtin());
  in->topology = std::make_unique<TopologyContext>(in->cluster, Catalog::builtin());
  in->plan = read_plan_ranks(parse_document(plan, "plan.json"));
  CheckOptions o;
  o.backend = backend_for_plan("auto", in->plan);
  o.hosts = in->plan->hosts();
  o.fixed_order = true;
  in->report = check_cluster(*in->topology, o);
  return in;
}

// Interfaces follow the plan: the data goes over the cable the plan priced, on the /30 `meshplan
// setup` gives its unaddressed ends, and the engine meets there; ssh and the table keep the LAN.
TEST(launch_nodes_test, the_data_goes_over_the_direct_cable_the_plan_priced) {
  auto in = inputs_of(kSparks, kSparkPlan);
  const EmitInput input = in->input();
  const LaunchLayout& l = input.layout();
  ASSERT_EQ(l.nodes.size(), 2u);
  EXPECT_EQ(l.transport, "network");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(l.nodes[i].data_interface, "enp1s0f0np0");
    EXPECT_EQ(l.nodes[i].interface, "enP7s7");  // the management port stays for ssh
    EXPECT_EQ(l.nodes[i].rdma_devices, std::vector<std::string>{"rocep1s0f0"});
  }
  EXPECT_EQ(l.nodes[0].data_address, "192.168.0.1");
  EXPECT_EQ(l.nodes[1].data_address, "192.168.0.2");
  EXPECT_EQ(l.nodes[0].address, "192.168.1.11");
  EXPECT_EQ(rendezvous_address(l, 0, "x"), "192.168.0.1");
  EXPECT_EQ(link_address(input, l, 0, 1, "x"), "192.168.0.1");
  EXPECT_EQ(link_address(input, l, 1, 0, "x"), "192.168.0.2");
  EXPECT_EQ(direct_cable_subnet(*in->topology, "192.168.0.2"), "192.168.0.0/30");
  EXPECT_EQ(direct_cable_subnet(*in->topology, "192.168.1.11"), "");
}

// Once the cable's ends have addresses of their own, those are used; without the cable the
// switch carries the data and the rendezvous is on it.
TEST(launch_nodes_test, addressed_cable_ends_and_the_switch_alone) {
  std::string addressed = kSparks;
  for (const char* ip : {"10.10.0.1", "10.10.0.2"}) {
    const std::string port = "speed_gbps: 200, rdma_device: rocep1s0f0}";
    addressed.replace(
        addressed.find(port), port.size(),
        fmt::format("speed_gbps: 200, rdma_device: rocep1s0f0, ipv4: {}, prefix: 30}}", ip));
  }
  auto in = inputs_of(addressed, kSparkPlan);
  const LaunchLayout l = build_launch_layout(in->input());
  EXPECT_EQ(l.nodes[1].data_address, "10.10.0.2");
  EXPECT_EQ(l.nodes[1].data_interface, "enp1s0f0np0");

  std::string lan = kSparks;
  lan.erase(lan.find("  - {a: {host: spark-1"));
  auto no_cable = inputs_of(lan, kSparkPlan);
  const LaunchLayout s = build_launch_layout(no_cable->input());
  EXPECT_EQ(s.nodes[0].data_interface, "enP7s7");
  EXPECT_EQ(rendezvous_address(s, 0, "x"), "192.168.1.11");
}

}  // namespace
}  // namespace meshplan::launch_nodes_test
