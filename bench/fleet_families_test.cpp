// The seeded fleets: their sizes and kinds, the same cluster for the same seed, Thunderbolt
// islands of 2-4 hosts, what the cluster reader accepts and gives back unchanged, and a small
// fleet of each family planned by the real planner.
#include "bench/fleet_families.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <numeric>
#include <regex>
#include <set>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/problem/request_flags.hpp"
#include "solvers/serving/serving_planner.hpp"

namespace meshplan::fleet_families_test {
namespace {

const std::map<std::string, std::set<std::string>> kKinds = {
    {"minis", {"mini"}},
    {"h100-nodes", {"h100"}},
    {"macs-islands", {"mini", "ultra", "max"}},
    {"mixed-6", {"mini", "ultra", "max", "h200", "a100", "h100"}},
};

std::string kind_of(const Host& h) {
  return h.name.substr(0, h.name.find('-'));
}

TEST(fleet_families_test, sizes_kinds_and_names) {
  const Catalog& catalog = Catalog::builtin();
  ASSERT_EQ(fleet_family_names().size(), kKinds.size());
  const std::regex name_form("[a-z0-9]+-[0-9]{4}");
  for (const std::string& family : fleet_family_names()) {
    for (int hosts : {8, 64, 333}) {
      Cluster c = generate_fleet(family, hosts, 7, catalog);
      ASSERT_EQ(c.hosts.size(), static_cast<size_t>(hosts)) << family;
      EXPECT_EQ(c.name, family);
      std::set<std::string> names, kinds;
      for (const Host& h : c.hosts) {
        names.insert(h.name);
        kinds.insert(kind_of(h));
        EXPECT_TRUE(std::regex_match(h.name, name_form)) << h.name;
        const std::string kind = kind_of(h);
        const std::map<std::string, std::string> macs = {
            {"mini", "m4-pro-20c 64"}, {"ultra", "m3-ultra-80c 512"}, {"max", "m4-max-40c 128"}};
        if (macs.count(kind)) {
          EXPECT_EQ(h.chip + " " + std::to_string(h.memory >> 30), macs.at(kind)) << h.name;
        }
        const std::map<std::string, std::pair<std::string, size_t>> gpus = {
            {"h200", {"h200", 1}}, {"a100", {"a100-80gb", 4}}, {"h100", {"h100-sxm", 8}}};
        if (gpus.count(kind)) {
          EXPECT_EQ(h.os.kind, "linux");
          ASSERT_EQ(h.gpus.size(), gpus.at(kind).second) << h.name;
          EXPECT_EQ(h.gpus[0].chip, gpus.at(kind).first);
        } else {
          EXPECT_EQ(h.os.kind, "macos");
          EXPECT_TRUE(h.gpus.empty());
        }
      }
      EXPECT_EQ(names.size(), c.hosts.size()) << family << ": host names repeat";
      EXPECT_EQ(kinds, kKinds.at(family)) << family;
      // Every host on the 10 GbE switch; GPU nodes on InfiniBand too.
      ASSERT_FALSE(c.networks.empty());
      EXPECT_EQ(c.networks[0].kind, LinkKind::k10gbe);
      EXPECT_TRUE(c.networks[0].all_hosts);
      const bool gpus = family == "h100-nodes" || family == "mixed-6";
      ASSERT_EQ(c.networks.size(), gpus ? 2u : 1u) << family;
      if (gpus) {
        EXPECT_EQ(c.networks[1].kind, LinkKind::kIbNdr);
        for (const Host& h : c.hosts)
          EXPECT_EQ(c.networks[1].contains(h.name), !h.gpus.empty()) << h.name;
      }
    }
  }
  // The first host of a kind keeps its name whatever the size.
  EXPECT_EQ(generate_fleet("minis", 64, 1, catalog).hosts[0].name, "mini-0001");
  EXPECT_EQ(generate_fleet("minis", 4096, 1, catalog).hosts.back().name, "mini-4096");
}

TEST(fleet_families_test, the_same_seed_gives_the_same_fleet) {
  const Catalog& catalog = Catalog::builtin();
  for (const std::string& family : fleet_family_names())
    EXPECT_EQ(generate_fleet(family, 100, 42, catalog), generate_fleet(family, 100, 42, catalog))
        << family;
  // Another seed, another mix of kinds (and islands).
  std::set<std::vector<std::string>> mixes;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<std::string> names;
    for (const Host& h : generate_fleet("mixed-6", 100, seed, catalog).hosts)
      names.push_back(h.name);
    mixes.insert(names);
  }
  EXPECT_GT(mixes.size(), 1u);
}

// Hosts joined by Thunderbolt cables, as groups (union-find over the cables).
std::vector<std::vector<size_t>> islands_of(const Cluster& c) {
  std::vector<size_t> parent(c.hosts.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::function<size_t(size_t)> root = [&](size_t x) {
    return parent[x] == x ? x : parent[x] = root(parent[x]);
  };
  for (const Cable& cable : c.cables)
    parent[root(c.host_index(cable.a.host))] = root(c.host_index(cable.b.host));
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < c.hosts.size(); ++i)
    groups[root(i)].push_back(i);
  std::vector<std::vector<size_t>> out;
  for (auto& [_, g] : groups)
    out.push_back(g);
  return out;
}

TEST(fleet_families_test, macs_sit_in_full_mesh_islands_of_two_to_four) {
  const Catalog& catalog = Catalog::builtin();
  for (const std::string family : {"macs-islands", "mixed-6"}) {
    for (int hosts : {6, 7, 9, 64, 257}) {
      for (uint64_t seed : {1, 2, 3}) {
        Cluster c = generate_fleet(family, hosts, seed, catalog);
        size_t cables = 0;
        for (const auto& island : islands_of(c)) {
          if (!c.hosts[island[0]].gpus.empty()) {
            EXPECT_EQ(island.size(), 1u) << "a GPU node is cabled";
            continue;
          }
          EXPECT_GE(island.size(), 2u) << family << " " << hosts << " seed " << seed;
          EXPECT_LE(island.size(), 4u) << family << " " << hosts << " seed " << seed;
          cables += island.size() * (island.size() - 1) / 2;
        }
        EXPECT_EQ(c.cables.size(), cables) << "islands are full meshes";
        for (const Cable& cable : c.cables) {
          EXPECT_EQ(cable.kind, LinkKind::kTb5);
          EXPECT_TRUE(cable.rdma);
          EXPECT_FALSE(cable.a.port.empty());  // a real receptacle, as loading gives
          EXPECT_FALSE(cable.b.port.empty());
        }
      }
    }
  }
  EXPECT_TRUE(generate_fleet("minis", 64, 1, catalog).cables.empty());
}

// The fleet written as a cluster file reads back (every key, catalog name, port and address
// checked by the reader) as the same cluster.
TEST(fleet_families_test, the_cluster_reader_accepts_it_unchanged) {
  const Catalog& catalog = Catalog::builtin();
  for (const std::string& family : fleet_family_names()) {
    Cluster c = generate_fleet(family, 70, 5, catalog);
    Cluster read = load_cluster(write_cluster_json(c), family + ".json", catalog);
    EXPECT_TRUE(read.warnings.empty()) << family << ": " << read.warnings.front();
    EXPECT_EQ(read, c) << family;
  }
}

TEST(fleet_families_test, unknown_family_or_too_few_hosts_is_an_input_error) {
  const Catalog& catalog = Catalog::builtin();
  try {
    generate_fleet("moon-base", 64, 1, catalog);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("moon-base"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("minis, h100-nodes, macs-islands, mixed-6"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(generate_fleet("mixed-6", 5, 1, catalog), Error);
  EXPECT_THROW(generate_fleet("minis", 0, 1, catalog), Error);
  EXPECT_NO_THROW(generate_fleet("mixed-6", 6, 1, catalog));
}

// Six hosts of each family (the fewest mixed-6 takes), planned as `meshplan plan` does:
// llama-3.1-405b-4bit fits each.
TEST(fleet_families_test, a_small_fleet_of_each_family_plans) {
  const Catalog& catalog = Catalog::builtin();
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-405b-4bit", "");
  SteadyClock clock;
  for (const std::string& family : fleet_family_names()) {
    Cluster c = generate_fleet(family, 6, 3, catalog);
    PlanRequest request;
    request.strategy = "auto";
    request.engine = "";
    apply_request_flags(RequestFlags{}, request);
    Plan latency = plan_model(c, catalog, model, request, clock);
    EXPECT_FALSE(latency.ranks.empty()) << family;
    EXPECT_GT(latency.predicted.decode_tokens_per_s, 0) << family;
    request.objective = "throughput";
    RoutedRequest routed;
    routed.consider_in_auto = true;
    Plan throughput = plan_serving(c, catalog, model, request, clock, routed);
    ASSERT_TRUE(throughput.serving.has_value()) << family;
    EXPECT_GE(throughput.serving->aggregate_tokens_per_s, latency.predicted.decode_tokens_per_s)
        << family;
  }
}

}  // namespace
}  // namespace meshplan::fleet_families_test
