// Replicas on a fleet of one kind: kinds of hosts, the plan of one group renamed for another (every
// field that names a host, checked against the plan file), and the replicas chosen are what
// planning each of their groups gives.
#include "solvers/serving/replica_kinds.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <regex>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/plan/plan_rename.hpp"
#include "solvers/serving/replica_groups.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan::replica_kinds_test {
namespace {

// `n` Mac minis of 24 GiB on one 10 GbE switch; `os` per host number where not 26.2; with
// `islands`, hosts 1-2, 3-4, ... also cabled in pairs by Thunderbolt 5.
Cluster minis(int n, const std::map<int, std::string>& os = {}, bool islands = false) {
  std::string text = "schema: meshplan.cluster/1\nname: minis\nhosts:\n";
  for (int i = 1; i <= n; ++i)
    text += fmt::format(
        "  - {{name: mini-{}, chip: m4-pro-20c, memory: 24GiB, os: {{kind: macos, version: "
        "\"{}\"}}, interfaces: [{{name: en0, kind: ethernet, ipv4: 10.0.0.{}, prefix: 24, "
        "speed_gbps: 10}}]}}\n",
        i, os.count(i) ? os.at(i) : "26.2", i);
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n";
  for (int i = 1; islands && i + 1 <= n; i += 2)
    text += fmt::format("  - {{a: mini-{}, b: mini-{}, kind: tb5, rdma: true}}\n", i, i + 1);
  return load_cluster(text, "minis.yaml", Catalog::builtin());
}

std::vector<std::string> names(int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i)
    out.push_back(fmt::format("mini-{}", i));
  return out;
}

const ModelDesc& model() {
  static const ModelDesc m = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
  return m;
}

PlanRequest throughput() {
  PlanRequest r;
  r.objective = "throughput";
  return r;
}

// The plan file with its solve times blanked (two plannings of one problem differ only there).
std::string file_of(const Plan& p, const ModelDesc& m = model()) {
  static const std::regex timing("\"solve_ms\":[0-9.eE+-]+");
  return std::regex_replace(plan_to_json(p, m).dump(), timing, "\"solve_ms\":0");
}

// Each replica's group (the hosts it was planned over, used or not) planned on its own, and the
// replicas made of those plans: the same tokens/s and plan files as `set`, whose plans are its
// kinds' plans renamed.
void expect_own_plans(const Cluster& c, const ModelDesc& m, const PlanRequest& r,
                      const ReplicaSet& set) {
  std::vector<Plan> direct;
  for (const Plan& replica : set.plans) {
    std::vector<std::string> group;
    for (const HostInfo& h : replica.hosts)
      group.push_back(h.name);
    std::optional<Plan> p = plan_group(c, Catalog::builtin(), m, r, group, SteadyClock());
    ASSERT_TRUE(p) << fmt::format("{}", fmt::join(group, ","));
    direct.push_back(*p);
  }
  const std::optional<ReplicaSet> planned = replica_set(direct, m, r);
  ASSERT_TRUE(planned);
  EXPECT_DOUBLE_EQ(planned->aggregate_tokens_per_s, set.aggregate_tokens_per_s);
  for (size_t i = 0; i < direct.size(); ++i)
    EXPECT_EQ(file_of(set.plans[i], m), file_of(planned->plans[i], m)) << i;
}

TEST(replica_kinds_test, hosts_differ_in_kind_by_figures_or_software_not_by_address) {
  const Cluster c = minis(4, {{3, "15.6"}});
  const GroupKinds kinds(c, names(4));
  EXPECT_EQ(kinds.key({0}), kinds.key({1}));
  EXPECT_EQ(kinds.key({0}), kinds.key({3}));
  EXPECT_NE(kinds.key({0}), kinds.key({2}));
  EXPECT_EQ(kinds.key({0, 1}), kinds.key({1, 3}));
  EXPECT_NE(kinds.key({0, 1}), kinds.key({1, 2}));
}

