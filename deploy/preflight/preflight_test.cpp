#include "deploy/preflight/preflight.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::preflight_test {
namespace {

// Every host refuses the connection; records which hosts were tried.
class RefusingExecutor : public RemoteExecutor {
 public:
  ExecResult run(const HostTarget& target, const std::string&, const std::string&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    tried.insert(target.name);
    ExecResult r;
    r.failure = HostFailureKind::kUnreachable;
    r.message = "connection refused";
    return r;
  }
  std::set<std::string> tried;

 private:
  std::mutex mutex_;
};

struct Mesh {
  Cluster cluster =
      load_cluster_file(testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"),
                        RealFileSystem(), Catalog::builtin());
  TopologyContext topo{cluster, Catalog::builtin()};
  CheckReport report = check_cluster(topo, {});
};

HostTarget target_of(const Host& h) {
  return HostTarget{h.name, "", h.name, 22};
}

TEST(preflight_test, every_cabled_host_is_tried_and_each_that_fails_is_named) {
  Mesh m;
  RefusingExecutor executor;
  PreflightOptions options;
  options.cluster_file = "mesh.yaml";
  PreflightReport r =
      run_preflight(m.cluster, m.topo, m.report, std::nullopt, target_of, executor, options);
  EXPECT_EQ(executor.tried,
            (std::set<std::string>{"m3-ultra-1", "m3-ultra-2", "m3-ultra-3", "m3-ultra-4"}));
  EXPECT_EQ(r.answered, 0u);
  EXPECT_FALSE(r.measured);
  EXPECT_NE(r.text.find("Live check: 4 hosts, "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(" cable ends, 0 answered"), std::string::npos) << r.text;
  EXPECT_NE(r.unreachable.find("4 of 4 hosts could not be checked:"), std::string::npos)
      << r.unreachable;
  EXPECT_NE(r.unreachable.find("m3-ultra-3: unreachable: connection refused"), std::string::npos)
      << r.unreachable;
}

TEST(preflight_test, a_plan_keeps_the_check_to_its_hosts) {
  Mesh m;
  PlanRanks plan;
  for (const char* h : {"m3-ultra-1", "m3-ultra-2"}) {
    PlanRank rank;
    rank.host = h;
    plan.ranks.push_back(rank);
  }
  // The check report of the plan's hosts, as `check --plan` makes it.
  CheckOptions only;
  only.hosts = {"m3-ultra-1", "m3-ultra-2"};
  only.fixed_order = true;
  CheckReport report = check_cluster(m.topo, only);
  RefusingExecutor executor;
  PreflightReport r =
      run_preflight(m.cluster, m.topo, report, plan, target_of, executor, PreflightOptions{});
  EXPECT_EQ(executor.tried, (std::set<std::string>{"m3-ultra-1", "m3-ultra-2"}));
  EXPECT_NE(r.text.find("Live check: 2 hosts, "), std::string::npos) << r.text;
  EXPECT_NE(r.unreachable.find("2 of 2 hosts could not be checked:"), std::string::npos)
      << r.unreachable;
}

}  // namespace
}  // namespace meshplan::preflight_test
