#include "lib/discovery/discover_targets.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::discover_targets_test {
namespace {

std::vector<std::string> names(const std::vector<HostTarget>& targets) {
  std::vector<std::string> out;
  for (const auto& t : targets)
    out.push_back(t.name + "=" + t.spec());
  return out;
}

TEST(discover_targets_test, every_source_in_order_with_user_and_port_filled_in) {
  TargetSources s;
  s.words = {"mac[1-2]"};
  s.hosts = "root@gpu-1:2222";
  s.inventory_file = "hosts.txt";
  s.inventory_text = "studio admin@10.0.0.9\n";
  s.slurm_nodes = "node[07-08]";
  s.default_user = "me";
  s.default_port = 22;
  EXPECT_EQ(names(collect_targets(s)),
            (std::vector<std::string>{"mac1=me@mac1:22", "mac2=me@mac2:22", "gpu-1=root@gpu-1:2222",
                                      "studio=admin@10.0.0.9:22", "node07=me@node07:22",
                                      "node08=me@node08:22"}));
}

TEST(discover_targets_test, a_replay_folder_gives_its_hosts_only_when_none_are_named) {
  TargetSources s;
  s.replay_dir = "probes";
  s.replay_hosts = {"mac-a", "mac-b"};
  EXPECT_EQ(collect_targets(s).size(), 2u);
  s.words = {"mac-a"};
  EXPECT_EQ(collect_targets(s).size(), 1u);
}

TEST(discover_targets_test, no_host_an_unset_allocation_and_a_repeated_name_are_input_errors) {
  auto message = [](const TargetSources& s) {
    try {
      collect_targets(s);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("no hosts given"), std::string::npos);
  TargetSources slurm;
  slurm.slurm_nodes = "";
  EXPECT_NE(message(slurm).find("SLURM_JOB_NODELIST is not set"), std::string::npos);
  TargetSources twice;
  twice.words = {"mac1", "mac1"};
  EXPECT_NE(message(twice).find("mac1"), std::string::npos);
}

TEST(discover_targets_test, the_failure_report_names_each_host_and_its_target) {
  std::vector<HostFailure> failures = {
      {"mac1", "admin@mac1", HostFailureKind::kUnreachable, "no route"}};
  std::string report = probe_failure_report(failures, 4);
  EXPECT_EQ(report.substr(0, report.find('\n')), "1 of 4 hosts could not be probed:");
  EXPECT_NE(report.find("mac1 (admin@mac1): "), std::string::npos) << report;
  EXPECT_NE(report.find("no route"), std::string::npos) << report;
}

}  // namespace
}  // namespace meshplan::discover_targets_test
