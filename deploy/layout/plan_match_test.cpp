// A cluster checked for a plan: the plan's backend, its hosts in rank order, and the refusals.
#include "deploy/layout/plan_match.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::plan_match_test {
namespace {

using testing::launch_inputs;

TEST(plan_match_test, a_plan_checks_its_backend_over_its_hosts_in_rank_order) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  CheckOptions o = check_options_for("auto", in->plan);
  EXPECT_EQ(o.backend, "ethernet");
  EXPECT_EQ(o.hosts, (std::vector<std::string>{"node-b", "node-c", "node-a"}));
  EXPECT_TRUE(o.fixed_order);
  CheckReport r = check_plan_against_cluster(*in->topology, "auto", in->plan);
  EXPECT_EQ(r.chosen, "ethernet");
  EXPECT_EQ(r.hosts, 3u);
}

TEST(plan_match_test, without_a_plan_every_host_and_the_requested_backend) {
  auto in = launch_inputs(testing::kLoopback);
  CheckOptions o = check_options_for("ring", std::nullopt);
  EXPECT_EQ(o.backend, "ring");
  EXPECT_TRUE(o.hosts.empty());
  EXPECT_FALSE(o.fixed_order);
  EXPECT_EQ(check_plan_against_cluster(*in->topology, "ring", std::nullopt).requested, "ring");
}

TEST(plan_match_test, routed_and_workload_plans_are_not_rings) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  PlanRanks routed = *in->plan;
  routed.routing = RoutingInfo{};
  EXPECT_FALSE(check_options_for("auto", routed).fixed_order);
  PlanRanks workload = *in->plan;
  workload.models.push_back({});
  EXPECT_FALSE(check_options_for("auto", workload).fixed_order);
}

TEST(plan_match_test, another_backend_or_a_host_the_cluster_lacks_is_refused) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  try {
    check_plan_against_cluster(*in->topology, "ring", in->plan);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_EQ(std::string(e.what()),
              "--backend ring: the plan was predicted for ethernet; leave --backend out to use "
              "it, or plan again with --backend ring");
  }
  PlanRanks moved = *in->plan;
  moved.ranks[1].host = "node-z";
  try {
    check_plan_against_cluster(*in->topology, "auto", moved);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_EQ(std::string(e.what()), "the plan's host \"node-z\" is not in the cluster");
  }
}

}  // namespace
}  // namespace meshplan::plan_match_test
