// Discovery of direct cables between Linux hosts, on network namespaces: three namespaces, each
// running its own sshd, reached over their management links. node-1:eth1 and node-2:eth1 are
// cabled; node-1:eth2 and node-2:eth2 are cabled but node-2 keeps its end down; node-3 has a
// veth pair to itself and nothing else. Only the first is a cable between two hosts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/core/units.hpp"
#include "tests/netns/netns_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::netns_discover_test {
namespace {

using nlohmann::json;
using testing::NetnsFarm;
using testing::read_text;
using testing::temp_dir;

NetnsFarm* farm = nullptr;
std::string skip_reason;

class FarmEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    skip_reason = NetnsFarm::unavailable_reason();
    if (!skip_reason.empty()) return;
    farm = new NetnsFarm();
    try {
      for (const char* n : {"node-1", "node-2", "node-3"})
        farm->add_host(n);
      farm->add_cable("node-1", "eth1", "node-2", "eth1");
      farm->add_cable("node-1", "eth2", "node-2", "eth2");
      farm->exec("node-2", "ip link set eth2 down");
      farm->add_cable("node-3", "eth5", "node-3", "eth6");
      farm->start();
    } catch (...) {
      farm->stop();  // nothing left behind when the farm cannot start
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

#define REQUIRE_FARM()                                     \
  do {                                                     \
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason; \
    ASSERT_NE(farm, nullptr);                              \
  } while (0)

testing::RunResult meshplan(std::vector<std::string> args) {
  return testing::run_meshplan(args, "", {"HOME=" + farm->home(), "SSH_AUTH_SOCK="});
}

const json* interface_of(const json& cluster, const std::string& host, const std::string& name) {
  for (const auto& h : cluster["hosts"]) {
    if (h["name"] != host) continue;
    for (const auto& i : h["interfaces"])
      if (i["name"] == name) return &i;
  }
  return nullptr;
}

TEST(netns_discover_test, finds_the_veth_cable_and_no_other) {
  REQUIRE_FARM();
  std::string out = temp_dir() + "/cluster.json";
  auto r = meshplan({"discover", "node-[1-3]", "--ssh-config", farm->write_ssh_config(),
                     "--known-hosts", farm->write_known_hosts(), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(read_text(out));
  ASSERT_EQ(c["hosts"].size(), 3u);

  std::vector<json> cables;
  for (const auto& l : c["links"])
    if (l.contains("a")) cables.push_back(l);
  ASSERT_EQ(cables.size(), 1u) << c["links"].dump(2);
  EXPECT_EQ(cables[0]["a"], (json{{"host", "node-1"}, {"interface", "eth1"}}));
  EXPECT_EQ(cables[0]["b"], (json{{"host", "node-2"}, {"interface", "eth1"}}));
  EXPECT_EQ(cables[0]["kind"], "10gbe");  // veth reports 10000 Mb/s
  EXPECT_FALSE(cables[0].value("rdma", false));

  // The interface facts, as the namespaces' own /sys says.
  const json* eth1 = interface_of(c, "node-1", "eth1");
  ASSERT_NE(eth1, nullptr);
  EXPECT_EQ((*eth1)["mac"], trim(farm->exec("node-1", "cat /sys/class/net/eth1/address")));
  EXPECT_EQ((*eth1)["state"], "up");
  EXPECT_EQ((*eth1)["speed_gbps"], 10);
  const json* down = interface_of(c, "node-2", "eth2");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ((*down)["state"], "down");
  EXPECT_FALSE(down->contains("speed_gbps"));
  EXPECT_NE(interface_of(c, "node-3", "eth5"), nullptr);

  // The file reads back, and its cable is what check and dot work with.
  auto dot = meshplan({"dot", "-c", out});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_NE(dot.out.find("node-1"), std::string::npos);
  EXPECT_NE(dot.out.find("eth1"), std::string::npos) << dot.out;
}

}  // namespace
}  // namespace meshplan::netns_discover_test
