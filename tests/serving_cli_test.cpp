// `meshplan plan` serving more than one stream, as a user runs it: batched decode and what binds
// it, replicas against one copy, several models from a workload file, and disaggregated prefill
// and decode against single hosts.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::serving_cli_test {
namespace {

using nlohmann::json;
using testing::fixture_path;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kAir = source_path("examples/clusters/studio-air-fabric.yaml");
const std::string kPair = source_path("tests/fixtures/clusters/unequal-pair.yaml");
const std::string kSpark = source_path("tests/fixtures/clusters/spark-m3-ultra-10gbe.yaml");

json plan(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

double num(const json& j) {
  return j.get<double>();
}

TEST(serving_cli_test, aggregate_rises_with_concurrency_until_compute_binds) {
  const std::vector<std::string> base = {"-c",      kAir,      "-m", "llama-3.3-70b-4bit",
                                         "--hosts", "studio-a"};
  double last_aggregate = 0, last_stream = 1e9, kv_one = 0;
  for (int n : {1, 2, 4, 8}) {
    auto args = base;
    args.insert(args.end(), {"--concurrency", std::to_string(n)});
    json s = plan(args)["serving"];
    ASSERT_EQ(s["requests_in_flight"], n);
    EXPECT_EQ(s["load"]["kind"], "closed");
    EXPECT_EQ(s["load"]["requests_in_flight"], n);
    EXPECT_GT(num(s["aggregate_tokens_per_s"]), last_aggregate * 1.2) << n;
    EXPECT_LE(num(s["stream_tokens_per_s"]), last_stream) << n;
    EXPECT_NEAR(num(s["aggregate_tokens_per_s"]), n * num(s["stream_tokens_per_s"]),
                0.01 * n + 1e-3);
    if (n == 1) kv_one = num(s["kv_bytes"]);
    EXPECT_NEAR(num(s["kv_bytes"]), n * kv_one, n * 2.0);
    last_aggregate = num(s["aggregate_tokens_per_s"]);
    last_stream = num(s["stream_tokens_per_s"]);
  }
  // One request at a time is the plan's own prediction: its prefill, then its tokens.
  json one =
      plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--concurrency", "1"});
  EXPECT_NEAR(num(one["serving"]["stream_tokens_per_s"]),
              num(one["predicted"]["decode_tokens_per_s"]), 1e-3);
  EXPECT_NEAR(num(one["serving"]["ttft_ms"]), num(one["predicted"]["ttft_ms"]), 1e-3);
  EXPECT_NEAR(num(one["serving"]["tpot_ms"]), 1000 / num(one["predicted"]["decode_tokens_per_s"]),
              1e-2);
  // Asked for the best: more streams stop helping once the GPU's FLOPs run out, long before the
  // memory does; the plan says so and stays under its bound.
  json best = plan(
      {"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--objective", "throughput"});
  json s = best["serving"];
  EXPECT_EQ(s["bound_by"], "compute");
  EXPECT_LT(s["requests_in_flight"].get<int>(), s["max_requests_in_flight"].get<int>());
  EXPECT_GT(num(s["aggregate_tokens_per_s"]), last_aggregate);
  EXPECT_LE(num(s["aggregate_tokens_per_s"]), num(s["bound"]["aggregate_tokens_per_s"]));
}

TEST(serving_cli_test, memory_binds_at_a_long_context_and_limits_concurrency) {
  json p = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-b", "--context", "128k",
                 "--objective", "throughput"});
  json s = p["serving"];
  EXPECT_EQ(s["bound_by"], "memory");
  EXPECT_EQ(s["requests_in_flight"], s["max_requests_in_flight"]);
  // The streams' KV and the weights fit in the host's usable memory, one more stream would not.
  const json& r = p["ranks"][0];
  const double kv_one = num(r["kv_bytes"]);
  const double weights = num(r["weight_bytes"]);
  EXPECT_LE(weights + num(s["kv_bytes"]), num(r["usable_bytes"]));
  EXPECT_GT(weights + num(s["kv_bytes"]) + kv_one, num(r["usable_bytes"]));
  // Asking for more than fits fails and names the host and the limit.
  auto over = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-b",
                            "--context", "128k", "--concurrency",
                            std::to_string(s["max_requests_in_flight"].get<int>() + 1)});
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_NE(over.err.find("studio-b"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("at most " + std::to_string(s["max_requests_in_flight"].get<int>())),
            std::string::npos)
      << over.err;
}

