// LinkMatrix: a switch is one medium each host joins, a cable is a pair's own link, and the
// answers are the same whether the matrix keeps an index per pair (small clusters) or not
// (fleets beyond LinkMatrix::kDenseHosts hosts).
#include "solvers/problem/link_matrix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

namespace meshplan::link_matrix_test {
namespace {

LinkFigures link(const char* name, double latency_s, double bandwidth) {
  LinkFigures l;
  l.name = name;
  l.latency_s = l.tcp_latency_s = latency_s;
  l.bandwidth = l.tcp_bandwidth = bandwidth;
  return l;
}

const LinkFigures kTenGig = link("10gbe", 50e-6, 1.25e9);
const LinkFigures kIb = link("ib-ndr", 5e-6, 50e9);
const LinkFigures kTb5 = link("tb5", 10e-6, 10e9);
constexpr double kBytes = 16384;

std::string name_of(const LinkMatrix& m, size_t a, size_t b) {
  return m[a][b] ? m[a][b]->name : "none";
}

// Hosts 0-3 on 10 GbE, 2-5 also on InfiniBand, 0-1 cabled by Thunderbolt 5.
LinkMatrix small(size_t hosts) {
  LinkMatrix m(hosts);
  const size_t ten = m.add_medium(kTenGig, kTenGig.hop_time(kBytes));
  const size_t ib = m.add_medium(kIb, kIb.hop_time(kBytes));
  for (size_t h = 0; h < 4 && h < hosts; ++h)
    m.join(h, ten);
  for (size_t h = 2; h < 6 && h < hosts; ++h)
    m.join(h, ib);
  m.set(0, 1, kTb5);
  m.set(1, 0, kTb5);
  return m;
}

TEST(link_matrix_test, a_pair_uses_its_cable_else_the_fastest_network_both_are_on) {
  const LinkMatrix m = small(8);
  EXPECT_EQ(name_of(m, 0, 1), "tb5");
  EXPECT_EQ(name_of(m, 1, 0), "tb5");
  EXPECT_EQ(name_of(m, 0, 3), "10gbe");
  EXPECT_EQ(name_of(m, 2, 3), "ib-ndr");  // on both: the faster
  EXPECT_EQ(name_of(m, 4, 5), "ib-ndr");
  EXPECT_EQ(name_of(m, 0, 5), "none");  // no network in common
  EXPECT_EQ(name_of(m, 6, 7), "none");
  EXPECT_EQ(name_of(m, 3, 3), "none");
}

TEST(link_matrix_test, a_switch_costs_an_entry_per_host_not_per_pair) {
  LinkMatrix m(4096);
  const size_t ten = m.add_medium(kTenGig, 1);
  for (size_t h = 0; h < 4096; ++h)
    m.join(h, ten);
  EXPECT_EQ(m.stored_links(), 4096u);
  EXPECT_EQ(name_of(m, 17, 4000), "10gbe");
}

TEST(link_matrix_test, cutting_a_host_removes_every_link_touching_it) {
  LinkMatrix m = small(8);
  m.cut(1);
  EXPECT_EQ(name_of(m, 0, 1), "none");
  EXPECT_EQ(name_of(m, 1, 3), "none");
  EXPECT_EQ(name_of(m, 0, 3), "10gbe");
}

TEST(link_matrix_test, added_latency_reaches_cables_and_networks) {
  LinkMatrix m = small(8);
  m.add_latency(1e-3);
  EXPECT_DOUBLE_EQ(m[0][1]->latency_s, kTb5.latency_s + 1e-3);
  EXPECT_DOUBLE_EQ(m[0][3]->tcp_latency_s, kTenGig.tcp_latency_s + 1e-3);
}

TEST(link_matrix_test, a_subset_keeps_the_links_of_the_hosts_it_names_in_its_order) {
  const LinkMatrix m = small(8);
  const LinkMatrix s = m.subset({5, 1, 0, 2});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(name_of(s, 1, 2), "tb5");     // 1 -> 0
  EXPECT_EQ(name_of(s, 0, 3), "ib-ndr");  // 5 -> 2
  EXPECT_EQ(name_of(s, 2, 3), "10gbe");   // 0 -> 2
  EXPECT_EQ(name_of(s, 0, 1), "none");    // 5 -> 1
}

TEST(link_matrix_test, groups_get_the_fastest_link_between_any_two_of_their_members) {
  const LinkMatrix m = small(8);
  auto rank = [](const LinkFigures& l) { return l.hop_time(kBytes); };
  const LinkMatrix g = m.grouped({{0, 6}, {1, 7}, {3, 4}}, rank);
  EXPECT_EQ(name_of(g, 0, 1), "tb5");    // the cable 0-1
  EXPECT_EQ(name_of(g, 0, 2), "10gbe");  // 0-3
  EXPECT_EQ(name_of(g, 1, 2), "10gbe");  // 1-3
  const LinkMatrix h = m.grouped({{0}, {2}, {5}}, rank);
  EXPECT_EQ(name_of(h, 1, 2), "ib-ndr");
  EXPECT_EQ(name_of(h, 0, 2), "none");
}

// Every question asked of a matrix above the dense size answered as a small one answers it:
// random networks and cables on 300 hosts, against the same built pair by pair.
TEST(link_matrix_test, without_an_index_per_pair_the_answers_are_the_same) {
  std::mt19937 rng(7);
  const size_t n = LinkMatrix::kDenseHosts + 44;
  LinkMatrix big(n);
  std::vector<std::vector<std::optional<LinkFigures>>> pairs(
      n, std::vector<std::optional<LinkFigures>>(n));
  const LinkFigures nets[] = {kTenGig, kIb, link("1gbe", 100e-6, 0.125e9)};
  std::vector<std::vector<int>> on(n);
  for (int k = 0; k < 3; ++k) {
    const size_t id = big.add_medium(nets[k], nets[k].hop_time(kBytes));
    for (size_t h = 0; h < n; ++h)
      if (rng() % 3 != 0) {
        big.join(h, id);
        on[h].push_back(k);
      }
  }
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      for (int k : on[a])
        if (a != b && std::find(on[b].begin(), on[b].end(), k) != on[b].end() &&
            (!pairs[a][b] || nets[k].hop_time(kBytes) < pairs[a][b]->hop_time(kBytes)))
          pairs[a][b] = nets[k];
  for (int c = 0; c < 200; ++c) {
    const size_t a = rng() % n, b = rng() % n;
    if (a == b) continue;
    big.set(a, b, kTb5);
    pairs[a][b] = kTb5;
  }
  const LinkMatrix dense(pairs);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      ASSERT_EQ(name_of(big, a, b), name_of(dense, a, b)) << a << " -> " << b;
  // A subset small enough for the index answers as the large one does, figure for figure (it
  // keeps only the links its hosts use, numbered afresh).
  std::vector<size_t> members;
  for (size_t h = 0; h < n; h += 2)
    members.push_back(h);
  const LinkMatrix sub = big.subset(members);
  for (size_t a = 0; a < members.size(); ++a)
    for (size_t b = 0; b < members.size(); ++b)
      ASSERT_EQ(sub.at(a, b), big.at(members[a], members[b])) << a << " -> " << b;
  EXPECT_LT(sub.stored_links(), big.stored_links());
}

}  // namespace
}  // namespace meshplan::link_matrix_test

