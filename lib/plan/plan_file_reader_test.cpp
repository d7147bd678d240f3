#include "lib/plan/plan_file_reader.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::plan_file_reader_test {
namespace {

PlanRanks read(const std::string& text) {
  return read_plan_ranks(parse_json_document(text, "plan.json"));
}

TEST(plan_file_reader_test, reads_ranks_in_order_with_their_layers) {
  PlanRanks p = read(R"({"schema": "meshplan.plan/2", "strategy": "pipeline", "backend": "ring",
    "ranks": [{"rank": 0, "host": "a", "layers": [0, 20]}, {"rank": 1, "host": "b",
    "layers": [20, 32]}]})");
  EXPECT_EQ(p.strategy, "pipeline");
  EXPECT_EQ(p.hosts(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(p.ranks[1].layers);
  EXPECT_EQ(*p.ranks[1].layers, (std::pair<int, int>{20, 32}));
  EXPECT_TRUE(p.models.empty());
}

TEST(plan_file_reader_test, a_workload_plan_gives_each_models_hosts_and_their_union) {
  PlanRanks p = read(R"({"schema": "meshplan.workload-plan/1", "objective": "throughput",
    "plans": [
      {"share": 0.5, "plan": {"model": {"name": "big"}, "ranks": [{"rank": 0, "host": "a"},
        {"rank": 1, "host": "b"}]}},
      {"share": 0.5, "plan": {"model": {"name": "small"}, "ranks": [{"rank": 0, "host": "c"}],
        "replicas": [{"hosts": ["c"], "strategy": "pipeline", "backend": "none",
          "request_share": 0.5, "ranks": [{"rank": 0, "host": "c", "layers": [0, 8]}]},
          {"hosts": ["d"], "strategy": "pipeline", "backend": "none", "request_share": 0.5,
          "ranks": [{"rank": 0, "host": "d", "layers": [0, 8]}]}]}},
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

TEST(plan_file_reader_test, errors_name_the_position_and_the_expected_form) {
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
  EXPECT_NE(other.find("expected schema \"meshplan.plan/2\" or \"meshplan.workload-plan/1\""),
            std::string::npos)
      << other;
}

// A serving plan of two replicas as plan_serving.cpp writes it; `edit` changes its text.
std::string replica_plan(const std::string& second_share = "0.4",
                         const std::string& second_ranks =
                             R"([{"rank": 0, "host": "c", "layers": [0, 20], "holds_head": false},
                                 {"rank": 1, "host": "d", "layers": [20, 32], "holds_head": true}])") {
  return R"({"schema": "meshplan.plan/2", "strategy": "pipeline", "backend": "ring",
    "engine": "mlx-lm",
    "ranks": [{"rank": 0, "host": "a", "layers": [0, 16]}, {"rank": 1, "host": "b",
      "layers": [16, 32]}],
    "replicas": [
      {"hosts": ["a", "b"], "strategy": "pipeline", "backend": "ring", "concurrency": 8,
       "request_share": 0.6, "ranks": [{"rank": 0, "host": "a", "layers": [0, 16]},
                                       {"rank": 1, "host": "b", "layers": [16, 32]}]},
      {"hosts": ["c", "d"], "strategy": "pipeline", "backend": "jaccl", "concurrency": 4,
       "request_share": )" +
         second_share + R"(, "ranks": )" + second_ranks + "}]}";
}

std::string message_of(const std::string& text) {
  try {
    read(text);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::string("accepted");
}

TEST(plan_file_reader_test, a_serving_plan_reads_each_replica_with_its_hosts_ranks_and_share) {
  PlanRanks p = read(replica_plan());
  EXPECT_EQ(p.engine, "mlx-lm");
  ASSERT_EQ(p.replicas.size(), 2u);
  EXPECT_EQ(p.replicas[1].hosts, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(p.replicas[1].backend, "jaccl");
  EXPECT_EQ(p.replicas[1].strategy, "pipeline");
  EXPECT_DOUBLE_EQ(p.replicas[1].request_share, 0.4);
  ASSERT_EQ(p.replicas[1].ranks.size(), 2u);
  EXPECT_EQ(p.replicas[1].ranks[1].host, "d");
  EXPECT_EQ(*p.replicas[1].ranks[1].layers, (std::pair<int, int>{20, 32}));
  EXPECT_EQ(launch_replicas(p).size(), 2u);
  // Older plans name no engine and have no replicas.
  PlanRanks old = read(R"({"schema": "meshplan.plan/2", "ranks": [{"host": "a"}]})");
  EXPECT_EQ(old.engine, "");
  EXPECT_TRUE(launch_replicas(old).empty());
}

TEST(plan_file_reader_test, replica_errors_name_the_position_and_the_expected_form) {
  std::string sum = message_of(replica_plan("0.1"));
  EXPECT_NE(sum.find("plan.json"), std::string::npos) << sum;
  EXPECT_NE(sum.find("sum to 1, got 0.7000"), std::string::npos) << sum;
  std::string share = message_of(replica_plan("0"));
  EXPECT_NE(share.find("request_share"), std::string::npos) << share;
  EXPECT_NE(share.find("above 0 up to 1"), std::string::npos) << share;
  std::string stranger =
      message_of(replica_plan("0.4", R"([{"rank": 0, "host": "x", "layers": [0, 32]},
                              {"rank": 1, "host": "d", "layers": [0, 32]}])"));
  EXPECT_NE(stranger.find("expected a host of the replica's hosts, got x"), std::string::npos)
      << stranger;
  EXPECT_NE(stranger.find("/replicas/1/ranks/0/host"), std::string::npos) << stranger;
  std::string missing = message_of(replica_plan("0.4", R"([{"rank": 0, "host": "c",
      "layers": [0, 32]}])"));
  EXPECT_NE(missing.find("a rank for each of the replica's 2 hosts"), std::string::npos) << missing;
  std::string order = message_of(replica_plan("0.4", R"([{"rank": 1, "host": "c",
      "layers": [0, 32]}, {"rank": 0, "host": "d", "layers": [0, 32]}])"));
  EXPECT_NE(order.find("expected rank 0"), std::string::npos) << order;
  std::string twice = message_of(R"({"schema": "meshplan.plan/2", "ranks": [{"host": "a"}],
    "replicas": [{"hosts": ["a"], "strategy": "pipeline", "backend": "none", "request_share": 0.5,
      "ranks": [{"host": "a", "layers": [0, 4]}]}, {"hosts": ["a"], "strategy": "pipeline",
      "backend": "none", "request_share": 0.5, "ranks": [{"host": "a", "layers": [0, 4]}]}]})");
  EXPECT_NE(twice.find("disjoint replicas; host a is in two"), std::string::npos) << twice;
  std::string engine =
      message_of(R"({"schema": "meshplan.plan/2", "engine": "ollama", "ranks": [{"host": "a"}]})");
  EXPECT_NE(engine.find("/engine"), std::string::npos) << engine;
  EXPECT_NE(engine.find("mlx-lm, exo, llama-rpc or vllm"), std::string::npos) << engine;
}

TEST(plan_file_reader_test, a_routed_plan_of_whole_copies_launches_a_replica_per_host_by_flow) {
  auto routed = [](const std::string& second_layers) {
    return read(R"({"schema": "meshplan.plan/2", "strategy": "routed", "backend": "none",
      "ranks": [{"host": "a"}, {"host": "b"}],
      "routing": {"hosts": [
        {"host": "a", "layers": [0, 80], "flow_tokens_per_s": 30, "entry_tokens_per_s": 30,
         "exit_tokens_per_s": 30},
        {"host": "b", "layers": )" +
                second_layers + R"(, "flow_tokens_per_s": 10, "entry_tokens_per_s": 10,
         "exit_tokens_per_s": 10}], "links": []}})");
  };
  std::vector<PlanReplica> copies = launch_replicas(routed("[0, 80]"));
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].hosts, (std::vector<std::string>{"a"}));
  EXPECT_DOUBLE_EQ(copies[0].request_share, 0.75);
  EXPECT_DOUBLE_EQ(copies[1].request_share, 0.25);
  ASSERT_EQ(copies[1].ranks.size(), 1u);
  EXPECT_EQ(*copies[1].ranks[0].layers, (std::pair<int, int>{0, 80}));
  // A host on part of the layers needs the routing table: no whole copies.
  EXPECT_TRUE(launch_replicas(routed("[0, 40]")).empty());
}

}  // namespace
}  // namespace meshplan::plan_file_reader_test
