// setup/teardown --apply over two fake Macs whose ifconfig, route and netstat keep state in
// files (tests/fake_mac): the whole apply path but the SSH transport.
#include "deploy/configure/apply_runner.hpp"

#include "deploy/configure/undo_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

#include "lib/core/error.hpp"
#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::apply_runner_test {
namespace {

using testing::read_text;
using testing::temp_dir;

// The local shell, with one fault on one host: the first command whose input holds `cut_at` runs
// (or not) and then its answer is lost, as when the session is cut; the host then refuses the
// next `down_calls` connections.
class CuttingExecutor : public RemoteExecutor {
 public:
  CuttingExecutor(RemoteExecutor& inner, std::string host, std::string cut_at, bool runs,
                  int down_calls)
      : inner_(inner), host_(host), cut_at_(cut_at), runs_(runs), down_(down_calls) {}
  ExecResult run(const HostTarget& t, const std::string& command,
                 const std::string& input) override {
    if (t.name == host_) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cut_ && down_ > 0) {
        --down_;
        ExecResult r;
        r.failure = HostFailureKind::kUnreachable;
        r.message = "cannot connect: No route to host";
        return r;
      }
      if (!cut_ && input.find(cut_at_) != std::string::npos) {
        cut_ = true;
        ExecResult r;
        if (runs_) r = inner_.run(t, command, input);
        r.failure = HostFailureKind::kTimedOut;
        r.message = "the command printed nothing for 5 s";
        r.command_sent = true;
        return r;
      }
    }
    return inner_.run(t, command, input);
  }

 private:
  RemoteExecutor& inner_;
  std::string host_, cut_at_;
  bool runs_;
  int down_;
  bool cut_ = false;
  std::mutex mutex_;
};

class ApplyRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* h : {"mac-1", "mac-2"})
      testing::write_stateful_mac(root_ + "/" + h + "/bin", state(h),
                                  {"en0 1 10.0.0.5/255.255.255.0", "en2 1", "bridge0 1"});
    hosts_ = {mac("mac-1", "192.168.0.1", "192.168.0.2"),
              mac("mac-2", "192.168.0.2", "192.168.0.1")};
    targets_ = {parse_target("mac-1", "test"), parse_target("mac-2", "test")};
  }
  static HostSetup mac(const std::string& name, const std::string& a, const std::string& b) {
    HostSetup h;
    h.host = name;
    h.links = {{"en2", a, b}};
    return h;
  }
  std::string state(const std::string& host) const { return root_ + "/" + host + "/state"; }
  std::string log(const std::string& host) const {
    std::ifstream f(state(host) + "/log");
    return f ? read_text(state(host) + "/log") : "";
  }
  // What an observer sees: ifconfig and the routing table.
  std::string network(const std::string& host) {
    HostTarget t = parse_target(host, "test");
    return exec_.run(t, "sh -c 'ifconfig -a; netstat -rn -f inet'", "").out;
  }
  ApplyReport apply(ApplyMode mode, bool keep_partial = false, RemoteExecutor* ex = nullptr) {
    ApplyOptions o;
    o.settle_pause = std::chrono::milliseconds(1);
    o.mode = mode;
    o.keep_partial = keep_partial;
    o.before_changes = [this](const std::vector<HostApply>& planned) {
      undo_ = undo_script(planned, SshOptions{}, "test");
      logs_at_undo_ = log("mac-1") + log("mac-2");
    };
    return run_apply(hosts_, targets_, ex ? *ex : exec_, o);
  }

  std::string root_ = temp_dir();
  std::vector<HostSetup> hosts_;
  std::vector<HostTarget> targets_;
  // sshd's view: the host's fake tools first in PATH, the session arriving on en0's address.
  testing::LocalShellExecutor exec_{root_, "/bin", "SSH_CONNECTION='10.0.0.9 50000 10.0.0.5 22'"};
  std::string undo_, logs_at_undo_ = "unset";
};

