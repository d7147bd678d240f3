// The fewest cables to add for a ring must be the true minimum (checked against every ring
// order) within each host's free ports, and suggested ports are never handed out twice.
#include "topologies/cabling_advice.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "lib/cluster/catalog.hpp"

namespace meshplan::cabling_advice_test {
namespace {

// Hosts h0..h{n-1} with `ports[i]` Thunderbolt 5 ports each, cabled as listed (lowest free ports).
Cluster make_cluster(const std::vector<int>& ports,
                     const std::vector<std::pair<size_t, size_t>>& cables) {
  Cluster c;
  for (size_t i = 0; i < ports.size(); ++i) {
    Host h;
    h.name = fmt::format("h{}", i);
    for (int p = 1; p <= ports[i]; ++p) {
      ThunderboltPort port;
      port.id = std::to_string(p);
      port.generation = 5;
      port.interface = "en" + std::to_string(p + 1);
      h.ports.push_back(port);
    }
    c.hosts.push_back(h);
  }
  std::vector<int> used(ports.size(), 0);
  for (auto [a, b] : cables) {
    Cable cable;
    cable.a = {c.hosts[a].name, std::to_string(++used[a])};
    cable.b = {c.hosts[b].name, std::to_string(++used[b])};
    cable.kind = LinkKind::kTb5;
    cable.rdma = true;
    c.cables.push_back(cable);
  }
  return c;
}

// Every ring order through all hosts: the fewest new cables that fit the free ports, or -1.
int brute_force(const Cluster& c, const std::vector<std::set<size_t>>& adj,
                const std::vector<int>& free) {
  const size_t n = c.hosts.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  int best = -1;
  do {
    std::vector<int> added(n, 0);
    int cost = 0;
    for (size_t k = 0; k < n; ++k) {
      size_t a = order[k], b = order[(k + 1) % n];
      if (adj[a].count(b)) continue;
      ++cost;
      ++added[a];
      ++added[b];
    }
    bool fits = true;
    for (size_t i = 0; i < n; ++i)
      fits = fits && added[i] <= free[i];
    if (fits && (best < 0 || cost < best)) best = cost;
  } while (std::next_permutation(order.begin() + 1, order.end()));
  return best;
}

TEST(cabling_advice_test, fewest_cables_match_exhaustive_search) {
  std::mt19937 rng(11);
  const Catalog& catalog = Catalog::builtin();
  for (int trial = 0; trial < 300; ++trial) {
    size_t n = 3 + trial % 5;
    std::vector<int> ports(n);
    for (auto& p : ports)
      p = 1 + static_cast<int>(rng() % 4);
    std::vector<int> used(n, 0);
    std::vector<std::pair<size_t, size_t>> cables;
    std::vector<std::set<size_t>> adj(n);
    for (int k = 0; k < static_cast<int>(n) * 2; ++k) {
      size_t a = rng() % n, b = rng() % n;
      if (a == b || used[a] >= ports[a] || used[b] >= ports[b]) continue;
      ++used[a];
      ++used[b];
      cables.emplace_back(a, b);
      adj[a].insert(b);
      adj[b].insert(a);
    }
    Cluster c = make_cluster(ports, cables);
    LinkGraph graph(c, catalog);
    TbFabric fabric(c, graph);
    std::vector<size_t> members(n);
    for (size_t i = 0; i < n; ++i)
      members[i] = i;
    std::vector<int> free(n);
    for (size_t i = 0; i < n; ++i)
      free[i] = ports[i] - used[i];
    int expected = brute_force(c, adj, free);
    RingAdvice advice = fewest_cables_for_ring(fabric, members, true);
    ASSERT_EQ(advice.possible, expected >= 0) << "trial " << trial;
    EXPECT_TRUE(advice.exact);
    if (expected < 0) continue;
    EXPECT_EQ(static_cast<int>(advice.new_pairs.size()), expected) << "trial " << trial;
    // The advice's ring uses only existing cables and the new pairs, within the free ports.
    std::set<std::pair<size_t, size_t>> fresh(advice.new_pairs.begin(), advice.new_pairs.end());
    std::vector<int> added(n, 0);
    for (size_t k = 0; k < n; ++k) {
      size_t a = advice.order[k], b = advice.order[(k + 1) % n];
      bool ok = adj[a].count(b) || fresh.count({std::min(a, b), std::max(a, b)});
      EXPECT_TRUE(ok) << "trial " << trial;
      if (!adj[a].count(b)) ++added[a], ++added[b];
    }
    for (size_t i = 0; i < n; ++i)
      EXPECT_LE(added[i], free[i]) << "trial " << trial;
  }
}

TEST(cabling_advice_test, ports_are_handed_out_once_lowest_first) {
  Cluster c = make_cluster({3, 3}, {{0, 1}});
  LinkGraph graph(c, Catalog::builtin());
  TbFabric fabric(c, graph);
  PortAllocator ports(fabric, true);
  EXPECT_EQ(ports.remaining(0), 2u);
  CablePlug p = ports.take(0);
  EXPECT_EQ(p.port, "2");
  EXPECT_EQ(p.interface, "en3");
  EXPECT_EQ(ports.take(0).port, "3");
  EXPECT_EQ(ports.take(0).port, "");  // none left
  CableToAdd add = new_cable(fabric, ports, 1, 0, true);
  EXPECT_EQ(add.describe(),
            "connect h1 port 2 (en3) to h0 with a Thunderbolt 5 cable (h0 has no free Thunderbolt "
            "5 port: unplug a "
            "cable that is not needed)");
}

}  // namespace
}  // namespace meshplan::cabling_advice_test
