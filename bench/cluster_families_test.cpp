#include "bench/cluster_families.hpp"

#include <gtest/gtest.h>

#include "bench/bench_runner.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/core/error.hpp"

namespace meshplan::cluster_families_test {
namespace {

TEST(cluster_families_test, seeded_and_shaped_as_named) {
  const Catalog& catalog = Catalog::builtin();
  for (const std::string& family : cluster_family_names()) {
    Cluster a = generate_cluster(family, 9, 42, catalog);
    EXPECT_EQ(a, generate_cluster(family, 9, 42, catalog)) << family;
    ASSERT_EQ(a.hosts.size(), 9u) << family;
    LinkGraph g(a, catalog);
    // Every pair of hosts can reach each other (a ring can always close).
    for (size_t x = 0; x < 9; ++x)
      for (size_t y = x + 1; y < 9; ++y)
        EXPECT_TRUE(g.best(x, y, Transport::kAny, 1e4).has_value()) << family;
  }
  Cluster chain = generate_cluster("daisy-chain", 6, 1, Catalog::builtin());
  EXPECT_EQ(chain.cables.size(), 5u);
  Cluster mesh = generate_cluster("tb5-mesh", 6, 1, Catalog::builtin());
  EXPECT_EQ(mesh.cables.size(), 15u);
  LinkGraph g(mesh, catalog);
  EXPECT_TRUE(g.best(0, 5, Transport::kAny, 1e4)->rdma);
  Cluster homo = generate_cluster("homogeneous", 5, 3, Catalog::builtin());
  for (const Host& h : homo.hosts)
    EXPECT_EQ(h.chip, homo.hosts[0].chip);
  Cluster one = generate_cluster("fits-on-one", 5, 3, Catalog::builtin());
  EXPECT_EQ(one.hosts[0].memory, 512ull << 30);
  EXPECT_THROW(generate_cluster("moon-base", 3, 1, catalog), Error);
}

TEST(cluster_families_test, bench_summarises_every_family_without_violation) {
  BenchOptions o = quick_bench_options();
  o.sizes = {2, 6};
  o.models = {"llama-3.2-3b-4bit"};
  SteadyClock clock;
  BenchReport r = run_bench(o, Catalog::builtin(), clock);
  EXPECT_EQ(r.instances.size(), cluster_family_names().size() * 2);
  EXPECT_EQ(r.violations, 0);
  ASSERT_EQ(r.families.size(), cluster_family_names().size());
  for (const BenchRow& row : r.families) {
    EXPECT_EQ(row.instances, 2) << row.name;
    EXPECT_EQ(row.feasible, 2) << row.name;  // a 3B model fits anywhere
    if (row.compared) {
      EXPECT_GE(row.speedup_min, 1.0 - 1e-9) << row.name;
    }
  }
  EXPECT_NE(render_bench(r).find("mixed-islands"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::cluster_families_test