TEST_F(ApplyRunnerTest, setup_runs_mlx_commands_once_and_a_second_run_changes_nothing) {
  ApplyReport r = apply(ApplyMode::kSetup);
  ASSERT_TRUE(r.ok()) << r.hosts[0].message << r.hosts[1].message;
  EXPECT_TRUE(r.changed());
  EXPECT_EQ(logs_at_undo_, "") << "the undo script comes before the first change";
  EXPECT_EQ(log("mac-1"),
            "ifconfig bridge0 down\nifconfig en2 inet 192.168.0.1 netmask 255.255.255.252\n"
            "route change 192.168.0.2 -interface en2\n");
  EXPECT_NE(network("mac-2").find("inet 192.168.0.2 netmask 255.255.255.252"), std::string::npos);

  std::string before = log("mac-1") + log("mac-2");
  logs_at_undo_ = "unset";
  ApplyReport again = apply(ApplyMode::kSetup);
  EXPECT_TRUE(again.ok());
  EXPECT_FALSE(again.changed());
  EXPECT_TRUE(again.hosts[0].steps.empty() && again.hosts[1].steps.empty());
  EXPECT_EQ(log("mac-1") + log("mac-2"), before);
  EXPECT_EQ(logs_at_undo_, "unset") << "no undo script is written when nothing changes";
}

TEST_F(ApplyRunnerTest, teardown_undoes_in_reverse_and_restores_the_network) {
  std::string original = network("mac-1");
  ASSERT_TRUE(apply(ApplyMode::kSetup).ok());
  ApplyReport t = apply(ApplyMode::kTeardown);
  ASSERT_TRUE(t.ok()) << t.hosts[0].message;
  EXPECT_EQ(log("mac-1"),
            "ifconfig bridge0 down\nifconfig en2 inet 192.168.0.1 netmask 255.255.255.252\n"
            "route change 192.168.0.2 -interface en2\n"
            "route delete 192.168.0.2 -interface en2\nifconfig en2 inet 192.168.0.1 delete\n"
            "ifconfig bridge0 up\n");
  EXPECT_EQ(network("mac-1"), original);
  EXPECT_FALSE(apply(ApplyMode::kTeardown).changed());
}

TEST_F(ApplyRunnerTest, a_failing_host_is_put_back_and_so_are_the_others) {
  std::string original1 = network("mac-1"), original2 = network("mac-2");
  std::ofstream(state("mac-2") + "/fail") << "route change 192.168.0.1 -interface en2\n";
  ApplyReport r = apply(ApplyMode::kSetup);
  ASSERT_FALSE(r.ok());
  const HostApply& bad = r.hosts[1];
  EXPECT_EQ(bad.failure, HostFailureKind::kCommandFailed);
  EXPECT_NE(bad.message.find("`sudo -n route change 192.168.0.1 -interface en2` exited with 1"),
            std::string::npos)
      << bad.message;
  EXPECT_EQ(bad.done, 2u);
  EXPECT_EQ(bad.undone, 2u);
  EXPECT_EQ(r.hosts[0].done, 3u);
  EXPECT_EQ(r.hosts[0].undone, 3u);
  EXPECT_FALSE(r.changed());
  EXPECT_EQ(network("mac-1"), original1);
  EXPECT_EQ(network("mac-2"), original2);
  // Undone last first.
  EXPECT_NE(log("mac-1").find("route delete 192.168.0.2 -interface en2\n"
                              "ifconfig en2 inet 192.168.0.1 delete\nifconfig bridge0 up\n"),
            std::string::npos)
      << log("mac-1");
}

TEST_F(ApplyRunnerTest, keep_partial_leaves_the_other_hosts_configured) {
  std::ofstream(state("mac-2") + "/fail") << "ifconfig bridge0 down\n";
  ApplyReport r = apply(ApplyMode::kSetup, /*keep_partial=*/true);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.hosts[0].done, 3u);
  EXPECT_EQ(r.hosts[0].undone, 0u);
  EXPECT_EQ(r.hosts[1].done, 0u);
  EXPECT_TRUE(r.changed());
  EXPECT_NE(network("mac-1").find("192.168.0.1"), std::string::npos);
}

