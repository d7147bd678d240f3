#include "solvers/pipeline/proportional_solver.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "tests/plan_fixtures.hpp"
#include "tests/test_support.hpp"

namespace meshplan::proportional_solver_test {
namespace {

using testing::failure_of;

using nlohmann::json;

json fixture(const std::string& name) {
  return json::parse(testing::read_text(testing::fixture_path(name)));
}

// exo 1.0 allocate_layers_proportionally: every upstream case, including the errors.
TEST(proportional_solver_test, exo_v1_allocate_layers_cases) {
  json cases =
      fixture("exo_v1_placement_test_cases.json")["allocate_layers_proportionally"]["cases"];
  ASSERT_GE(cases.size(), 9u);
  for (const auto& c : cases) {
    std::vector<double> fractions = c["memory_fractions"].get<std::vector<double>>();
    int layers = c["total_layers"];
    if (c.contains("expect_error")) {
      std::string msg = failure_of([&] { allocate_layers_proportionally(layers, fractions); });
      EXPECT_NE(msg.find(c["expect_error"].get<std::string>()), std::string::npos)
          << c["id"] << ": " << msg;
    } else {
      EXPECT_EQ(allocate_layers_proportionally(layers, fractions),
                c["expected"].get<std::vector<int>>())
          << c["id"];
    }
  }
}

// exo 1.0 pipeline shard assignment: proportional split plus the per-node memory check.
TEST(proportional_solver_test, exo_v1_pipeline_shard_assignment_cases) {
  json cases = fixture("exo_v1_placement_test_cases.json")["pipeline_shard_assignment"]["cases"];
  for (const auto& c : cases) {
    std::vector<std::string> names = {"A", "B", "C"};
    std::vector<double> avail;
    double total = 0;
    for (const auto& n : names)
      total += c["ram_available_KiB"][n].get<double>();
    std::vector<double> fractions;
    for (const auto& n : names) {
      avail.push_back(c["ram_available_KiB"][n].get<double>() * 1024);
      fractions.push_back(c["ram_available_KiB"][n].get<double>() / total);
    }
    std::vector<int> layers = allocate_layers_proportionally(c["n_layers"], fractions);
    uint64_t storage = c["storage_KiB"].get<uint64_t>() * 1024;
    if (c.contains("expect_error")) {
      std::string msg =
          failure_of([&] { check_proportional_memory(storage, layers, avail, names); });
      EXPECT_NE(msg.find(c["expect_error"].get<std::string>()), std::string::npos) << msg;
      EXPECT_NE(msg.find("(C)"), std::string::npos) << msg;
    } else {
      check_proportional_memory(storage, layers, avail, names);
      for (size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(layers[i], c["expected_layers_by_node"][names[i]].get<int>()) << names[i];
    }
  }
}

TEST(proportional_solver_test, exo_v1_derived_realistic_cases) {
  json cases = fixture("exo_v1_placement_derived_cases.json")["pipeline_cases"];
  for (const auto& c : cases) {
    std::vector<double> weights;
    if (c.contains("cycle_order_GiB"))
      weights = c["cycle_order_GiB"].get<std::vector<double>>();
    else
      weights = c["cycle_order_relative"].get<std::vector<double>>();
    double total = 0;
    for (double w : weights)
      total += w;
    std::vector<double> fractions;
    for (double w : weights)
      fractions.push_back(w / total);
    EXPECT_EQ(allocate_layers_proportionally(c["n_layers"], fractions),
              c["expected_layers"].get<std::vector<int>>())
        << c["id"];
  }
}

// exo 0.0.x: memory-descending ring order with rounded float ranges, then truncated shards.
TEST(proportional_solver_test, exo_v0_ring_partition_cases) {
  json fx = fixture("exo_v0_ring_partition_cases.json");
  int checked = 0;
  for (const auto& c : fx["ring_memory_weighted_partition"]["cases"]) {
    const json& nodes = c.contains("nodes") ? c["nodes"] : c["nodes_bytes"];
    std::vector<std::pair<std::string, double>> memory;
    for (auto& [name, m] : nodes.items())
      memory.emplace_back(name, m.get<double>());
    // The fixture records what the code returns ("actual_output"), also where an upstream test
    // asserted something else.
    const json& expected = c.contains("actual_output") ? c["actual_output"] : c["expected"];
    auto parts = exo_v0_partitions(memory);
    ASSERT_EQ(parts.size(), expected.size()) << c["id"];
    for (size_t i = 0; i < parts.size(); ++i) {
      EXPECT_EQ(parts[i].node, expected[i][0].get<std::string>()) << c["id"];
      EXPECT_NEAR(parts[i].start, expected[i][1].get<double>(), 1e-9) << c["id"];
      EXPECT_NEAR(parts[i].end, expected[i][2].get<double>(), 1e-9) << c["id"];
    }
    ++checked;
  }
  for (const auto& c : fx["map_partitions_to_shards"]["cases"]) {
    if (!c.contains("expected_inclusive")) continue;  // the broken old implementation's output
    std::vector<FloatPartition> parts;
    for (const auto& p : c["partitions"])
      parts.push_back({p[0], p[1], p[2]});
    std::vector<InclusiveShard> expected;
    for (const auto& s : c["expected_inclusive"])
      expected.push_back({s[0], s[1], s[2]});
    EXPECT_EQ(exo_v0_shards(parts, c["n_layers"]), expected) << c.value("id", "");
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

}  // namespace
}  // namespace meshplan::proportional_solver_test
