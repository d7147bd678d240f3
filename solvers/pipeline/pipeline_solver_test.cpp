// The optimal pipeline solver against the brute-force oracle on many seeded random instances:
// same optimum (1e-9 relative), assignments that the reference evaluator accepts, a lower bound
// never above the optimum, and a heuristic never better than the optimum nor worse than the
// proportional split.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>

#include "solvers/pipeline/baselines.hpp"
#include "solvers/pipeline/even_split.hpp"
#include "solvers/pipeline/exact_pipeline.hpp"
#include "solvers/pipeline/host_classes.hpp"
#include "solvers/pipeline/optimal_pipeline.hpp"
#include "solvers/pipeline/pipeline_fill.hpp"
#include "solvers/pipeline/pipeline_heuristic.hpp"
#include "solvers/pipeline/range_dp.hpp"
#include "solvers/problem/lower_bound.hpp"
#include "tests/brute_force.hpp"
#include "tests/random_pipeline.hpp"

namespace meshplan::pipeline_solver_test {
namespace {

using Instance = testing::RandomPipeline;
using testing::random_pipeline;

void expect_same_latency(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-9 * std::max(std::abs(a), std::abs(b))) << what;
}

TEST(pipeline_solver_test, optimal_equals_brute_force_on_random_instances) {
  int feasible = 0, multi_host = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Instance in = random_pipeline(seed, 5, 7, seed % 3 == 0);
    SearchResult oracle = brute_force_pipeline(*in.cost, in.constraints);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> order(in.cost->num_hosts());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    SearchResult got = solve_optimal_pipeline(space, order);
    ASSERT_EQ(got.feasible, oracle.feasible) << in.describe;
    EXPECT_TRUE(got.exact) << in.describe;
    // Without symmetry reduction and without an incumbent, the same optimum.
    auto plain = exact_pipeline_search(space, singleton_classes(space.num_hosts()));
    ASSERT_TRUE(plain.has_value());
    ASSERT_EQ(plain->feasible, oracle.feasible) << in.describe;
    if (!oracle.feasible) continue;
    ++feasible;
    multi_host += oracle.assignment.order.size() > 1;
    PipelineEvaluation e = in.cost->evaluate(got.assignment);
    ASSERT_TRUE(e.feasible) << in.describe << ": " << e.shortfall;
    expect_same_latency(e.token_latency_s, oracle.latency_s, in.describe);
    expect_same_latency(got.latency_s, oracle.latency_s, in.describe);
    expect_same_latency(in.cost->evaluate(plain->assignment).token_latency_s, oracle.latency_s,
                        in.describe);
    for (const RangePin& p : in.constraints.pins) {
      auto it = std::find(got.assignment.order.begin(), got.assignment.order.end(), p.host);
      ASSERT_NE(it, got.assignment.order.end()) << in.describe;
      size_t j = static_cast<size_t>(it - got.assignment.order.begin());
      EXPECT_EQ(got.assignment.cuts[j], p.start) << in.describe;
      EXPECT_EQ(got.assignment.cuts[j + 1], p.end) << in.describe;
    }
    int m = static_cast<int>(got.assignment.order.size());
    EXPECT_GE(m, std::max(1, in.constraints.min_hosts)) << in.describe;
    if (in.constraints.max_hosts > 0) {
      EXPECT_LE(m, in.constraints.max_hosts) << in.describe;
    }
    // The bound (which ignores pins and --max-hosts) never exceeds the optimum.
    PipelineBound b = pipeline_lower_bound(*in.cost, in.constraints.min_hosts);
    EXPECT_LE(b.token_latency_s, oracle.latency_s * (1 + 1e-9)) << in.describe;
  }
  // The generator must exercise the interesting cases.
  EXPECT_GT(feasible, 200);
  EXPECT_GT(multi_host, 60);
}