TEST(replica_kinds_test, groups_of_different_islands_plan_alike_where_they_are_cabled_alike) {
  // Minis cabled in pairs: every host has a cable to another, so classes of candidates tell hosts
  // of different islands apart, but two groups of alike hosts cabled at the same places are alike.
  const Cluster c = minis(8, {}, true);
  const GroupKinds kinds(c, names(8));
  EXPECT_EQ(kinds.key({0, 1}), kinds.key({2, 3}));        // an island each
  EXPECT_EQ(kinds.key({0, 2}), kinds.key({1, 3}));        // a host of two islands each
  EXPECT_NE(kinds.key({0, 1}), kinds.key({0, 2}));        // cabled, or not
  EXPECT_EQ(kinds.key({0, 1, 4}), kinds.key({2, 3, 6}));  // an island and a host of another
  EXPECT_NE(kinds.key({0, 1, 4}), kinds.key({0, 4, 5}));  // the cable at other places
  EXPECT_NE(kinds.key({0}), kinds.key({0, 2}));
  // A host whose software differs is of another kind, wherever it is.
  const Cluster other = minis(8, {{3, "15.6"}}, true);
  const GroupKinds differ(other, names(8));
  EXPECT_NE(differ.key({0, 1}), differ.key({2, 3}));
}

TEST(replica_kinds_test, replicas_in_islands_are_what_planning_each_group_gives) {
  // Eight minis in cabled pairs and Qwen3 32B at 8 bits, which needs two of them: every
  // partition is weighed (a cabled pair runs over Thunderbolt, two hosts of different islands
  // over 10 GbE), each kind of group planned once and renamed for the others, which must be
  // their own plans.
  static const ModelDesc qwen = ModelCatalog::builtin().resolve("qwen3-32b-8bit", "");
  const Cluster c = minis(8, {}, true);
  PlanRequest r = throughput();
  const Plan whole =
      plan_model(c, Catalog::builtin(), qwen, r, SteadyClock(), serving_score(qwen, r));
  const std::optional<ReplicaSet> set =
      best_replicas(c, Catalog::builtin(), qwen, r, whole, SteadyClock());
  ASSERT_TRUE(set);
  ASSERT_GE(set->plans.size(), 2u);
  expect_own_plans(c, qwen, r, *set);
}

TEST(replica_kinds_test, every_host_name_in_a_plan_is_renamed) {
  const Cluster c = minis(10);
  std::vector<std::string> hosts = names(10);
  HostRenames reverse;
  for (size_t i = 0; i < hosts.size(); ++i)
    reverse[hosts[i]] = hosts[hosts.size() - 1 - i];
  for (const std::string strategy : {"auto", "routed"}) {
    PlanRequest r = throughput();
    r.strategy = strategy;
    r.concurrency = 12;
    RoutedRequest routed;
    routed.consider_in_auto = true;
    Plan plan = plan_serving(c, Catalog::builtin(), model(), r, SteadyClock(), routed);
    const std::string before = file_of(plan);
    rename_hosts(plan, reverse);
    EXPECT_EQ(file_of(plan), renamed(before, reverse)) << strategy;
    EXPECT_NE(file_of(plan), before) << strategy;
  }
}

TEST(replica_kinds_test, replicas_of_one_kind_are_what_planning_each_group_gives) {
  // Ten minis of 24 GiB: a copy of Llama 3.3 70B at 4 bits needs three. Each kind of group is
  // planned once; the replicas get that plan renamed, which must be their own plan.
  const Cluster c = minis(10);
  PlanRequest r = throughput();
  r.concurrency = 24;
  const Plan whole =
      plan_model(c, Catalog::builtin(), model(), r, SteadyClock(), serving_score(model(), r));
  const std::optional<ReplicaSet> set =
      best_replicas(c, Catalog::builtin(), model(), r, whole, SteadyClock());
  ASSERT_TRUE(set);
  ASSERT_GE(set->plans.size(), 2u);
  expect_own_plans(c, model(), r, *set);
}

// `small` Mac minis of 24 GiB and `large` of 64 GiB on one 10 GbE switch.
Cluster two_kinds(int small, int large) {
  std::string text = "schema: meshplan.cluster/1\nname: two-kinds\nhosts:\n";
  for (int i = 1; i <= small + large; ++i)
    text += fmt::format(
        "  - {{name: {}-{}, chip: m4-pro-20c, memory: {}GiB, os: {{kind: macos, version: "
        "\"26.2\"}}, interfaces: [{{name: en0, kind: ethernet, ipv4: 10.0.0.{}, prefix: 24, "
        "speed_gbps: 10}}]}}\n",
        i <= small ? "small" : "large", i, i <= small ? 24 : 64, i);
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n";
  return load_cluster(text, "two-kinds.yaml", Catalog::builtin());
}

