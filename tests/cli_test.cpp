// Runs the real binary, as a user would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::cli_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");

TEST(cli_test, plan_json_covers_every_layer_once_within_memory) {
  auto r = run_meshplan(
      {"plan", "-c", kM3, "-m", "deepseek-v3.1-4bit", "--strategy", "pipeline", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  EXPECT_EQ(plan["schema"], "meshplan.plan/2");
  EXPECT_EQ(plan["model"]["name"], "deepseek-v3.1-4bit");
  EXPECT_EQ(plan["model"]["layers"], 61);
  int next = 0;
  for (const auto& rank : plan["ranks"]) {
    EXPECT_EQ(rank["layers"][0].get<int>(), next);
    next = rank["layers"][1].get<int>();
    EXPECT_LE(rank["total_bytes"].get<double>(), rank["usable_bytes"].get<double>())
        << rank["host"];
  }
  EXPECT_EQ(next, 61);
  EXPECT_GT(plan["predicted"]["decode_tokens_per_s"].get<double>(), 0);
  for (const char* key : {"token_latency_ms", "ttft_ms", "bottleneck"})
    EXPECT_TRUE(plan["predicted"].contains(key)) << key;
  for (const char* key :
       {"bound", "baseline", "solver", "alternatives", "context", "prompt", "strategy", "backend"})
    EXPECT_TRUE(plan.contains(key)) << key;
}

TEST(cli_test, plan_table_names_hosts_and_prediction) {
  auto r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--prompt", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank  host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m3-ultra-1"), std::string::npos);
  EXPECT_NE(r.out.find("tokens/s decode"), std::string::npos);
  EXPECT_NE(r.out.find("for a 1000-token prompt"), std::string::npos);
  EXPECT_EQ(r.out.find("\033["), std::string::npos) << "no colour when stdout is not a terminal";
}

TEST(cli_test, plan_output_file_is_written_atomically) {
  std::string dir = testing::temp_dir();
  std::string out = dir + "/plan.json";
  auto r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(testing::read_text(out));
  EXPECT_EQ(plan["model"]["name"], "llama-3.3-70b-4bit");
  // A failing run leaves the existing file alone and no temporary files behind.
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.1-405b-8bit", "--hosts",
                    "m3-ultra-3,m3-ultra-4", "--context", "131072", "-o", out});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(json::parse(testing::read_text(out))["model"]["name"], "llama-3.3-70b-4bit");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(cli_test, model_that_does_not_fit_exits_1_naming_host_and_bytes) {
  auto r = run_meshplan({"plan", "-c", source_path("examples/clusters/mac-mini-m4-pro-x4.yaml"),
                         "-m", "deepseek-v3.1-4bit"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mini-"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB short"), std::string::npos) << r.err;
}

TEST(cli_test, bad_input_files_exit_2_with_position) {
  std::string dir = testing::temp_dir();
  struct Case {
    std::string file, text, expect;
  };
  std::vector<Case> cases = {
      {"bad.yaml", "hosts:\n  - name: a\n    memory: [1\n", "bad.yaml:"},
      {"type.json", R"({"hosts": [{"name": "a", "memory": "lots"}]})",
       "type.json (/hosts/0/memory): expected a size"},
      {"key.yaml", "hosts:\n  - name: a\n    color: red\n",
       "key.yaml:3:12 (/hosts/0/color): unknown key \"color\""},
      {"neg.yaml", "hosts:\n  - name: a\n    memory: -1GB\n", "neg.yaml:3:13 (/hosts/0/memory)"},
      {"chip.yaml", "hosts:\n  - name: a\n    chip: m7\n",
       "chip.yaml:3:11 (/hosts/0/chip): unknown chip \"m7\""},
  };
  for (const auto& c : cases) {
    std::string path = dir + "/" + c.file;
    std::ofstream(path) << c.text;
    auto r = run_meshplan({"plan", "-c", path, "-m", "llama-3.2-3b-4bit"});
    EXPECT_EQ(r.exit_code, 2) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.file << ": " << r.err;
  }
}