void expect_honours_constraints(const Instance& in, const SearchResult& r) {
  PipelineEvaluation e = in.cost->evaluate(r.assignment);
  ASSERT_TRUE(e.feasible) << in.describe << ": " << e.shortfall;
  expect_same_latency(e.token_latency_s, r.latency_s, in.describe);
  for (const RangePin& p : in.constraints.pins) {
    auto it = std::find(r.assignment.order.begin(), r.assignment.order.end(), p.host);
    ASSERT_NE(it, r.assignment.order.end()) << in.describe;
    size_t j = static_cast<size_t>(it - r.assignment.order.begin());
    EXPECT_EQ(r.assignment.cuts[j], p.start) << in.describe;
    EXPECT_EQ(r.assignment.cuts[j + 1], p.end) << in.describe;
  }
  int m = static_cast<int>(r.assignment.order.size());
  EXPECT_GE(m, std::max(1, in.constraints.min_hosts)) << in.describe;
  if (in.constraints.max_hosts > 0) {
    EXPECT_LE(m, in.constraints.max_hosts) << in.describe;
  }
}

TEST(pipeline_solver_test, symmetry_reduction_keeps_the_optimum_on_medium_instances) {
  for (uint64_t seed = 3000; seed < 3060; ++seed) {
    Instance in = random_pipeline(seed, 9, 40, seed % 2 == 0);
    SearchSpace space(*in.cost, in.constraints);
    auto with = exact_pipeline_search(space, host_classes(space));
    auto without = exact_pipeline_search(space, singleton_classes(space.num_hosts()));
    ASSERT_TRUE(with && without);
    ASSERT_EQ(with->feasible, without->feasible) << in.describe;
    if (!with->feasible) continue;
    expect_same_latency(with->latency_s, without->latency_s, in.describe);
    expect_honours_constraints(in, *with);
  }
}

// Large random instances (seeds 4000 to `end`, up to 24 hosts and 40 layers, with pins and host
// limits; the head on the last rank when `head_last`): every feasible plan honours its constraints
// and is no faster than the lower bound. Returns how many the heuristic search solved.
int large_instances_within_constraints(uint64_t end, bool head_last) {
  int heuristic = 0;
  for (uint64_t seed = 4000; seed < end; ++seed) {
    Instance in = random_pipeline(seed, 24, 40, true, head_last);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> order(in.cost->num_hosts());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    SearchResult r = solve_optimal_pipeline(space, order);
    heuristic += !r.exact;
    if (!r.feasible) continue;
    expect_honours_constraints(in, r);
    EXPECT_LE(pipeline_lower_bound(*in.cost, in.constraints.min_hosts).token_latency_s,
              r.latency_s * (1 + 1e-9));
  }
  return heuristic;
}

TEST(pipeline_solver_test, large_instances_honour_pins_and_host_limits) {
  // Seeds 4000-4039: 24 hosts and 40 layers, where the search is the heuristic.
  EXPECT_GT(large_instances_within_constraints(4040, false), 5);
}

TEST(pipeline_solver_test, heuristic_between_optimum_and_proportional) {
  for (uint64_t seed = 1000; seed < 1150; ++seed) {
    Instance in = random_pipeline(seed, 6, 9, false);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> order(in.cost->num_hosts());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    SearchResult best = solve_optimal_pipeline(space, order);
    SearchResult h = heuristic_pipeline_search(space, host_classes(space), order);
    BaselineResult prop = proportional_baseline(*in.cost, order);
    if (prop.info.feasible) {
      ASSERT_TRUE(h.feasible) << in.describe;
      EXPECT_LE(h.latency_s, prop.info.token_latency_s * (1 + 1e-9)) << in.describe;
      EXPECT_LE(best.latency_s, prop.info.token_latency_s * (1 + 1e-9)) << in.describe;
    }
    if (!h.feasible) continue;
    ASSERT_TRUE(best.feasible) << in.describe;
    PipelineEvaluation e = in.cost->evaluate(h.assignment);
    ASSERT_TRUE(e.feasible) << in.describe << ": " << e.shortfall;
    expect_same_latency(e.token_latency_s, h.latency_s, in.describe);
    EXPECT_GE(h.latency_s, best.latency_s * (1 - 1e-9)) << in.describe;
    EXPECT_FALSE(h.exact);
  }
}

