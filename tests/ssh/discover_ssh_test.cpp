// `meshplan discover` over real SSH: OpenSSH servers on loopback, four fake Macs serving the
// tests/replays/mesh4 outputs through fake macOS commands, and this machine probed as a real
// Linux host with its own commands. The binary runs with an empty HOME and no agent, so the
// user's own ~/.ssh is never read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "tests/fake_mac.hpp"
#include "tests/ssh/sshd_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::discover_ssh_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::RunResult;
using testing::SshdFarm;
using testing::temp_dir;

const std::string kMesh4 = testing::source_path("tests/replays/mesh4");
const std::vector<std::string> kMacs = {"m3-ultra-1", "m3-ultra-2", "m3-ultra-3", "m3-ultra-4"};

SshdFarm* farm = nullptr;
std::string skip_reason;

class FarmEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    skip_reason = SshdFarm::unavailable_reason();
    if (!skip_reason.empty()) return;
    farm = new SshdFarm();
    for (const auto& mac : kMacs)
      farm->add_fake_mac(mac, kMesh4, mac);
    farm->add_real_host("linux-1");
    // Broken Macs: each the first Mac with one command changed.
    farm->add_fake_mac("no-networksetup", kMesh4, "m3-ultra-1");
    std::filesystem::remove(farm->host("no-networksetup").bin_dir + "/networksetup");
    farm->add_fake_mac("garbage", kMesh4, "m3-ultra-1");
    testing::write_fake_command(farm->host("garbage").bin_dir, "system_profiler",
                                "echo 'Thunderbolt/USB4:'\necho '  Bus 0: <garbled>'\n");
    farm->add_fake_mac("failing", kMesh4, "m3-ultra-1");
    testing::write_fake_command(farm->host("failing").bin_dir, "sysctl",
                                "echo 'sysctl: hw: permission denied' >&2\nexit 1\n");
    farm->add_fake_mac("slow", kMesh4, "m3-ultra-1");
    testing::write_fake_command(
        farm->host("slow").bin_dir, "system_profiler",
        "case \"$*\" in\n*SPThunderboltDataType*) exec sleep 8;;\n*) exec cat '" + kMesh4 +
            "/m3-ultra-1.hardware.json';;\nesac\n");
    farm->start();
  }
  void TearDown() override {
    if (farm) farm->stop();
    delete farm;
    farm = nullptr;
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new FarmEnvironment);

#define REQUIRE_SSHD()                                     \
  do {                                                     \
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason; \
    ASSERT_NE(farm, nullptr);                              \
  } while (0)

RunResult discover(std::vector<std::string> args) {
  args.insert(args.begin(), "discover");
  return testing::run_meshplan(args, "", {"HOME=" + farm->home(), "SSH_AUTH_SOCK="});
}

std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const auto& h : farm->hosts())
    names.push_back(h.name);
  return names;
}

