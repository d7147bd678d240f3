#include "solvers/serving/replica_groups.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "lib/models/model_catalog.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan::replica_groups_test {
namespace {

ModelDesc model(const std::string& name) {
  return ModelCatalog::builtin().resolve(name, "");
}

PlanRequest throughput(const std::string& strategy) {
  PlanRequest r;
  r.objective = "throughput";
  r.strategy = strategy;
  return r;
}

// The best split found by trying every assignment of each host to a group or to none, each split
// weighed by `weigh` (-1: it cannot serve).
using Weigh = std::function<double(const std::vector<std::vector<std::string>>&)>;
double brute_force_best(const std::vector<std::string>& hosts, const Weigh& weigh) {
  std::vector<int> label(hosts.size(), -1);  // -1 idle, else group number
  double best = -1;
  std::function<void(size_t, int)> assign = [&](size_t i, int groups) {
    if (i == hosts.size()) {
      if (groups < 2) return;
      std::vector<std::vector<std::string>> split(static_cast<size_t>(groups));
      for (size_t h = 0; h < hosts.size(); ++h)
        if (label[h] >= 0) split[static_cast<size_t>(label[h])].push_back(hosts[h]);
      best = std::max(best, weigh(split));
      return;
    }
    for (int g = -1; g <= groups; ++g) {  // idle, an existing group, or a new one
      label[i] = g;
      assign(i + 1, g == groups ? groups + 1 : groups);
    }
  };
  assign(0, 0);
  return best;
}

// Each group at its own best, summed.
double brute_force_best(const Cluster& cluster, const ModelDesc& m, const PlanRequest& r,
                        const std::vector<std::string>& hosts) {
  std::map<std::vector<std::string>, double> value;  // -1: no copy fits
  auto group_value = [&](const std::vector<std::string>& g) {
    auto it = value.find(g);
    if (it != value.end()) return it->second;
    auto p = plan_group(cluster, Catalog::builtin(), m, r, g, SteadyClock());
    return value[g] = p ? p->serving->aggregate_tokens_per_s : -1;
  };
  return brute_force_best(hosts, [&](const std::vector<std::vector<std::string>>& split) {
    double sum = 0;
    for (const auto& g : split) {
      const double v = group_value(g);
      if (v < 0) return -1.0;
      sum += v;
    }
    return sum;
  });
}

TEST(replica_groups_test, replicas_are_the_best_split_of_a_small_cluster) {
  // Five unequal hosts: the best split of them into tensor-parallel replicas of Llama 3.3 70B
  // serves more than the split that balances their memory (384 and 320 GiB).
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = model("llama-3.3-70b-bf16");
  PlanRequest r = throughput("tensor");
  Plan whole = plan_model(c, Catalog::builtin(), m, r, SteadyClock(), serving_score(m, r));
  apply_serving(whole, m, r);
  auto set = best_replicas(c, Catalog::builtin(), m, r, whole, SteadyClock());
  ASSERT_TRUE(set);
  std::vector<std::string> hosts;
  for (const auto& h : whole.hosts)
    hosts.push_back(h.name);
  ASSERT_EQ(hosts.size(), 5u);
  const double best = brute_force_best(c, m, r, hosts);
  EXPECT_NEAR(set->aggregate_tokens_per_s, best, best * 1e-9);
  double balanced = 0;
  for (const auto& g : std::vector<std::vector<std::string>>{
           {"studio-1", "mbp-m3-max", "mini-m4-pro"}, {"studio-2", "mbp-m4-max"}}) {
    auto p = plan_group(c, Catalog::builtin(), m, r, g, SteadyClock());
    ASSERT_TRUE(p);
    balanced += p->serving->aggregate_tokens_per_s;
  }
  EXPECT_GT(set->aggregate_tokens_per_s, balanced * 1.01) << "no better than balancing memory";
  // The replicas are disjoint, and their request shares add up to one.
  std::set<std::string> seen;
  double shares = 0;
  for (const auto& rep : set->replicas) {
    shares += rep.request_share;
    for (const auto& h : rep.hosts)
      EXPECT_TRUE(seen.insert(h).second) << h << " is in two replicas";
  }
  EXPECT_NEAR(shares, 1, 1e-9);
}

// A load of N requests in flight in all: the split chosen serves as much as the best of every
// split with the N shared out over its groups, and the groups hold exactly N.
TEST(replica_groups_test, a_total_load_is_shared_over_the_best_split) {
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = model("llama-3.3-70b-4bit");
  for (int n : {3, 8, 40}) {
    PlanRequest r = throughput("auto");
    r.concurrency = n;
    Plan whole = plan_model(c, Catalog::builtin(), m, r, SteadyClock(), serving_score(m, r));
    auto set = best_replicas(c, Catalog::builtin(), m, r, whole, SteadyClock());
    ASSERT_TRUE(set) << n;
    int in_flight = 0;
    for (const auto& rep : set->replicas)
      in_flight += rep.requests_in_flight;
    EXPECT_EQ(in_flight, n);
    std::vector<std::string> hosts;
    for (const auto& h : whole.hosts)
      hosts.push_back(h.name);
    std::map<std::vector<std::string>, std::optional<Plan>> plans;
    const double best =
        brute_force_best(hosts, [&](const std::vector<std::vector<std::string>>& split) {
          std::vector<Plan> group_plans;
          for (const auto& g : split) {
            auto it = plans.find(g);
            if (it == plans.end())
              it =
                  plans.emplace(g, plan_group(c, Catalog::builtin(), m, r, g, SteadyClock())).first;
            if (!it->second) return -1.0;
            group_plans.push_back(*it->second);
          }
          auto shared = replica_set(group_plans, m, r);
          return shared ? shared->aggregate_tokens_per_s : -1.0;
        });
    EXPECT_NEAR(set->aggregate_tokens_per_s, best, best * 1e-9) << n;
  }
}

TEST(replica_groups_test, throughput_compares_strategies_at_their_best_number_of_streams) {
  // Five hosts on Ethernet, Mixtral 8x7B: expert parallel is the fastest for one stream; for
  // throughput tensor parallel serves about a third more at its own best number of streams.
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = model("mixtral-8x7b-bf16");
  PlanRequest r = throughput("auto");
  PlanScore score = serving_score(m, r);
  Plan latency = plan_model(c, Catalog::builtin(), m, r, SteadyClock());
  Plan served = plan_model(c, Catalog::builtin(), m, r, SteadyClock(), score);
  EXPECT_EQ(latency.strategy, "expert");
  EXPECT_EQ(served.strategy, "tensor");
  EXPECT_GT(score(served), 1.2 * score(latency));
  EXPECT_GT(latency.predicted.decode_tokens_per_s, served.predicted.decode_tokens_per_s);
  bool listed = false;
  for (const auto& a : served.alternatives)
    if (a.strategy == "expert") {
      listed = true;
      EXPECT_NE(a.reason.find(" tokens/s in all against "), std::string::npos) << a.reason;
    }
  EXPECT_TRUE(listed);
  // The latency objective keeps the one-stream comparison.
  EXPECT_FALSE(serving_score(m, PlanRequest{}));
}

}  // namespace
}  // namespace meshplan::replica_groups_test