TEST(pipeline_solver_test, fixed_order_dp_equals_enumerating_the_cuts) {
  for (uint64_t seed = 2000; seed < 2200; ++seed) {
    Instance in = random_pipeline(seed, 4, 8, false);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> seq(in.cost->num_hosts());
    for (size_t i = 0; i < seq.size(); ++i)
      seq[i] = seq.size() - 1 - i;
    SearchResult got = best_on_sequence(space, seq, false);
    // Every split of the layers over exactly this order.
    const int L = in.cost->num_layers(), m = static_cast<int>(seq.size());
    double best = kInfinity;
    std::vector<int> cuts(static_cast<size_t>(m) + 1, 0);
    cuts.back() = L;
    std::function<void(int)> rec = [&](int j) {
      if (j == m) {
        PipelineEvaluation e = in.cost->evaluate({seq, cuts});
        if (e.feasible) best = std::min(best, e.token_latency_s);
        return;
      }
      for (int c = cuts[static_cast<size_t>(j) - 1] + 1; c <= L - (m - j); ++c) {
        cuts[static_cast<size_t>(j)] = c;
        rec(j + 1);
      }
    };
    if (m == 1) {
      PipelineEvaluation e = in.cost->evaluate({seq, cuts});
      if (e.feasible) best = e.token_latency_s;
    } else if (m <= L) {
      rec(1);
    }
    ASSERT_EQ(got.feasible, best < kInfinity) << in.describe;
    if (got.feasible) {
      EXPECT_EQ(got.assignment.order, seq);
      expect_same_latency(got.latency_s, best, in.describe);
    }
  }
}

TEST(pipeline_solver_test, lower_bound_meets_a_single_memory_bound_host) {
  // One host, every layer memory-bound: the plan is exactly the bound's bandwidth part plus one
  // overhead, when the LM head is memory-bound as well.
  Instance in = random_pipeline(11, 1, 6, false);
  HostFigures h;
  h.name = "solo";
  h.bandwidth = 1e11;
  h.flops = h.prefill_flops = 1e18;
  h.usable_bytes = 1e13;
  h.overhead_s = 0.5e-3;
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      1, std::vector<std::optional<LinkFigures>>(1));
  PipelineCostModel cost(*in.model, {h}, links, 4096, 128, 2);
  PipelineEvaluation e = cost.evaluate({{0}, {0, cost.num_layers()}});
  PipelineBound b = pipeline_lower_bound(cost);
  EXPECT_NEAR(b.token_latency_s, e.token_latency_s, 1e-12 * e.token_latency_s);
  EXPECT_EQ(b.min_ranks, 1);
  EXPECT_DOUBLE_EQ(gap_percent(e.token_latency_s, b.token_latency_s), 0);
  EXPECT_NEAR(gap_percent(1.1, 1.0), 10.0, 1e-9);
}

// llama.cpp RPC: embedding and LM head on the last rank, and only on the main host when one is
// set. This oracle enumerates, like tests/brute_force.hpp, every subset holding the main host,
// every order of the others before it and every split of the layers.
SearchResult oracle_with_head_host(const Instance& in, size_t head_host) {
  SearchResult best;
  const size_t n = in.cost->num_hosts();
  for (uint64_t subset = 0; subset < (1u << n); ++subset) {
    if (!(subset >> head_host & 1)) continue;
    std::vector<size_t> others;
    for (size_t h = 0; h < n; ++h)
      if ((subset >> h & 1) && h != head_host) others.push_back(h);
    do {
      std::vector<size_t> order = others;
      order.push_back(head_host);
      const int m = static_cast<int>(order.size()), L = in.cost->num_layers();
      if (m > L || m < std::max(1, in.constraints.min_hosts)) continue;
      std::vector<int> cuts(order.size() + 1, 0);
      cuts.back() = L;
      std::function<void(int)> rec = [&](int j) {
        if (j == m) {
          PipelineEvaluation e = in.cost->evaluate({order, cuts});
          if (e.feasible && e.token_latency_s < best.latency_s) {
            best.feasible = true;
            best.latency_s = e.token_latency_s;
            best.assignment = {order, cuts};
          }
          return;
        }
        for (int c = cuts[static_cast<size_t>(j) - 1] + 1; c <= L - (m - j); ++c) {
          cuts[static_cast<size_t>(j)] = c;
          rec(j + 1);
        }
      };
      rec(1);
    } while (std::next_permutation(others.begin(), others.end()));
  }
  return best;
}

