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

namespace meshplan::pipeline_solver_test {
namespace {

struct Instance {
  std::unique_ptr<ModelDesc> model;
  std::unique_ptr<PipelineCostModel> cost;
  PipelineConstraints constraints;
  std::string describe;
};

double uniform(std::mt19937_64& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}
int pick(std::mt19937_64& rng, int a, int b) {
  return std::uniform_int_distribution<int>(a, b)(rng);
}

// Random model, hosts and links; some hosts are exact copies of others (symmetry), some links
// are missing, memory is often tight, and some instances carry pins or host-count limits.
Instance random_instance(uint64_t seed, int max_hosts, int max_layers, bool constraints,
                         bool head_last = false) {
  std::mt19937_64 rng(seed);
  Instance in;
  in.model = std::make_unique<ModelDesc>();
  ModelDesc& m = *in.model;
  m.name = "random";
  m.hidden_size = pick(rng, 512, 8192);
  m.vocab_size = pick(rng, 1000, 150000);
  m.num_heads = 8;
  m.head_dim = 64;
  m.embedding_bytes = static_cast<uint64_t>(uniform(rng, 1e7, 2e9));
  m.head_bytes = pick(rng, 0, 1) ? static_cast<uint64_t>(uniform(rng, 1e7, 2e9)) : 0;
  m.tied_embeddings = m.head_bytes == 0;
  const int L = pick(rng, 2, max_layers);
  bool uniform_layers = pick(rng, 0, 2) == 0;
  double w0 = uniform(rng, 1e8, 5e9);
  for (int l = 0; l < L; ++l) {
    LayerInfo layer;
    layer.index = l;
    double w = uniform_layers ? w0 : uniform(rng, 1e8, 5e9);
    layer.weight_bytes = static_cast<uint64_t>(w);
    layer.read_bytes = static_cast<uint64_t>(w * (pick(rng, 0, 1) ? 1.0 : uniform(rng, 0.05, 1.0)));
    layer.flops = uniform(rng, 1e8, 5e11);
    layer.kv_bytes_per_token = static_cast<uint64_t>(uniform(rng, 0, 2e5));
    if (pick(rng, 0, 4) == 0) layer.sliding_window = pick(rng, 64, 4096);
    m.layers.push_back(layer);
  }
  const int64_t context = pick(rng, 1, 3) * 4096;
  double total = static_cast<double>(m.total_bytes()) + 1e5 * L * context;

  const int n = pick(rng, 1, max_hosts);
  std::vector<HostFigures> hosts;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && pick(rng, 0, 3) == 0) {  // a copy of an earlier host
      hosts.push_back(hosts[static_cast<size_t>(pick(rng, 0, i - 1))]);
      hosts.back().name = "h" + std::to_string(i);
      continue;
    }
    HostFigures h;
    h.name = "h" + std::to_string(i);
    h.bandwidth = uniform(rng, 5e10, 8e11);
    h.flops = uniform(rng, 5e12, 3e13);
    h.prefill_flops = 1.5 * h.flops;
    h.usable_bytes = total * uniform(rng, 0.15, 1.3);
    h.overhead_s = pick(rng, 0, 3) == 0 ? uniform(rng, 1e-4, 1e-3) : 0.5e-3;
    hosts.push_back(h);
  }
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      static_cast<size_t>(n), std::vector<std::optional<LinkFigures>>(static_cast<size_t>(n)));
  bool asymmetric = pick(rng, 0, 4) == 0;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (pick(rng, 0, 5) == 0) continue;  // no link
      LinkFigures l;
      l.name = "net";
      l.latency_s = uniform(rng, 5e-6, 4e-3);
      l.bandwidth = uniform(rng, 5e7, 8e9);
      l.network = 0;
      links[static_cast<size_t>(a)][static_cast<size_t>(b)] = l;
      if (asymmetric) l.latency_s = uniform(rng, 5e-6, 4e-3);
      links[static_cast<size_t>(b)][static_cast<size_t>(a)] = l;
    }
  }
  in.cost = std::make_unique<PipelineCostModel>(m, hosts, links, context, 128, 2, head_last);
  if (constraints) {
    int kind = pick(rng, 0, 3);
    if (kind == 1) in.constraints.min_hosts = pick(rng, 1, n);
    if (kind == 2) in.constraints.max_hosts = pick(rng, 1, n);
    if (kind == 3 && L >= 2) {
      int s = pick(rng, 0, L - 1);
      in.constraints.pins.push_back(
          {static_cast<size_t>(pick(rng, 0, n - 1)), s, pick(rng, s + 1, L)});
    }
  }
  in.describe = "seed " + std::to_string(seed) + ": " + std::to_string(n) + " hosts, " +
                std::to_string(L) + " layers";
  return in;
}

