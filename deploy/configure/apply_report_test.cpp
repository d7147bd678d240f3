// The apply report's text for runs built by hand: what the user reads after setup --apply.
#include "deploy/configure/apply_report.hpp"

#include <gtest/gtest.h>

namespace meshplan::apply_report_test {
namespace {

const std::vector<ApplyStep> kSteps = {
    {"10.0.0.1/30 on en1", "ifconfig en1 inet 10.0.0.1/30", "ifconfig en1 inet 10.0.0.1 delete"},
    {"route to mac-2", "route add 10.0.0.2 -interface en1", "route delete 10.0.0.2"},
};

HostApply host(const std::string& name, HostTarget target) {
  HostApply h;
  h.host = name;
  h.target = std::move(target);
  h.steps = kSteps;
  return h;
}

// mac-1 changed and put back; mac-2, reached as admin@10.0.0.2:22, failed before any change.
ApplyReport put_back_run() {
  ApplyReport r;
  HostApply a = host("mac-1", {"mac-1", "", "mac-1", 0});
  a.done = 2;
  a.undone = 2;
  HostApply b = host("mac-2", {"mac-2", "admin", "10.0.0.2", 22});
  b.failure = HostFailureKind::kCommandFailed;
  b.message = "ifconfig: SIOCAIFADDR: File exists";
  r.hosts = {a, b};
  return r;
}

TEST(apply_report_test, a_failed_run_whose_hosts_are_put_back) {
  ApplyReport r = put_back_run();
  const std::string lines =
      "mac-1: changed, then put back because another host failed: 10.0.0.1/30 on en1, route to "
      "mac-2\n"
      "mac-2 (admin@10.0.0.2:22): command failed: ifconfig: SIOCAIFADDR: File exists; nothing "
      "was changed there\n";
  EXPECT_EQ(render_apply_hosts(r, false), lines);
  EXPECT_EQ(apply_outcome_summary(r),
            "known clean: mac-2; put back: mac-1; still changed: none; unknown: none");
  Error e = apply_failure(r, {ApplyMode::kSetup, false, false, "c.undo.sh", "c.json"});
  EXPECT_EQ(e.kind(), ErrorKind::kHostsFailed);
  EXPECT_EQ(std::string(e.what()),
            "setup --apply failed; the hosts changed are put back:\n" + lines +
                "hosts: known clean: mac-2; put back: mac-1; still changed: none; unknown: none");
}

TEST(apply_report_test, an_unknown_host_gets_its_undo_lines_and_how_to_finish) {
  ApplyReport r = put_back_run();
  HostApply& b = r.hosts[1];
  b.failure = HostFailureKind::kTimedOut;
  b.message = "no answer after 10 s";
  b.done = 1;
  b.step_unknown = true;
  Error e = apply_failure(r, {ApplyMode::kSetup, false, false, "c.undo.sh", "c.json"});
  EXPECT_EQ(e.kind(), ErrorKind::kHostsUnsettled);
  EXPECT_EQ(std::string(e.what()),
            "setup --apply failed; the hosts changed are put back:\n"
            "mac-1: changed, then put back because another host failed: 10.0.0.1/30 on en1, "
            "route to mac-2\n"
            "mac-2 (admin@10.0.0.2:22): UNKNOWN: timed out: no answer after 10 s; the host did "
            "not answer again, so whether these are in effect is not known: 10.0.0.1/30 on en1, "
            "route to mac-2; to put them back, run there (each line fails harmlessly when its "
            "change is not there):\n"
            "    route delete 10.0.0.2\n"
            "    ifconfig en1 inet 10.0.0.1 delete\n"
            "hosts: known clean: none; put back: mac-1; still changed: none; unknown: mac-2\n"
            "to finish, once the hosts answer: sh c.undo.sh  (or: meshplan teardown -c c.json "
            "--apply --undo c.undo.sh); the lines above do the same host by host");
}

TEST(apply_report_test, a_dry_run_lists_the_commands_and_the_hosts_as_planned) {
  ApplyReport r;
  r.hosts = {host("mac-1", {"mac-1", "", "mac-1", 0}),
             host("mac-2", {"mac-2", "admin", "10.0.0.2", 22})};
  r.hosts[1].steps.clear();
  EXPECT_EQ(render_dry_run_commands(r),
            "# mac-1\n"
            "ifconfig en1 inet 10.0.0.1/30\n"
            "route add 10.0.0.2 -interface en1\n");
  EXPECT_EQ(render_apply_hosts(r, true), "mac-2 (admin@10.0.0.2:22): already as planned\n");
}

}  // namespace
}  // namespace meshplan::apply_report_test