json replay_mesh4() {
  auto r = testing::run_meshplan({"discover", "--replay", kMesh4});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

TEST(discover_ssh_test, four_fake_macs_and_this_linux_machine) {
  REQUIRE_SSHD();
  std::string out = temp_dir() + "/cluster.json";
  auto r =
      discover({"m3-ultra-[1-4]", "linux-1", "--ssh-config", farm->write_ssh_config(),
                "--known-hosts", farm->write_known_hosts(all_names(), "known_hosts"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(read_text(out));
  ASSERT_EQ(c["hosts"].size(), 5u);
  // The Macs are exactly what the replay of the same outputs gives: parsers and transport agree.
  json replay = replay_mesh4();
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(c["hosts"][i], replay["hosts"][i]) << kMacs[i];
  int cables = 0;
  for (const auto& l : c["links"]) {
    if (l.contains("a")) {
      ++cables;
      EXPECT_EQ(l["kind"], "tb5");
      EXPECT_EQ(l["rdma"], true);
    }
  }
  EXPECT_EQ(cables, 6);
  // This machine, probed with its own commands.
  const json& linux = c["hosts"][4];
  EXPECT_EQ(linux["name"], "linux-1");
  EXPECT_EQ(linux["os"]["kind"], "linux");
  EXPECT_EQ(linux["memory"].get<uint64_t>(), parse_meminfo_total(read_text("/proc/meminfo")));
  EXPECT_EQ(r.err.find('\r'), std::string::npos)
      << "no progress line when stderr is not a terminal";
  Cluster loaded = load_cluster(read_text(out), out, Catalog::builtin());
  EXPECT_EQ(loaded.hosts.size(), 5u);
}

TEST(discover_ssh_test, record_then_replay_gives_the_same_cluster_without_serials) {
  REQUIRE_SSHD();
  std::string rec = temp_dir() + "/recorded";
  auto live = discover({"--hosts", "m3-ultra-[1-4]", "--ssh-config", farm->write_ssh_config(),
                        "--known-hosts", farm->write_known_hosts(all_names(), "known_hosts"),
                        "--record", rec});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  EXPECT_TRUE(std::filesystem::exists(rec + "/m3-ultra-1.system_profiler.json"));
  EXPECT_FALSE(std::filesystem::exists(rec + "/m3-ultra-1.en1_ip.txt"))
      << "en1 has no address: no file";
  std::string hw = read_text(rec + "/m3-ultra-1.hardware.json");
  EXPECT_EQ(hw.find("H9WFQ1XJ7M"), std::string::npos) << "serial numbers are redacted";
  EXPECT_NE(hw.find("REDACTED"), std::string::npos);
  auto replayed = testing::run_meshplan({"discover", "--replay", rec});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(replayed.out, live.out);
}

TEST(discover_ssh_test, every_failure_is_classified_per_host) {
  REQUIRE_SSHD();
  testing::SilentListener silent("127.0.0.2");
  int closed = SshdFarm::free_port("127.0.0.3");
  std::string out = temp_dir() + "/cluster.json";
  std::vector<std::string> args = {"m3-ultra-1",
                                   "no-networksetup",
                                   "garbage",
                                   "failing",
                                   "slow",
                                   farm->user() + "@127.0.0.3:" + std::to_string(closed),
                                   farm->user() + "@127.0.0.2:" + std::to_string(silent.port()),
                                   "--ssh-config",
                                   farm->write_ssh_config(),
                                   "--known-hosts",
                                   farm->write_known_hosts(all_names(), "known_hosts"),
                                   "--timeout",
                                   "3",
                                   "-o",
                                   out};
  auto r = discover(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("6 of 7 hosts could not be probed"), std::string::npos) << r.err;
  for (const char* expect : {
           "no-networksetup: command missing: `networksetup -listallhardwareports`: command not "
           "found",
           "garbage: output not understood: `system_profiler SPThunderboltDataType -json`",
           "failing: command failed: `sysctl hw.memsize hw.model machdep.cpu.brand_string`: exited "
           "with status 1: "
           "sysctl: hw: permission denied",
           "slow: timed out: ",
           "while running `system_profiler SPThunderboltDataType -json`",
           "127.0.0.3 (",
           "): unreachable: cannot connect to 127.0.0.3:",
           "127.0.0.2 (",
           "): timed out: no SSH answer from 127.0.0.2:",
           "nothing written",
       }) {
    EXPECT_NE(r.err.find(expect), std::string::npos) << expect << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(r.out, "");

  args.push_back("--ignore-unreachable");
  r = discover(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("wrote the other 1 host"), std::string::npos) << r.err;
  json c = json::parse(read_text(out));
  ASSERT_EQ(c["hosts"].size(), 1u);
  EXPECT_EQ(c["hosts"][0]["name"], "m3-ultra-1");
  int unknown = 0;
  for (const auto& f : c["findings"])
    unknown += f["kind"] == "unknown-peer";
  EXPECT_EQ(unknown, 3) << "its three cables lead to hosts that were not probed";
}

TEST(discover_ssh_test, host_key_policies) {
  REQUIRE_SSHD();
  std::string config = farm->write_ssh_config();
  std::string kh = farm->write_known_hosts({}, "known_hosts_empty");
  const auto& mac = farm->host("m3-ultra-2");
  std::string entry = "[" + mac.address + "]:" + std::to_string(mac.port);

  auto r = discover({"m3-ultra-2", "--ssh-config", config, "--known-hosts", kh});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("m3-ultra-2: host key unknown: " + entry + " is not in " + kh),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ssh-ed25519 SHA256:"), std::string::npos) << "the fingerprint to check";
  EXPECT_NE(
      r.err.find("ssh-keyscan -p " + std::to_string(mac.port) + " " + mac.address + " >> " + kh),
      std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(kh), "") << "strict never writes known_hosts";

  r = discover({"m3-ultra-2", "--ssh-config", config, "--known-hosts", kh, "--host-key-policy",
                "accept-new"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string recorded = read_text(kh);
  EXPECT_NE(recorded.find(entry + " " + SshdFarm::public_key(mac.host_key)), std::string::npos)
      << recorded;
  r = discover({"m3-ultra-2", "--ssh-config", config, "--known-hosts", kh});
  EXPECT_EQ(r.exit_code, 0) << "the recorded key is now trusted under strict\n" << r.err;

  // Another key for the same host: refused, also with accept-new, and known_hosts is left alone.
  std::string wrong = farm->write_known_hosts({}, "known_hosts_changed");
  std::ofstream(wrong) << entry << " " << SshdFarm::public_key(farm->new_key("impostor")) << "\n";
  std::string before = read_text(wrong);
  for (const char* policy : {"strict", "accept-new"}) {
    r = discover({"m3-ultra-2", "--ssh-config", config, "--known-hosts", wrong, "--host-key-policy",
                  policy});
    EXPECT_EQ(r.exit_code, 3) << policy;
    EXPECT_NE(r.err.find("m3-ultra-2: host key changed: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ssh-keygen -R '" + entry + "'"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_text(wrong), before);

  // Without --known-hosts, accept-new records the key in $HOME/.ssh/known_hosts.
  std::string home_kh = farm->home() + "/.ssh/known_hosts";
  std::filesystem::remove(home_kh);
  r = discover({"m3-ultra-2", "--ssh-config", config, "--host-key-policy", "accept-new"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(home_kh));
  EXPECT_NE(read_text(home_kh).find(entry), std::string::npos);
}

TEST(discover_ssh_test, refused_key_and_explicit_targets) {
  REQUIRE_SSHD();
  const auto& mac = farm->host("m3-ultra-3");
  std::string target = farm->user() + "@" + mac.address + ":" + std::to_string(mac.port);
  std::string kh = farm->write_known_hosts(all_names(), "known_hosts");
  auto r = discover({target, "--ssh-config", "/dev/null", "--known-hosts", kh, "--identity",
                     farm->new_key("stranger")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(": authentication refused: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("for user " + farm->user()), std::string::npos) << r.err;

  // An inventory naming hosts by address; --user and --port fill in what a line leaves out.
  const auto& four = farm->host("m3-ultra-4");
  std::string inventory = temp_dir() + "/hosts.txt";
  std::ofstream(inventory) << "# lab\nstudio-3 " << target << "\nstudio-4 " << four.address << "\n";
  r = discover({"-i", inventory, "--user", farm->user(), "--port", std::to_string(four.port),
                "--ssh-config", "/dev/null", "--known-hosts", kh, "--identity",
                farm->client_key()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(r.out);
  ASSERT_EQ(c["hosts"].size(), 2u);
  EXPECT_EQ(c["hosts"][0]["name"], "studio-3");
  EXPECT_EQ(c["hosts"][0]["ssh"], target);
  EXPECT_EQ(c["hosts"][1]["name"], "studio-4");
  EXPECT_EQ(c["hosts"][1]["ssh"],
            farm->user() + "@" + four.address + ":" + std::to_string(four.port))
      << "the file records how the host was reached";
  EXPECT_EQ(c["hosts"][1]["chip"], "m3-ultra-60c");
  ASSERT_FALSE(c["links"].empty());
  EXPECT_EQ(c["links"][0]["a"]["host"], "studio-3");
  EXPECT_EQ(c["links"][0]["b"]["host"], "studio-4");
}

}  // namespace
}  // namespace meshplan::discover_ssh_test
