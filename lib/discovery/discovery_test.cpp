#include "lib/discovery/discovery.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "lib/cluster/cluster_writer.hpp"
#include "lib/probes/probe_script.hpp"
#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::discovery_test {
namespace {

using testing::read_text;
using testing::source_path;
using testing::temp_dir;

const std::string kMesh4 = source_path("tests/replays/mesh4");

std::vector<HostTarget> mesh4_targets() {
  std::vector<HostTarget> t;
  for (int i = 1; i <= 4; ++i)
    t.push_back(parse_target("m3-ultra-" + std::to_string(i), "test"));
  return t;
}

TEST(discovery_test, probe_script_over_fake_macs_equals_the_replay) {
  std::string bins = temp_dir();
  for (const auto& t : mesh4_targets())
    testing::write_fake_mac_commands(kMesh4, t.name, bins + "/" + t.name);
  testing::LocalShellExecutor exec(bins);
  RemoteProbeSource live(exec);
  DiscoveryResult a = discover(mesh4_targets(), live, Catalog::builtin(), {});
  ASSERT_TRUE(a.failures.empty()) << a.failures[0].message;

  RealFileSystem fs;
  ReplayProbeSource replay(fs, kMesh4);
  DiscoveryResult b = discover(mesh4_targets(), replay, Catalog::builtin(), {});
  ASSERT_TRUE(b.failures.empty());
  EXPECT_EQ(write_cluster_json(a.cluster), write_cluster_json(b.cluster));
  EXPECT_EQ(a.cluster.cables.size(), 6u);
  ASSERT_EQ(a.raw.size(), 4u);
  EXPECT_EQ(a.raw[0].first, "m3-ultra-1");
  EXPECT_EQ(a.raw[0].second.find("ipconfig"), nullptr);
  EXPECT_EQ(a.raw[0].second.find("en1_ip")->status, ProbeStatus::kFailed);
}

// Canned answers per host, with a concurrency gauge.
class CannedExecutor : public RemoteExecutor {
 public:
  std::map<std::string, ExecResult> answers;
  std::atomic<int> running{0}, peak{0};
  int delay_ms = 100;
  ExecResult run(const HostTarget& target, const std::string& command,
                 const std::string&) override {
    EXPECT_EQ(command, kProbeShell);
    int now = ++running;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    --running;
    auto it = answers.find(target.name);
    return it == answers.end()
               ? ExecResult{HostFailureKind::kUnreachable, "no such host", "", "", -1}
               : it->second;
  }
};

TEST(discovery_test, failures_are_classified_in_host_order_and_never_stop_the_others) {
  CannedExecutor exec;
  std::string ok_out =
      "\n@@meshplan uname\nLinux\n\n@@meshplan-exit 0\n\n@@meshplan meminfo\nMemTotal: 1024 "
      "kB\n\n@@meshplan-exit 0\n"
      "\n@@meshplan-end\n";
  exec.answers["ok"] = ExecResult{HostFailureKind::kNone, "", ok_out, "", 0};
  exec.answers["slow"] = ExecResult{
      HostFailureKind::kTimedOut, "the command printed nothing for 2 s",
      "\n@@meshplan uname\nDarwin\n\n@@meshplan-exit 0\n\n@@meshplan system_profiler\n", "", -1};
  exec.answers["fish"] = ExecResult{HostFailureKind::kNone, "", "fish: unknown command\n", "", 127};
  exec.answers["cut"] = ExecResult{HostFailureKind::kNone, "",
                                   ok_out.substr(0, ok_out.find("\n@@meshplan-end")), "", 0};
  RemoteProbeSource source(exec);
  std::vector<HostTarget> targets;
  for (const char* h : {"slow", "ok", "gone", "fish", "cut"})
    targets.push_back(parse_target(h, "test"));
  int calls = 0;
  DiscoveryOptions options;
  options.jobs = 2;
  options.progress = [&](const DiscoveryProgress& p) {
    ++calls;
    EXPECT_EQ(p.total, 5u);
    EXPECT_EQ(p.done, static_cast<size_t>(calls));
  };
  DiscoveryResult r = discover(targets, source, Catalog::builtin(), options);
  EXPECT_EQ(calls, 5);
  EXPECT_LE(exec.peak.load(), 2) << "--jobs limits the hosts probed at once";
  EXPECT_EQ(exec.peak.load(), 2);
  ASSERT_EQ(r.cluster.hosts.size(), 1u);
  EXPECT_EQ(r.cluster.hosts[0].name, "ok");
  EXPECT_EQ(r.cluster.hosts[0].memory, 1024u * 1024);
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].host, "slow");
  EXPECT_EQ(r.failures[0].kind, HostFailureKind::kTimedOut);
  EXPECT_NE(
      r.failures[0].message.find("while running `system_profiler SPThunderboltDataType -json`"),
      std::string::npos)
      << r.failures[0].message;
  EXPECT_EQ(r.failures[1].host, "gone");
  EXPECT_EQ(r.failures[1].kind, HostFailureKind::kUnreachable);
  EXPECT_EQ(r.failures[2].kind, HostFailureKind::kOutputNotUnderstood);
  EXPECT_EQ(r.failures[3].kind, HostFailureKind::kOutputNotUnderstood);
  EXPECT_NE(r.failures[3].message.find("cut off"), std::string::npos) << r.failures[3].message;
}

TEST(discovery_test, default_jobs_probe_sixteen_hosts_at_once) {
  CannedExecutor exec;
  exec.delay_ms = 500;
  RemoteProbeSource source(exec);
  std::vector<HostTarget> targets;
  for (const auto& h : expand_host_list("mac[1-17]"))
    targets.push_back(parse_target(h, "test"));
  DiscoveryResult r = discover(targets, source, Catalog::builtin(), {});
  EXPECT_EQ(r.failures.size(), 17u);
  EXPECT_EQ(exec.peak.load(), 16) << "the default --jobs is 16";
}

}  // namespace
}  // namespace meshplan::discovery_test
