// `setup --apply` and `teardown --apply` end to end on network namespaces: three hosts, each a
// namespace with its own sshd; node-1:eth1 - node-2:eth1 and node-2:eth2 - node-3:eth1 are veth
// cables without addresses. node-3's sshd puts a wrapper `ip` first in PATH that fails on
// `addr replace` while a marker file exists, to make one host fail halfway.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/core/units.hpp"
#include "tests/fake_mac.hpp"
#include "tests/netns/netns_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::netns_apply_test {
namespace {

using nlohmann::json;
using testing::NetnsFarm;
using testing::read_text;
using testing::temp_dir;

NetnsFarm* farm = nullptr;
std::string skip_reason;
std::string fail_marker;  // while it exists, node-3's `ip addr replace` fails

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
      farm->add_cable("node-2", "eth2", "node-3", "eth1");
      farm->route_management();  // the ethernet backend's ring runs over these addresses
      std::string real_ip = trim(farm->exec("node-3", "command -v ip"));
      std::string wrap = farm->dir() + "/wrap";
      fail_marker = farm->dir() + "/ip-fails";
      testing::write_fake_command(
          wrap, "ip",
          "case \"$*\" in *'addr replace'*) if [ -f '" + fail_marker +
              "' ]; then echo 'RTNETLINK answers: Operation not permitted' >&2; exit 2; fi;; "
              "esac\nexec " +
              real_ip + " \"$@\"\n");
      farm->host("node-3").session_env =
          "PATH=" + wrap + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
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

#define REQUIRE_FARM()                                     \
  do {                                                     \
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason; \
    ASSERT_NE(farm, nullptr);                              \
  } while (0)

testing::RunResult meshplan(std::vector<std::string> args) {
  args.insert(args.end(), {"--ssh-config", farm->write_ssh_config(), "--known-hosts",
                           farm->write_known_hosts()});
  return testing::run_meshplan(args, "", {"HOME=" + farm->home(), "SSH_AUTH_SOCK="});
}

// Every interface of every host: name, UP or not, IPv4 addresses.
std::string network_state() {
  std::string out;
  for (const auto& h : farm->hosts()) {
    for (const auto& i : json::parse(farm->exec(h.name, "ip -j addr show"))) {
      bool up = false;
      for (const auto& f : i["flags"])
        up = up || f == "UP";
      out += h.name + " " + i["ifname"].get<std::string>() + (up ? " up" : " down");
      for (const auto& a : i.value("addr_info", json::array()))
        if (a["family"] == "inet") {
          out += ' ';
          out += a["local"].get<std::string>();
          out += '/';
          out += std::to_string(a["prefixlen"].get<int>());
        }
      out += "\n";
    }
  }
  return out;
}

// The /30 address on a host's interface, "" when none.
std::string address_on(const std::string& host, const std::string& iface) {
  json j = json::parse(farm->exec(host, "ip -j addr show dev " + iface));
  for (const auto& a : j[0].value("addr_info", json::array()))
    if (a["family"] == "inet" && a["prefixlen"] == 30) return a["local"];
  return "";
}

class NetnsApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_FARM();
    std::filesystem::remove(fail_marker);
    static std::string discovered;
    if (discovered.empty()) {
      discovered = temp_dir() + "/cluster.json";
      auto r = meshplan({"discover", "node-[1-3]", "-o", discovered});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      // The namespaces are CPUs without a catalog chip: their figures are given, as plan's error
      // for such a host asks.
      json c = json::parse(read_text(discovered));
      for (auto& h : c["hosts"]) {
        ASSERT_FALSE(h.contains("chip")) << h.dump();
        h["mem_bandwidth"] = "50GB/s";
        h["flops"] = "1T";
      }
      std::ofstream(discovered) << c.dump(2);
    }
    cluster_ = discovered;
    original_ = network_state();
  }
  void TearDown() override {
    if (!farm) return;
    std::filesystem::remove(fail_marker);
    meshplan({"teardown", "-c", cluster_, "--apply"});
  }
  std::string cluster_, original_;
};

