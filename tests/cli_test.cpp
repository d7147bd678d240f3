// Runs the real binary, as a user would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");

TEST(cli_test, plan_json_covers_every_layer_once_within_memory) {
  auto r = run_meshplan({"plan", "-c", kM3, "-m", "deepseek-v3.1-4bit", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  EXPECT_EQ(plan["schema"], "meshplan.plan/1");
  EXPECT_EQ(plan["model"]["name"], "deepseek-v3.1-4bit");
  EXPECT_EQ(plan["model"]["layers"], 61);
  int next = 0;
  for (const auto& rank : plan["ranks"]) {
    EXPECT_EQ(rank["layers"][0].get<int>(), next);
    next = rank["layers"][1].get<int>();
    EXPECT_LE(rank["total_bytes"].get<double>(), rank["usable_bytes"].get<double>()) << rank["host"];
  }
  EXPECT_EQ(next, 61);
  EXPECT_GT(plan["predicted"]["decode_tokens_per_s"].get<double>(), 0);
  for (const char* key : {"token_latency_ms", "ttft_ms", "bottleneck"}) EXPECT_TRUE(plan["predicted"].contains(key)) << key;
  for (const char* key : {"bound", "baseline", "solver", "alternatives", "context", "prompt", "strategy", "backend"})
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
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--context", "100000000", "-o", out});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(json::parse(testing::read_text(out))["model"]["name"], "llama-3.3-70b-4bit");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(cli_test, model_that_does_not_fit_exits_1_naming_host_and_bytes) {
  auto r = run_meshplan({"plan", "-c", source_path("examples/clusters/mac-mini-m4-pro-x4.yaml"), "-m", "deepseek-v3.1-4bit"});
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
      {"type.json", R"({"hosts": [{"name": "a", "memory": "lots"}]})", "type.json (/hosts/0/memory): expected a size"},
      {"key.yaml", "hosts:\n  - name: a\n    color: red\n", "key.yaml:3:12 (/hosts/0/color): unknown key \"color\""},
      {"neg.yaml", "hosts:\n  - name: a\n    memory: -1GB\n", "neg.yaml:3:13 (/hosts/0/memory)"},
      {"chip.yaml", "hosts:\n  - name: a\n    chip: m7\n", "chip.yaml:3:11 (/hosts/0/chip): unknown chip \"m7\""},
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
  auto r = run_meshplan({"plan", "-c", "/nonexistent.yaml", "-m", "x"}, "", {"NO_COLOR=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent.yaml: cannot read"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\033["), std::string::npos);
}

}  // namespace
}  // namespace meshplan