TEST(pipeline_solver_test, head_on_the_last_rank_equals_brute_force) {
  int feasible = 0, multi_host = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Instance in = random_pipeline(seed, 5, 7, seed % 3 == 0, true);
    SearchResult oracle = brute_force_pipeline(*in.cost, in.constraints);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> order(in.cost->num_hosts());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    SearchResult got = solve_optimal_pipeline(space, order);
    ASSERT_EQ(got.feasible, oracle.feasible) << in.describe;
    if (!oracle.feasible) continue;
    ++feasible;
    multi_host += oracle.assignment.order.size() > 1;
    expect_honours_constraints(in, got);
    PipelineEvaluation e = in.cost->evaluate(got.assignment);
    expect_same_latency(e.token_latency_s, oracle.latency_s, in.describe);
    EXPECT_EQ(e.head_rank, got.assignment.order.size() - 1);
    EXPECT_EQ(e.head_s, in.cost->head_time(got.assignment.order.back()));
    EXPECT_LE(pipeline_lower_bound(*in.cost, in.constraints.min_hosts).token_latency_s,
              oracle.latency_s * (1 + 1e-9))
        << in.describe;
  }
  EXPECT_GT(feasible, 150);
  EXPECT_GT(multi_host, 40);
  // Large clusters (the heuristic search) too.
  EXPECT_GT(large_instances_within_constraints(4020, true), 2);
}

TEST(pipeline_solver_test, a_main_host_is_always_the_last_rank) {
  int feasible = 0;
  for (uint64_t seed = 500; seed < 700; ++seed) {
    Instance in = random_pipeline(seed, 5, 6, false, true);
    const size_t main = seed % in.cost->num_hosts();
    in.constraints.head_host = main;
    SearchResult oracle = oracle_with_head_host(in, main);
    SearchSpace space(*in.cost, in.constraints);
    std::vector<size_t> order(in.cost->num_hosts());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    SearchResult got = solve_optimal_pipeline(space, order);
    ASSERT_EQ(got.feasible, oracle.feasible) << in.describe;
    if (!got.feasible) continue;
    ++feasible;
    EXPECT_EQ(got.assignment.order.back(), main) << in.describe;
    expect_honours_constraints(in, got);
    expect_same_latency(got.latency_s, oracle.latency_s, in.describe);
  }
  EXPECT_GT(feasible, 100);
}

TEST(pipeline_solver_test, the_plan_marks_and_charges_the_head_on_its_last_rank) {
  Instance in = random_pipeline(21, 1, 6, false, true);
  HostFigures h = in.cost->host(0);
  h.usable_bytes = 1e13;
  const auto links = testing::tb5_links(2);
  const int L = in.model->num_layers();
  PipelineAssignment a{{0, 1}, {0, L / 2, L}};
  for (bool last : {false, true}) {
    PipelineCostModel cost(*in.model, {h, h}, links, 4096, 128, 2, last);
    PipelineEvaluation e = cost.evaluate(a);
    Plan plan;
    fill_pipeline_plan(cost, a, e, plan);
    const size_t head = last ? 1 : 0, other = 1 - head;
    EXPECT_TRUE(plan.ranks[head].holds_head);
    EXPECT_FALSE(plan.ranks[other].holds_head);
    EXPECT_DOUBLE_EQ(plan.ranks[head].weight_bytes,
                     cost.weight_bytes(a.cuts[head], a.cuts[head + 1]) + cost.head_memory());
    EXPECT_DOUBLE_EQ(plan.ranks[other].weight_bytes,
                     cost.weight_bytes(a.cuts[other], a.cuts[other + 1]));
  }
}

}  // namespace
}  // namespace meshplan::pipeline_solver_test