TEST_F(NetnsApplyTest, apply_configures_every_cable_once_and_teardown_restores_the_hosts) {
  std::string undo = temp_dir() + "/undo.sh";
  auto r = meshplan({"setup", "-c", cluster_, "--apply", "--undo", undo});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("node-1: changed: 192.168.0."), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("wrote the undo script " + undo), std::string::npos) << r.err;
  EXPECT_NE(read_text(undo).find("ip addr del 192.168.0."), std::string::npos);

  // Every cable: both ends have their /30, and each end answers a ping from the other.
  for (auto [a, ia, b, ib] : std::vector<std::array<std::string, 4>>{
           {"node-1", "eth1", "node-2", "eth1"}, {"node-2", "eth2", "node-3", "eth1"}}) {
    std::string pa = address_on(a, ia), pb = address_on(b, ib);
    ASSERT_FALSE(pa.empty() || pb.empty()) << network_state();
    EXPECT_EQ(farm->exec_status(a, "ping -c 1 -W 2 " + pb + " >/dev/null"), 0) << a << " -> " << pb;
    EXPECT_EQ(farm->exec_status(b, "ping -c 1 -W 2 " + pa + " >/dev/null"), 0) << b << " -> " << pa;
  }
  std::string configured = network_state();
  std::string undo_text = read_text(undo);

  auto again = meshplan({"setup", "-c", cluster_, "--apply", "--undo", undo});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("no change: every host is as setup leaves it"), std::string::npos)
      << again.err;
  EXPECT_NE(again.out.find("node-3: already as planned"), std::string::npos) << again.out;
  EXPECT_EQ(network_state(), configured);
  EXPECT_EQ(read_text(undo), undo_text) << "a run that changes nothing keeps the undo script";

  auto down = meshplan({"teardown", "-c", cluster_, "--apply"});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(network_state(), original_);
  auto down_again = meshplan({"teardown", "-c", cluster_, "--apply"});
  EXPECT_EQ(down_again.exit_code, 0);
  EXPECT_NE(down_again.err.find("no change"), std::string::npos) << down_again.err;
}

