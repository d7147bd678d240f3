// Renaming hosts in text: whole names only, all at once. (A whole plan renamed is checked against
// its plan file in solvers/serving/replica_kinds_test.cpp, which plans one.)
#include "lib/plan/plan_rename.hpp"

#include <gtest/gtest.h>

namespace meshplan::plan_rename_test {
namespace {

TEST(plan_rename_test, renamed_words_are_whole_names_swapped_at_once) {
  const HostRenames swap{{"mini-1", "mini-2"}, {"mini-2", "mini-1"}};
  EXPECT_EQ(renamed("mini-1 then mini-2, not mini-10 or mini-1x", swap),
            "mini-2 then mini-1, not mini-10 or mini-1x");
  EXPECT_EQ(renamed("(mini-1 + mini-2); mini-1+mini-2. Ends at mini-1.", swap),
            "(mini-2 + mini-1); mini-2+mini-1. Ends at mini-2.");
}

TEST(plan_rename_test, ranks_and_host_lists_are_renamed) {
  Plan plan;
  RankPlan r;
  r.host = "a";
  r.tp_group = {"a", "b"};
  r.gpu_stages.push_back({{"a/gpu0", "a/gpu1"}, 0, 4, 0, 0});
  plan.ranks.push_back(r);
  HostInfo h;
  h.name = "b";
  h.left_out = "no link to a";
  plan.hosts.push_back(h);
  plan.notes.push_back("left out: b (no link to a)");
  rename_hosts(plan, {{"a", "x"}, {"b", "y"}});
  EXPECT_EQ(plan.ranks[0].host, "x");
  EXPECT_EQ(plan.ranks[0].tp_group, (std::vector<std::string>{"x", "y"}));
  // A GPU node's devices are named after it.
  EXPECT_EQ(plan.ranks[0].gpu_stages[0].devices, (std::vector<std::string>{"x/gpu0", "x/gpu1"}));
  EXPECT_EQ(plan.hosts[0].name, "y");
  EXPECT_EQ(plan.hosts[0].left_out, "no link to x");
  EXPECT_EQ(plan.notes[0], "left out: y (no link to x)");
}

}  // namespace
}  // namespace meshplan::plan_rename_test