TEST(serving_cli_test, min_stream_tps_keeps_every_stream_above_the_floor) {
  json free = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--objective",
                    "throughput"})["serving"];
  json floor = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--objective",
                     "throughput", "--min-stream-tps", "9.5"})["serving"];
  // --min-stream-tps 9.5 is --tpot-ms 105.26: every request's tokens, other requests' prefills
  // included, come that fast or faster.
  EXPECT_LE(num(floor["tpot_ms"]), 1000 / 9.5 + 1e-3);
  EXPECT_NEAR(num(floor["targets"]["tpot_ms"]), 1000 / 9.5, 1e-3);
  EXPECT_LT(floor["requests_in_flight"].get<int>(), free["requests_in_flight"].get<int>());
  EXPECT_LT(num(floor["aggregate_tokens_per_s"]), num(free["aggregate_tokens_per_s"]));
  json same = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--tpot-ms",
                    std::to_string(1000 / 9.5)})["serving"];
  EXPECT_EQ(same["requests_in_flight"], floor["requests_in_flight"]);
  auto none = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--objective",
                            "throughput", "--min-stream-tps", "500"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("against --tpot-ms 2 ("), std::string::npos) << none.err;
  auto both = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--tpot-ms", "50",
                            "--min-stream-tps", "20"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("give one"), std::string::npos) << both.err;
}

