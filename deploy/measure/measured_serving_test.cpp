#include "deploy/measure/measured_serving.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::measured_serving_test {
namespace {

constexpr const char* kPlan = R"({"schema": "meshplan.plan/2",
  "model": {"name": "llama-3.3-70b-4bit", "layers": 80}, "prompt": 512, "engine": "llama-rpc",
  "ranks": [{"rank": 0, "host": "gpu-2", "layers": [0, 40]},
            {"rank": 1, "host": "gpu-1", "layers": [40, 80]}],
  "predicted": {"token_latency_ms": 25, "decode_tokens_per_s": 40, "ttft_ms": 310.5}})";

PlanPrediction read(const std::string& text) {
  return read_plan_prediction(parse_json_document(text, "plan.json"));
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    return e.what();
  }
  return "no error";
}

LevelResult level(int concurrency, double stream, double total) {
  LevelResult l;
  l.concurrency = concurrency;
  l.ttft_mean_s = 0.2;
  l.stream_tokens_per_s = stream;
  l.total_tokens_per_s = total;
  return l;
}

Plan plan_of_two_hosts() {
  Plan p;
  p.model_name = "llama-3.3-70b-4bit";
  p.engine = "llama-rpc";
  p.ranks.resize(2);
  p.ranks[0].host = "gpu-1";
  p.ranks[1].host = "gpu-2";
  p.predicted.decode_tokens_per_s = 40;
  return p;
}

TEST(measured_serving_test, a_plan_predicts_one_stream_unless_it_serves_more) {
  PlanPrediction p = read(kPlan);
  EXPECT_EQ(p.model, "llama-3.3-70b-4bit");
  EXPECT_EQ(p.engine, "llama-rpc");
  EXPECT_EQ(p.hosts, (std::vector<std::string>{"gpu-2", "gpu-1"}));
  EXPECT_EQ(p.concurrency, 1);
  EXPECT_EQ(p.prompt_tokens, 512);
  EXPECT_DOUBLE_EQ(p.stream_tps, 40);
  EXPECT_DOUBLE_EQ(p.total_tps, 40);
  EXPECT_DOUBLE_EQ(p.ttft_ms, 310.5);
  std::string serving = kPlan;
  serving.insert(serving.size() - 1, R"(, "serving": {"requests_in_flight": 16,
    "ttft_ms": 900, "tpot_ms": 50, "stream_tokens_per_s": 21.5, "aggregate_tokens_per_s": 344,
    "output_tokens_per_s": 300},
    "replicas": [{"hosts": ["gpu-1"], "strategy": "pipeline", "backend": "none",
      "request_share": 0.5, "ranks": [{"rank": 0, "host": "gpu-1", "layers": [0, 80]}]},
     {"hosts": ["gpu-2"], "strategy": "pipeline", "backend": "none", "request_share": 0.5,
      "ranks": [{"rank": 0, "host": "gpu-2", "layers": [0, 80]}]}])");
  PlanPrediction s = read(serving);
  // What measure's closed loop of 16 sees: each request's means under that load, and the output
  // tokens/s in all, prefills included.
  EXPECT_EQ(s.concurrency, 16) << "the requests in flight over both replicas";
  EXPECT_DOUBLE_EQ(s.stream_tps, 20);
  EXPECT_DOUBLE_EQ(s.ttft_ms, 900);
  EXPECT_DOUBLE_EQ(s.total_tps, 300);
}

TEST(measured_serving_test, plan_files_without_a_prediction_are_refused_with_the_position) {
  std::string no_prediction = kPlan;
  no_prediction.replace(no_prediction.find("\"predicted\""), 11, "\"guessed\"");
  EXPECT_NE(error_of(no_prediction).find("predicted"), std::string::npos)
      << error_of(no_prediction);
  EXPECT_NE(error_of(R"({"schema": "meshplan.workload-plan/1", "plans": []})")
                .find("a workload plan holds several models"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "meshplan.cluster/1", "hosts": []})")
                .find("expected a plan file (schema \"meshplan.plan/2\")"),
            std::string::npos);
}

TEST(measured_serving_test, a_new_measurement_replaces_the_same_levels_only) {
  PlanPrediction p = read(kPlan);
  Cluster c;
  c = with_measured_serving(c, p, "http://10.0.0.1:8080", {level(1, 30, 30), level(4, 20, 80)},
                            "2026-11-20");
  ASSERT_EQ(c.measured_serving.size(), 2u);
  EXPECT_EQ(c.measured_serving[1].concurrency, 4);
  EXPECT_DOUBLE_EQ(c.measured_serving[1].ttft_ms, 200);
  EXPECT_EQ(c.measured_serving[1].hosts, p.hosts);
  c = with_measured_serving(c, p, "http://10.0.0.1:8080", {level(1, 33, 33)}, "2026-11-27");
  ASSERT_EQ(c.measured_serving.size(), 2u);
  EXPECT_EQ(c.measured_serving[0].concurrency, 4) << "kept";
  EXPECT_EQ(c.measured_serving[1].date, "2026-11-27");
  // Over the same hosts in another order; not over other hosts, models or engines.
  EXPECT_EQ(measured_for(c, p.model, p.engine, {"gpu-1", "gpu-2"}).size(), 1u)
      << "the newest date only";
  EXPECT_TRUE(measured_for(c, p.model, p.engine, {"gpu-1"}).empty());
  EXPECT_TRUE(measured_for(c, p.model, "vllm", {"gpu-1", "gpu-2"}).empty());
  EXPECT_TRUE(measured_for(c, "qwen3-8b", p.engine, {"gpu-1", "gpu-2"}).empty());
}

TEST(measured_serving_test, plan_shows_the_measurement_beside_its_prediction) {
  PlanPrediction p = read(kPlan);
  Cluster c = with_measured_serving(Cluster{}, p, "http://10.0.0.1:8080",
                                    {level(1, 33.4, 33.4), level(4, 20.2, 80.9)}, "2026-11-27");
  Plan plan = plan_of_two_hosts();
  EXPECT_EQ(measured_lines(c, plan),
            (std::vector<std::string>{
                "Measured 2026-11-27 at concurrency 1: 33.4 tokens/s a stream, 33.4 in all, TTFT "
                "200 ms (predicted 40.0 a stream)",
                "Measured 2026-11-27 at concurrency 4: 20.2 tokens/s a stream, 80.9 in all, TTFT "
                "200 ms"}));
  ojson j = measured_json(c, plan);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["url"], "http://10.0.0.1:8080");
  EXPECT_EQ(j[0]["stream_tokens_per_s"], 33.4);
  EXPECT_EQ(j[0]["predicted_stream_tokens_per_s"], 40);
  EXPECT_FALSE(j[1].contains("predicted_stream_tokens_per_s"));
  plan.engine = "vllm";
  EXPECT_TRUE(measured_lines(c, plan).empty()) << "another engine's figures are not this plan's";
}

}  // namespace
}  // namespace meshplan::measured_serving_test
