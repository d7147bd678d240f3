// Deciding whether a ring through all hosts exists, on seeded 64-host sparse cable graphs (each
// host 3-6 cables), with and without a ring, and on the 9-host full mesh that takes
// mlx.distributed_config's cycle enumeration 2.3 s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <set>

#include "topologies/ring_search.hpp"

namespace meshplan {
namespace {

constexpr size_t kHosts = 64;

// Adds random cables until every host has its target of 3-6, then tops up any host left below 3
// with partners that still have room (side: cables only between hosts of different sides).
void fill_random(std::vector<std::set<size_t>>& s, std::mt19937& rng,
                 const std::vector<char>* side = nullptr) {
  const size_t n = s.size();
  std::uniform_int_distribution<int> target(3, 6);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<size_t> want(n);
  for (auto& w : want)
    w = static_cast<size_t>(target(rng));
  auto allowed = [&](size_t a, size_t b) {
    return a != b && !s[a].count(b) && (!side || (*side)[a] != (*side)[b]);
  };
  for (size_t it = 0; it < 200 * n; ++it) {
    size_t a = pick(rng), b = pick(rng);
    if (!allowed(a, b) || s[a].size() >= want[a] || s[b].size() >= want[b]) continue;
    s[a].insert(b);
    s[b].insert(a);
  }
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n && s[a].size() < 3; ++b)
      if (allowed(a, b) && s[b].size() < 6) {
        s[a].insert(b);
        s[b].insert(a);
      }
}

Adjacency to_adjacency(const std::vector<std::set<size_t>>& s) {
  Adjacency g(s.size());
  for (size_t v = 0; v < s.size(); ++v)
    g[v].assign(s[v].begin(), s[v].end());
  return g;
}

// A ring hidden under random extra cables.
Adjacency hamiltonian(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<size_t> perm(kHosts);
  for (size_t i = 0; i < kHosts; ++i)
    perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<std::set<size_t>> s(kHosts);
  for (size_t i = 0; i < kHosts; ++i) {
    s[perm[i]].insert(perm[(i + 1) % kHosts]);
    s[perm[(i + 1) % kHosts]].insert(perm[i]);
  }
  fill_random(s, rng);
  return to_adjacency(s);
}

// No ring: every cable runs between two groups of 30 and 34 hosts (two tiers of a fabric).
Adjacency unbalanced_tiers(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<char> side(kHosts, 0);
  for (size_t i = 30; i < kHosts; ++i)
    side[i] = 1;
  std::vector<std::set<size_t>> s(kHosts);
  fill_random(s, rng, &side);
  return to_adjacency(s);
}

// No ring: two racks of 32 joined only through one host.
Adjacency two_racks(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::set<size_t>> a(32), b(33);
  fill_random(a, rng);
  fill_random(b, rng);
  std::vector<std::set<size_t>> s(kHosts);
  for (size_t v = 0; v < 32; ++v)
    for (size_t u : a[v])
      s[v].insert(u);
  for (size_t v = 0; v < 33; ++v)
    for (size_t u : b[v])
      s[v + 31].insert(u + 31);  // host 31 is in both racks
  return to_adjacency(s);
}

// No ring: four groups (15, 15, 15 and 16 hosts) hanging off the same three hosts.
Adjacency four_groups(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::set<size_t>> s(kHosts);
  size_t base = 3;
  for (size_t g = 0; g < 4; ++g) {
    size_t size = g == 3 ? 16 : 15;
    std::vector<std::set<size_t>> part(size);
    fill_random(part, rng);
    for (size_t v = 0; v < size; ++v) {
      for (size_t u : part[v])
        s[base + v].insert(base + u);
      if (v < 3) {
        s[base + v].insert(v);
        s[v].insert(base + v);
      }
    }
    base += size;
  }
  return to_adjacency(s);
}

// The generalized Petersen graph GP(n, 2): 2n hosts with 3 cables each; it has a ring exactly
// when n is not 5 mod 6. No small obstruction shows when it has none, so the search must prove it.
Adjacency petersen(size_t n) {
  Adjacency g(2 * n);
  auto cable = [&](size_t a, size_t b) {
    g[a].push_back(b);
    g[b].push_back(a);
  };
  for (size_t i = 0; i < n; ++i) {
    cable(i, (i + 1) % n);
    cable(i, n + i);
    cable(n + i, n + (i + 2) % n);
  }
  return g;
}

Adjacency full_mesh(size_t n) {
  Adjacency g(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (a != b) g[a].push_back(b);
  return g;
}

void run(benchmark::State& state, const Adjacency& g, bool expect_ring) {
  RingSearchStats stats;
  for (auto _ : state) {
    auto ring = find_ring(g, &stats);
    if (ring.has_value() != expect_ring) state.SkipWithError("wrong answer");
    benchmark::DoNotOptimize(ring);
  }
  state.counters["nodes"] = static_cast<double>(stats.nodes);
  state.SetLabel(stats.decided_by);
}

void BM_ring_64_hamiltonian(benchmark::State& state) {
  run(state, hamiltonian(static_cast<unsigned>(state.range(0))), true);
}
void BM_ring_64_unbalanced_tiers(benchmark::State& state) {
  run(state, unbalanced_tiers(static_cast<unsigned>(state.range(0))), false);
}
void BM_ring_64_two_racks(benchmark::State& state) {
  run(state, two_racks(static_cast<unsigned>(state.range(0))), false);
}
void BM_ring_64_four_groups(benchmark::State& state) {
  run(state, four_groups(static_cast<unsigned>(state.range(0))), false);
}
void BM_ring_full_mesh_9(benchmark::State& state) {
  run(state, full_mesh(9), true);
}
void BM_ring_petersen(benchmark::State& state) {
  size_t n = static_cast<size_t>(state.range(0));
  run(state, petersen(n), n % 6 != 5);
}

BENCHMARK(BM_ring_64_hamiltonian)->DenseRange(1, 5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ring_64_unbalanced_tiers)->DenseRange(1, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ring_64_two_racks)->DenseRange(1, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ring_64_four_groups)->DenseRange(1, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ring_petersen)->Arg(32)->Arg(17)->Arg(23)->Arg(29)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ring_full_mesh_9)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace meshplan