TEST_F(ApplyRunnerTest, a_sudo_password_stops_everything_before_any_change) {
  std::ofstream(state("mac-2") + "/sudo_password") << "";
  ApplyReport r = apply(ApplyMode::kSetup);
  EXPECT_TRUE(r.read_failed);
  EXPECT_EQ(r.hosts[1].failure, HostFailureKind::kAuthRefused);
  EXPECT_EQ(r.hosts[1].sudoers_line, "admin ALL=(root) NOPASSWD: /sbin/ifconfig, /sbin/route");
  EXPECT_EQ(log("mac-1") + log("mac-2"), "");
  EXPECT_EQ(logs_at_undo_, "unset");
}

TEST_F(ApplyRunnerTest, the_undo_script_puts_back_exactly_what_setup_changed) {
  std::string original1 = network("mac-1"), original2 = network("mac-2");
  ASSERT_TRUE(apply(ApplyMode::kSetup).ok());
  // `ssh DEST /bin/sh -s` becomes the host's shell with its fake tools.
  std::string bin = temp_dir();
  testing::write_fake_command(
      bin, "ssh",
      "while [ $# -gt 0 ]; do case \"$1\" in -F|-p|-i|-o) shift 2;; -*) shift;; *) break;; esac; "
      "done\n"
      "h=$1; shift\nexec env -i PATH='" +
          root_ + "'/$h/bin:/usr/bin:/bin \"$@\"\n");
  std::ofstream(bin + "/undo.sh") << undo_;
  ASSERT_EQ(std::system(("PATH=" + bin + ":/usr/bin:/bin sh " + bin + "/undo.sh").c_str()), 0);
  EXPECT_EQ(network("mac-1"), original1);
  EXPECT_EQ(network("mac-2"), original2);
}

TEST_F(ApplyRunnerTest, a_step_cut_off_after_it_ran_is_read_back_as_done_and_put_back) {
  std::string original1 = network("mac-1"), original2 = network("mac-2");
  CuttingExecutor cut(exec_, "mac-2", "route change 192.168.0.1", /*runs=*/true, 1);
  ApplyReport r = apply(ApplyMode::kSetup, false, &cut);
  ASSERT_FALSE(r.ok());
  const HostApply& bad = r.hosts[1];
  EXPECT_EQ(bad.failure, HostFailureKind::kTimedOut);
  EXPECT_FALSE(bad.unknown());
  EXPECT_EQ(bad.settled, "read back: `route to 192.168.0.1 through en2` had taken effect");
  EXPECT_EQ(bad.done, 3u) << "the step that was cut off counts as done";
  EXPECT_EQ(bad.undone, 3u);
  EXPECT_EQ(r.outcome(bad), HostOutcome::kPutBack);
  EXPECT_EQ(r.outcome(r.hosts[0]), HostOutcome::kPutBack);
  EXPECT_FALSE(r.unsettled(false));
  EXPECT_EQ(network("mac-1"), original1);
  EXPECT_EQ(network("mac-2"), original2);
}

TEST_F(ApplyRunnerTest, a_step_cut_off_before_it_ran_is_read_back_as_not_done) {
  std::string original2 = network("mac-2");
  CuttingExecutor cut(exec_, "mac-2", "route change 192.168.0.1", /*runs=*/false, 0);
  ApplyReport r = apply(ApplyMode::kSetup, false, &cut);
  const HostApply& bad = r.hosts[1];
  EXPECT_EQ(bad.settled, "read back: `route to 192.168.0.1 through en2` had not taken effect");
  EXPECT_EQ(bad.done, 2u);
  EXPECT_EQ(bad.undone, 2u);
  EXPECT_EQ(r.outcome(bad), HostOutcome::kPutBack);
  EXPECT_EQ(network("mac-2"), original2);
  EXPECT_EQ(log("mac-2").find("route delete"), std::string::npos)
      << "a step that did not run is not undone: " << log("mac-2");
}

