#include "solvers/problem/allreduce_paths.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <set>

#include "lib/core/error.hpp"

namespace meshplan::allreduce_paths_test {
namespace {

LinkFigures link(const std::string& name, double latency, double bandwidth, bool rdma,
                 int network = -1) {
  LinkFigures l;
  l.name = name;
  l.latency_s = latency;
  l.bandwidth = bandwidth;
  l.rdma = rdma;
  l.thunderbolt = network < 0;
  l.network = network;
  return l;
}

const LinkFigures kRdma = link("tb5-rdma", 50e-6, 6.5e9, true);
const LinkFigures kTbTcp = link("tb5", 300e-6, 4e9, false);
const LinkFigures kTenGig = link("10gbe", 150e-6, 1.15e9, false, 0);

PlanInputs hosts(size_t n) {
  PlanInputs in;
  for (size_t i = 0; i < n; ++i) {
    HostFigures h;
    h.name = "h" + std::to_string(i);
    in.hosts.push_back(h);
  }
  in.rdma = in.tcp = in.network = LinkMatrix(n);
  in.message_bytes = 8192;
  in.min_hosts = 1;
  in.max_hosts = static_cast<int>(n);
  return in;
}

// An RDMA cable between a and b: JACCL uses it as RDMA, the MLX ring as Thunderbolt TCP.
void cable(PlanInputs& in, size_t a, size_t b, const LinkFigures& rdma = kRdma) {
  in.rdma.set(a, b, rdma);
  in.rdma.set(b, a, rdma);
  in.tcp.set(a, b, kTbTcp);
  in.tcp.set(b, a, kTbTcp);
}

void network(PlanInputs& in) {
  for (size_t a = 0; a < in.size(); ++a)
    for (size_t b = 0; b < in.size(); ++b)
      if (a != b) {
        in.network.set(a, b, kTenGig);
        if (!in.tcp[a][b] ||
            kTenGig.hop_time(in.message_bytes) < in.tcp[a][b]->hop_time(in.message_bytes))
          in.tcp.set(a, b, kTenGig);
      }
}

const CollectivePath* find(const std::vector<CollectivePath>& options, CollectiveKind kind) {
  for (const auto& o : options)
    if (o.kind == kind) return &o;
  return nullptr;
}

// Every consecutive pair of the order (and last to first) is linked in `links`.
bool is_cycle(const std::vector<size_t>& order, const LinkMatrix& links) {
  for (size_t r = 0; r < order.size(); ++r)
    if (!links[order[r]][order[(r + 1) % order.size()]]) return false;
  return std::set<size_t>(order.begin(), order.end()).size() == order.size();
}

TEST(allreduce_paths_test, all_reduce_times_follow_spec_formulas) {
  CollectivePath mesh;
  mesh.kind = CollectiveKind::kJacclMesh;
  mesh.order = {0, 1, 2, 3};
  mesh.worst = kRdma;
  mesh.peer_s = 14e-6;
  // Mesh: one exchange with every peer, lambda + (p-1) peer + 2 bytes (p-1) / (p beta).
  EXPECT_NEAR(mesh.allreduce_s(8192), 50e-6 + 3 * 14e-6 + 2 * 8192.0 * 3 / (4 * 6.5e9), 1e-15);
  // Expert exchange on a mesh: two exchanges, 2 (lambda + (p-1) peer + 2h / beta).
  EXPECT_NEAR(mesh.expert_exchange_s(8192), 2 * (50e-6 + 3 * 14e-6 + 8192.0 / 6.5e9), 1e-15);
  CollectivePath ring = mesh;
  ring.kind = CollectiveKind::kTcpRing;
  ring.worst = kTbTcp;
  ring.peer_s = 0;
  // Ring: 2 (p-1) (lambda + bytes / (p beta)); the expert exchange is the same ring all-reduce.
  EXPECT_NEAR(ring.allreduce_s(8192), 2 * 3 * (300e-6 + 8192.0 / (4 * 4e9)), 1e-15);
  EXPECT_NEAR(ring.expert_exchange_s(8192), ring.allreduce_s(8192), 1e-15);
  // JACCL's ring: each of the 2 (p-1) steps also pays its 1/p of a mesh peer.
  CollectivePath jaccl_ring = mesh;
  jaccl_ring.kind = CollectiveKind::kJacclRing;
  EXPECT_NEAR(jaccl_ring.allreduce_s(8192), 2 * 3 * (50e-6 + 14e-6 / 4 + 8192.0 / (4 * 6.5e9)),
              1e-15);
  CollectivePath single;
  single.order = {0};
  EXPECT_EQ(single.allreduce_s(8192), 0);
  EXPECT_EQ(single.expert_exchange_s(8192), 0);
}

TEST(allreduce_paths_test, rdma_full_mesh_offers_mesh_and_rings) {
  PlanInputs in = hosts(4);
  for (size_t a = 0; a < 4; ++a)
    for (size_t b = a + 1; b < 4; ++b)
      cable(in, a, b);
  CollectivePaths paths(in, "auto");
  auto options = paths.options({0, 1, 2, 3});
  const CollectivePath* mesh = find(options, CollectiveKind::kJacclMesh);
  ASSERT_NE(mesh, nullptr);
  EXPECT_EQ(mesh->backend, "jaccl");
  EXPECT_EQ(mesh->worst->name, "tb5-rdma");
  const CollectivePath* ring = find(options, CollectiveKind::kJacclRing);
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->backend, "jaccl-ring");
  EXPECT_TRUE(is_cycle(ring->order, in.rdma));
  const CollectivePath* tcp = find(options, CollectiveKind::kTcpRing);
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(tcp->backend, "ring");
  EXPECT_EQ(tcp->worst->name, "tb5");
  // The backend limits the kinds.
  CollectivePaths jaccl(in, "jaccl");
  auto only = jaccl.options({0, 1, 2, 3});
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].kind, CollectiveKind::kJacclMesh);
  CollectivePaths ethernet(in, "ethernet");
  EXPECT_TRUE(ethernet.options({0, 1, 2, 3}).empty()) << "no network in this cluster";
  EXPECT_THROW(CollectivePaths(in, "nccl"), Error);
}

