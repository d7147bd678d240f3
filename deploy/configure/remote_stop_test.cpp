// Stopping what check --live started by PID: the script, and a host that does not answer at
// first (a cut session) or never.
#include "deploy/configure/remote_stop.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace meshplan::remote_stop_test {
namespace {

// Answers each call with the next result in `answers` (the last one repeated).
class ScriptedExecutor : public RemoteExecutor {
 public:
  explicit ScriptedExecutor(std::vector<ExecResult> answers) : answers_(std::move(answers)) {}
  ExecResult run(const HostTarget&, const std::string&, const std::string& input) override {
    inputs.push_back(input);
    return answers_[std::min(inputs.size(), answers_.size()) - 1];
  }
  std::vector<std::string> inputs;

 private:
  std::vector<ExecResult> answers_;
};

ExecResult unreachable() {
  ExecResult r;
  r.failure = HostFailureKind::kUnreachable;
  r.message = "cannot connect to node-2:22: No route to host";
  return r;
}

ExecResult answered(const std::string& out) {
  ExecResult r;
  r.exit_status = 0;
  r.out = out;
  return r;
}

TEST(RemoteStop, the_script_stops_only_the_program_it_started) {
  std::string s = stop_script({4242}, "iperf3");
  EXPECT_NE(s.find("case \"$(ps -p 4242 -o comm= 2>/dev/null)\" in *iperf3*)"), std::string::npos)
      << s;
  EXPECT_NE(s.find("kill 4242 2>/dev/null"), std::string::npos);
  EXPECT_NE(s.find("kill -0 4242 2>/dev/null && echo '@@left 4242'"), std::string::npos);
}

TEST(RemoteStop, a_host_that_answers_again_gets_its_processes_stopped) {
  ScriptedExecutor ex({unreachable(), unreachable(), answered("")});
  StopResult r =
      stop_by_pid(ex, HostTarget{}, {4242, 4243}, "python3", 3, std::chrono::milliseconds(1));
  EXPECT_EQ(ex.inputs.size(), 3u);
  EXPECT_TRUE(r.left.empty());
  EXPECT_EQ(r.why, "");
}

TEST(RemoteStop, what_could_not_be_stopped_is_named_with_why) {
  ScriptedExecutor never({unreachable()});
  StopResult r =
      stop_by_pid(never, HostTarget{}, {4242}, "iperf3", 3, std::chrono::milliseconds(1));
  EXPECT_EQ(never.inputs.size(), 3u);
  EXPECT_EQ(r.left, std::vector<long>{4242});
  EXPECT_EQ(r.why, "unreachable: cannot connect to node-2:22: No route to host");

  ScriptedExecutor stubborn({answered("@@left 4243\n")});
  StopResult s =
      stop_by_pid(stubborn, HostTarget{}, {4242, 4243}, "iperf3", 3, std::chrono::milliseconds(1));
  EXPECT_EQ(s.left, std::vector<long>{4243});
  EXPECT_EQ(s.why, "it did not end on SIGTERM");

  ScriptedExecutor unused({unreachable()});
  EXPECT_TRUE(stop_by_pid(unused, HostTarget{}, {}, "iperf3", 3, std::chrono::milliseconds(1))
                  .left.empty());
  EXPECT_TRUE(unused.inputs.empty());
}

}  // namespace
}  // namespace meshplan::remote_stop_test