void expect_same_latency(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-9 * std::max(std::abs(a), std::abs(b))) << what;
}

TEST(pipeline_solver_test, optimal_equals_brute_force_on_random_instances) {
  int feasible = 0, multi_host = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Instance in = random_instance(seed, 5, 7, seed % 3 == 0);
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
    Instance in = random_instance(seed, 9, 40, seed % 2 == 0);
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
    Instance in = random_instance(seed, 24, 40, true, head_last);
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
    Instance in = random_instance(seed, 6, 9, false);
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
    Instance in = random_instance(seed, 4, 8, false);
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

TEST(pipeline_solver_test, identical_hosts_form_one_class) {
  Instance in = random_instance(7, 1, 6, false);
  HostFigures h = in.cost->host(0);
  std::vector<HostFigures> hosts(5, h);
  for (int i = 0; i < 5; ++i)
    hosts[static_cast<size_t>(i)].name = "h" + std::to_string(i);
  hosts[4].bandwidth *= 2;
  LinkFigures l;
  l.name = "tb5";
  l.latency_s = 50e-6;
  l.bandwidth = 6.5e9;
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      5, std::vector<std::optional<LinkFigures>>(5, l));
  PipelineCostModel cost(*in.model, hosts, links, 4096, 128, 2);
  SearchSpace space(cost, {});
  HostClasses c = host_classes(space);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.members[0], (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(c.subset_count(), 10);
  // A pinned host is never interchangeable.
  SearchSpace pinned(cost, PipelineConstraints{1, 0, {{1, 0, 1}}, {}});
  EXPECT_EQ(host_classes(pinned).size(), 3u);
}

TEST(pipeline_solver_test, classes_are_the_hosts_interchangeable_link_by_link) {
  // Hosts of two kinds on 10 GbE, some also on InfiniBand, a few Thunderbolt cables: hosts whose
  // links are equal whole are grouped from the media, the others compared link by link (two
  // cables of the same figures to a third host are the same link to it).
  std::mt19937_64 rng(23);
  for (int round = 0; round < 40; ++round) {
    Instance in = random_instance(100 + round, 1, 6, false);
    const size_t n = static_cast<size_t>(pick(rng, 4, 12));
    std::vector<HostFigures> hosts;
    for (size_t h = 0; h < n; ++h) {
      HostFigures f = in.cost->host(0);
      f.name = "h" + std::to_string(h);
      if (pick(rng, 0, 2) == 0) f.bandwidth *= 2;
      hosts.push_back(f);
    }
    auto link = [](const char* name, double latency, double bandwidth, int cable) {
      LinkFigures l;
      l.name = name;
      l.latency_s = latency;
      l.bandwidth = bandwidth;
      l.cable = cable;
      return l;
    };
    LinkMatrix links(n);
    const size_t ten = links.add_medium(link("10gbe", 50e-6, 1.25e9, -1), 2);
    const size_t ib = links.add_medium(link("ib", 5e-6, 50e9, -1), 1);
    for (size_t h = 0; h < n; ++h) {
      links.join(h, ten);
      if (pick(rng, 0, 2) == 0) links.join(h, ib);
    }
    for (int c = 0; c < pick(rng, 0, 3); ++c) {
      const size_t a = static_cast<size_t>(pick(rng, 0, static_cast<int>(n) - 1));
      const size_t b = static_cast<size_t>(pick(rng, 0, static_cast<int>(n) - 1));
      if (a == b) continue;
      links.set(a, b, link("tb5", 10e-6, 10e9, c));
      links.set(b, a, link("tb5", 10e-6, 10e9, c));
    }
    PipelineCostModel cost(*in.model, hosts, links, 4096, 128, 2);
    SearchSpace space(cost, {});
    // The definition, pair by pair: the same figures, hop times and links (by name, latency and
    // bandwidth) to each other and to every other host.
    auto same = [&](size_t a1, size_t b1, size_t a2, size_t b2) {
      const auto &l1 = cost.link(a1, b1), &l2 = cost.link(a2, b2);
      return space.hop(a1, b1) == space.hop(a2, b2) && l1.has_value() == l2.has_value() &&
             (!l1 || (l1->name == l2->name && l1->latency_s == l2->latency_s &&
                      l1->bandwidth == l2->bandwidth));
    };
    auto interchangeable = [&](size_t i, size_t j) {
      if (hosts[i].bandwidth != hosts[j].bandwidth || space.can_head(i) != space.can_head(j))
        return false;
      if (!same(i, j, j, i)) return false;
      for (size_t k = 0; k < n; ++k)
        if (k != i && k != j && (!same(i, k, j, k) || !same(k, i, k, j))) return false;
      return true;
    };
    const HostClasses c = host_classes(space);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        EXPECT_EQ(c.class_of[i] == c.class_of[j], interchangeable(i, j))
            << "round " << round << ": hosts " << i << " and " << j;
  }
}

TEST(pipeline_solver_test, equal_split_is_the_first_best_of_every_set_and_order) {
  // mlx-lm's equal split against trying every set of hosts (in the order of their masks) and
  // every order of it (rotations beyond six hosts), keeping the first best: the same hosts in
  // the same order, on instances where some hosts are copies of others and some links missing.
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    Instance in = random_instance(seed, 8, 12, false);
    const PipelineCostModel& cost = *in.cost;
    const size_t n = cost.num_hosts();
    const int L = cost.num_layers();
    double best = std::numeric_limits<double>::infinity();
    std::vector<size_t> best_order;
    auto try_order = [&](const std::vector<size_t>& order, int per) {
      PipelineAssignment a;
      a.order = order;
      for (size_t j = 0; j <= order.size(); ++j)
        a.cuts.push_back(static_cast<int>(j) * per);
      for (size_t j = 0; j < order.size(); ++j)
        if (cost.stage_memory(a.cuts[j], a.cuts[j + 1], true) > cost.host(order[j]).usable_bytes)
          return;
      const PipelineEvaluation e = cost.evaluate(a);
      if (e.feasible && e.token_latency_s < best) {
        best = e.token_latency_s;
        best_order = order;
      }
    };
    for (size_t k = 1; k <= n; ++k) {
      if (L % static_cast<int>(k) != 0) continue;
      std::vector<bool> pick(n, false);
      std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(k), true);
      do {
        std::vector<size_t> set;
        for (size_t i = 0; i < n; ++i)
          if (pick[i]) set.push_back(i);
        if (k <= 6) {
          do
            try_order(set, L / static_cast<int>(k));
          while (std::next_permutation(set.begin(), set.end()));
        } else {
          for (size_t r = 0; r < k; ++r) {
            try_order(set, L / static_cast<int>(k));
            std::rotate(set.begin(), set.begin() + 1, set.end());
          }
        }
      } while (std::prev_permutation(pick.begin(), pick.end()));
    }
    const EvenSplitResult got = best_even_split(cost, {});
    ASSERT_EQ(got.feasible, std::isfinite(best)) << in.describe;
    if (!got.feasible) continue;
    ++feasible;
    EXPECT_EQ(got.assignment.order, best_order) << in.describe;
    EXPECT_EQ(cost.evaluate(got.assignment).token_latency_s, best) << in.describe;
  }
  EXPECT_GT(feasible, 50);
}

TEST(pipeline_solver_test, lower_bound_meets_a_single_memory_bound_host) {
  // One host, every layer memory-bound: the plan is exactly the bound's bandwidth part plus one
  // overhead, when the LM head is memory-bound as well.
  Instance in = random_instance(11, 1, 6, false);
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
    Instance in = random_instance(seed, 5, 7, seed % 3 == 0, true);
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
    Instance in = random_instance(seed, 5, 6, false, true);
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
  Instance in = random_instance(21, 1, 6, false, true);
  HostFigures h = in.cost->host(0);
  h.usable_bytes = 1e13;
  LinkFigures l;
  l.name = "tb5";
  l.latency_s = 50e-6;
  l.bandwidth = 6.5e9;
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      2, std::vector<std::optional<LinkFigures>>(2, l));
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