TEST_F(NetnsApplyTest, plan_plans_the_discovered_hosts) {
  auto r = testing::run_meshplan({"plan", "-c", cluster_, "-m", "llama-3.2-3b-bf16", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  std::set<std::string> hosts;
  for (const auto& rank : plan["ranks"])
    hosts.insert(rank["host"].get<std::string>());
  EXPECT_FALSE(hosts.empty()) << r.out;
  for (const auto& h : hosts)
    EXPECT_TRUE(h == "node-1" || h == "node-2" || h == "node-3") << h;
  EXPECT_GT(plan["predicted"]["decode_tokens_per_s"].get<double>(), 0) << r.out;
}

TEST_F(NetnsApplyTest, dry_run_prints_what_would_run_and_changes_nothing) {
  auto r = meshplan({"setup", "-c", cluster_, "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# node-2\nip addr replace 192.168.0."), std::string::npos) << r.out;
  EXPECT_EQ(network_state(), original_);
}

TEST_F(NetnsApplyTest, a_host_whose_ip_fails_halfway_makes_the_others_roll_back) {
  std::ofstream(fail_marker) << "";
  std::string undo = temp_dir() + "/undo.sh";
  auto r = meshplan({"setup", "-c", cluster_, "--apply", "--undo", undo});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("the hosts changed are put back"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("node-3: command failed: `ip addr replace 192.168.0."), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("RTNETLINK answers: Operation not permitted"), std::string::npos);
  EXPECT_NE(r.err.find("node-1: changed, then put back because another host failed"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(network_state(), original_);

  // --keep-partial: node-1 and node-2 keep their addresses; the report says what stays.
  auto k = meshplan({"setup", "-c", cluster_, "--apply", "--undo", undo, "--keep-partial"});
  EXPECT_EQ(k.exit_code, 3);
  EXPECT_NE(k.err.find("STILL CHANGED"), std::string::npos) << k.err;
  EXPECT_FALSE(address_on("node-1", "eth1").empty());
  EXPECT_TRUE(address_on("node-3", "eth1").empty());
}

TEST_F(NetnsApplyTest, live_check_passes_when_configured_names_a_cable_taken_down_and_measures) {
  auto before = meshplan({"check", "-c", cluster_, "--live", "--pings", "2"});
  EXPECT_EQ(before.exit_code, 1) << "nothing is configured yet";
  EXPECT_NE(before.out.find("problem: node-1: cable node-1:eth1 - node-2:eth1: eth1 does not have "
                            "its planned address 192.168.0.1"),
            std::string::npos)
      << before.out;
  EXPECT_NE(before.out.find("fix: meshplan setup -c " + cluster_ + " --apply"), std::string::npos);

  ASSERT_EQ(
      meshplan({"setup", "-c", cluster_, "--apply", "--undo", temp_dir() + "/u.sh"}).exit_code, 0);
  std::string measured = temp_dir() + "/measured.json";
  const bool have_iperf = farm->exec_status("node-1", "command -v iperf3 >/dev/null") == 0;
  auto ok = meshplan(
      {"check", "-c", cluster_, "--live", "--measure", "-o", measured, "--iperf-seconds", "1"});
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("Live check: 3 hosts, 4 cable ends, 4 answered"), std::string::npos)
      << ok.out;
  EXPECT_EQ(ok.out.find("problem:"), std::string::npos) << ok.out;
  // Every veth cable carries its measured latency and the date.
  json m = json::parse(read_text(measured));
  int cables = 0;
  for (const auto& l : m["links"]) {
    if (!l.contains("a")) continue;
    ++cables;
    ASSERT_TRUE(l.contains("latency_us")) << l.dump();
    EXPECT_GT(l["latency_us"].get<double>(), 0);
    EXPECT_LT(l["latency_us"].get<double>(), 100000);
    EXPECT_EQ(l["measured"].get<std::string>().size(), 10u) << l.dump();
    // iperf3 (where both ends have it) gives the bandwidth; a veth carries well over 1 Gb/s.
    if (have_iperf)
      EXPECT_GT(l.value("bandwidth_gbps", 0.0), 1.0) << l.dump() << ok.err;
    else
      EXPECT_NE(ok.err.find("not measured: iperf3 is not on"), std::string::npos) << ok.err;
  }
  EXPECT_EQ(cables, 2);
  if (have_iperf) {
    EXPECT_NE(ok.out.find(" Gb/s (iperf3)"), std::string::npos) << ok.out;
  }
  // The ethernet backend's ring: each rank listens on its address from port 32323 on, and the
  // rank before it connects.
  EXPECT_NE(ok.out.find("TCP (ethernet launch, from port 32323): 3 of 3 connections opened"),
            std::string::npos)
      << ok.out;
  // A plan on the measured cluster uses the measured figures and says so.
  auto planned = testing::run_meshplan({"plan", "-c", measured, "-m", "llama-3.2-3b-bf16"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_NE((planned.out + planned.err).find("measured link figures used instead of the catalog's"),
            std::string::npos)
      << planned.out << planned.err;

  // A policy rule on node-1 refuses TCP to port 32324 (node-2's ring port) while pings pass: the
  // connection is named, with the host that cannot open it.
  farm->exec("node-1", "ip rule add ipproto tcp dport 32324 prohibit");
  auto denied = meshplan({"check", "-c", cluster_, "--live", "--pings", "2"});
  farm->exec("node-1", "ip rule del ipproto tcp dport 32324 prohibit");
  EXPECT_EQ(denied.exit_code, 1) << denied.out << denied.err;
  const std::string node2 = farm->host("node-2").address;
  EXPECT_NE(denied.out.find("problem: node-1: cannot open a TCP connection to node-2 at " + node2 +
                            ":32324 (Permission denied)"),
            std::string::npos)
      << denied.out;
  EXPECT_NE(denied.out.find("2 of 3 connections opened"), std::string::npos) << denied.out;
  EXPECT_NE(denied.out.find("Live check: 3 hosts, 4 cable ends, 4 answered"), std::string::npos);

  // A process that holds node-3's ring port (a rank of an earlier launch) is named.
  const std::string node3 = farm->host("node-3").address;
  std::string pid = trim(
      farm->exec("node-3",
                 "python3 -c 'import socket,time;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,"
                 "socket.SO_REUSEADDR,1);s.bind((\"" +
                     node3 + "\",32325));s.listen(1);time.sleep(60)' >/dev/null 2>&1 & echo $!"));
  for (int i = 0; i < 50 && farm->exec_status("node-3", "ss -ltn | grep -q :32325") != 0; ++i)
    usleep(50000);
  EXPECT_EQ(farm->exec_status("node-3", "ss -ltn | grep -q :32325"), 0) << "the holder is not up";
  auto busy = meshplan({"check", "-c", cluster_, "--live", "--pings", "2"});
  farm->exec("node-3", "kill " + pid);
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.out.find("problem: node-3: cannot listen on " + node3 +
                          ":32325 (Address already in use)"),
            std::string::npos)
      << busy.out;

  // A cable taken down is named, from both of its ends.
  farm->exec("node-3", "ip link set eth1 down");
  auto down = meshplan({"check", "-c", cluster_, "--live", "--pings", "2"});
  farm->exec("node-3", "ip link set eth1 up");
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_NE(down.out.find("problem: node-3: cable node-3:eth1 - node-2:eth2: eth1 is down"),
            std::string::npos)
      << down.out;
  EXPECT_NE(down.out.find("problem: node-2: cable node-2:eth2 - node-3:eth1: no reply from node-3 "
                          "at 192.168.0.6 over eth2"),
            std::string::npos)
      << down.out;
  EXPECT_EQ(down.out.find("cable node-1:eth1"), std::string::npos) << "the working cable is fine";
  EXPECT_NE(down.out.find("node-1:eth1 - node-2:eth1: 192.168.0.1 -> 192.168.0.2: round trip "),
            std::string::npos)
      << down.out;
}

TEST_F(NetnsApplyTest, an_unreachable_host_stops_the_run_before_any_change) {
  std::string cluster = temp_dir() + "/bad.json";
  json c = json::parse(read_text(cluster_));
  for (auto& h : c["hosts"])
    if (h["name"] == "node-2") h["ssh"] = "root@127.0.0.1:1";
  std::ofstream(cluster) << c.dump(2);
  auto r = meshplan({"setup", "-c", cluster, "--apply", "--timeout", "3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("nothing was changed on any host"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("node-2 (root@127.0.0.1:1): unreachable"), std::string::npos) << r.err;
  EXPECT_EQ(network_state(), original_);
}

}  // namespace
}  // namespace meshplan::netns_apply_test