TEST(replica_kinds_test, a_fleet_serves_in_groups_of_one_kind_at_least_as_much_as_any_even_split) {
  // 50 hosts, more than kBalancedReplicaHosts: 40 small minis (a copy of Llama 3.3 70B at 4 bits
  // needs three) and 10 large ones (one holds it). Every replica is of one kind of machine; the
  // split serves at least what groups of any one size per kind serve; and each replica is what
  // planning its own group gives.
  const Cluster c = two_kinds(40, 10);
  ASSERT_GT(c.hosts.size(), kBalancedReplicaHosts);
  PlanRequest r = throughput();
  const Plan whole =
      plan_model(c, Catalog::builtin(), model(), r, SteadyClock(), serving_score(model(), r));
  const std::optional<ReplicaSet> set =
      best_replicas(c, Catalog::builtin(), model(), r, whole, SteadyClock());
  ASSERT_TRUE(set);
  for (const Plan& replica : set->plans) {
    const std::string kind = replica.hosts.front().name.substr(0, 5);
    for (const HostInfo& h : replica.hosts)
      EXPECT_EQ(h.name.substr(0, 5), kind) << h.name;
  }
  expect_own_plans(c, model(), r, *set);
  // Groups of one size per kind, each at its own best: the count of groups times one's tokens/s.
  auto best_even = [&](const std::string& kind, int first, int hosts) {
    double best = 0;
    for (int size = 1; size <= 6; ++size) {
      std::vector<std::string> group;
      for (int i = 0; i < size; ++i)
        group.push_back(fmt::format("{}-{}", kind, first + i));
      if (std::optional<Plan> p =
              plan_group(c, Catalog::builtin(), model(), r, group, SteadyClock()))
        best = std::max(best, (hosts / size) * p->serving->aggregate_tokens_per_s);
    }
    return best;
  };
  // The plan says how many of each kind it used, and why not more.
  size_t small = 0, large = 0;
  for (const Plan& replica : set->plans)
    for (const HostInfo& h : replica.hosts)
      ++(h.name.rfind("small", 0) == 0 ? small : large);
  ASSERT_EQ(set->notes.size(), 2u);
  const std::string& small_note =
      set->notes[0].find("small") != std::string::npos ? set->notes[0] : set->notes[1];
  const std::string& large_note = &small_note == &set->notes[0] ? set->notes[1] : set->notes[0];
  EXPECT_NE(small_note.find(fmt::format("hosts like small-1: {} of 40 used", small)),
            std::string::npos)
      << small_note;
  EXPECT_NE(large_note.find(fmt::format("hosts like large-41: {} of 10 used", large)),
            std::string::npos)
      << large_note;
  if (small < 40) {
    EXPECT_NE(small_note.find("left"), std::string::npos) << small_note;
  }
  const double even = best_even("small", 1, 40) + best_even("large", 41, 10);
  EXPECT_GT(even, 0);
  EXPECT_GE(set->aggregate_tokens_per_s, even * (1 - 1e-9));
}

TEST(replica_kinds_test, machines_leave_cables_aside_and_islands_are_the_cabled_hosts) {
  const Cluster c = minis(7, {{5, "15.6"}}, true);  // pairs 1-2, 3-4, 5-6 cabled; 7 alone
  const GroupKinds kinds(c, names(7));
  EXPECT_EQ(kinds.machine(0), kinds.machine(6));  // a cabled host and one alone
  EXPECT_NE(kinds.kind(0), kinds.kind(6));
  EXPECT_EQ(kinds.kind(0), kinds.kind(2));
  EXPECT_NE(kinds.machine(0), kinds.machine(4));  // other software
  EXPECT_EQ(kinds.islands(), (std::vector<std::vector<size_t>>{{0, 1}, {2, 3}, {4, 5}}));
}

}  // namespace
}  // namespace meshplan::replica_kinds_test
