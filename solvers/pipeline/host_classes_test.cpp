// Classes of interchangeable hosts (host_classes.hpp): identical hosts are one class, a pinned
// host its own, and on links of several media the classes are exactly the hosts that are
// interchangeable link by link.
#include "solvers/pipeline/host_classes.hpp"

#include <gtest/gtest.h>

#include <random>

#include "solvers/problem/link_matrix.hpp"
#include "tests/random_pipeline.hpp"

namespace meshplan::host_classes_test {
namespace {

using testing::pick;
using testing::random_pipeline;
using testing::RandomPipeline;

TEST(host_classes_test, identical_hosts_form_one_class) {
  const RandomPipeline in = random_pipeline(7, 1, 6, false);
  HostFigures h = in.cost->host(0);
  std::vector<HostFigures> hosts(5, h);
  for (int i = 0; i < 5; ++i)
    hosts[static_cast<size_t>(i)].name = "h" + std::to_string(i);
  hosts[4].bandwidth *= 2;
  const auto links = testing::tb5_links(5);
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

TEST(host_classes_test, classes_are_the_hosts_interchangeable_link_by_link) {
  // Hosts of two kinds on 10 GbE, some also on InfiniBand, a few Thunderbolt cables: hosts whose
  // links are equal whole are grouped from the media, the others compared link by link (two
  // cables of the same figures to a third host are the same link to it).
  std::mt19937_64 rng(23);
  for (int round = 0; round < 40; ++round) {
    const RandomPipeline in = random_pipeline(100 + round, 1, 6, false);
    const size_t n = static_cast<size_t>(pick(rng, 4, 12));
    std::vector<HostFigures> hosts;
    for (size_t h = 0; h < n; ++h) {
      HostFigures f = in.cost->host(0);
      f.name = "h" + std::to_string(h);
      if (pick(rng, 0, 2) == 0) f.bandwidth *= 2;
      hosts.push_back(f);
    }
    const auto link = testing::link_figures;
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

}  // namespace
}  // namespace meshplan::host_classes_test