// The same load stated as arrivals: the rate a closed loop of 4 finishes keeps about 4 in
// flight, with the same means; arrivals beyond what the host finishes fail naming its most.
TEST(serving_cli_test, a_rate_is_the_load_its_closed_loop_finishes) {
  const std::vector<std::string> base = {"-c",      kAir,      "-m", "llama-3.3-70b-4bit",
                                         "--hosts", "studio-a"};
  auto args = base;
  args.insert(args.end(), {"--concurrency", "4"});
  json closed = plan(args)["serving"];
  const double rate = num(closed["requests_per_s"]);
  args = base;
  args.insert(args.end(), {"--rate", std::to_string(rate)});
  json open = plan(args)["serving"];
  EXPECT_EQ(open["load"]["kind"], "poisson");
  EXPECT_NEAR(num(open["load"]["rate_per_s"]), rate, 1e-6);
  EXPECT_EQ(open["requests_in_flight"].get<int>(), 4);
  EXPECT_NEAR(num(open["tpot_ms"]), num(closed["tpot_ms"]), num(closed["tpot_ms"]) * 0.01);
  EXPECT_NEAR(num(open["ttft_ms"]), num(closed["ttft_ms"]), num(closed["ttft_ms"]) * 0.01);
  args = base;
  args.insert(args.end(), {"--rate", "50"});
  args.insert(args.begin(), "plan");
  auto over = run_meshplan(args);
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_NE(over.err.find("--rate 50: one copy on studio-a finishes at most"), std::string::npos)
      << over.err;
  auto both = run_meshplan(
      {"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--rate", "1", "--concurrency", "4"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("two ways to state the load"), std::string::npos) << both.err;
}

// Targets without a load: as many requests as keep both means within them, and one more would
// not; a target nothing meets says which and by how much.
TEST(serving_cli_test, targets_choose_the_most_requests_that_meet_them) {
  const std::vector<std::string> base = {"-c",      kAir,      "-m", "llama-3.3-70b-4bit",
                                         "--hosts", "studio-a"};
  auto args = base;
  args.insert(args.end(), {"--ttft-ms", "6000", "--tpot-ms", "150"});
  json s = plan(args)["serving"];
  EXPECT_EQ(s["objective"], "throughput") << "a target implies it";
  EXPECT_LE(num(s["ttft_ms"]), 6000);
  EXPECT_LE(num(s["tpot_ms"]), 150);
  EXPECT_EQ(num(s["targets"]["ttft_ms"]), 6000);
  const int n = s["requests_in_flight"].get<int>();
  ASSERT_GT(n, 1);
  auto more = base;
  more.insert(more.begin(), "plan");
  more.insert(more.end(),
              {"--ttft-ms", "6000", "--tpot-ms", "150", "--concurrency", std::to_string(n + 1)});
  auto r = run_meshplan(more);
  EXPECT_EQ(r.exit_code, 1) << "one more request misses a target";
  EXPECT_NE(r.err.find("% over)"), std::string::npos) << r.err;
  auto never = run_meshplan(
      {"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-a", "--ttft-ms", "100"});
  EXPECT_EQ(never.exit_code, 1);
  EXPECT_NE(never.err.find("a mean time to first token of "), std::string::npos) << never.err;
  EXPECT_NE(never.err.find("against --ttft-ms 100 ("), std::string::npos) << never.err;
}

TEST(serving_cli_test, replicas_beat_one_pipeline_for_throughput_and_lose_for_latency) {
  // Both hosts hold the model. 32 requests in flight in all: shared by two copies they serve more
  // than in one copy over both hosts (or on the faster one alone).
  json thr = plan({"-c", kPair, "-m", "llama-3.3-70b-4bit", "--objective", "throughput",
                   "--concurrency", "32"});
  json lat = plan(
      {"-c", kPair, "-m", "llama-3.3-70b-4bit", "--objective", "latency", "--concurrency", "32"});
  ASSERT_EQ(thr["replicas"].size(), 2u);
  EXPECT_FALSE(lat.contains("replicas"));
  EXPECT_EQ(thr["serving"]["requests_in_flight"], 32) << "the load in total, not per copy";
  EXPECT_EQ(lat["serving"]["requests_in_flight"], 32);
  double shares = 0, sum = 0, rate = 0;
  int in_flight = 0;
  for (const auto& r : thr["replicas"]) {
    shares += num(r["request_share"]);
    sum += num(r["aggregate_tokens_per_s"]);
    rate += num(r["requests_per_s"]);
    in_flight += r["requests_in_flight"].get<int>();
    // The balancer's weight is the replica's part of the requests finished a second.
    EXPECT_NEAR(num(r["request_share"]),
                num(r["requests_per_s"]) / num(thr["serving"]["requests_per_s"]), 2e-3);
  }
  EXPECT_EQ(in_flight, 32);
  EXPECT_NEAR(shares, 1.0, 1e-3);
  EXPECT_NEAR(sum, num(thr["serving"]["aggregate_tokens_per_s"]), 1e-2);
  EXPECT_NEAR(rate, num(thr["serving"]["requests_per_s"]), 1e-3);
  // Two requests in flight: the faster host batches both for nearly the price of one, more than
  // one request on each copy serves.
  json two = plan(
      {"-c", kPair, "-m", "llama-3.3-70b-4bit", "--objective", "throughput", "--concurrency", "2"});
  EXPECT_FALSE(two.contains("replicas"));
  EXPECT_EQ(two["serving"]["requests_in_flight"], 2);
  // Throughput: the replicas beat one copy of the latency plan (its baseline).
  EXPECT_GT(num(thr["serving"]["aggregate_tokens_per_s"]),
            num(lat["serving"]["aggregate_tokens_per_s"]) * 1.3);
  bool found = false;
  for (const auto& b : thr["baselines"]) {
    if (b["solver"] != "latency-plan") continue;
    found = true;
    EXPECT_GT(num(b["speedup"]), 1.3);
  }
  EXPECT_TRUE(found);
}

TEST(serving_cli_test, two_models_on_the_studio_air_fabric_each_where_it_fits_best) {
  const std::string file = source_path("tests/fixtures/workloads/two-models.yaml");
  auto r = run_meshplan({"plan", "--json", "-c", kAir, "--workload", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json w = json::parse(r.out);
  EXPECT_EQ(w["schema"], "meshplan.workload-plan/1");
  ASSERT_EQ(w["plans"].size(), 2u);
  const json& big = w["plans"][0]["plan"];
  const json& small = w["plans"][1]["plan"];
  EXPECT_EQ(big["model"]["name"], "qwen3-235b-a22b-8bit");
  // The 235B model only fits the 444 GB Studio; the 70B model gets the other one.
  ASSERT_EQ(big["ranks"].size(), 1u);
  ASSERT_EQ(small["ranks"].size(), 1u);
  EXPECT_EQ(big["ranks"][0]["host"], "studio-a");
  EXPECT_EQ(small["ranks"][0]["host"], "studio-b");
  for (const json* p : {&big, &small}) {
    const json& rank = (*p)["ranks"][0];
    EXPECT_LE(num(rank["weight_bytes"]) + num((*p)["serving"]["kv_bytes"]),
              num(rank["usable_bytes"]));
  }
  // Each model's figures are its plan alone on that host at the workload's lengths.
  json alone = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit", "--hosts", "studio-b", "--context",
                     "8192", "--prompt", "1000", "--objective", "throughput"});
  EXPECT_NEAR(num(small["serving"]["aggregate_tokens_per_s"]),
              num(alone["serving"]["aggregate_tokens_per_s"]), 1e-2);
  EXPECT_NEAR(num(small["predicted"]["ttft_ms"]), num(alone["predicted"]["ttft_ms"]), 1e-3);
}

TEST(serving_cli_test, ray_cluster_pins_each_models_tasks_to_its_hosts) {
  const std::string file = source_path("tests/fixtures/workloads/two-models.yaml");
  const std::string plan_file = temp_dir() + "/workload-plan.json";
  auto p = run_meshplan({"plan", "--json", "-c", kAir, "--workload", file, "-o", plan_file});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json w = json::parse(testing::read_text(plan_file));
  auto r =
      run_meshplan({"emit", "ray-cluster", "-c", kAir, "--plan", plan_file, "--user", "admin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Each host starts with a resource for each model the workload plan put on it, and no other.
  YAML::Node ray = YAML::Load(r.out);
  std::vector<std::string> starts{ray["head_start_ray_commands"][1].as<std::string>()};
  for (const auto& h : {"studio-a", "studio-b"}) {
    size_t at = r.out.find(std::string("# on ") + h + ": ");
    ASSERT_NE(at, std::string::npos) << r.out;
    std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    for (const auto& entry : w["plans"]) {
      std::string model = entry["plan"]["model"]["name"];
      bool serves = entry["plan"]["ranks"][0]["host"] == h;
      EXPECT_EQ(line.find("\"model:" + model + "\":1") != std::string::npos, serves)
          << h << " / " << model << ": " << line;
    }
  }
  EXPECT_NE(starts[0].find("\"model:qwen3-235b-a22b-8bit\":1,\"node:studio-a\":1"),
            std::string::npos)
      << starts[0];
  EXPECT_NE(r.out.find("# llama-3.3-70b-4bit runs on studio-b: "
                       "@ray.remote(resources={\"model:llama-3.3-70b-4bit\": 1})"),
            std::string::npos)
      << r.out;
  // Formats that follow one plan's ranks refuse a workload plan, naming the file.
  auto mpi = run_meshplan({"emit", "openmpi-hostfile", "-c", kAir, "--plan", plan_file});
  EXPECT_EQ(mpi.exit_code, 2);
  EXPECT_NE(mpi.err.find(plan_file + ": a workload plan drives ray-cluster only"),
            std::string::npos)
      << mpi.err;
}

TEST(serving_cli_test, workload_file_errors_name_file_position_and_form) {
  const std::string dir = temp_dir();
  const std::string bad = dir + "/bad.yaml";
  std::ofstream(bad) << "schema: meshplan.workload/1\nmodels:\n  - {model: llama-3.3-70b-4bit, "
                        "share: -1}\n";
  auto r = run_meshplan({"plan", "-c", kAir, "--workload", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/models/0/share"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected a share"), std::string::npos) << r.err;
  const std::string unknown = dir + "/unknown.yaml";
  std::ofstream(unknown) << "schema: meshplan.workload/1\nmodels:\n  - {model: llama-3.3-70b-4bit, "
                            "streams: 4}\n";
  r = run_meshplan({"plan", "-c", kAir, "--workload", unknown});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("streams"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kAir, "--workload", unknown, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(serving_cli_test, long_prompt_picks_disaggregation_and_a_short_one_does_not) {
  // exo 1.0's setup: Llama 3.1 8B FP16, an 8192-token prompt, prefill on the Spark. No engine of a
  // Spark and a Mac hands a request from one to the other as told: the plan for the hosts' engine
  // keeps its shape and says what prefill on the Spark would gain.
  auto table = run_meshplan({"plan", "-c", kSpark, "-m", "llama-3.1-8b-fp16", "--prompt", "8192",
                             "--output-tokens", "32", "--objective", "latency"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Note: prefill on spark with decode on studio would take"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("it is not chosen: llama.cpp RPC does not hand a request"),
            std::string::npos)
      << table.out;
  // --engine any chooses the fastest shape, whatever runs it.
  json p = plan({"-c", kSpark, "-m", "llama-3.1-8b-fp16", "--prompt", "8192", "--output-tokens",
                 "32", "--objective", "latency", "--engine", "any"});
  ASSERT_FALSE(p["shapes"].empty());
  EXPECT_EQ(p["output_tokens"], 32);
  json chosen, spark, studio;
  for (const auto& s : p["shapes"]) {
    if (s["chosen"].get<bool>()) chosen = s;
    if (s["shape"] == "single" && s["decode_hosts"][0] == "spark") spark = s;
    if (s["shape"] == "single" && s["decode_hosts"][0] == "studio") studio = s;
  }
  ASSERT_FALSE(chosen.is_null());
  EXPECT_EQ(chosen["shape"], "disaggregated");
  EXPECT_EQ(chosen["prefill_hosts"][0], "spark");
  EXPECT_EQ(chosen["decode_hosts"][0], "studio");
  EXPECT_LT(num(chosen["end_to_end_ms"]), num(spark["end_to_end_ms"]));
  EXPECT_LT(num(chosen["end_to_end_ms"]), num(studio["end_to_end_ms"]));
  // The KV cache is streamed while the Spark still computes: TTFT is below prefill + transfer.
  EXPECT_LT(num(chosen["ttft_ms"]), num(spark["ttft_ms"]) + num(chosen["kv_transfer_ms"]));
  EXPECT_GE(num(chosen["ttft_ms"]), num(spark["ttft_ms"]));
  EXPECT_NEAR(num(chosen["decode_tokens_per_s"]), num(studio["decode_tokens_per_s"]), 1e-3);

  json s = plan({"-c", kSpark, "-m", "llama-3.1-8b-fp16", "--prompt", "256", "--output-tokens",
                 "32", "--objective", "latency"});
  ASSERT_FALSE(s["shapes"].empty());
  // Below 8192 tokens the single hosts are compared and the Studio, decoding faster, is chosen.
  for (const auto& shape : s["shapes"]) {
    EXPECT_NE(shape["shape"], "disaggregated");
    if (shape["chosen"].get<bool>()) {
      EXPECT_EQ(shape["decode_hosts"][0], "studio");
    }
  }
}

TEST(serving_cli_test, plain_plans_have_no_serving_keys) {
  json p = plan({"-c", kAir, "-m", "llama-3.3-70b-4bit"});
  EXPECT_FALSE(p.contains("serving"));
  EXPECT_FALSE(p.contains("replicas"));
  EXPECT_FALSE(p.contains("shapes"));
  auto r = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--concurrency", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Serving (latency): 4 requests in flight in all"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace meshplan::serving_cli_test

namespace meshplan::serving_cli_test {
namespace {

// vLLM on two GPU hosts, a long prompt: prefill on the RTX PRO 6000 (more FLOP/s), decode on the
// A100 (more bandwidth) is chosen, and `emit all` starts exactly that pair: each vllm serve with
// the NixlConnector (docs/features/nixl_connector_usage.md) on its data address, and
// vllm-router --pd-disaggregation (vllm-project/router) in front.
TEST(serving_cli_test, vllm_prefill_and_decode_apart_launch_as_chosen) {
  const std::string cluster =
      testing::source_path("tests/fixtures/clusters/pro6000-a100-pair.yaml");
  const std::string plan_file = testing::temp_dir() + "/pd.json";
  auto p =
      testing::run_meshplan({"plan", "-c", cluster, "-m", "llama-3.1-8b-bf16", "--prompt", "16384",
                             "--context", "20000", "--output-tokens", "256", "-o", plan_file});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.rfind("llama-3.1-8b-bf16 served with prefill on pro6000 and decode on a100", 0),
            0u)
      << p.out;
  const nlohmann::json plan = nlohmann::json::parse(testing::read_text(plan_file));
  EXPECT_EQ(plan["engine"], "vllm");
  const std::string dir = testing::temp_dir() + "/pd-launch";
  auto e = testing::run_meshplan({"emit", "all", "-c", cluster, "--plan", plan_file, "--model",
                                  "meta-llama/Llama-3.1-8B", "-o", dir});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  // One vLLM over the ranks would not be the chosen shape: only the pair is started.
  EXPECT_FALSE(std::filesystem::exists(dir + "/vllm.sh"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/slurm.sbatch"));
  const std::string sh = testing::read_text(dir + "/vllm-disaggregated.sh");
  const std::string kv = R"('{"kv_connector":"NixlConnector","kv_role":"kv_both"}')";
  EXPECT_NE(sh.find("# prefill on pro6000 (1 GPU):\nVLLM_NIXL_SIDE_CHANNEL_HOST=10.20.0.1 "
                    "VLLM_NIXL_SIDE_CHANNEL_PORT=5600 UCX_NET_DEVICES=mlx5_0:1 vllm serve "
                    "meta-llama/Llama-3.1-8B --host 0.0.0.0 --port 8100 --tensor-parallel-size 1 "
                    "--kv-transfer-config " +
                    kv),
            std::string::npos)
      << sh;
  EXPECT_NE(sh.find("# decode on a100 (1 GPU):\nVLLM_NIXL_SIDE_CHANNEL_HOST=10.20.0.2 "),
            std::string::npos)
      << sh;
  EXPECT_NE(sh.find("vllm-router --pd-disaggregation --prefill http://192.168.7.10:8100 --decode "
                    "http://192.168.7.11:8200 --host 0.0.0.0 --port 8000\n"),
            std::string::npos)
      << sh;
  const std::string guide = testing::read_text(dir + "/LAUNCH.md");
  EXPECT_NE(guide.find("vLLM, prefill and decode apart"), std::string::npos) << guide;
  EXPECT_NE(guide.find("`curl http://192.168.7.11:8000/v1/models` (on a100)"), std::string::npos)
      << guide;
  // A plan that keeps prefill and decode together has no such launch.
  const std::string together = testing::temp_dir() + "/together.json";
  ASSERT_EQ(
      testing::run_meshplan({"plan", "-c", cluster, "-m", "llama-3.1-8b-bf16", "-o", together})
          .exit_code,
      0);
  auto refused = testing::run_meshplan({"emit", "vllm-disagg", "-c", cluster, "--plan", together});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("does not choose prefill on one host and decode on another"),
            std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace meshplan::serving_cli_test