namespace meshplan::link_matrix_test {
namespace {

// Hosts on random sets of three networks, some cut, some pairs cabled (one way or both, some
// cables equal to a network, some set to no link), small or beyond the index per pair.
LinkMatrix random_matrix(std::mt19937& rng, size_t n) {
  LinkMatrix m(n);
  const LinkFigures nets[] = {kTenGig, kIb, link("1gbe", 100e-6, 0.125e9)};
  for (const LinkFigures& net : nets) {
    const size_t id = m.add_medium(net, net.hop_time(kBytes));
    for (size_t h = 0; h < n; ++h)
      if (rng() % 4 != 0) m.join(h, id);
  }
  for (size_t c = 0; c < n / 2; ++c) {
    const size_t a = rng() % n, b = rng() % n;
    if (a == b) continue;
    const unsigned kind = rng() % 4;
    const std::optional<LinkFigures> l = kind == 0   ? std::optional<LinkFigures>(kTb5)
                                         : kind == 1 ? std::optional<LinkFigures>(kTenGig)
                                         : kind == 2 ? std::optional<LinkFigures>(kIb)
                                                     : std::nullopt;
    m.set(a, b, l);
    if (rng() % 2) m.set(b, a, l);
  }
  for (size_t h = 0; h < n; ++h)
    if (rng() % 10 == 0) m.cut(h);
  return m;
}

// Swapping a and b changes no link, asked of every other host.
bool swappable_by_every_pair(const LinkMatrix& m, size_t a, size_t b) {
  if (m.at(a, b) != m.at(b, a)) return false;
  for (size_t k = 0; k < m.size(); ++k)
    if (k != a && k != b && (m.at(a, k) != m.at(b, k) || m.at(k, a) != m.at(k, b))) return false;
  return true;
}

// Read from the structure, the answers are those of comparing every host; the matrices are small
// so that many pairs are swappable, and one is beyond the index per pair.
TEST(link_matrix_test, swappable_hosts_are_those_every_other_host_sees_alike) {
  std::mt19937 rng(11);
  int swappable = 0, compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const size_t n = trial == 0 ? LinkMatrix::kDenseHosts + 20 : 4 + rng() % 10;
    const LinkMatrix m = random_matrix(rng, n);
    const LinkMatrix::Partners partners = m.own_partners();
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) {
        if (trial == 0 && (a % 7 != 0 || b % 5 != 0)) continue;  // a sample of the large one
        const bool expected = swappable_by_every_pair(m, a, b);
        ASSERT_EQ(m.swappable(a, b, partners), expected)
            << "trial " << trial << ": " << a << ", " << b;
        swappable += expected && a != b;
        ++compared;
      }
  }
  EXPECT_GT(swappable, compared / 20);  // the check is not only ever false
}