TEST_F(ApplyRunnerTest, a_host_that_stays_away_is_unknown_with_its_undo_lines) {
  std::string original1 = network("mac-1"), original2 = network("mac-2");
  CuttingExecutor cut(exec_, "mac-2", "route change 192.168.0.1", /*runs=*/true, 1000);
  ApplyReport r = apply(ApplyMode::kSetup, false, &cut);
  const HostApply& bad = r.hosts[1];
  EXPECT_TRUE(bad.step_unknown);
  EXPECT_EQ(r.outcome(bad), HostOutcome::kUnknown);
  EXPECT_TRUE(r.unsettled(false));
  EXPECT_EQ(r.outcome(r.hosts[0]), HostOutcome::kPutBack);
  EXPECT_EQ(network("mac-1"), original1);
  // Everything that may be in effect, last first: the cut step's undo included.
  EXPECT_EQ(bad.pending_undo(),
            (std::vector<std::string>{"sudo -n route delete 192.168.0.1 -interface en2",
                                      "sudo -n ifconfig en2 inet 192.168.0.2 delete",
                                      "sudo -n ifconfig bridge0 up"}));
  // Those lines, run on the host, put it back.
  std::string script;
  for (const auto& l : bad.pending_undo())
    script += l + "\n";
  EXPECT_NE(network("mac-2"), original2) << "the cut step had run";
  ASSERT_EQ(exec_.run(bad.target, "/bin/sh -s", script).exit_status, 0);
  EXPECT_EQ(network("mac-2"), original2);
}

TEST(UndoScript, carries_the_ssh_options_of_the_apply_quoted) {
  HostApply h;
  h.host = "node 1";
  h.target = parse_target("admin@10.0.0.1:2222", "test");
  h.steps = {
      {"a", "ip addr replace 192.168.0.1/30 dev eth1", "ip addr del 192.168.0.1/30 dev eth1"}};
  SshOptions o;
  o.identity = "/keys/my key";
  o.known_hosts = "/k/known hosts";
  o.config_file = "/c/config";
  o.policy = HostKeyPolicy::kAcceptNew;
  std::string s = undo_script({h}, o, "heading");
  EXPECT_NE(
      s.find("\n# node 1\nssh -F /c/config -i '/keys/my key' -o 'UserKnownHostsFile=\"/k/known "
             "hosts\"' -o StrictHostKeyChecking=accept-new -p 2222 admin@10.0.0.1 /bin/sh -s "
             "<<'MESHPLAN_UNDO'\nip addr del 192.168.0.1/30 dev eth1\nMESHPLAN_UNDO\n"),
      std::string::npos)
      << s;
  std::vector<UndoBlock> blocks = parse_undo_script(s, "u.sh");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].host, "node 1");
  EXPECT_EQ(blocks[0].lines, std::vector<std::string>{"ip addr del 192.168.0.1/30 dev eth1"});
  EXPECT_EQ(blocks[0].line, 6u);  // after the shebang, heading, note, blank and `# node 1`
}

TEST(UndoScript, a_malformed_file_is_refused_with_its_line) {
  auto message = [](const std::string& text) {
    try {
      parse_undo_script(text, "u.sh");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("#!/bin/sh\nrm -rf /\n").substr(0, 9), "u.sh:2: e");
  EXPECT_NE(message("# a\nssh a /bin/sh -s <<'MESHPLAN_UNDO'\nip addr del x\n")
                .find("u.sh:2: the block for a has no closing MESHPLAN_UNDO line"),
            std::string::npos);
  EXPECT_NE(message("#!/bin/sh\n\nssh a /bin/sh -s <<'MESHPLAN_UNDO'\nMESHPLAN_UNDO\n")
                .find("u.sh:3: the ssh line is not preceded by a `# HOST` line"),
            std::string::npos);
  EXPECT_NE(message("#!/bin/sh\n# nothing\n").find("holds no host block"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::apply_runner_test