TEST(allreduce_paths_test, ring_of_cables_has_no_mesh_and_a_chain_has_no_ring) {
  PlanInputs in = hosts(4);
  cable(in, 0, 2);
  cable(in, 2, 1);
  cable(in, 1, 3);
  CollectivePaths chain(in, "auto");
  EXPECT_TRUE(chain.options({0, 1, 2, 3}).empty());
  std::string why = chain.why_none({0, 1, 2, 3});
  EXPECT_NE(why.find("no all-reduce path for h0, h1, h2, h3"), std::string::npos) << why;
  EXPECT_NE(why.find("h0 and h1 have no RDMA cable"), std::string::npos) << why;
  EXPECT_NE(why.find("no cycle"), std::string::npos) << why;
  // Two hosts joined by one cable all-reduce over it.
  EXPECT_FALSE(chain.options({0, 2}).empty());
  EXPECT_TRUE(chain.options({0, 1}).empty());

  cable(in, 3, 0);  // closes the ring 0-2-1-3-0
  CollectivePaths ring(in, "auto");
  auto options = ring.options({0, 1, 2, 3});
  EXPECT_EQ(find(options, CollectiveKind::kJacclMesh), nullptr);
  const CollectivePath* r = find(options, CollectiveKind::kJacclRing);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(is_cycle(r->order, in.rdma));
  EXPECT_EQ(r->order.front(), 0u) << "rank 0 is the first candidate of the group";
  // A three-host subset of a four-ring has no cycle.
  EXPECT_TRUE(ring.options({0, 1, 2}).empty());
}

TEST(allreduce_paths_test, ring_avoids_the_slow_link_when_it_can) {
  // Five hosts, every pair cabled, but one cable is slow (an override): the best ring's worst
  // link is a fast one, while a mesh must use every pair.
  PlanInputs in = hosts(5);
  for (size_t a = 0; a < 5; ++a)
    for (size_t b = a + 1; b < 5; ++b)
      cable(in, a, b);
  LinkFigures slow = kRdma;
  slow.latency_s = 400e-6;
  cable(in, 0, 1, slow);
  CollectivePaths paths(in, "auto");
  auto options = paths.options({0, 1, 2, 3, 4});
  const CollectivePath* ring = find(options, CollectiveKind::kJacclRing);
  const CollectivePath* mesh = find(options, CollectiveKind::kJacclMesh);
  ASSERT_NE(ring, nullptr);
  ASSERT_NE(mesh, nullptr);
  EXPECT_DOUBLE_EQ(ring->worst->latency_s, 50e-6);
  EXPECT_DOUBLE_EQ(mesh->worst->latency_s, 400e-6);
}

TEST(allreduce_paths_test, shared_network_rings_any_group) {
  PlanInputs in = hosts(3);
  network(in);
  CollectivePaths paths(in, "auto");
  auto options = paths.options({0, 1, 2});
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].kind, CollectiveKind::kTcpRing);
  EXPECT_EQ(options[0].backend, "ethernet");
  EXPECT_EQ(options[0].worst->name, "10gbe");
}

TEST(allreduce_paths_test, hosts_on_one_switch_ring_as_the_exact_table_rings_them) {
  // Ten hosts on a switch, the last two also joined by another link: the TCP links differ, so the
  // exact table is built, and a group of switch hosts alone is a group of ties in it. Eight hosts
  // on the switch alone tie everywhere and skip the table; the same group must ring in the same
  // order.
  PlanInputs mixed = hosts(10);
  network(mixed);
  mixed.tcp.set(8, 9, kTbTcp);
  mixed.tcp.set(9, 8, kTbTcp);
  PlanInputs plain = hosts(8);
  network(plain);
  CollectivePaths table(mixed, "auto"), ties(plain, "auto");
  for (const std::vector<size_t>& group : std::vector<std::vector<size_t>>{
           {0, 1, 2}, {1, 3, 4, 6}, {0, 2, 3, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}) {
    auto a = table.options(group), b = ties.options(group);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(a[0].order, b[0].order) << fmt::format("{}", fmt::join(group, " "));
    EXPECT_EQ(b[0].order.front(), group.front());
  }
}

TEST(allreduce_paths_test, large_clusters_search_for_a_ring) {
  // 20 hosts cabled in one big ring in a shuffled order (beyond the exact table): the search
  // finds it.
  const size_t n = 20;
  PlanInputs in = hosts(n);
  for (size_t i = 0; i < n; ++i)
    cable(in, i * 7 % n, (i + 1) * 7 % n);
  CollectivePaths paths(in, "jaccl-ring");
  std::vector<size_t> all;
  for (size_t i = 0; i < n; ++i)
    all.push_back(i);
  auto options = paths.options(all);
  ASSERT_EQ(options.size(), 1u);
  EXPECT_TRUE(is_cycle(options[0].order, in.rdma));
  EXPECT_EQ(options[0].order.size(), n);
  all.pop_back();
  EXPECT_TRUE(paths.options(all).empty());
}

}  // namespace
}  // namespace meshplan::allreduce_paths_test
