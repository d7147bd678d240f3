// The groupings a hybrid plan tries: one of each shape up to swapping interchangeable hosts,
// checked against every grouping of the same hosts made distinct (a GiB less memory each, which
// changes no link or collective), read by the classes of the hosts as they were.
#include "solvers/parallel/host_groupings.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/problem/candidate_classes.hpp"

namespace meshplan::host_groupings_test {
namespace {

using Shape = std::vector<std::vector<int>>;

// Mac minis on one 10 GbE switch with the given memory each, and extra links.
Cluster minis(const std::vector<int>& memory_gib, const std::string& extra = "") {
  std::string text = "schema: meshplan.cluster/1\nname: minis\nhosts:\n";
  for (size_t i = 0; i < memory_gib.size(); ++i)
    text += fmt::format(
        "  - {{name: mini-{}, chip: m4-pro-20c, memory: {}GiB, interfaces: [{{name: en0, kind: "
        "ethernet, ipv4: 10.0.0.{}, prefix: 24, speed_gbps: 10}}]}}\n",
        i + 1, memory_gib[i], i + 1);
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n" + extra;
  return load_cluster(text, "minis.yaml", Catalog::builtin());
}

struct Listed {
  std::vector<Shape> shapes;  // each grouping's, by `class_of`
  bool capped = false;
};

// The groupings of every host of `c`, each read as a shape by `class_of` (per host index).
Listed groupings(const Cluster& c, const std::vector<int>& class_of, size_t cap = 100000) {
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
  PlanRequest r;
  PlanningProblem p(c, Catalog::builtin(), model, r);
  TensorCostModel cost(model, p.inputs(), r.context, r.prompt);
  std::vector<size_t> eligible(p.size());
  for (size_t i = 0; i < eligible.size(); ++i)
    eligible[i] = i;
  Listed out;
  for (const HostGrouping& g : host_groupings(p, cost, eligible, cap, out.capped)) {
    Shape s;
    for (const HostGroup& x : g.groups) {
      std::vector<int> classes;
      for (size_t m : x.members)
        classes.push_back(class_of[m]);
      std::sort(classes.begin(), classes.end());
      s.push_back(classes);
    }
    std::sort(s.begin(), s.end());
    out.shapes.push_back(s);
  }
  return out;
}

std::vector<int> classes_of(const Cluster& c) {
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", "");
  PlanningProblem p(c, Catalog::builtin(), model, PlanRequest{});
  std::vector<size_t> all(p.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return candidate_classes(p, all);
}

// The deduplicated list holds each shape the full list holds, once.
void expect_one_of_each_shape(const std::vector<int>& memory, const std::string& extra) {
  const Cluster same = minis(memory, extra);
  std::vector<int> distinct_memory = memory;
  for (size_t i = 0; i < memory.size(); ++i)
    distinct_memory[i] -= static_cast<int>(i);  // at most the chip's 64 GiB
  const std::vector<int> class_of = classes_of(same);
  ASSERT_EQ(std::set<int>(class_of.begin(), class_of.end()).size(),
            std::set<int>(memory.begin(), memory.end()).size() + (extra.empty() ? 0 : 1));
  const Listed once = groupings(same, class_of);
  const Listed every = groupings(minis(distinct_memory, extra), class_of);
  EXPECT_FALSE(once.capped);
  EXPECT_FALSE(every.capped);
  const std::set<Shape> once_set(once.shapes.begin(), once.shapes.end());
  EXPECT_EQ(once_set.size(), once.shapes.size()) << "a shape listed twice";
  EXPECT_EQ(once_set, std::set<Shape>(every.shapes.begin(), every.shapes.end()));
  EXPECT_LT(once.shapes.size(), every.shapes.size());
}

TEST(host_groupings_test, identical_hosts_give_one_grouping_of_each_shape) {
  expect_one_of_each_shape({64, 64, 64, 64, 64, 64}, "");
}

TEST(host_groupings_test, two_kinds_give_one_grouping_of_each_mix) {
  expect_one_of_each_shape({48, 64, 48, 64, 64, 48}, "");
}

TEST(host_groupings_test, a_cabled_pair_is_a_kind_of_its_own) {
  // mini-2 and mini-5 share a Thunderbolt 5 cable: a group of the two reduces over it.
  expect_one_of_each_shape({64, 64, 64, 64, 64, 64}, "  - {a: mini-2, b: mini-5, kind: tb5}\n");
}

TEST(host_groupings_test, twelve_identical_hosts_are_a_handful_of_shapes_not_capped) {
  // Llama 3.3 70B's 64 heads and 8 KV heads: groups of 2, 4 or 8 hosts. Shapes: multisets of
  // those sizes that sum to at most 12, at least one group.
  int expected = 0;
  for (int eights = 0; eights <= 1; ++eights)
    for (int fours = 0; fours <= 3; ++fours)
      for (int twos = 0; twos <= 6; ++twos)
        if (eights + fours + twos > 0 && 8 * eights + 4 * fours + 2 * twos <= 12) ++expected;
  const Listed l = groupings(minis(std::vector<int>(12, 64)), std::vector<int>(12, 0), 128);
  EXPECT_FALSE(l.capped);
  EXPECT_EQ(static_cast<int>(l.shapes.size()), expected);
}

}  // namespace
}  // namespace meshplan::host_groupings_test
