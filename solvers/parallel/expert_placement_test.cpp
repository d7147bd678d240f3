#include "solvers/parallel/expert_placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "lib/core/error.hpp"
#include "solvers/parallel/expert_ilp.hpp"

namespace meshplan::expert_placement_test {
namespace {

ExpertInstance uniform(int experts, int k, std::vector<ExpertHost> hosts) {
  ExpertInstance inst;
  inst.load.assign(static_cast<size_t>(experts), 1.0 / experts);
  inst.experts_per_token = k;
  inst.hosts = std::move(hosts);
  return inst;
}

// Every expert held at least once, never twice on a rank, within every rank's capacity.
void expect_valid(const ExpertInstance& inst, const ExpertPlacement& p) {
  ASSERT_EQ(p.experts.size(), inst.hosts.size());
  std::vector<int> copies(inst.load.size(), 0);
  for (size_t i = 0; i < p.experts.size(); ++i) {
    const auto& held = p.experts[i];
    EXPECT_LE(static_cast<int>(held.size()), inst.hosts[i].capacity) << "rank " << i;
    EXPECT_EQ(std::set<int>(held.begin(), held.end()).size(), held.size())
        << "rank " << i << " holds a copy twice";
    for (int e : held)
      ++copies[static_cast<size_t>(e)];
  }
  for (size_t e = 0; e < copies.size(); ++e)
    EXPECT_GE(copies[e], 1) << "expert " << e;
  EXPECT_NEAR(p.makespan, placement_makespan(inst, p.experts), 1e-15);
}

TEST(expert_placement_test, uniform_load_on_equal_hosts_is_contiguous_and_optimal) {
  ExpertInstance inst = uniform(256, 8, std::vector<ExpertHost>(4, ExpertHost{1e-4, 5e-5, 100}));
  auto p = place_experts(inst);
  ASSERT_TRUE(p);
  expect_valid(inst, *p);
  for (int i = 0; i < 4; ++i) {
    std::vector<int> expected;
    for (int e = 64 * i; e < 64 * (i + 1); ++e)
      expected.push_back(e);
    EXPECT_EQ(p->experts[static_cast<size_t>(i)], expected);
  }
  // 1e-4 + 8 * (64/256) * 5e-5: a quarter of the routed work each.
  EXPECT_NEAR(p->makespan, 1e-4 + 8 * 0.25 * 5e-5, 1e-15);
  EXPECT_NEAR(p->lower_bound, p->makespan, 1e-15);
}

TEST(expert_placement_test, busiest_expert_is_copied_when_memory_allows) {
  ExpertInstance inst;
  inst.load = {0.6, 0.1, 0.1, 0.1, 0.1};
  inst.experts_per_token = 2;
  inst.hosts = std::vector<ExpertHost>(2, ExpertHost{0, 1e-4, 5});
  auto p = place_experts(inst);
  ASSERT_TRUE(p);
  expect_valid(inst, *p);
  // Without copies one rank runs expert 0 (0.6 of the load); with a copy on each rank both run
  // 0.3 of it and two of the others: 0.5 each.
  for (const auto& held : p->experts)
    EXPECT_NE(std::find(held.begin(), held.end(), 0), held.end());
  EXPECT_NEAR(p->makespan, 2 * 1e-4 * 0.5, 1e-15);
  EXPECT_NEAR(p->lower_bound, p->makespan, 1e-15);
  // Without room for a copy (one and four slots) expert 0 stays alone: 0.6.
  inst.hosts = {ExpertHost{0, 1e-4, 1}, ExpertHost{0, 1e-4, 4}};
  p = place_experts(inst);
  ASSERT_TRUE(p);
  expect_valid(inst, *p);
  EXPECT_EQ(p->experts[0], std::vector<int>{0});
  EXPECT_NEAR(p->makespan, 2 * 1e-4 * 0.6, 1e-15);
}

TEST(expert_placement_test, faster_ranks_take_more_experts) {
  // Rank 0 runs an expert in half the time of rank 1: it takes two thirds of the experts.
  ExpertInstance inst = uniform(96, 4, {ExpertHost{0, 1e-5, 96}, ExpertHost{0, 2e-5, 96}});
  auto p = place_experts(inst);
  ASSERT_TRUE(p);
  expect_valid(inst, *p);
  EXPECT_EQ(p->experts[0].size(), 64u);
  EXPECT_EQ(p->experts[1].size(), 32u);
}

TEST(expert_placement_test, too_little_room_for_every_expert_is_refused) {
  ExpertInstance inst = uniform(16, 2, {ExpertHost{0, 1e-5, 7}, ExpertHost{0, 1e-5, 8}});
  EXPECT_FALSE(place_experts(inst));
  EXPECT_FALSE(solve_expert_ilp(inst, nullptr, 5));
}

// Random small instances: unequal ranks, skewed loads, tight and loose memory.
ExpertInstance random_instance(std::mt19937& rng) {
  std::uniform_int_distribution<int> hosts(2, 3), experts(4, 8), k(1, 3);
  std::uniform_real_distribution<double> unit(0, 1);
  ExpertInstance inst;
  const int E = experts(rng);
  inst.experts_per_token = std::min(k(rng), E);
  const double skew = 2 * unit(rng);
  double total = 0;
  for (int e = 0; e < E; ++e) {
    inst.load.push_back(std::pow(1.0 + e, -skew) * (0.5 + unit(rng)));
    total += inst.load.back();
  }
  for (double& l : inst.load)
    l /= total;
  const int H = hosts(rng);
  int room = 0;
  for (int i = 0; i < H; ++i) {
    ExpertHost h;
    h.base_s = 1e-4 * unit(rng);
    h.expert_s = 1e-4 * (0.5 + unit(rng));
    h.capacity = 1 + static_cast<int>(unit(rng) * E);
    room += h.capacity;
    inst.hosts.push_back(h);
  }
  if (room < E) inst.hosts[0].capacity += E - room;
  return inst;
}

TEST(expert_placement_test, heuristic_matches_glpk_optimum_or_its_gap) {
  std::mt19937 rng(20260107);
  int equal = 0;
  const int cases = 60;
  for (int c = 0; c < cases; ++c) {
    ExpertInstance inst = random_instance(rng);
    auto heuristic = place_experts(inst);
    ASSERT_TRUE(heuristic) << "case " << c;
    expect_valid(inst, *heuristic);
    auto exact = solve_expert_ilp(inst, nullptr, 60);
    ASSERT_TRUE(exact) << "case " << c;
    ASSERT_TRUE(exact->optimal) << "case " << c << ": small instances solve to optimality";
    expect_valid(inst, exact->placement);
    const double opt = exact->placement.makespan;
    // The heuristic's bound is a true bound, so its reported gap covers the distance to the
    // optimum.
    EXPECT_LE(heuristic->lower_bound, opt * (1 + 1e-9)) << "case " << c;
    EXPECT_GE(heuristic->makespan, opt * (1 - 1e-9)) << "case " << c;
    const double gap = (heuristic->makespan - heuristic->lower_bound) / heuristic->lower_bound;
    EXPECT_LE(heuristic->makespan, opt * (1 + gap) * (1 + 1e-9)) << "case " << c;
    EXPECT_LE(heuristic->makespan, opt * 1.05) << "case " << c;
    equal += heuristic->makespan <= opt * (1 + 1e-9);
    // Given the heuristic as a start, the integer program never returns anything worse.
    auto polished = solve_expert_ilp(inst, &*heuristic, 60);
    ASSERT_TRUE(polished);
    EXPECT_NEAR(polished->placement.makespan, opt, opt * 1e-9) << "case " << c;
  }
  RecordProperty("heuristic_optimal", equal);
  EXPECT_GE(equal, cases / 2) << "the heuristic finds the optimum on most small instances";
}

TEST(expert_placement_test, ilp_refuses_instances_too_large) {
  ExpertInstance inst = uniform(1024, 8, std::vector<ExpertHost>(8, ExpertHost{0, 1e-5, 1024}));
  EXPECT_THROW(solve_expert_ilp(inst, nullptr, 1), Error);
}

}  // namespace
}  // namespace meshplan::expert_placement_test