TEST(cli_test, usage_errors_exit_2_and_help_shows_examples_first) {
  auto r = run_meshplan({"plan", "-c", kM3});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
  r = run_meshplan({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_meshplan({"plan", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(r.out.find("Examples:"), r.out.find("Options:")) << r.out;
  r = run_meshplan({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("meshplan "), std::string::npos);
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.2-3b-4bit", "--backend", "carrier-pigeon"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(cli_test, cluster_from_stdin) {
  auto r = run_meshplan({"plan", "-c", "-", "-m", "llama-3.2-3b-4bit", "--json"},
                        "hosts:\n  - {name: solo, chip: m4-max-40c, memory: 128GiB}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  ASSERT_EQ(plan["ranks"].size(), 1u);
  EXPECT_TRUE(plan["ranks"][0]["hop_to_next"].is_null());
  EXPECT_EQ(plan["backend"], "none");
}

TEST(cli_test, chips_lists_catalog_with_sources) {
  auto r = run_meshplan({"chips", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json chips = json::parse(r.out);
  bool found = false;
  for (const auto& c : chips) {
    EXPECT_TRUE(c.contains("name"));
    EXPECT_TRUE(c["sources"].contains("mem_bandwidth_GBps")) << c["name"];
    if (c["name"] == "m3-ultra-80c") {
      found = true;
      EXPECT_EQ(c["mem_bandwidth_bytes_per_s"].get<double>(), 819e9);
      EXPECT_EQ(c["machines"][0], "mac-studio-m3-ultra");
    }
  }
  EXPECT_TRUE(found);
  r = run_meshplan({"chips"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("mac-mini-m4-pro"), std::string::npos);
  EXPECT_NE(r.out.find("Cost-model defaults"), std::string::npos);
}

TEST(cli_test, no_color_even_on_error) {
  auto r = run_meshplan({"plan", "-c", "/nonexistent.yaml", "-m", "llama-3.2-3b-4bit"}, "",
                        {"NO_COLOR=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent.yaml: cannot read"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\033["), std::string::npos);
}

}  // namespace
}  // namespace meshplan::cli_test

namespace meshplan::cli_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3x4 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");

double tokens_per_s(const std::vector<std::string>& args) {
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out)["predicted"]["decode_tokens_per_s"].get<double>()
                          : 0;
}

// 4 x M3 Ultra, Qwen3-235B-A22B 8-bit (measured by Jeff Geerling, Dec 2025: exo's tensor parallel
// over RDMA 19.5 -> 26.2 -> 31.9 tokens/s on 1, 2, 4 Macs; llama.cpp's pipeline over TCP 20.4 ->
// 17.2 -> 15.2): the predictions move the same way.
TEST(cli_test, tensor_over_rdma_rises_and_pipeline_over_tcp_falls_with_more_macs) {
  const std::vector<std::string> hosts = {"m3-ultra-1", "m3-ultra-1,m3-ultra-2",
                                          "m3-ultra-1,m3-ultra-2,m3-ultra-3,m3-ultra-4"};
  std::vector<double> tensor, pipeline;
  for (size_t i = 0; i < hosts.size(); ++i) {
    std::string n = std::to_string(i == 2 ? 4 : i + 1);
    std::vector<std::string> base = {
        "plan",    "-c",     kM3x4,         "-m", "qwen3-235b-a22b-8bit",
        "--hosts", hosts[i], "--min-hosts", n,    "--json"};
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> a = base;
      a.insert(a.end(), extra.begin(), extra.end());
      return a;
    };
    tensor.push_back(tokens_per_s(with({"--strategy", "tensor", "--backend", "jaccl"})));
    pipeline.push_back(tokens_per_s(with({"--strategy", "pipeline", "--backend", "ring"})));
  }
  EXPECT_LT(tensor[0], tensor[1]);
  EXPECT_LT(tensor[1], tensor[2]);
  EXPECT_GT(pipeline[0], pipeline[1]);
  EXPECT_GT(pipeline[1], pipeline[2]);
}

TEST(cli_test, tensor_and_expert_plans_carry_shares_and_expert_lists) {
  auto r = run_meshplan(
      {"plan", "-c", kM3x4, "-m", "deepseek-v3.1-4bit", "--strategy", "tensor", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  EXPECT_EQ(plan["strategy"], "tensor");
  double shares = 0;
  for (const auto& rank : plan["ranks"]) {
    shares += rank["share"].get<double>();
    EXPECT_LE(rank["total_bytes"].get<double>(), rank["usable_bytes"].get<double>());
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_EQ(plan["collective"]["kind"], "JACCL mesh");
  EXPECT_EQ(plan["collective"]["layers"], 61);
  EXPECT_LE(plan["bound"]["token_latency_ms"].get<double>(),
            plan["predicted"]["token_latency_ms"].get<double>());
  EXPECT_EQ(plan["baseline"]["solver"], "proportional");

  r = run_meshplan(
      {"plan", "-c", kM3x4, "-m", "deepseek-v3.1-4bit", "--strategy", "expert", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  plan = json::parse(r.out);
  EXPECT_EQ(plan["strategy"], "expert");
  for (const auto& rank : plan["ranks"]) {
    ASSERT_EQ(rank["experts"].size(), 61u);
    EXPECT_TRUE(rank["experts"][0].empty()) << "layer 0 is dense";
    EXPECT_FALSE(rank["experts"][3].empty());
  }
  EXPECT_EQ(plan["figures"]["layers"][3]["experts"], 256);

  r = run_meshplan({"plan", "-c", kM3x4, "-m", "deepseek-v3.1-4bit", "--strategy", "expert",
                    "--min-hosts", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("as expert parallel over 4 hosts"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 0 m3-ultra-1: layers 3-60: experts 0-63"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Collective: JACCL mesh over tb5-rdma"), std::string::npos) << r.out;
}

TEST(cli_test, auto_strategy_lists_the_alternatives) {
  auto r = run_meshplan({"plan", "-c", kM3x4, "-m", "llama-3.3-70b-4bit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Alternative pipeline: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Alternative expert: not possible (not an MoE model"), std::string::npos)
      << r.out;
}

TEST(cli_test, expert_load_file_is_checked_and_used) {
  std::string dir = testing::temp_dir();
  std::string bad = dir + "/bad.yaml";
  std::ofstream(bad) << "layers:\n  - layer: 3\n    load: [1, 2, 3]\n";
  auto r = run_meshplan({"plan", "-c", kM3x4, "-m", "deepseek-v3.1-4bit", "--strategy", "expert",
                         "--expert-load", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:3:11"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected 256 loads"), std::string::npos) << r.err;

  std::string good = dir + "/good.json";
  json load = {{"schema", "meshplan.expert-load/1"}, {"layers", json::array()}};
  std::vector<double> f(256, 1.0);
  f[5] = 300;
  load["layers"].push_back({{"layers", "3-60"}, {"load", f}});
  std::ofstream(good) << load.dump();
  r = run_meshplan({"plan", "-c", kM3x4, "-m", "deepseek-v3.1-4bit", "--strategy", "expert",
                    "--expert-load", good});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("expert load from " + good), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("extra copies of the busiest experts"), std::string::npos) << r.out;
}

TEST(cli_test, uneven_tensor_split_is_marked_and_impossible_groups_say_why) {
  auto r = run_meshplan({"plan", "-c", kM3x4, "-m", "qwen3-235b-a22b-8bit", "--strategy", "tensor",
                         "--min-hosts", "3", "--max-hosts", "3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("head count not divisible"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kM3x4, "-m", "qwen3-235b-a22b-8bit", "--strategy", "tensor",
                    "--min-hosts", "3", "--max-hosts", "3", "--allow-uneven"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("needs engine support for uneven shards"), std::string::npos) << r.out;
  r = run_meshplan({"plan", "-c", source_path("examples/clusters/thunderbolt4-star-3.yaml"), "-m",
                    "llama-3.3-70b-4bit", "--strategy", "tensor", "--backend", "jaccl",
                    "--min-hosts", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no all-reduce path"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::cli_test
