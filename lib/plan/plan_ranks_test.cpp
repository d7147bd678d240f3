#include "lib/plan/plan_ranks.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

PlanRanks read(const std::string& text) {
  return read_plan_ranks(parse_json_document(text, "plan.json"));
}

TEST(plan_ranks_test, reads_ranks_in_order_with_their_layers) {
  PlanRanks p = read(R"({"schema": "meshplan.plan/1", "strategy": "pipeline", "backend": "ring",
    "ranks": [{"rank": 0, "host": "a", "layers": [0, 20]}, {"rank": 1, "host": "b",
    "layers": [20, 32]}]})");
  EXPECT_EQ(p.strategy, "pipeline");
  EXPECT_EQ(p.hosts(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(p.ranks[1].layers);
  EXPECT_EQ(*p.ranks[1].layers, (std::pair<int, int>{20, 32}));
  EXPECT_TRUE(p.models.empty());
}

TEST(plan_ranks_test, a_workload_plan_gives_each_models_hosts_and_their_union) {
  PlanRanks p = read(R"({"schema": "meshplan.workload-plan/1", "objective": "throughput",
    "plans": [
      {"share": 0.5, "plan": {"model": {"name": "big"}, "ranks": [{"rank": 0, "host": "a"},
        {"rank": 1, "host": "b"}]}},
      {"share": 0.5, "plan": {"model": {"name": "small"}, "ranks": [{"rank": 0, "host": "c"}],
        "replicas": [{"hosts": ["c"]}, {"hosts": ["d"]}]}},
      {"share": 0.1, "plan": {"model": {"name": "tiny"}, "ranks": [{"rank": 0, "host": "d"}]}}
    ]})");
  ASSERT_EQ(p.models.size(), 3u);
  EXPECT_EQ(p.models[0].model, "big");
  EXPECT_EQ(p.models[0].hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.models[1].hosts, (std::vector<std::string>{"c", "d"})) << "replicas' hosts count";
  EXPECT_EQ(p.models[2].hosts, (std::vector<std::string>{"d"}));
  EXPECT_EQ(p.hosts(), (std::vector<std::string>{"a", "b", "c", "d"})) << "d once, shared";
  EXPECT_EQ(p.strategy, "");
  EXPECT_FALSE(p.ranks[0].layers);
}

TEST(plan_ranks_test, errors_name_the_position_and_the_expected_form) {
  auto message = [](const std::string& text) {
    try {
      read(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(R"({"schema": "meshplan.workload-plan/1", "plans": []})")
                .find("expected at least one model's plan"),
            std::string::npos);
  std::string no_model = message(
      R"({"schema": "meshplan.workload-plan/1", "plans": [{"plan": {"ranks": [{"host": "a"}]}}]})");
  EXPECT_NE(no_model.find("plan.json"), std::string::npos) << no_model;
  EXPECT_NE(no_model.find("model"), std::string::npos) << no_model;
  std::string other = message(R"({"schema": "meshplan.check/1", "ranks": []})");
  EXPECT_NE(other.find("expected schema \"meshplan.plan/1\" or \"meshplan.workload-plan/1\""),
            std::string::npos)
      << other;
}

}  // namespace
}  // namespace meshplan