// Every distinct link from (into) a host, none among them when some host has no link with it.
TEST(link_matrix_test, distinct_links_are_the_set_of_links_to_every_other_host) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t n = trial == 0 ? LinkMatrix::kDenseHosts + 20 : 2 + rng() % 12;
    const LinkMatrix m = random_matrix(rng, n);
    double least = std::numeric_limits<double>::infinity();
    for (bool into : {false, true}) {
      const auto got = m.distinct_links(into);
      ASSERT_EQ(got.size(), n);
      for (size_t a = 0; a < n; ++a) {
        std::vector<std::optional<LinkFigures>> expected;
        for (size_t k = 0; k < n; ++k) {
          if (k == a) continue;
          const std::optional<LinkFigures>& l = into ? m.at(k, a) : m.at(a, k);
          if (l) least = std::min(least, l->latency_s);
          if (std::find(expected.begin(), expected.end(), l) == expected.end())
            expected.push_back(l);
        }
        ASSERT_EQ(got[a].size(), expected.size()) << "trial " << trial << " host " << a;
        for (const auto& l : expected)
          EXPECT_NE(std::find(got[a].begin(), got[a].end(), l), got[a].end())
              << "trial " << trial << " host " << a << ": " << (l ? l->name : "none");
      }
    }
    EXPECT_LE(m.least_latency(), least);
  }
}

// What is derived from the links once is shared by the copies still alike; a copy changed after
// it (a cable, a cut) derives its own, and the original keeps its answers.
TEST(link_matrix_test, a_changed_copy_derives_its_links_again) {
  const LinkMatrix m = small(6);
  EXPECT_EQ(m.own_partners()[0], std::vector<uint32_t>{1});
  ASSERT_EQ(m.distinct_links(false)[4].size(), 2u);  // InfiniBand to 2, 3, 5; none to 0, 1
  LinkMatrix cabled = m;
  cabled.set(4, 5, kTb5);
  cabled.set(5, 4, kTb5);
  EXPECT_EQ(cabled.own_partners()[4], std::vector<uint32_t>{5});
  EXPECT_EQ(cabled.distinct_links(false)[4].size(), 3u);
  EXPECT_TRUE(m.own_partners()[4].empty());
  EXPECT_EQ(m.distinct_links(false)[4].size(), 2u);
  LinkMatrix cut = m;
  cut.cut(1);
  EXPECT_TRUE(cut.own_partners()[0].empty());
  EXPECT_EQ(m.own_partners()[0], std::vector<uint32_t>{1});
}

}  // namespace
}  // namespace meshplan::link_matrix_test
