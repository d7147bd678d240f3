// Interchangeable candidates: the same figures and the same link to every other host, neither
// pinned; a cable of their own, other memory or a pin sets a host apart.
#include "solvers/problem/candidate_classes.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <random>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"

namespace meshplan::candidate_classes_test {
namespace {

// `n` Mac minis on one 10 GbE switch; `memory` per host (64 GiB where not given) and extra links.
Cluster minis(int n, const std::map<int, int>& memory = {}, const std::string& extra = "") {
  std::string text = "schema: meshplan.cluster/1\nname: minis\nhosts:\n";
  for (int i = 1; i <= n; ++i)
    text += fmt::format(
        "  - {{name: mini-{}, chip: m4-pro-20c, memory: {}GiB, interfaces: [{{name: en0, kind: "
        "ethernet, ipv4: 10.0.0.{}, prefix: 24, speed_gbps: 10}}]}}\n",
        i, memory.count(i) ? memory.at(i) : 64, i);
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n" + extra;
  return load_cluster(text, "minis.yaml", Catalog::builtin());
}

std::vector<int> classes(const Cluster& c, PlanRequest r = {}) {
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
  PlanningProblem p(c, Catalog::builtin(), model, r);
  std::vector<size_t> all(p.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return candidate_classes(p, all);
}

TEST(candidate_classes_test, identical_hosts_on_one_switch_are_one_class) {
  EXPECT_EQ(classes(minis(5)), (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(candidate_classes_test, other_memory_sets_a_host_apart) {
  EXPECT_EQ(classes(minis(4, {{2, 48}, {4, 48}})), (std::vector<int>{0, 1, 0, 1}));
}

TEST(candidate_classes_test, a_cable_sets_its_two_ends_apart_but_not_from_each_other) {
  // mini-2 and mini-3 are cabled: each sees the cable to the other and the switch to the rest,
  // so they may swap with each other but not with mini-1 or mini-4.
  const std::string cable = "  - {a: mini-2, b: mini-3, kind: tb5}\n";
  EXPECT_EQ(classes(minis(4, {}, cable)), (std::vector<int>{0, 1, 1, 0}));
}

TEST(candidate_classes_test, classes_are_the_interchangeable_pairs_on_random_islands) {
  // Minis of two memories in Thunderbolt islands of one to four (a full mesh each), some also
  // on a second switch (other media): two hosts share a class exactly when they are
  // interchangeable, compared link by link over every host.
  std::mt19937_64 rng(51);
  auto pick = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  int together = 0;
  for (int round = 0; round < 60; ++round) {
    const int n = pick(6, 16);
    std::string text = "schema: meshplan.cluster/1\nname: islands\nhosts:\n", links;
    std::vector<std::string> on_second;
    for (int i = 1; i <= n; ++i) {
      const bool second = pick(0, 3) == 0;
      if (second) on_second.push_back(fmt::format("mini-{}", i));
      text += fmt::format(
          "  - {{name: mini-{}, chip: m4-pro-20c, memory: {}GiB, interfaces: [{{name: en0, kind: "
          "ethernet, ipv4: 10.0.0.{}, prefix: 24, speed_gbps: 10}}{}]}}\n",
          i, pick(0, 2) == 0 ? 48 : 64, i,
          second ? fmt::format(", {{name: en1, kind: ethernet, ipv4: 10.1.0.{}, prefix: 24, "
                               "speed_gbps: 25}}",
                               i)
                 : "");
    }
    links += "  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n";
    if (on_second.size() >= 2)
      links +=
          fmt::format("  - {{topology: switch, kind: 25gbe, hosts: [{}], subnet: 10.1.0.0/24}}\n",
                      fmt::join(on_second, ", "));
    for (int first = 1; first <= n;) {
      const int size = std::min(pick(1, 4), n - first + 1);
      for (int a = first; a < first + size; ++a)
        for (int b = a + 1; b < first + size; ++b)
          links += fmt::format("  - {{a: mini-{}, b: mini-{}, kind: tb5}}\n", a, b);
      first += size;
    }
    const Cluster c = load_cluster(text + "links:\n" + links, "islands.yaml", Catalog::builtin());
    const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
    PlanningProblem p(c, Catalog::builtin(), model, PlanRequest{});
    std::vector<size_t> all(p.size());
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    const std::vector<int> got = candidate_classes(p, all);
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i + 1; j < all.size(); ++j) {
        EXPECT_EQ(got[i] == got[j], interchangeable(p, i, j))
            << "round " << round << ": " << p.host(i).name << " and " << p.host(j).name;
        together += got[i] == got[j];
      }
  }
  EXPECT_GT(together, 30);  // classes of more than one host occur
}

TEST(candidate_classes_test, a_pinned_host_is_a_class_of_its_own) {
  PlanRequest r;
  r.pins.push_back(LayerPin{"mini-3", 0, 9});
  EXPECT_EQ(classes(minis(4), r), (std::vector<int>{0, 0, 1, 0}));
}

TEST(candidate_classes_test, at_most_so_many_of_each_class_are_kept_in_order) {
  // mini-2 and mini-5 have less memory: two classes of 4 and 2.
  const Cluster c = minis(6, {{2, 48}, {5, 48}});
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
  PlanningProblem p(c, Catalog::builtin(), model, PlanRequest{});
  EXPECT_EQ(at_most_per_class(p, 2), (std::vector<size_t>{0, 1, 2, 4}));
  EXPECT_EQ(at_most_per_class(p, 1), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(at_most_per_class(p, 9).size(), 6u);
}

TEST(candidate_classes_test, same_figures_ignores_only_the_name) {
  HostFigures a;
  a.name = "a";
  a.bandwidth = 1e11;
  HostFigures b = a;
  b.name = "b";
  EXPECT_TRUE(same_figures(a, b));
  b.gpu_link_step_s = 1e-6;
  EXPECT_FALSE(same_figures(a, b));
  b = a;
  b.group_links.push_back({2, "NV18", 0, 0, 0});
  EXPECT_FALSE(same_figures(a, b));
}

}  // namespace
}  // namespace meshplan::candidate_classes_test
